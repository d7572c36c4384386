"""emcp-bridge's own answers, raw (no SDK), with the README's QEMU entry:
a device that never comes (--hold-ms, -32000), a device that stops answering
(--timeout-ms, -32001, and its late answer not forwarded twice), and a host
line longer than the bridge's buffer (-32600, id null, the line after it
still served)."""

from __future__ import annotations

import json
import signal
import time

from bridge_support import GONE, RawBridge, check_bridge_log, free_port, readme_server

TIMEOUT = -32001  # EMCP_BRIDGE_RPC_TIMEOUT
LINE_MAX = 16384  # EMCP_BRIDGE_LINE_MAX


def test_no_device_within_hold(bridge_bin, tmp_path):
    port = free_port()  # nothing listens there
    command, args = readme_server("mcpservers-bridge-qemu", port=port)
    b = RawBridge(command, [*args, "--hold-ms", "300"], tmp_path / "bridge.stderr")
    try:
        t0 = time.monotonic()
        b.call(7, "t1")
        got = b.answer(timeout=10)
        assert got["id"] == 7 and got["error"]["code"] == GONE and "not connected" in got["error"]["message"], got
        assert 0.25 <= time.monotonic() - t0 < 5, "the request was not held for --hold-ms"
        assert b.close() == 0
        log = check_bridge_log(tmp_path / "bridge.stderr")
        assert "Connection refused" in log, log
    finally:
        b.kill()


def test_timeout_and_late_answer(bridge_bin, firmware, tmp_path):
    fw = firmware("m4f")
    command, args = readme_server("mcpservers-bridge-qemu", port=fw.port)
    b = RawBridge(command, [*args, "--timeout-ms", "700"], tmp_path / "bridge.stderr")
    try:
        b.call(1, "t1")
        assert b.answer()["id"] == 1
        fw.signal(signal.SIGSTOP)  # the board hangs
        b.call("slow", "t2")
        got = b.answer(timeout=10)
        assert got["id"] == "slow" and got["error"]["code"] == TIMEOUT, got
        fw.signal(signal.SIGCONT)  # ...and wakes up: its answer to "slow" comes too late
        time.sleep(1.0)
        b.call(3, "rh1")
        nxt = b.answer()
        assert nxt["id"] == 3 and nxt["result"]["structuredContent"]["value"] == 62, nxt  # not the late one
        assert b.close() == 0
        assert b.proc.stdout.read() == b""
        log = check_bridge_log(tmp_path / "bridge.stderr")
        assert 'late answer to id "slow" dropped' in log, log
    finally:
        b.kill()


def test_oversize_host_line(bridge_bin, firmware, tmp_path):
    fw = firmware("m0")
    command, args = readme_server("mcpservers-bridge-qemu", port=fw.port)
    b = RawBridge(command, args, tmp_path / "bridge.stderr")
    try:
        big = {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
               "params": {"name": "read_sensor", "arguments": {"sensor_id": "x" * (LINE_MAX + 10)}}}
        b.proc.stdin.write(json.dumps(big).encode() + b"\n")
        b.proc.stdin.flush()
        got = b.answer()
        # The bridge's own framer keeps the id from the line's first bytes.
        assert got == {"jsonrpc": "2.0", "id": 5,
                       "error": {"code": -32600, "message": "Request exceeds the receive buffer"}}, got
        b.call(6, "t1")
        assert b.answer()["result"]["structuredContent"]["value"] == 21.5
        assert b.close() == 0
        check_bridge_log(tmp_path / "bridge.stderr")
    finally:
        b.kill()


FW_RX_MAX = 4096  # the firmware's UART receive buffer (examples-c/firmware/serve.c)


def test_device_refusal_reaches_its_request(bridge_bin, firmware, tmp_path):
    """A request that fits the bridge but not the device's receive buffer:
    the device refuses it at once, and the refusal reaches the host under the
    request's own id, never as the bridge's timeout. With the id in the
    line's first bytes the device itself names it; with the id at the end of
    the line the device answers id null, and the bridge gives that answer to
    the oldest request in flight (the device answers in order)."""
    fw = firmware("m4f")
    command, args = readme_server("mcpservers-bridge-qemu", port=fw.port)
    b = RawBridge(command, args, tmp_path / "bridge.stderr")
    refusal = {"code": -32600, "message": "Request exceeds the receive buffer"}
    try:
        early = {"jsonrpc": "2.0", "id": "early", "method": "tools/call",
                 "params": {"name": "read_sensor", "arguments": {"sensor_id": "x" * (FW_RX_MAX + 900)}}}
        late = {"jsonrpc": "2.0", "method": "tools/call",
                "params": {"name": "read_sensor", "arguments": {"sensor_id": "y" * (FW_RX_MAX + 900)}}, "id": 77}
        for msg in (early, late):
            t0 = time.monotonic()
            b.proc.stdin.write(json.dumps(msg).encode() + b"\n")
            b.proc.stdin.flush()
            got = b.answer(timeout=10)
            assert got == {"jsonrpc": "2.0", "id": msg["id"], "error": refusal}, got
            assert time.monotonic() - t0 < 5
        # A line the device cannot parse, without an id, is answered null and
        # takes no other request's answer with it.
        b.proc.stdin.write(b'{"jsonrpc":"2.0","method":\n')
        b.proc.stdin.flush()
        got = b.answer(timeout=10)
        assert got["id"] is None and got["error"]["code"] == -32700, got
        b.call(6, "t1")
        got = b.answer()
        assert got["id"] == 6 and got["result"]["structuredContent"]["value"] == 21.5, got
        assert b.close() == 0
        log = check_bridge_log(tmp_path / "bridge.stderr")
        assert "answer with id null given to id 77" in log, log
        assert "did not answer" not in log, log
    finally:
        b.kill()
