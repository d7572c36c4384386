"""Shared helpers of the emcp-bridge tests: the README's host entries (the
command line the tests run is the one README.md shows), the QEMU firmware
started by scripts/run-firmware, free ports, and a pty "cable" to it.

Every wait is bounded; every process a helper starts is stopped by it.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("EMCP_BUILD_DIR") or REPO / "build")
FIRMWARE_DIR = Path(os.environ.get("EMCP_FIRMWARE_DIR") or REPO / "build" / "firmware")
README = (REPO / "README.md").read_text(encoding="utf-8")

PLACEHOLDER_BUILD = "/ABSOLUTE/PATH/TO/emcp/build"
PLACEHOLDER_TCP = "127.0.0.1:5555"
PLACEHOLDER_SERIAL = "/dev/ttyACM0"

# The targets the bridge tests run on: name for run-firmware -> build name.
TARGETS = {"m4f": "m4f", "m0": "m0"}

GONE = -32000  # EMCP_BRIDGE_RPC_GONE (tools/bridge/bridge.h)


def readme_block(name: str) -> dict:
    """The ```json block right after `<!-- host-config:NAME -->` in README.md."""
    marker = f"<!-- host-config:{name} -->"
    at = README.find(marker)
    assert at >= 0, f"README.md lacks {marker}"
    m = re.match(r"\s*```json\n(.*?)\n```", README[at + len(marker):], re.S)
    assert m, f"no ```json block right after {marker}"
    return json.loads(m.group(1))


def readme_server(name: str, *, port: int | None = None, device: str | None = None) -> tuple[str, list[str]]:
    """(command, args) of the README entry NAME, placeholders filled in."""
    text = json.dumps(readme_block(name))
    text = text.replace(PLACEHOLDER_BUILD, str(BUILD))
    if port is not None:
        assert PLACEHOLDER_TCP in text, f"{name}: no {PLACEHOLDER_TCP} to fill in"
        text = text.replace(PLACEHOLDER_TCP, f"127.0.0.1:{port}")
    if device is not None:
        assert PLACEHOLDER_SERIAL in text, f"{name}: no {PLACEHOLDER_SERIAL} to fill in"
        text = text.replace(PLACEHOLDER_SERIAL, device)
    config = json.loads(text)
    servers = config.get("mcpServers") or config.get("servers")
    entry = servers["greenhouse"]
    return entry["command"], list(entry["args"])


def check_bridge_log(path: Path) -> str:
    """The bridge's stderr: it exited on stdin EOF, without a sanitizer report."""
    import sys
    sys.path.insert(0, str(REPO / "tests" / "common"))
    from sanitizers import report_in

    log = path.read_text(errors="replace")
    assert "stdin closed; exiting" in log, f"the bridge did not exit on stdin EOF:\n{log[-3000:]}"
    marker = report_in(log)
    assert marker is None, f"{marker} in the bridge's stderr:\n{log[-3000:]}"
    return log


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def firmware_elf(target: str) -> Path:
    name = TARGETS[target]
    return FIRMWARE_DIR / name / f"fw-{name}-uart.elf"


class Firmware:
    """The UART firmware under QEMU (scripts/run-firmware --no-build), its
    semihosting console (stdout) and stderr (audit lines) in files."""

    def __init__(self, target: str, port: int, logdir: Path):
        self.target, self.port, self.logdir = target, port, logdir
        self.proc: subprocess.Popen | None = None
        self.runs = 0

    def start(self) -> "Firmware":
        self.runs += 1
        out = open(self.logdir / f"qemu-{self.target}-{self.runs}.log", "wb")
        err = open(self.logdir / f"qemu-{self.target}-{self.runs}.stderr", "wb")
        self.proc = subprocess.Popen(
            [str(REPO / "scripts" / "run-firmware"), "--target", self.target, "--uart", f"tcp:{self.port}",
             "--no-build"],
            stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        out.close()
        err.close()
        self.wait_listening()
        return self

    def wait_listening(self, timeout: float = 20.0) -> None:
        """Until QEMU listens on the port (seen in /proc/net/tcp: no connection
        is made, so the firmware's one client slot stays free for the bridge)."""
        want = f":{self.port:04X} "
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"QEMU exited {self.proc.returncode}:\n{self.stderr()}"
            for table in ("/proc/net/tcp", "/proc/net/tcp6"):
                try:
                    lines = Path(table).read_text().splitlines()[1:]
                except OSError:
                    continue
                # local_address is field 1, state 0A is LISTEN
                if any(want in (ln.split()[1] + " ") and ln.split()[3] == "0A" for ln in lines):
                    return
            time.sleep(0.05)
        raise AssertionError(f"QEMU did not listen on port {self.port} within {timeout} s:\n{self.stderr()}")

    def signal(self, sig: int) -> None:
        assert self.proc is not None and self.proc.poll() is None
        os.kill(self.proc.pid, sig)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def log(self) -> str:
        return "\n".join((self.logdir / f"qemu-{self.target}-{i}.log").read_text(errors="replace")
                         for i in range(1, self.runs + 1))

    def stderr(self) -> str:
        return "\n".join((self.logdir / f"qemu-{self.target}-{i}.stderr").read_text(errors="replace")
                         for i in range(1, self.runs + 1))


class PtyCable:
    """A pty pair as the serial cable: the bridge opens the slave (a real
    tty, with termios), this relays the master to the firmware's UART socket.
    `noise` is written toward the bridge first, as a board's boot text."""

    def __init__(self, port: int):
        self.master, self.slave = os.openpty()
        self.path = os.ttyname(self.slave)
        self.port = port
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def start_relay(self, noise: bytes) -> None:
        os.write(self.master, noise)
        self.thread = threading.Thread(target=self._relay, daemon=True)
        self.thread.start()

    def _relay(self) -> None:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=10) as sock:
                sock.setblocking(False)
                while not self.stop.is_set():
                    r, _, _ = select.select([self.master, sock], [], [], 0.1)
                    if self.master in r:
                        data = os.read(self.master, 4096)
                        sock.sendall(data)
                    if sock in r:
                        data = sock.recv(4096)
                        if not data:
                            return
                        os.write(self.master, data)
        except OSError as e:  # the bridge closing the slave ends the relay with EIO
            if not self.stop.is_set():
                self.error = e

    def close(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(5)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


class RawBridge:
    """emcp-bridge driven line by line, every read bounded."""

    META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}

    def __init__(self, command: str, args: list[str], errpath):
        err = open(errpath, "wb")
        self.proc = subprocess.Popen([command, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
        err.close()

    def call(self, id_, sensor: str) -> None:
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {
            "_meta": self.META, "name": "read_sensor", "arguments": {"sensor_id": sensor}}}).encode() + b"\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float = 15.0) -> dict:
        out: list[bytes] = []
        t = threading.Thread(target=lambda: out.append(self.proc.stdout.readline()), daemon=True)
        t.start()
        t.join(timeout)
        assert out and out[0], "no answer from the bridge"
        return json.loads(out[0])

    def close(self) -> int:
        self.proc.stdin.close()
        return self.proc.wait(10)

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)
