"""The checks both RTOS client scripts run on one MCP session with the
greenhouse (mcp_client_check.py over stdio, mcp_http_check.py over HTTP):
protocol version and server name, tools/list, read_sensor, set_vent, and a
set_vent the schema refuses. Every step is printed; the first failed
expectation raises AssertionError."""

from __future__ import annotations

from mcp.client.client import Client

EXPECTED_VERSION = {"auto": "2026-07-28", "legacy": "2025-11-25"}


def text_of(result) -> str:
    return "\n".join(b.text for b in result.content if b.type == "text")


async def check_greenhouse(c: Client, mode: str, vent_percent: int) -> None:
    print(f"== {mode}: protocol {c.protocol_version}, server {c.server_info.name} {c.server_info.version}")
    assert c.protocol_version == EXPECTED_VERSION[mode], c.protocol_version
    assert c.server_info.name == "greenhouse-gw"
    tools = await c.list_tools()
    names = [t.name for t in tools.tools]
    print(f"   tools/list: {names}")
    assert names == ["read_sensor", "set_vent"], names
    r = await c.call_tool("read_sensor", {"sensor_id": "t1"})
    print(f"   read_sensor t1: isError={r.is_error} {text_of(r)!r} structured={r.structured_content}")
    assert not r.is_error and r.structured_content["unit"] == "C"
    r = await c.call_tool("set_vent", {"percent": vent_percent})
    print(f"   set_vent {vent_percent}: isError={r.is_error} structured={r.structured_content}")
    assert not r.is_error and r.structured_content == {"ok": True, "percent": vent_percent}
    try:
        r = await c.call_tool("set_vent", {"percent": 120})
        refused = r.is_error
        print(f"   set_vent 120: isError={r.is_error} {text_of(r)!r}")
    except Exception as e:  # a -32602 protocol error
        refused = "maximum" in str(e)
        print(f"   set_vent 120: refused: {e}")
    assert refused, "set_vent 120 was not refused"
