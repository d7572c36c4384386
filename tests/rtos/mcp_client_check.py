#!/usr/bin/env python3
"""Drives an RTOS build of the greenhouse (Zephyr native_sim zephyr.exe, the
FreeRTOS POSIX simulator) with the official MCP Python SDK client over stdio.

usage: mcp_client_check.py COMMAND [ARG...]

For mode="auto" (server/discover, 2026-07-28) and mode="legacy" (initialize,
2025-11-25) it lists the tools and calls read_sensor and set_vent, including a
call the schema refuses; every step is printed. Exits non-zero on the first
failed expectation.
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp import StdioServerParameters
from mcp.client.client import Client

EXPECTED_VERSION = {"auto": "2026-07-28", "legacy": "2025-11-25"}


def text_of(result) -> str:
    return "\n".join(b.text for b in result.content if b.type == "text")


async def session(cmd: list[str], mode: str) -> None:
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
    with anyio.fail_after(60):
        async with Client(params, mode=mode, read_timeout_seconds=20) as c:
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
            r = await c.call_tool("set_vent", {"percent": 30})
            print(f"   set_vent 30: isError={r.is_error} structured={r.structured_content}")
            assert not r.is_error and r.structured_content["percent"] == 30
            try:
                r = await c.call_tool("set_vent", {"percent": 120})
                refused = r.is_error
                print(f"   set_vent 120: isError={r.is_error} {text_of(r)!r}")
            except Exception as e:  # a -32602 protocol error
                refused = "maximum" in str(e)
                print(f"   set_vent 120: refused: {e}")
            assert refused, "set_vent 120 was not refused"


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    for mode in ("auto", "legacy"):
        anyio.run(session, sys.argv[1:], mode)
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
