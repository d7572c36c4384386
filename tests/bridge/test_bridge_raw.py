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
        assert got == {"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32600, "message": "Request exceeds the receive buffer"}}, got
        b.call(6, "t1")
        assert b.answer()["result"]["structuredContent"]["value"] == 21.5
        assert b.close() == 0
        check_bridge_log(tmp_path / "bridge.stderr")
    finally:
        b.kill()
