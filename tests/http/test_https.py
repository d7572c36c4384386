"""greenhouse-http serving HTTPS (the TLS library it was built with, OpenSSL
or Mbed TLS, behind the same binding) with a test certificate made for the run: calls over TLS with keep-alive, a plain-HTTP or
failed-handshake client does not disturb it, and a missing key is refused."""

from __future__ import annotations

import socket
import ssl
import subprocess
import threading

import pytest

from http_support import Conn, HttpServer, call_body, modern_body, modern_headers


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    crt, key = d / "cert.pem", d / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-nodes", "-keyout", str(key), "-out", str(crt), "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return str(crt), str(key)


def client_ctx(crt: str) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=crt)
    return ctx


def test_https_calls_with_keepalive(start, cert):
    crt, key = cert
    srv = start("--tls-cert", crt, "--tls-key", key)
    assert srv.scheme == "https"
    c = Conn(srv.port, tls=client_ctx(crt))
    assert c.sock.version() in ("TLSv1.2", "TLSv1.3")
    r = c.request("POST", "/mcp", modern_headers("tools/call", "set_vent"), call_body("set_vent", {"percent": 10}))
    assert r.status == 200 and r.json()["result"]["structuredContent"]["percent"] == 10
    # set_vent runs at most once every 2 s: the next one is refused, unrun.
    r = c.request("POST", "/mcp", modern_headers("tools/call", "set_vent"), call_body("set_vent", {"percent": 20}))
    assert r.status == 200 and r.json()["result"]["isError"] is True
    assert r.json()["result"]["content"][0]["text"].startswith("rate limited: retry in ")
    r = c.request("POST", "/mcp", modern_headers("tools/call", "read_sensor"),
                  call_body("read_sensor", {"sensor_id": "t2"}))
    assert r.status == 200 and r.json()["result"]["structuredContent"]["value"] == 34.1
    r = c.request("GET", "/mcp", {"Accept": "text/event-stream"})
    assert r.status == 405
    # A large response body crosses several TLS records and partial writes.
    r = c.request("POST", "/mcp", modern_headers("tools/list"), modern_body("tools/list"))
    assert r.status == 200 and len(r.json()["result"]["tools"]) == 2
    c.close()


def test_https_survives_bad_clients(start, cert):
    crt, key = cert
    srv = start("--tls-cert", crt, "--tls-key", key)
    # Plain HTTP on the TLS port: the handshake fails, the connection is dropped.
    plain = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
    plain.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
    plain.settimeout(5)
    try:
        data = plain.recv(4096)
    except (ConnectionResetError, socket.timeout):
        data = b""
    assert not data.startswith(b"HTTP/1.1 200")
    plain.close()
    # A client that distrusts the certificate aborts its handshake.
    with pytest.raises(ssl.SSLError):
        Conn(srv.port, tls=ssl.create_default_context())
    # A client that stalls mid-handshake does not block the others.
    stalled = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
    stalled.sendall(b"\x16\x03\x01\x00")
    errors = []

    def worker():
        try:
            c = Conn(srv.port, tls=client_ctx(crt))
            for _ in range(10):
                assert c.request("POST", "/mcp", modern_headers("tools/list"), modern_body("tools/list")).status == 200
            c.close()
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    stalled.close()
    assert not errors, errors


def test_https_needs_a_loadable_key(greenhouse_http_bin, cert, tmp_path):
    crt, _ = cert
    bogus = tmp_path / "nokey.pem"
    bogus.write_text("not a key\n")
    with pytest.raises(RuntimeError):
        HttpServer(greenhouse_http_bin, "--tls-cert", crt, "--tls-key", str(bogus))
