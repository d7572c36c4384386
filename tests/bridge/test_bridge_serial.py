"""The serial path: emcp-bridge on a pty (a real tty: termios raw mode and
the baud rate are the bridge's), as README.md's serial `mcpServers` entry
starts it with the pty in place of /dev/ttyACM0, the pty's other side wired
to the QEMU firmware's UART. Before the firmware's bytes, the "board"
bursts boot text at the bridge: log lines, binary bytes, a line that starts
with '{' but is no JSON, and a half JSON line cut by a reset. None of it
reaches the host; the official Python SDK client's session works.

And the raw protocol: several requests in flight (number and string ids)
when the firmware dies are each answered with their own id; stdout carries
only JSON-RPC."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import termios
import threading
import time

import anyio
import pytest
from mcp import StdioServerParameters
from mcp.client.client import Client
from mcp.client.stdio import stdio_client

from bridge_support import GONE, PtyCable, RawBridge, check_bridge_log, readme_server

BOOT_NOISE = (
    b"\x00\xff\xfe boot ROM v1.2\r\n"
    + b"".join(b"[%6d.%03d] clk: pll locked, sensors: probing bus %d\r\n" % (i, i * 7 % 1000, i % 4)
               for i in range(200))
    + b"{not json, but it starts like it}\r\n"
    + b'{"jsonrpc":"2.0","id":99,"result":{"half a line cut by a re'  # a reset mid-line...
    + b"\r\nRESET\r\n\x1b[0m\x07"  # ...and the board's banner after it
    + b"\xc3\x28 invalid UTF-8 \r\n"
    + b'{"jsonrpc":"2.0","id":98,"result":{"s":"\xc3\x28"}}\n'  # a whole line, but not UTF-8
)


def wait_for_speed(fd: int, speed: int, timeout: float = 10.0) -> list:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        attrs = termios.tcgetattr(fd)
        if attrs[4] == speed and attrs[5] == speed:
            return attrs
        time.sleep(0.02)
    raise AssertionError(f"the bridge did not set the pty to speed {speed}: {termios.tcgetattr(fd)}")


@pytest.mark.parametrize("entry", ["mcpservers-bridge-serial", "vscode-bridge-serial"])
def test_serial_pty_with_boot_noise(bridge_bin, firmware, tmp_path, entry):
    fw = firmware("m4f")
    cable = PtyCable(fw.port)
    try:
        command, args = readme_server(entry, device=cable.path)
        assert args[1:] == ["--baud", "115200"]
        args[2] = "57600"  # another speed than the README's, to see that it is the bridge's
        assert termios.tcgetattr(cable.master)[4] != termios.B57600
        errpath = tmp_path / "bridge.stderr"
        seen: list[list] = []

        def board() -> None:
            """Once the bridge has set the port up: the boot text, then the firmware's UART."""
            seen.append(wait_for_speed(cable.master, termios.B57600))
            cable.start_relay(BOOT_NOISE)

        async def main() -> None:
            params = StdioServerParameters(command=command, args=args)
            with open(errpath, "w") as errlog, anyio.fail_after(60):
                started = threading.Thread(target=board, daemon=True)
                started.start()
                async with Client(stdio_client(params, errlog=errlog), mode="auto", read_timeout_seconds=15) as c:
                    started.join(15)
                    tools = await c.list_tools()
                    assert [t.name for t in tools.tools] == ["read_sensor", "set_vent"]
                    r = await c.call_tool("read_sensor", {"sensor_id": "rh1"})
                    assert r.is_error is False and r.structured_content["value"] == 62
                    r = await c.call_tool("set_vent", {"percent": 101})
                    assert r.is_error is True

        anyio.run(main)
        assert seen, "the bridge never configured the pty"
        attrs = termios.tcgetattr(cable.master)  # the pty's settings are the slave's
        iflag, oflag, cflag, lflag = attrs[0], attrs[1], attrs[2], attrs[3]
        assert not lflag & (termios.ECHO | termios.ICANON | termios.ISIG | termios.IEXTEN), "not raw: echo or line discipline on"
        assert not iflag & (termios.ICRNL | termios.IXON | termios.INLCR), "input mapping or XON/XOFF on"
        assert not oflag & termios.OPOST, "output processing on"
        assert cflag & termios.CSIZE == termios.CS8 and cflag & termios.CLOCAL
        log = check_bridge_log(errpath)
        assert "serial speed 57600 baud" in log, log
        dropped = [ln for ln in log.splitlines() if "not JSON-RPC, dropped" in ln]
        assert len(dropped) >= 200, log[-3000:]
        assert any("half a line cut by a re" in ln for ln in dropped), log[-3000:]
        assert any("not json, but it starts like it" in ln for ln in dropped), log[-3000:]
        assert any('"id":98' in ln for ln in dropped), log[-3000:]
        assert cable.error is None, cable.error
    finally:
        cable.close()


def test_raw_requests_in_flight_keep_their_ids(bridge_bin, firmware, tmp_path):
    fw = firmware("m0")
    command, args = readme_server("mcpservers-bridge-qemu", port=fw.port)
    err = open(tmp_path / "bridge.stderr", "wb")
    proc = subprocess.Popen([command, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
    err.close()
    try:
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}

        def call(id_, sensor):
            return json.dumps({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
                               "params": {"_meta": meta, "name": "read_sensor",
                                          "arguments": {"sensor_id": sensor}}}).encode() + b"\n"

        def read_line(timeout=15.0):
            out: list[bytes] = []
            t = threading.Thread(target=lambda: out.append(proc.stdout.readline()), daemon=True)
            t.start()
            t.join(timeout)
            assert out and out[0], "no answer from the bridge"
            return json.loads(out[0])

        proc.stdin.write(call(1, "t1"))
        proc.stdin.flush()
        first = read_line()
        assert first["id"] == 1 and first["result"]["structuredContent"]["value"] == 21.5

        fw.signal(signal.SIGSTOP)
        ids = [2, "s-3", "x\\\"y", 4.5]
        proc.stdin.write(b"".join(call(i, "t2") for i in ids)
                         + b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.flush()
        time.sleep(0.5)
        fw.kill()
        got = [read_line() for _ in ids]
        assert [g["id"] for g in got] == ids
        assert all(g["error"]["code"] == GONE for g in got), got

        fw.start()
        proc.stdin.write(call("after", "rh1"))
        proc.stdin.flush()
        again = read_line()
        assert again["id"] == "after" and again["result"]["structuredContent"]["value"] == 62, again
        proc.stdin.close()
        assert proc.wait(10) == 0
        assert proc.stdout.read() == b"", "stdout carried more than the answers"
        check_bridge_log(tmp_path / "bridge.stderr")
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(5)


def plug(fw_port: int, link, noise: bytes) -> PtyCable:
    """A new pty behind the stable path `link` (as udev's /dev/serial/by-id
    names a board again after it re-enumerates), relayed to the firmware
    once the bridge has opened and configured it."""
    cable = PtyCable(fw_port)
    tmp = link.with_name(link.name + ".new")
    os.symlink(cable.path, tmp)
    os.replace(tmp, link)

    def board() -> None:
        wait_for_speed(cable.master, termios.B9600, timeout=20)
        cable.start_relay(noise)

    threading.Thread(target=board, daemon=True).start()
    return cable


def test_serial_port_disappears_and_comes_back(bridge_bin, firmware, tmp_path):
    """The board resets and re-enumerates: its tty goes away with a request in
    flight (answered -32000 with its id), the path is missing for a while (the
    bridge retries with backoff; a request sent meanwhile is held), then a new
    tty appears under the same path, the rebooted firmware behind it, boot
    text first: the held request is answered by the board."""
    fw = firmware("m0")
    link = tmp_path / "ttyBOARD"
    cable = plug(fw.port, link, b"boot 1\r\n")
    command, args = readme_server("mcpservers-bridge-serial", device=str(link))
    args[args.index("--baud") + 1] = "9600"
    b = RawBridge(command, args, tmp_path / "bridge.stderr")
    try:
        b.call(1, "t1")
        assert b.answer()["result"]["structuredContent"]["value"] == 21.5

        fw.signal(signal.SIGSTOP)
        b.call("in-flight", "t2")
        time.sleep(0.5)
        cable.close()  # unplugged: the tty hangs up and its node goes away
        os.unlink(link)
        lost = b.answer()
        assert lost["id"] == "in-flight" and lost["error"]["code"] == GONE, lost
        fw.kill()

        b.call("held", "rh1")  # while the port is missing
        time.sleep(1.0)
        fw.start()  # the board boots again and re-enumerates
        cable = plug(fw.port, link, b"\x00boot 2\r\n{half")
        back = b.answer()
        assert back["id"] == "held" and back["result"]["structuredContent"]["value"] == 62, back
        assert b.close() == 0
        log = check_bridge_log(tmp_path / "bridge.stderr")
        assert "1 request(s) in flight answered with error -32000" in log, log
        assert "No such file or directory" in log, log
        assert log.count(f"connected to {link}") == 2, log
    finally:
        b.kill()
        cable.close()
