#!/usr/bin/env python3
"""Drives an RTOS build of the greenhouse served over MCP Streamable HTTP (the
Zephyr sample with overlay-http.conf on native_sim over TAP) with the official
MCP Python SDK Streamable HTTP client.

usage: mcp_http_check.py URL [BEARER_TOKEN] [--ca CA.pem]

With --ca (an https:// URL) the server's certificate is verified against
that CA file, by the SDK client and by the 401 check alike.

For mode="auto" (server/discover, 2026-07-28) and mode="legacy" (initialize,
2025-11-25) it lists the tools and calls read_sensor and set_vent, including a
call the schema refuses; then it checks that a request without the token is
refused with 401. Every step is printed; exits non-zero on the first failed
expectation.
"""

from __future__ import annotations

import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.request

import anyio
from mcp.client.client import Client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from greenhouse_session import check_greenhouse  # noqa: E402


async def session(url: str, token: str | None, mode: str, ca: str | None) -> None:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    if ca:
        # The SDK's factory takes no TLS settings: its HTTP library's client with the
        # factory's timeouts, verifying against the CA.
        import httpx2

        client = httpx2.AsyncClient(headers=headers, verify=ssl.create_default_context(cafile=ca),
                                    timeout=httpx2.Timeout(30, read=300))
    else:
        client = create_mcp_http_client(headers=headers)
    transport = streamable_http_client(url, http_client=client)
    with anyio.fail_after(60):
        async with Client(transport, mode=mode, read_timeout_seconds=20) as c:
            await check_greenhouse(c, mode, 30 if mode == "auto" else 35)


def unauthenticated_is_refused(url: str, ca: str | None) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}}).encode()
    req = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
    try:
        urllib.request.urlopen(req, timeout=10, context=ssl.create_default_context(cafile=ca) if ca else None)
    except urllib.error.HTTPError as e:
        print(f"== no token: HTTP {e.code}")
        assert e.code == 401, e.code
        return
    raise AssertionError("a request without the bearer token was accepted")


def main() -> int:
    args = sys.argv[1:]
    ca = None
    if "--ca" in args:
        i = args.index("--ca")
        if i + 1 >= len(args):
            print(__doc__, file=sys.stderr)
            return 2
        ca = args[i + 1]
        del args[i : i + 2]
    if len(args) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    url = args[0]
    token = args[1] if len(args) == 2 else None
    for i, mode in enumerate(("auto", "legacy")):
        if i > 0:
            time.sleep(2.5)  # one server for both sessions: set_vent's 2 s rate limit
        anyio.run(session, url, token, mode, ca)
    if token:
        unauthenticated_is_refused(url, ca)
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
