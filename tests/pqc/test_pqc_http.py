"""The post-quantum TLS profile over HTTP (issue 39): greenhouse-http on
wolfSSL with --tls-groups, reached through emcp-pqc-relay, which offers only
the groups it is given and reports the group negotiated.

The group is the only thing that changes: the same P-256 certificate, the
same verification (CA and name) in every case. A relay that asks for the
hybrid from a server configured for X25519 alone fails its handshake, and a
relay that offers both and expects the hybrid detects the server's fallback
to X25519 and lets no request through.
"""

from __future__ import annotations

import subprocess
import time

import pytest

from http_support import Conn, HttpServer, audit, call_body, modern_headers
from pqc_support import SHARES, Relay, make_cert



@pytest.fixture
def servers(greenhouse_http_bin, cert):
    """serve(groups, *args) -> HttpServer over TLS; each must still run at teardown and exit 0."""
    started: list[HttpServer] = []

    def serve(groups: str, *args: str) -> HttpServer:
        crt, key = cert
        s = HttpServer(greenhouse_http_bin, "--tls-cert", crt, "--tls-key", key, "--tls-groups", groups, *args)
        started.append(s)
        return s

    yield serve
    for s in started:
        alive, code, log = s.finish()
        assert alive and code == 0, f"greenhouse-http (alive {alive}, exit {code}):\n{log[-3000:]}"


@pytest.fixture
def relays():
    """relay(port, ca, groups, expect) -> Relay; finished (if still running) at teardown."""
    made: list[Relay] = []

    def relay(port: int, ca: str, groups: str, expect: str | None = None) -> Relay:
        r = Relay(port, ca, groups, expect)
        made.append(r)
        return r

    yield relay
    for r in made:
        r.finish()
        r.cleanup()


def read_sensor(port: int):
    """One tools/call over plain HTTP to the relay: the Response, or None when
    the relay closed the connection without one."""
    c = Conn(port)
    try:
        return c.request("POST", "/mcp", modern_headers("tools/call", "read_sensor"),
                         call_body("read_sensor", {"sensor_id": "t1"}))
    except ConnectionError:  # reset or closed; a timeout is a failure
        return None
    finally:
        c.close()


@pytest.mark.parametrize("group", sorted(SHARES))
def test_group_negotiated_as_configured(servers, relays, cert, group):
    srv = servers(group)
    relay = relays(srv.port, cert[0], group, group)
    r = read_sensor(relay.port)
    assert r is not None and r.status == 200, r
    assert r.json()["result"]["structuredContent"]["value"] == 21.5
    assert srv.audit_lines() == [audit("read_sensor", {"sensor_id": "t1"}, "ok")]
    assert relay.finish() == 0, relay.stderr()
    [h] = relay.handshakes()
    assert (h["group"], h["version"], h["expect"], h["round_trips"]) == (group, "TLSv1.3", "ok", 1), h
    # The key shares really crossed the wire: the ClientHello carries the
    # client's share, the ServerHello the server's (plus the certificate).
    client_share, server_share = SHARES[group]
    assert h["tx"] > client_share and h["rx"] > server_share, h
    if group == "X25519":
        assert h["tx"] < SHARES["X25519MLKEM768"][0], f"no ML-KEM share was to be sent: {h}"


def test_pure_mlkem_sends_no_classical_share(servers, relays, cert):
    # ML-KEM-768 alone (no X25519 beside it): the same handshake as the
    # hybrid's but for the 32-byte X25519 share in each direction.
    tx = {}
    for group in ("X25519MLKEM768", "ML-KEM-768"):
        srv = servers(group)
        relay = relays(srv.port, cert[0], group, group)
        r = read_sensor(relay.port)
        assert r is not None and r.status == 200 and relay.finish() == 0, relay.stderr()
        [h] = relay.handshakes()
        assert h["group"] == group, h
        tx[group] = h["tx"]
    assert tx["X25519MLKEM768"] - tx["ML-KEM-768"] == SHARES["X25519"][0], tx


def test_hybrid_demanded_from_an_x25519_server_fails(servers, relays, cert):
    srv = servers("X25519")
    relay = relays(srv.port, cert[0], "X25519MLKEM768", "X25519MLKEM768")
    assert read_sensor(relay.port) is None
    assert srv.audit_lines() == []
    assert relay.finish() == 4, relay.stderr()
    [h] = relay.handshakes()
    assert "error" in h, h


def test_silent_fallback_to_x25519_is_detected(servers, relays, cert):
    # The relay offers both, hybrid first (a key share for it), as a browser
    # does; the server knows only X25519 and asks for it (HelloRetryRequest).
    srv = servers("X25519")
    relay = relays(srv.port, cert[0], "X25519MLKEM768:X25519", "X25519MLKEM768")
    assert read_sensor(relay.port) is None
    assert srv.audit_lines() == [], "a request went through on the wrong group"
    assert relay.finish() == 3, relay.stderr()
    [h] = relay.handshakes()
    assert (h["group"], h["expect"]) == ("X25519", "MISMATCH"), h
    # Two ClientHellos: the first with the hybrid share, the retry with X25519
    # after the server's HelloRetryRequest (a second round trip).
    assert h["tx"] > SHARES["X25519MLKEM768"][0] + SHARES["X25519"][0] and h["round_trips"] == 2, h


def test_server_with_both_groups_prefers_what_the_client_shares(servers, relays, cert):
    srv = servers("X25519MLKEM768:X25519")
    hybrid = relays(srv.port, cert[0], "X25519MLKEM768:X25519", "X25519MLKEM768")
    classic = relays(srv.port, cert[0], "X25519", "X25519")
    for relay in (hybrid, classic):
        r = read_sensor(relay.port)
        assert r is not None and r.status == 200, r
    assert hybrid.finish() == 0 and classic.finish() == 0
    assert [h["group"] for h in hybrid.handshakes()] == ["X25519MLKEM768"]
    assert [h["group"] for h in classic.handshakes()] == ["X25519"]


@pytest.mark.parametrize("group", ["X25519", "X25519MLKEM768"])
def test_certificate_verification_is_the_same_in_every_group(servers, relays, cert, tmp_path, group):
    srv = servers(group)
    other_ca, _ = make_cert(tmp_path)  # a different self-signed certificate
    for ca in (other_ca, cert[0]):
        relay = relays(srv.port, ca, group, group)
        r = read_sensor(relay.port)
        rc = relay.finish()
        [h] = relay.handshakes()
        if ca == other_ca:
            assert r is None and rc == 4 and "error" in h, (rc, h)
        else:
            assert r is not None and r.status == 200 and rc == 0 and h["group"] == group, (rc, h)


@pytest.mark.parametrize("groups,why", [
    ("X448MLKEM1024", "is not a group this wolfSSL build offers"),
    ("ML-KEM-1024", "is not a group this wolfSSL build offers"),
    ("", "tls_groups is empty"),
])
def test_groups_the_build_lacks_are_refused(greenhouse_http_bin, cert, groups, why):
    crt, key = cert
    p = subprocess.run([greenhouse_http_bin, "--listen", "127.0.0.1:0", "--tls-cert", crt, "--tls-key", key,
                        "--tls-groups", groups], capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and why in p.stderr, p.stderr


def test_groups_without_a_certificate_are_refused(greenhouse_http_bin):
    p = subprocess.run([greenhouse_http_bin, "--listen", "127.0.0.1:0", "--tls-groups", "X25519MLKEM768"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "--tls-groups needs --tls-cert" in p.stderr, p.stderr


def test_a_client_that_waits_before_its_request_is_served(servers, relays, cert):
    # Whatever the server sends after its handshake (a NewSessionTicket) can
    # reach the relay before any request: the relay must not sit in a read
    # of the server while the request waits on the client's socket.
    srv = servers("X25519MLKEM768")
    relay = relays(srv.port, cert[0], "X25519MLKEM768", "X25519MLKEM768")
    c = Conn(relay.port, timeout=5)
    time.sleep(0.5)
    r = c.request("POST", "/mcp", modern_headers("tools/call", "read_sensor"),
                  call_body("read_sensor", {"sensor_id": "t1"}))
    assert r.status == 200 and r.json()["result"]["structuredContent"]["value"] == 21.5
    c.close()
