"""Round trips per second on loopback: one client, confirmable requests, one
at a time (each waits for its piggybacked 2.05). Printed, not asserted: run
with -s to see the figures. In CI the server is built with ASan/UBSan, which
costs several times the plain build's speed."""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import time

from aiocoap import POST, Context, Message

from coap_support import call, dumps

DURATION_S = 3.0
TIMEOUT_S = 5.0


def _request_body() -> bytes:
    return dumps(call("read_sensor", {"sensor_id": "t1"}, id=1))


async def _aiocoap_loop(url: str) -> tuple[int, float]:
    ctx = await Context.create_client_context()
    body = _request_body()
    n = 0
    start = time.perf_counter()
    try:
        while time.perf_counter() - start < DURATION_S:
            m = Message(code=POST, uri=url, payload=body)
            m.opt.content_format = 50
            r = await asyncio.wait_for(ctx.request(m).response, TIMEOUT_S)
            assert r.code.is_successful()
            n += 1
    finally:
        await ctx.shutdown()
    return n, time.perf_counter() - start


def _raw_loop(host: str, port: int) -> tuple[int, float]:
    """The same exchange from a bare UDP socket: CON POST /mcp, Content-Format
    50, wait for the matching ACK. Measures the server without a client
    library's overhead."""
    body = _request_body()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(TIMEOUT_S)
    opts = bytes([0xB3]) + b"mcp" + bytes([0x11, 50])  # Uri-Path "mcp", Content-Format 50
    n = 0
    start = time.perf_counter()
    try:
        while time.perf_counter() - start < DURATION_S:
            mid = n & 0xFFFF
            token = struct.pack("!I", n)
            msg = bytes([0x44, 0x02]) + struct.pack("!H", mid) + token + opts + b"\xff" + body
            s.sendto(msg, (host, port))
            while True:
                data = s.recv(2048)
                if len(data) >= 8 and data[0] >> 4 & 3 == 2 and data[2:4] == msg[2:4]:
                    break
            assert data[1] == 0x45, data[:8]  # 2.05
            n += 1
    finally:
        s.close()
    return n, time.perf_counter() - start


def test_round_trips_per_second(spawn, capsys):
    s = spawn()  # no per-request log line
    n1, t1 = asyncio.run(_aiocoap_loop(s.url()))
    n2, t2 = _raw_loop("127.0.0.1", s.port)
    with capsys.disabled():
        print()
        print(f"  benchmark: tools/call read_sensor over coap://127.0.0.1, one client, CON, sequential")
        print(f"  benchmark: aiocoap client   {n1 / t1:8.0f} round trips/s ({n1} in {t1:.1f} s)")
        print(f"  benchmark: bare UDP client  {n2 / t2:8.0f} round trips/s ({n2} in {t2:.1f} s)")
    assert n1 > 0 and n2 > 0
    assert len(s.audit_lines()) == n1 + n2
