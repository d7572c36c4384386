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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from greenhouse_session import check_greenhouse  # noqa: E402


async def session(cmd: list[str], mode: str) -> None:
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
    with anyio.fail_after(60):
        async with Client(params, mode=mode, read_timeout_seconds=20) as c:
            await check_greenhouse(c, mode, 30)


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
