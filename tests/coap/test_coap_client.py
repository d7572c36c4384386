"""greenhouse-coap against Debian's coap-client-notls (libcoap3-bin 4.3.1):
discovery, both tools, block-wise transfer in both directions and the CoAP
code mapping of docs/bindings/coap.md."""

from __future__ import annotations

import json

from coap_support import (
    KEY_SERVER_INFO,
    MODERN,
    TOOL_NAMES,
    audit,
    block_numbers,
    call,
    coap_client,
    dumps,
    envelope,
    request,
)


def post(server, msg, **kw):
    body = msg if isinstance(msg, bytes) else dumps(msg)
    return coap_client(server.url(), payload=body, **kw)


def test_well_known_core_lists_the_resource(server):
    r = coap_client(server.url(".well-known/core"), method="get", content_format=None)
    assert r.code == "2.05", r.log
    links = r.payload.decode()
    assert '</mcp>;rt="mcp";ct=50' in links.split(","), links


def test_server_discover(server):
    r = post(server, request("server/discover", id="d-1"))
    assert r.code == "2.05", r.log
    assert "Content-Format:application/json" in r.log
    assert "Max-Age:0" in r.log
    msg = r.json()
    assert msg["id"] == "d-1"
    assert MODERN in msg["result"]["supportedVersions"]
    assert msg["result"]["_meta"][KEY_SERVER_INFO]["name"] == "greenhouse-gw"


def test_tools_list(server):
    r = post(server, request("tools/list", id=2))
    assert r.code == "2.05", r.log
    tools = r.json()["result"]["tools"]
    assert [t["name"] for t in tools] == TOOL_NAMES


def test_call_read_sensor_and_audit_line(server):
    r = post(server, call("read_sensor", {"sensor_id": "t1"}, id=3))
    assert r.code == "2.05", r.log
    result = r.json()["result"]
    assert result["structuredContent"]["value"] == 21.5
    assert result["structuredContent"]["unit"] == "C"
    assert not result.get("isError", False)
    # Plain coap:// authenticates nobody: principal "-".
    assert server.audit_lines() == [audit("read_sensor", {"sensor_id": "t1"}, "ok")]


def test_call_set_vent_and_audit_line(server):
    r = post(server, call("set_vent", {"percent": 40}, id=4))
    assert r.code == "2.05", r.log
    assert r.json()["result"]["structuredContent"] == {"ok": True, "percent": 40}
    assert server.audit_lines() == [audit("set_vent", {"percent": 40}, "ok")]
    assert server.vent_moves() == ["vent: 0% -> 40%"]


def test_wind_lock_refuses_set_vent(spawn):
    s = spawn("--wind-lock")
    r = post(s, call("set_vent", {"percent": 10}, id=5))
    assert r.code == "2.05", r.log  # a tool execution error is a result
    result = r.json()["result"]
    assert result["isError"] is True
    assert "wind lock" in result["content"][0]["text"]
    assert s.audit_lines() == [audit("set_vent", {"percent": 10}, "is_error")]
    assert s.vent_moves() == []


def test_non_confirmable_request_gets_a_response(server):
    r = post(server, request("tools/list", id=6), extra=["-N"])
    assert r.code == "2.05", r.log
    assert [t["name"] for t in r.json()["result"]["tools"]] == TOOL_NAMES


def test_notification_is_2_04_without_payload(server):
    note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    r = post(server, note)
    assert r.code == "2.04", r.log
    assert r.payload == b""


def test_get_is_4_05(server):
    r = coap_client(server.url(), method="get", content_format=None)
    assert r.code == "4.05", r.log


def test_put_and_delete_are_4_05(server):
    for method in ("put", "delete"):
        r = coap_client(server.url(), method=method, payload=dumps(request("tools/list")))
        assert r.code == "4.05", (method, r.log)


def test_text_plain_is_4_15(server):
    r = post(server, request("tools/list"), content_format="text/plain")
    assert r.code == "4.15", r.log


def test_missing_content_format_is_4_15(server):
    r = post(server, request("tools/list"), content_format=None)
    assert r.code == "4.15", r.log


def test_accept_other_than_json_is_4_06(server):
    r = post(server, request("tools/list"), extra=["-A", "text/plain"])
    assert r.code == "4.06", r.log


def test_malformed_json_is_4_00_with_a_parse_error_body(server):
    r = post(server, b'{"jsonrpc":"2.0","id":1,"method":')
    assert r.code == "4.00", r.log
    assert "Content-Format:application/json" in r.log
    msg = json.loads(r.payload)
    assert msg == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}


def test_unknown_method_is_4_04_with_a_json_rpc_body(server):
    r = post(server, request("no/such/method", id=7))
    assert r.code == "4.04", r.log
    assert json.loads(r.payload)["error"]["code"] == -32601


def test_unsupported_version_is_4_00_with_supported_versions(server):
    msg = request("tools/list", id=8, meta=envelope(**{"io.modelcontextprotocol/protocolVersion": "1999-01-01"}))
    r = post(server, msg)
    assert r.code == "4.00", r.log
    err = json.loads(r.payload)["error"]
    assert err["code"] == -32022
    assert MODERN in err["data"]["supported"]


def test_legacy_request_without_envelope_is_answered(server):
    """The era is the core's business: a request without _meta is legacy."""
    r = post(server, {"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {}})
    assert r.code == "2.05", r.log
    assert [t["name"] for t in r.json()["result"]["tools"]] == TOOL_NAMES


def test_legacy_confirmation_is_refused_clearly(server):
    """No path carries a server-to-client request over this binding: a
    legacy client, even one that declared elicitation, gets the clear
    refusal, and the vent does not move (docs/bindings/coap.md)."""
    r = post(server, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                                 "clientInfo": {"name": "t", "version": "1"}}})
    assert r.json()["result"]["protocolVersion"] == "2025-11-25", r.log
    r = post(server, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "set_vent", "arguments": {"percent": 90}}})
    res = r.json()["result"]
    assert res["isError"] is True, res
    assert res["content"][0]["text"] == (
        "refused: opening above 80% needs a confirmation this client cannot give"), res


def test_tools_list_in_64_byte_block2_blocks(server):
    """The tools/list response (~900 bytes: the largest the greenhouse sends)
    forced into 64-byte Block2 blocks: -b 64 sets Block1, and -O 23,0x02 asks
    for SZX 2 (64 bytes) in Block2, because coap-client 4.3.1 does not shrink
    the response blocks of a POST from -b alone."""
    whole = post(server, request("tools/list", id=9))
    r = post(server, request("tools/list", id=9), block=64, extra=["-O", "23,0x02"])
    assert r.code == "2.05", r.log
    nums = sorted(set(block_numbers(r.log, "Block2")))
    assert nums == list(range((len(r.payload) + 63) // 64)), r.log  # ~900 bytes: 14+ blocks
    assert all("Block2:" not in l or "/64" in l for l in r.log.splitlines() if l.startswith("v:1 t:ACK c:2.05"))
    assert r.payload == whole.payload
    assert len(r.payload) > 800


def test_2kb_request_in_block1_blocks(server):
    """A 2 KB request (padding in params._meta) sent as 32 Block1 blocks of 64
    bytes; libcoap reassembles it and the core sees one message."""
    msg = call("read_sensor", {"sensor_id": "rh1"}, id="block1", **{"io.example/padding": "p" * 1800})
    body = dumps(msg)
    assert 2000 <= len(body) <= 2200
    r = post(server, body, block=64)
    assert r.code == "2.05", r.log
    b1 = block_numbers(r.log, "Block1")
    assert len(b1) >= 31 and b1 == sorted(b1), r.log
    assert r.json()["result"]["structuredContent"]["value"] == 62
    assert any(f"request={len(body)} bytes" in l for l in server.request_lines()), server.stderr()


def test_block1_and_block2_together(server):
    msg = request("tools/list", id="both", meta=envelope(**{"io.example/padding": "q" * 1500}))
    r = post(server, dumps(msg), block=64, extra=["-O", "23,0x02"])
    assert r.code == "2.05", r.log
    assert len(block_numbers(r.log, "Block1")) >= 24
    assert len(block_numbers(r.log, "Block2")) >= 14
    assert r.json()["id"] == "both"


def test_request_over_the_limit_is_4_13(server):
    """EMCP_COAP_REQUEST_MAX is 8192: a 9 KB body is refused with 4.13 and
    Size1 8192 after reassembly, and the server keeps serving."""
    msg = request("tools/list", id="big", meta=envelope(**{"io.example/padding": "z" * 9000}))
    r = post(server, dumps(msg), block=1024)
    assert r.code == "4.13", r.log
    assert "Size1:8192" in r.log
    ok = post(server, request("tools/list", id="after"))
    assert ok.code == "2.05"


def test_ipv6_loopback(spawn):
    s = spawn(host="::1")
    r = coap_client(s.url(), payload=dumps(call("read_sensor", {"sensor_id": "t2"})))
    assert r.code == "2.05", r.log
    assert r.json()["result"]["structuredContent"]["value"] == 34.1


def test_other_path_is_4_04_without_json(server):
    """A wrong path is libcoap's 4.04 without Content-Format, which tells it
    apart from the JSON-RPC -32601 answer (4.04 with Content-Format 50)."""
    r = coap_client(server.url("foo"), payload=dumps(request("tools/list")))
    assert r.code == "4.04", r.log
    response_lines = [l for l in r.log.splitlines() if l.startswith("v:1 t:ACK c:4.04")]
    assert response_lines and "Content-Format" not in response_lines[-1]
