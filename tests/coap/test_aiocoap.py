"""greenhouse-coap against Python's aiocoap (a second, independent CoAP
implementation): discovery, both tools, Block2 with 64-byte blocks, a 2 KB
request with Block1, and the error codes."""

from __future__ import annotations

import asyncio
import json

import pytest
from aiocoap import GET, POST, PUT, Context, Message
from aiocoap.numbers.codes import Code
from aiocoap.optiontypes import BlockOption

from coap_support import TOOL_NAMES, audit, call, dumps, envelope, request

TIMEOUT_S = 15.0


async def _exchange(messages):
    ctx = await Context.create_client_context()
    try:
        out = []
        for m in messages:
            out.append(await asyncio.wait_for(ctx.request(m).response, TIMEOUT_S))
        return out
    finally:
        await ctx.shutdown()


def exchange(*messages):
    return asyncio.run(asyncio.wait_for(_exchange(messages), TIMEOUT_S * (len(messages) + 1)))


def mcp_post(server, msg, content_format=50, block2_szx=None):
    payload = msg if isinstance(msg, bytes) else dumps(msg)
    m = Message(code=POST, uri=server.url(), payload=payload)
    if content_format is not None:
        m.opt.content_format = content_format
    if block2_szx is not None:
        m.opt.block2 = BlockOption.BlockwiseTuple(0, False, block2_szx)
    return m


def test_discover_list_and_call_both_tools(server):
    disc, tools, sensor, vent = exchange(
        mcp_post(server, request("server/discover", id=1)),
        mcp_post(server, request("tools/list", id=2)),
        mcp_post(server, call("read_sensor", {"sensor_id": "rh1"}, id=3)),
        mcp_post(server, call("set_vent", {"percent": 0}, id=4)),
    )
    for r in (disc, tools, sensor, vent):
        assert r.code == Code.CONTENT
        assert r.opt.content_format == 50
        assert r.opt.max_age == 0
    assert "2026-07-28" in json.loads(disc.payload)["result"]["supportedVersions"]
    assert [t["name"] for t in json.loads(tools.payload)["result"]["tools"]] == TOOL_NAMES
    assert json.loads(sensor.payload)["result"]["structuredContent"]["value"] == 62
    assert json.loads(vent.payload)["result"]["structuredContent"] == {"ok": True, "percent": 0}
    assert server.audit_lines() == [
        audit("read_sensor", {"sensor_id": "rh1"}, "ok"),
        audit("set_vent", {"percent": 0}, "ok"),
    ]


def test_well_known_core(server):
    (r,) = exchange(Message(code=GET, uri=server.url(".well-known/core")))
    assert r.code == Code.CONTENT
    assert r.opt.content_format == 40  # application/link-format
    assert '</mcp>;rt="mcp";ct=50' in r.payload.decode().split(",")


def test_block2_64_byte_blocks(server):
    (whole,) = exchange(mcp_post(server, request("tools/list", id="w")))
    (r,) = exchange(mcp_post(server, request("tools/list", id="w"), block2_szx=2))
    assert r.code == Code.CONTENT
    # aiocoap reassembles; the last block it saw was the last of 64 bytes.
    assert r.opt.block2 is not None
    assert r.opt.block2.size_exponent == 2
    assert r.opt.block2.block_number == (len(r.payload) - 1) // 64 >= 13
    assert r.payload == whole.payload


def test_block1_2kb_request(server):
    msg = request("tools/list", id="b1", meta=envelope(**{"io.example/padding": "a" * 1900}))
    payload = dumps(msg)
    assert len(payload) > 2000
    (r,) = exchange(mcp_post(server, payload))
    assert r.code == Code.CONTENT
    assert json.loads(r.payload)["id"] == "b1"
    assert any(f"request={len(payload)} bytes" in l for l in server.request_lines())


@pytest.mark.parametrize(
    "make,code",
    [
        (lambda s: Message(code=GET, uri=s.url()), Code.METHOD_NOT_ALLOWED),
        (lambda s: Message(code=PUT, uri=s.url(), payload=b"{}", content_format=50), Code.METHOD_NOT_ALLOWED),
        (lambda s: mcp_post(s, request("tools/list"), content_format=0), Code.UNSUPPORTED_CONTENT_FORMAT),
        (lambda s: mcp_post(s, request("tools/list"), content_format=None), Code.UNSUPPORTED_CONTENT_FORMAT),
    ],
    ids=["GET", "PUT", "text-plain", "no-content-format"],
)
def test_transport_errors(server, make, code):
    (r,) = exchange(make(server))
    assert r.code == code


def test_parse_error_body(server):
    (r,) = exchange(mcp_post(server, b"[1,2"))
    assert r.code == Code.BAD_REQUEST
    assert r.opt.content_format == 50
    assert json.loads(r.payload)["error"]["code"] == -32700


def test_notification_2_04(server):
    note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}
    (r,) = exchange(mcp_post(server, note))
    assert r.code == Code.CHANGED
    assert r.payload == b""
