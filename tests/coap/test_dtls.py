"""coaps:// (DTLS through libcoap's OpenSSL backend) with Debian's
coap-client-openssl: PSK with the right key, a wrong key and an unknown
identity (no answer, and the server keeps serving), and certificate mode with
the client certificate's CN as the principal."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from coap_support import TOOL_NAMES, audit, call, coap_client, dumps, request

IDENTITY = "dev1"
KEY = "sekrit-greenhouse-key"
# How long coap-client waits for an answer that must not come (seconds).
NO_ANSWER_WAIT_S = 3


def psk_post(server, msg, identity=IDENTITY, key=KEY, **kw):
    return coap_client(
        server.url(),
        payload=dumps(msg),
        flavour="openssl",
        extra=["-u", identity, "-k", key],
        **kw,
    )


@pytest.fixture
def psk_server(spawn):
    return spawn("--psk", f"{IDENTITY}:{KEY}", "--log-requests")


def test_psk_right_key_lists_and_calls(psk_server):
    r = psk_post(psk_server, request("tools/list", id=1))
    assert r.code == "2.05", r.log
    assert [t["name"] for t in r.json()["result"]["tools"]] == TOOL_NAMES
    r = psk_post(psk_server, call("set_vent", {"percent": 25}, id=2))
    assert r.code == "2.05", r.log
    assert r.json()["result"]["structuredContent"] == {"ok": True, "percent": 25}
    # The PSK identity reached mcp_request_ctx_t.principal, and the audit line.
    assert psk_server.audit_lines() == [audit("set_vent", {"percent": 25}, "ok", principal=IDENTITY)]
    assert any("DTLS principal=dev1 " in l for l in psk_server.request_lines()), psk_server.stderr()


def test_psk_with_localhost_name(psk_server):
    url = psk_server.url().replace("127.0.0.1", "localhost")
    r = coap_client(url, payload=dumps(request("tools/list")), flavour="openssl",
                    extra=["-u", IDENTITY, "-k", KEY])
    if r.code is None and "Network is unreachable" in r.log:
        pytest.skip("localhost resolves to an address the server does not listen on")
    assert r.code == "2.05", r.log


def test_psk_block_wise_both_directions(psk_server):
    msg = request("tools/list", id="dtls-blocks")
    msg["params"]["_meta"]["io.example/padding"] = "d" * 1800
    r = coap_client(psk_server.url(), payload=dumps(msg), flavour="openssl", block=64,
                    extra=["-u", IDENTITY, "-k", KEY, "-O", "23,0x02"])
    assert r.code == "2.05", r.log
    assert r.json()["id"] == "dtls-blocks"
    assert "Block1:" in r.log and "Block2:13/" in r.log


@pytest.mark.parametrize("identity,key", [(IDENTITY, "wrong-key"), ("intruder", KEY)])
def test_psk_wrong_key_or_unknown_identity_gets_no_answer(psk_server, identity, key):
    r = psk_post(psk_server, request("tools/list", id=3), identity=identity, key=key,
                 wait_s=NO_ANSWER_WAIT_S)
    assert r.code is None, r.log
    assert r.payload == b""
    assert psk_server.audit_lines() == []
    assert psk_server.request_lines() == []
    # ...and the server still serves the right key.
    ok = psk_post(psk_server, call("read_sensor", {"sensor_id": "t1"}, id=4))
    assert ok.code == "2.05", ok.log
    assert psk_server.alive()


def test_plain_coap_to_the_dtls_port_gets_no_answer(psk_server):
    r = coap_client(psk_server.url(scheme="coap"), payload=dumps(request("tools/list")),
                    wait_s=NO_ANSWER_WAIT_S)
    assert r.code is None, r.log
    assert psk_post(psk_server, request("tools/list")).code == "2.05"


# ---- certificates -----------------------------------------------------------


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> Path:
    """A throwaway CA, a server and two client certificates (P-256), one of
    them signed by another CA."""
    d = tmp_path_factory.mktemp("pki")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for ca in ("ca", "rogue-ca"):
        _openssl("req", "-x509", *ec, "-keyout", f"{ca}.key", "-out", f"{ca}.pem", "-days", "2",
                 "-subj", f"/CN=emcp-{ca}", cwd=d)
    for name, ca in (("server", "ca"), ("client", "ca"), ("rogue", "rogue-ca")):
        _openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr",
                 "-subj", f"/CN=greenhouse-{name}", cwd=d)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
                 "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", cwd=d)
    return d


def test_certificate_mode_principal_is_the_client_cn(spawn, pki):
    s = spawn("--cert", str(pki / "server.pem"), "--key", str(pki / "server.key"),
              "--ca", str(pki / "ca.pem"), "--log-requests")
    client = ["-c", str(pki / "client.pem"), "-j", str(pki / "client.key"), "-C", str(pki / "ca.pem")]
    r = coap_client(s.url(), payload=dumps(call("read_sensor", {"sensor_id": "t2"})),
                    flavour="openssl", extra=client)
    assert r.code == "2.05", r.log
    assert r.json()["result"]["structuredContent"]["value"] == 34.1
    assert any("DTLS principal=greenhouse-client " in l for l in s.request_lines()), s.stderr()
    assert s.audit_lines() == [audit("read_sensor", {"sensor_id": "t2"}, "ok", principal="greenhouse-client")]

    # A certificate from another CA, or none at all: no answer.
    rogue = ["-c", str(pki / "rogue.pem"), "-j", str(pki / "rogue.key"), "-C", str(pki / "ca.pem")]
    for extra in (rogue, ["-C", str(pki / "ca.pem")]):
        r = coap_client(s.url(), payload=dumps(request("tools/list")), flavour="openssl",
                        extra=extra, wait_s=NO_ANSWER_WAIT_S)
        assert r.code is None, r.log
    assert len(s.request_lines()) == 1
    r = coap_client(s.url(), payload=dumps(request("tools/list")), flavour="openssl", extra=client)
    assert r.code == "2.05", r.log


def test_policy_applies_to_the_psk_identity(spawn):
    """--policy names the DTLS PSK identity: dev1 may only read."""
    s = spawn("--psk", f"{IDENTITY}:{KEY}", "--policy", f"{IDENTITY}=read_sensor")
    r = psk_post(s, request("tools/list", id=1))
    assert r.code == "2.05", r.log
    listed = r.json()["result"]
    assert [t["name"] for t in listed["tools"]] == ["read_sensor"]
    assert listed["cacheScope"] == "private"
    r = psk_post(s, call("set_vent", {"percent": 25}, id=2))
    assert r.code == "4.00", r.log  # -32602, as for a tool that does not exist
    assert r.json()["error"] == {"code": -32602, "message": "Unknown tool: set_vent"}
    r = psk_post(s, call("read_sensor", {"sensor_id": "t1"}, id=3))
    assert r.code == "2.05" and r.json()["result"]["structuredContent"]["value"] == 21.5, r.log
    assert s.audit_lines() == [
        audit("set_vent", {"percent": 25}, "refused", principal=IDENTITY),
        audit("read_sensor", {"sensor_id": "t1"}, "ok", principal=IDENTITY),
    ]
    assert s.vent_moves() == []
