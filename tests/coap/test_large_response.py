"""Responses larger than 1 KB in many Block2 blocks, against emcp-coap-fixture
(the binding with one tool, `blob {bytes}`, whose text result has the length
asked for; the greenhouse's largest response, tools/list, is 893 bytes).
Also: a result larger than EMCP_COAP_RESPONSE_MAX, abandoned Block2 transfers
from more peers than there are response buffers, and Uri-Query (4.02)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import struct
import subprocess
import time
from pathlib import Path

import pytest
from aiocoap import POST, Context, Message

from coap_support import REPO, block_numbers, call, coap_client, dumps, free_udp_port

DEFAULT_FIXTURE = REPO / "build" / "tests" / "fixtures" / "emcp-coap-fixture"
DEFAULT_FIXTURE_TINY = REPO / "build" / "tests" / "fixtures" / "emcp-coap-fixture-tiny"
RESPONSE_MAX = 8192  # EMCP_COAP_RESPONSE_MAX as built
RESPONSE_SLOTS = 8  # EMCP_COAP_RESPONSE_SLOTS as built


def digits(n: int) -> str:
    return "".join(str(i % 10) for i in range(n))


def _start_fixture(env: str, default: Path, tmp_path: Path):
    path = Path(os.environ.get(env) or default)
    if not path.exists():
        pytest.fail(f"{path.name} not found at {path} (build it, or set {env})", pytrace=False)
    port = free_udp_port()
    err_path = tmp_path / f"{path.name}.stderr"
    with open(err_path, "wb") as err:
        proc = subprocess.Popen([str(path), str(port)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.monotonic() + 10
    while "serving MCP" not in err_path.read_text(errors="replace"):
        assert proc.poll() is None, err_path.read_text()
        assert time.monotonic() < deadline, "fixture did not start"
        time.sleep(0.02)
    proc.url = f"coap://127.0.0.1:{port}/mcp"
    proc.port = port
    proc.stderr_text = lambda: err_path.read_text(errors="replace")
    return proc


def _stop_fixture(proc) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait(timeout=10)
    assert code == 0, proc.stderr_text()[-4000:]


@pytest.fixture
def fixture_server(tmp_path: Path):
    proc = _start_fixture("EMCP_COAP_FIXTURE", DEFAULT_FIXTURE, tmp_path)
    yield proc
    _stop_fixture(proc)


@pytest.fixture
def tiny_server(tmp_path: Path):
    """The fixture built with EMCP_COAP_RESPONSE_SLOTS=1, EMCP_COAP_REQUEST_MAX=1024
    and EMCP_COAP_RESPONSE_MAX=2048."""
    proc = _start_fixture("EMCP_COAP_FIXTURE_TINY", DEFAULT_FIXTURE_TINY, tmp_path)
    assert "request max 1024, response max 2048, 1 response buffers" in proc.stderr_text()
    yield proc
    _stop_fixture(proc)


def blob_call(n: int, id="blob") -> bytes:
    return dumps(call("blob", {"bytes": n}, id=id))


def test_4kb_response_in_64_byte_blocks_coap_client(fixture_server):
    r = coap_client(fixture_server.url, payload=blob_call(4000), block=64, extra=["-O", "23,0x02"])
    assert r.code == "2.05", r.log[-3000:]
    text = r.json()["result"]["content"][0]["text"]
    assert text == digits(4000)
    nums = sorted(set(block_numbers(r.log, "Block2")))
    assert len(r.payload) > 4000
    assert nums == list(range((len(r.payload) + 63) // 64))
    assert len(nums) > 60


def test_4kb_response_aiocoap_default_and_small_blocks(fixture_server):
    async def run():
        ctx = await Context.create_client_context()
        try:
            out = []
            for szx in (None, 2):
                m = Message(code=POST, uri=fixture_server.url, payload=blob_call(4000, id=f"a{szx}"))
                m.opt.content_format = 50
                if szx is not None:
                    from aiocoap.optiontypes import BlockOption
                    m.opt.block2 = BlockOption.BlockwiseTuple(0, False, szx)
                out.append(await asyncio.wait_for(ctx.request(m).response, 20))
            return out
        finally:
            await ctx.shutdown()

    default, small = asyncio.run(run())
    for r in (default, small):
        assert r.code.is_successful()
        assert json.loads(r.payload)["result"]["content"][0]["text"] == digits(4000)
    assert small.opt.block2.size_exponent == 2
    assert small.opt.block2.block_number == (len(small.payload) - 1) // 64


def test_result_larger_than_the_response_buffer(fixture_server):
    r = coap_client(fixture_server.url, payload=blob_call(RESPONSE_MAX + 100, id="too-big"))
    assert r.code == "2.05", r.log[-3000:]  # the core's -32603 is an HTTP-200 class error
    msg = r.json()
    assert msg["id"] == "too-big"
    assert msg["error"]["code"] == -32603


def _options(datagram: bytes) -> dict[int, list[int]]:
    """The options of a CoAP datagram as {number: [unsigned values]}."""
    tkl = datagram[0] & 0x0F
    i, num, out = 4 + tkl, 0, {}
    while i < len(datagram) and datagram[i] != 0xFF:
        delta, length = datagram[i] >> 4, datagram[i] & 0x0F
        i += 1
        ext = {13: (1, 13), 14: (2, 269)}
        if delta in ext:
            n, add = ext[delta]
            delta = int.from_bytes(datagram[i:i + n], "big") + add
            i += n
        if length in ext:
            n, add = ext[length]
            length = int.from_bytes(datagram[i:i + n], "big") + add
            i += n
        num += delta
        out.setdefault(num, []).append(int.from_bytes(datagram[i:i + length], "big"))
        i += length
    return out


def _post_raw(s: socket.socket, port: int, n: int, body: bytes, block2_64: bool) -> bytes:
    """CON POST /mcp from socket s (Message ID and token n), optionally asking
    for 64-byte Block2 blocks; returns the response datagram."""
    opts = bytes([0xB3]) + b"mcp" + bytes([0x11, 50])  # Uri-Path "mcp", Content-Format 50
    if block2_64:
        opts += bytes([0xB1, 0x02])  # Block2 0/64
    msg = bytes([0x44, 0x02]) + struct.pack("!H", n) + struct.pack("!I", n) + opts + b"\xff" + body
    s.sendto(msg, ("127.0.0.1", port))
    return s.recv(2048)


def _start_block2_and_abandon(port: int, n: int, size: int = 3000) -> socket.socket:
    """Reads block 0 of a large response and never asks for the rest, so
    libcoap keeps the response (and its buffer)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(5)
    data = _post_raw(s, port, n, blob_call(size, id=f"abandon-{n}"), True)
    assert data[1] == 0x45, data[:8]  # 2.05 with the first block
    return s


def test_abandoned_block2_transfers_from_more_peers_than_buffers(fixture_server):
    """Every abandoned transfer holds a response buffer until libcoap drops
    it; libcoap keeps at most EMCP_COAP_MAX_SESSIONS idle sessions and frees
    the least recently used one (and its buffer) for a new peer, so new peers
    are still served."""
    socks = [_start_block2_and_abandon(fixture_server.port, i) for i in range(RESPONSE_SLOTS + 4)]
    try:
        r = coap_client(fixture_server.url, payload=blob_call(2000, id="late"))
        assert r.code == "2.05", r.log[-3000:]
        assert r.json()["id"] == "late"
    finally:
        for s in socks:
            s.close()


def test_uri_query_is_4_02(fixture_server):
    r = coap_client(fixture_server.url + "?x=1", payload=blob_call(10))
    assert r.code == "4.02", r.log


def test_all_buffers_busy_is_5_03_and_the_holder_recovers(tiny_server):
    """With one response buffer held by peer A's abandoned Block2 transfer,
    peer B gets 5.03 with Max-Age EMCP_COAP_BUSY_RETRY_S (2); A's next request
    takes its own buffer over (libcoap replaces A's transfer), after which B
    is served again."""
    a = _start_block2_and_abandon(tiny_server.port, 1, size=1500)
    b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    b.settimeout(5)
    try:
        busy = _post_raw(b, tiny_server.port, 2, blob_call(10, id="b1"), False)
        assert busy[1] == 0xA3, busy[:8]  # 5.03
        assert _options(busy).get(14) == [2]  # Max-Age 2
        assert b"retry" in busy.split(b"\xff", 1)[1]
        again = _post_raw(a, tiny_server.port, 3, blob_call(10, id="a2"), False)
        assert again[1] == 0x45, again[:8]
        assert json.loads(again.split(b"\xff", 1)[1])["id"] == "a2"
        ok = _post_raw(b, tiny_server.port, 4, blob_call(10, id="b2"), False)
        assert ok[1] == 0x45, ok[:8]
        assert json.loads(ok.split(b"\xff", 1)[1])["id"] == "b2"
    finally:
        a.close()
        b.close()
    assert "5.03, all 1 response buffers in use" in tiny_server.stderr_text()


def test_tiny_limits_4_13_and_response_buffer(tiny_server):
    r = coap_client(tiny_server.url, payload=dumps(call("blob", {"bytes": 1}, id="x" * 10,
                                                         **{"io.example/padding": "p" * 1100})), block=256)
    assert r.code == "4.13", r.log[-3000:]
    assert "Size1:1024" in r.log
    r = coap_client(tiny_server.url, payload=blob_call(2100, id="too-big"))
    assert r.code == "2.05" and r.json()["error"]["code"] == -32603
    r = coap_client(tiny_server.url, payload=blob_call(1700, id="fits"))
    assert r.code == "2.05" and r.json()["result"]["content"][0]["text"] == digits(1700)
    # That response needed Block2, and libcoap keeps a finished transfer (and
    # so the only buffer) for a few seconds: another peer meanwhile gets 5.03.
    r = coap_client(tiny_server.url, payload=blob_call(10, id="later"))
    assert r.code == "5.03", r.log[-3000:]
