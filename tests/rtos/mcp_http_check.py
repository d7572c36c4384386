#!/usr/bin/env python3
"""Drives an RTOS build of the greenhouse served over MCP Streamable HTTP (the
Zephyr sample with overlay-http.conf on native_sim over TAP) with the official
MCP Python SDK Streamable HTTP client.

usage: mcp_http_check.py URL [BEARER_TOKEN]

For mode="auto" (server/discover, 2026-07-28) and mode="legacy" (initialize,
2025-11-25) it lists the tools and calls read_sensor and set_vent, including a
call the schema refuses; then it checks that a request without the token is
refused with 401. Every step is printed; exits non-zero on the first failed
expectation.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request

import anyio
from mcp.client.client import Client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

EXPECTED_VERSION = {"auto": "2026-07-28", "legacy": "2025-11-25"}


def text_of(result) -> str:
    return "\n".join(b.text for b in result.content if b.type == "text")


async def session(url: str, token: str | None, mode: str) -> None:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    with anyio.fail_after(60):
        async with Client(transport, mode=mode, read_timeout_seconds=20) as c:
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
            r = await c.call_tool("set_vent", {"percent": 30 if mode == "auto" else 35})
            print(f"   set_vent: isError={r.is_error} structured={r.structured_content}")
            assert not r.is_error and r.structured_content["ok"] is True
            try:
                r = await c.call_tool("set_vent", {"percent": 120})
                refused = r.is_error
                print(f"   set_vent 120: isError={r.is_error} {text_of(r)!r}")
            except Exception as e:  # a -32602 protocol error
                refused = "maximum" in str(e)
                print(f"   set_vent 120: refused: {e}")
            assert refused, "set_vent 120 was not refused"


def unauthenticated_is_refused(url: str) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}}).encode()
    req = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
    try:
        urllib.request.urlopen(req, timeout=10)
    except urllib.error.HTTPError as e:
        print(f"== no token: HTTP {e.code}")
        assert e.code == 401, e.code
        return
    raise AssertionError("a request without the bearer token was accepted")


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    url = sys.argv[1]
    token = sys.argv[2] if len(sys.argv) == 3 else None
    for i, mode in enumerate(("auto", "legacy")):
        if i > 0:
            time.sleep(2.5)  # one server for both sessions: set_vent's 2 s rate limit
        anyio.run(session, url, token, mode)
    if token:
        unauthenticated_is_refused(url)
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
