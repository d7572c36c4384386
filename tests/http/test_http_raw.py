"""Raw HTTP/1.1 against greenhouse-http: every status of the binding, Host/Origin
checks, bearer tokens, routing headers, legacy sessions, and hostile clients
(oversized bodies and headers, slow headers, too many connections) while
other clients are served."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import threading
import time

import pytest

from http_support import (ENVELOPE, LEGACY, MODERN, Conn, audit, binary, build, call_body, modern_body,
                          modern_headers)

JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def post(srv, body, headers=None, path="/mcp"):
    c = Conn(srv.port)
    try:
        return c.request("POST", path, headers if headers is not None else JSON_HEADERS, body)
    finally:
        c.close()


def rpc_error(resp) -> int:
    return resp.json()["error"]["code"]


def test_binding_selftest():
    """SipHash-2-4 known answers, session ids, constant-time compare, bearer hook."""
    path = binary("emcp-http-selftest", "EMCP_HTTP_SELFTEST", "build/tests/fixtures/emcp-http-selftest")
    r = subprocess.run([path], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr


# ---- the 2026-07-28 status table -------------------------------------------

def test_200_tools_call_and_list(server):
    r = post(server, call_body("set_vent", {"percent": 20}), modern_headers("tools/call", "set_vent"))
    assert r.status == 200 and r.headers["content-type"] == "application/json"
    res = r.json()["result"]
    assert res["structuredContent"] == {"ok": True, "percent": 20} and res["resultType"] == "complete"
    r = post(server, modern_body("tools/list", 2), modern_headers("tools/list"))
    assert r.status == 200 and [t["name"] for t in r.json()["result"]["tools"]] == ["read_sensor", "set_vent"]


def test_202_for_notifications_with_empty_body(server):
    note = {"jsonrpc": "2.0", "method": "tools/call",
            "params": {"_meta": ENVELOPE, "name": "set_vent", "arguments": {"percent": 99}}}
    r = post(server, note, modern_headers("tools/call", "set_vent"))
    assert (r.status, r.body) == (202, b"")
    assert server.audit_lines() == []  # never executed


@pytest.mark.parametrize("body,headers,status,code", [
    ("{nope", modern_headers("tools/list"), 400, -32700),
    ('[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]', modern_headers("tools/list"), 400, -32600),
    ({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}, modern_headers("tools/list"), 400, -32602),
    (call_body("nope", {}), modern_headers("tools/call", "nope"), 400, -32602),
    (modern_body("tools/list"), modern_headers("tools/call"), 400, -32020),
    ({"jsonrpc": "2.0", "id": 4, "method": "tools/list",
      "params": {"_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}}},
     modern_headers("tools/list", **{"MCP-Protocol-Version": "2099-01-01"}), 400, -32022),
    (modern_body("ping"), modern_headers("ping"), 404, -32601),
    (modern_body("initialize"), modern_headers("initialize"), 404, -32601),
    (modern_body("nope/x"), modern_headers("nope/x"), 404, -32601),
])
def test_error_statuses_carry_jsonrpc_bodies(server, body, headers, status, code):
    r = post(server, body, headers)
    assert r.status == status, r.body
    assert r.headers["content-type"] == "application/json"
    assert rpc_error(r) == code, r.body


def test_405_for_other_methods_404_for_other_paths(server):
    c = Conn(server.port)
    for method in ("GET", "DELETE", "PUT"):
        r = c.request(method, "/mcp", {"Accept": "text/event-stream"})
        assert r.status == 405 and r.headers["allow"] == "POST"
        assert "error" in r.json()
    r = c.request("POST", "/other", JSON_HEADERS, modern_body("tools/list"))
    assert r.status == 404
    r = c.request("POST", "/mcp?x=1", modern_headers("tools/list"), modern_body("tools/list"))
    assert r.status == 200  # a query string does not change the endpoint
    c.close()


def test_accept_and_content_type(server):
    h = modern_headers("tools/list")
    r = post(server, modern_body("tools/list"), {**h, "Accept": "text/html"})
    assert r.status == 406
    r = post(server, modern_body("tools/list"), {**h, "Content-Type": "text/plain"})
    assert r.status == 415
    r = post(server, modern_body("tools/list"), {**h, "Content-Type": "Application/JSON; charset=utf-8"})
    assert r.status == 200


# ---- Origin, Host, bearer token --------------------------------------------

def test_origin_and_host(start):
    srv = start("--allow-origin", "https://app.example")
    h = modern_headers("tools/list")
    body = modern_body("tools/list")
    assert post(srv, body, {**h, "Origin": "http://evil.example"}).status == 403
    assert post(srv, body, {**h, "Origin": "http://localhost.evil.example"}).status == 403
    assert post(srv, body, {**h, "Origin": "null"}).status == 403
    assert post(srv, body, {**h, "Origin": f"http://localhost:{srv.port}"}).status == 200
    assert post(srv, body, {**h, "Origin": "http://127.0.0.1"}).status == 200
    assert post(srv, body, {**h, "Origin": "https://app.example"}).status == 200
    # DNS rebinding: a loopback server refuses a foreign Host.
    assert post(srv, body, {**h, "Host": "evil.example.com"}).status == 403
    assert post(srv, body, {**h, "Host": f"localhost:{srv.port}"}).status == 200
    assert srv.audit_lines() == []


def test_bearer_token(start):
    srv = start("--token", "s3cret-token")
    h = modern_headers("tools/call", "set_vent")
    body = call_body("set_vent", {"percent": 5})
    r = post(srv, body, h)
    assert r.status == 401 and r.headers["www-authenticate"].startswith("Bearer")
    r = post(srv, body, {**h, "Authorization": "Bearer wrong"})
    assert r.status == 401 and 'error="invalid_token"' in r.headers["www-authenticate"]
    r = post(srv, body, {**h, "Authorization": "Bearer s3cret-toke"})
    assert r.status == 401
    assert srv.audit_lines() == []  # nothing ran
    r = post(srv, body, {**h, "Authorization": "Bearer s3cret-token"})
    assert r.status == 200 and r.json()["result"]["structuredContent"]["percent"] == 5
    # The single-token form names its principal "bearer-client".
    assert srv.audit_lines() == [audit("set_vent", {"percent": 5}, "ok", principal="bearer-client")]


# ---- routing headers ---------------------------------------------------------

def test_missing_and_wrong_routing_headers(server):
    body = call_body("set_vent", {"percent": 1})
    full = modern_headers("tools/call", "set_vent")
    for drop in ("MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"):
        h = {k: v for k, v in full.items() if k != drop}
        r = post(server, body, h)
        assert (r.status, rpc_error(r)) == (400, -32020), (drop, r.body)
    for key, value in (("Mcp-Method", "TOOLS/CALL"), ("Mcp-Name", "SET_VENT"), ("Mcp-Name", "read_sensor"),
                       ("MCP-Protocol-Version", "2025-11-25"), ("Mcp-Name", "=?base64?%%%?=")):
        r = post(server, body, {**full, key: value})
        assert (r.status, rpc_error(r)) == (400, -32020), (key, value, r.body)
    assert server.audit_lines() == []
    # Header names are case-insensitive, values may carry OWS or the base64 form.
    ok = {"content-type": "application/json", "accept": "application/json, text/event-stream",
          "mcp-protocol-version": MODERN, "MCP-METHOD": "tools/call",
          "mcp-name": "=?base64?" + base64.b64encode(b"set_vent").decode() + "?="}
    assert post(server, body, ok).status == 200
    assert post(server, body, {**full, "Mcp-Name": "  set_vent\t"}).status == 200


def test_duplicate_routing_header(server):
    raw = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           f"MCP-Protocol-Version: {MODERN}\r\nMcp-Method: tools/list\r\nMcp-Method: tools/list\r\n")
    body = json.dumps(modern_body("tools/list")).encode()
    c = Conn(server.port)
    c.send(raw.encode() + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    r = c.read_response()
    assert (r.status, rpc_error(r)) == (400, -32020)
    c.close()


# ---- legacy 2025-11-25 sessions ---------------------------------------------

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}


def test_legacy_session_minted_and_checked(start):
    srv = start()
    r = post(srv, INIT)
    assert r.status == 200 and r.json()["result"]["protocolVersion"] == LEGACY
    sid = r.headers["mcp-session-id"]
    assert len(sid) == 32 and all(ch in "0123456789abcdef" for ch in sid)
    again = post(srv, INIT).headers["mcp-session-id"]
    assert again != sid  # a counter, not a constant
    legacy_h = {**JSON_HEADERS, "MCP-Protocol-Version": LEGACY}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert post(srv, note, {**legacy_h, "Mcp-Session-Id": sid}).status == 202
    lst = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    r = post(srv, lst, {**legacy_h, "Mcp-Session-Id": sid})
    assert r.status == 200 and "resultType" not in r.json()["result"]
    r = post(srv, lst, legacy_h)
    assert (r.status, rpc_error(r)) == (400, -32600) and "session" in r.json()["error"]["message"].lower()
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "set_vent", "arguments": {"percent": 7}}}
    assert post(srv, call, legacy_h).status == 400
    bogus = sid[:-1] + ("0" if sid[-1] != "0" else "1")
    assert post(srv, lst, {**legacy_h, "Mcp-Session-Id": bogus}).status == 404
    assert post(srv, call, {**legacy_h, "Mcp-Session-Id": "not-a-session"}).status == 404
    assert srv.audit_lines() == []  # no call ran without a valid session
    assert post(srv, call, {**legacy_h, "Mcp-Session-Id": sid}).status == 200
    # GET (standalone stream) and DELETE are answered 405, as the revision allows.
    c = Conn(srv.port)
    assert c.request("GET", "/mcp", {"Accept": "text/event-stream", "Mcp-Session-Id": sid}).status == 405
    assert c.request("DELETE", "/mcp", {"Mcp-Session-Id": sid}).status == 405
    c.close()
    # A restarted server has a new key: the old id is unknown (404), re-initialize.
    srv2 = start()
    assert post(srv2, lst, {**legacy_h, "Mcp-Session-Id": sid}).status == 404
    # A modern request ignores Mcp-Session-Id altogether.
    assert post(srv2, modern_body("tools/list"), {**modern_headers("tools/list"), "Mcp-Session-Id": "junk"}).status == 200


# ---- hostile clients -----------------------------------------------------------

def test_oversized_body_413(server):
    c = Conn(server.port)
    big = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"' + b"a" * 200_000 + b'"}}'
    c.send(build("POST", "/mcp", modern_headers("tools/list"), None).replace(b"\r\n\r\n", b"") +
           f"\r\nContent-Length: {len(big)}\r\n\r\n".encode())
    r = c.read_response()
    assert r.status == 413 and r.headers.get("connection") == "close"
    try:
        c.send(big)
    except OSError:
        pass
    assert c.closed_by_peer()
    c.close()
    # Chunked, over the limit as it arrives.
    c = Conn(server.port)
    head = build("POST", "/mcp", {**modern_headers("tools/list"), "Transfer-Encoding": "chunked"}, None)
    c.send(head)
    try:
        for _ in range(20):
            c.send(b"1000\r\n" + b"a" * 0x1000 + b"\r\n")
    except OSError:
        pass
    assert c.read_response().status == 413
    c.close()
    # The server still serves.
    assert post(server, modern_body("tools/list"), modern_headers("tools/list")).status == 200


def test_chunked_body_within_limit(server):
    body = json.dumps(call_body("set_vent", {"percent": 3})).encode()
    head = build("POST", "/mcp", {**modern_headers("tools/call", "set_vent"), "Transfer-Encoding": "chunked"}, None)
    c = Conn(server.port)
    c.send(head + b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (10, body[:10], len(body) - 10, body[10:]))
    r = c.read_response()
    assert r.status == 200 and r.json()["result"]["structuredContent"]["percent"] == 3
    c.close()


def test_oversized_headers_431(server):
    c = Conn(server.port)
    r = c.request("POST", "/mcp", {**modern_headers("tools/list"), "X-Junk": "j" * 8000}, modern_body("tools/list"))
    assert r.status == 431
    c.close()
    c = Conn(server.port)
    many = {f"X-H{i}": "v" for i in range(100)}
    assert c.request("POST", "/mcp", {**modern_headers("tools/list"), **many}, modern_body("tools/list")).status == 431
    c.close()


def test_malformed_request_400(server):
    c = Conn(server.port)
    c.send(b"HELLO / WORLD\r\n\r\n")
    assert c.read_response().status == 400
    assert c.closed_by_peer()
    c.close()


def test_pipelined_requests_in_order(server):
    c = Conn(server.port)
    reqs = b"".join(build("POST", "/mcp", modern_headers("tools/call", "set_vent"), call_body("set_vent", {"percent": p}, p))
                    for p in (11, 12, 13))
    c.send(reqs)
    got = [c.read_response().json() for _ in range(3)]
    assert [r["id"] for r in got] == [11, 12, 13]
    assert got[0]["result"]["structuredContent"]["percent"] == 11
    # Within set_vent's 2 s rate limit: refused, unrun, still answered in order.
    for r in got[1:]:
        assert r["result"]["isError"] is True, r
        assert r["result"]["content"][0]["text"].startswith("rate limited: retry in "), r
    c.close()
    assert server.audit_lines() == [
        audit("set_vent", {"percent": 11}, "ok"),
        audit("set_vent", {"percent": 12}, "rate_limited"),
        audit("set_vent", {"percent": 13}, "rate_limited"),
    ]


def test_slow_headers_are_cut_off_while_others_are_served(start):
    srv = start("--header-timeout-ms", "1500")
    slow = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    stop = threading.Event()
    cut = {}

    def dribble():
        req = build("POST", "/mcp", modern_headers("tools/list"), modern_body("tools/list"))
        t0 = time.monotonic()
        try:
            for b in req:
                if stop.is_set():
                    return
                slow.sendall(bytes([b]))
                time.sleep(0.05)
        except OSError:
            pass
        cut["after"] = time.monotonic() - t0

    t = threading.Thread(target=dribble, daemon=True)
    t.start()
    # Meanwhile another client gets prompt answers.
    c = Conn(srv.port)
    worst = 0.0
    t_end = time.monotonic() + 1.0
    while time.monotonic() < t_end:
        t0 = time.monotonic()
        assert c.request("POST", "/mcp", modern_headers("tools/list"), modern_body("tools/list")).status == 200
        worst = max(worst, time.monotonic() - t0)
    c.close()
    assert worst < 0.5, f"a request took {worst:.3f} s while a slow client dribbled headers"
    # The dribbler hears 408 (or a close) once the header timeout passes.
    slow.settimeout(5)
    data = b""
    try:
        while True:
            chunk = slow.recv(4096)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    stop.set()
    t.join(timeout=5)
    slow.close()
    assert data.startswith(b"HTTP/1.1 408"), data[:80]


def test_idle_keepalive_connection_is_closed(start):
    srv = start("--idle-timeout-ms", "500")
    c = Conn(srv.port)
    assert c.request("POST", "/mcp", modern_headers("tools/list"), modern_body("tools/list")).status == 200
    t0 = time.monotonic()
    assert c.closed_by_peer(timeout=5)
    assert time.monotonic() - t0 < 3
    c.close()


def test_connection_limit_503(start):
    srv = start("--max-conns", "2")
    held = [Conn(srv.port) for _ in range(2)]
    for c in held:  # make sure both are accepted and served
        assert c.request("POST", "/mcp", modern_headers("tools/list"), modern_body("tools/list")).status == 200
    extra = Conn(srv.port)
    r = extra.request("POST", "/mcp", modern_headers("tools/list"), modern_body("tools/list"))
    assert r.status == 503 and rpc_error(r) == -32603
    extra.close()
    held[0].close()
    time.sleep(0.2)
    again = Conn(srv.port)
    assert again.request("POST", "/mcp", modern_headers("tools/list"), modern_body("tools/list")).status == 200
    again.close()
    held[1].close()


def test_64_concurrent_keepalive_clients(server):
    n_clients, n_requests = 64, 25
    errors: list[str] = []
    barrier = threading.Barrier(n_clients)

    def client(i: int) -> None:
        try:
            c = Conn(server.port, timeout=20)
            barrier.wait(timeout=20)
            for k in range(n_requests):
                pct = (i + k) % 101
                r = c.request("POST", "/mcp", modern_headers("tools/call", "read_sensor"),
                              call_body("read_sensor", {"sensor_id": "t2"}, id_=f"c{i}-{k}"))
                body = r.json()
                if r.status != 200 or body["id"] != f"c{i}-{k}" or body["result"]["structuredContent"]["value"] != 34.1:
                    errors.append(f"client {i} request {k}: {r.status} {r.body[:100]!r}")
                    return
                del pct
            c.close()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"client {i}: {e!r}")

    threads = [threading.Thread(target=client, args=(i,)) for i in range(n_clients)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    elapsed = time.monotonic() - t0
    assert not errors, errors[:5]
    assert len(server.audit_lines()) == n_clients * n_requests
    print(f"\n64 clients x {n_requests} keep-alive requests in {elapsed:.2f} s")


def test_expect_100_continue(server):
    body = json.dumps(call_body("set_vent", {"percent": 9})).encode()
    head = build("POST", "/mcp", {**modern_headers("tools/call", "set_vent"), "Expect": "100-continue",
                                  "Content-Length": str(len(body))}, None)
    c = Conn(server.port)
    c.send(head)
    assert c.read_response().status == 100
    c.send(body)
    r = c.read_response()
    assert r.status == 200 and r.json()["result"]["structuredContent"]["percent"] == 9
    c.close()
