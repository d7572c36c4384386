"""greenhouse-http against the official MCP Python SDK Streamable HTTP client (mcp 2.3.0).

mode="auto" must settle on 2026-07-28 through server/discover; mode="legacy"
uses initialize, gets an Mcp-Session-Id and must settle on 2025-11-25. Both
list and call both tools; the audit lines show each call ran once.
"""

from __future__ import annotations

import anyio
import pytest
from mcp.client.client import Client

from http_support import LEGACY, MODERN, audit

TIMEOUT_S = 30


def run(url: str, mode: str, body) -> None:
    async def main() -> None:
        with anyio.fail_after(TIMEOUT_S):
            async with Client(url, mode=mode, read_timeout_seconds=10) as c:
                await body(c)

    anyio.run(main)


def text_of(result) -> str:
    return "\n".join(b.text for b in result.content if b.type == "text")


@pytest.mark.parametrize("mode,version", [("auto", MODERN), ("legacy", LEGACY)])
def test_list_and_call_both_tools(server, mode, version):
    async def session(c: Client) -> None:
        assert c.protocol_version == version
        assert c.server_info is not None and c.server_info.name == "greenhouse-gw"
        listed = await c.list_tools()
        assert [t.name for t in listed.tools] == ["read_sensor", "set_vent"]
        r = await c.call_tool("read_sensor", {"sensor_id": "t1"})
        assert not r.is_error
        assert r.structured_content["unit"] == "C" and r.structured_content["value"] == 21.5
        assert text_of(r).startswith("21.5 C")
        r = await c.call_tool("set_vent", {"percent": 40})
        assert not r.is_error and r.structured_content == {"ok": True, "percent": 40}
        r = await c.call_tool("read_sensor", {"sensor_id": "soil1"})
        assert r.is_error and "no reading yet" in text_of(r)

    run(server.url, mode, session)
    lines = server.audit_lines()
    # No --token: the transport authenticated nobody (principal "-").
    assert lines == [
        audit("read_sensor", {"sensor_id": "t1"}, "ok"),
        audit("set_vent", {"percent": 40}, "ok"),
        audit("read_sensor", {"sensor_id": "soil1"}, "is_error"),
    ], lines


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_wind_lock_refuses(start, mode):
    srv = start("--wind-lock")

    async def session(c: Client) -> None:
        r = await c.call_tool("set_vent", {"percent": 10})
        assert r.is_error and "wind lock" in text_of(r)

    run(srv.url, mode, session)
