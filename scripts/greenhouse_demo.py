#!/usr/bin/env python3
"""Runs greenhouse-stdio under the official MCP Python SDK client.

The client starts in mode="auto": it probes with server/discover at protocol
2026-07-28 and would fall back to the legacy initialize handshake. The server
is started through a small relay (this same file with --relay) that copies
every line both ways and prints it, so the real wire exchange is visible.

Usage: greenhouse_demo.py PATH/TO/greenhouse-stdio [server args...]
"""

import asyncio
import os
import subprocess
import sys
import threading


def relay(argv: list[str]) -> int:
    """Copies stdin to the server and the server's stdout back, echoing both to stderr."""
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def pump_out() -> None:
        for line in server.stdout:
            sys.stderr.write("  <- " + line.decode("utf-8", "replace"))
            sys.stderr.flush()
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()

    t = threading.Thread(target=pump_out, daemon=True)
    t.start()
    for line in sys.stdin.buffer:
        sys.stderr.write("  -> " + line.decode("utf-8", "replace"))
        sys.stderr.flush()
        server.stdin.write(line)
        server.stdin.flush()
    server.stdin.close()
    code = server.wait()
    t.join(timeout=2)
    return code


async def demo(argv: list[str]) -> int:
    from mcp import StdioServerParameters
    from mcp.client.client import Client

    params = StdioServerParameters(
        command=sys.executable,
        args=[os.path.abspath(__file__), "--relay", *argv],
        env=dict(os.environ),
    )
    async with Client(params, mode="auto") as client:
        info = client.server_info
        print(f"connected: protocol {client.protocol_version}, "
              f"server {info.name if info else '?'} {info.version if info else ''}")
        tools = await client.list_tools()
        for t in tools.tools:
            print(f"tool {t.name}: {t.description}")
        for name, args in [
            ("read_sensor", {"sensor_id": "t2"}),
            ("read_sensor", {"sensor_id": "soil1"}),
            ("set_vent", {"percent": 60}),
        ]:
            r = await client.call_tool(name, args)
            text = " ".join(getattr(c, "text", "") for c in r.content)
            print(f"call {name} {args}: isError={r.is_error} text={text!r} "
                  f"structured={r.structured_content}")
        if client.protocol_version != "2026-07-28":
            print("expected protocol 2026-07-28", file=sys.stderr)
            return 1
    return 0


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--relay":
        return relay(sys.argv[2:])
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    return asyncio.run(demo(sys.argv[1:]))


if __name__ == "__main__":
    sys.exit(main())
