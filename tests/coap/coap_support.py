"""Helpers for the CoAP binding tests: where greenhouse-coap is, starting and
stopping it on a free loopback port, running the real libcoap clients
(coap-client-notls / coap-client-openssl) with a timeout on every run, and
building MCP requests.

Every process a test starts is stopped at teardown; the server's stderr goes
to a file (never a pipe that could fill up and block it).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

COAP_DIR = Path(__file__).resolve().parent
REPO = COAP_DIR.parents[1]
DEFAULT_BINARY = REPO / "build" / "examples-c" / "greenhouse" / "greenhouse-coap"

MODERN = "2026-07-28"
KEY_VERSION = "io.modelcontextprotocol/protocolVersion"
KEY_CAPS = "io.modelcontextprotocol/clientCapabilities"
KEY_INFO = "io.modelcontextprotocol/clientInfo"
KEY_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
TOOL_NAMES = ["read_sensor", "set_vent"]

# The greenhouse's audit line (examples-c/greenhouse/greenhouse.h).
AUDIT_RE = re.compile(
    r"audit: principal=\S+ tool=[A-Za-z0-9_.-]+ args=\S.* "
    r"outcome=(ok|is_error|refused|rate_limited|duplicate|invalid_arguments|input_required|failed) "
    r"trace=([0-9a-f]{32}|-) ms=\d+"
)


def audit_entry(line: str) -> str:
    """An audit line checked against the documented format, without `ms=`."""
    assert AUDIT_RE.fullmatch(line), f"malformed audit line: {line!r}"
    return re.sub(r" ms=\d+$", "", line)


def audit(tool: str, args: Any, outcome: str, principal: str = "-", trace: str = "-") -> str:
    """An expected audit line (without `ms=`); plain coap:// authenticates nobody ("-")."""
    text = args if isinstance(args, str) else json.dumps(args, separators=(",", ":"), ensure_ascii=False)
    return f"audit: principal={principal} tool={tool} args={text} outcome={outcome} trace={trace}"

START_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 10.0
CLIENT_TIMEOUT_S = 30.0


def binary_path() -> Path:
    return Path(os.environ.get("GREENHOUSE_COAP") or DEFAULT_BINARY)


def binary_problem(path: Path) -> str | None:
    if not path.exists():
        return (
            f"greenhouse-coap not found at {path}. Install libcoap3-dev, build with "
            "`cmake -S . -B build && cmake --build build`, or set GREENHOUSE_COAP."
        )
    if not path.is_file() or not os.access(path, os.X_OK):
        return f"GREENHOUSE_COAP={path} is not an executable file."
    return None


def free_udp_port(host: str = "127.0.0.1") -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def envelope(**extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {
        KEY_VERSION: MODERN,
        KEY_CAPS: {},
        KEY_INFO: {"name": "emcp-coap-tests", "version": "1"},
    }
    meta.update(extra)
    return meta


def request(method: str, id: Any = 1, meta: dict[str, Any] | None = None, **params: Any) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": id,
        "method": method,
        "params": {"_meta": meta if meta is not None else envelope(), **params},
    }


def call(name: str, arguments: dict[str, Any], id: Any = 1, **meta_extra: Any) -> dict:
    return request("tools/call", id, envelope(**meta_extra), name=name, arguments=arguments)


def dumps(msg: Any) -> bytes:
    return json.dumps(msg, separators=(",", ":")).encode()


@dataclass
class Server:
    """A running greenhouse-coap; stderr is collected in a file."""

    binary: str
    args: list[str]
    host: str
    port: int
    workdir: Path
    proc: subprocess.Popen | None = None
    stderr_path: Path = field(init=False)

    def __post_init__(self) -> None:
        self.stderr_path = self.workdir / f"greenhouse-coap-{self.port}.stderr"

    @property
    def url_host(self) -> str:
        return f"[{self.host}]" if ":" in self.host else self.host

    def url(self, path: str = "mcp", scheme: str | None = None) -> str:
        if scheme is None:
            scheme = "coaps" if self.secure else "coap"
        return f"{scheme}://{self.url_host}:{self.port}/{path}"

    @property
    def secure(self) -> bool:
        return "--psk" in self.args or "--cert" in self.args

    def start(self) -> "Server":
        listen = f"{self.url_host}:{self.port}"
        self._err = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(
            [self.binary, "--listen", listen, *self.args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._err,
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if "serving MCP on" in self.stderr():
                return self
            if self.proc.poll() is not None:
                raise RuntimeError(f"greenhouse-coap exited {self.proc.returncode}: {self.stderr()}")
            time.sleep(0.02)
        raise TimeoutError(f"greenhouse-coap did not start within {START_TIMEOUT_S}s: {self.stderr()}")

    def stderr(self) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def audit_lines(self) -> list[str]:
        """The audit lines so far, format-checked, without their `ms=` duration."""
        return [audit_entry(l) for l in self.stderr().splitlines() if l.startswith("audit: ")]

    def request_lines(self) -> list[str]:
        """The binding's --log-requests lines."""
        return [l for l in self.stderr().splitlines() if l.startswith("emcp_coap: ") and "principal=" in l]

    def vent_moves(self) -> list[str]:
        """The simulated actuator's log: one `vent: A% -> B%` line per movement."""
        return [l for l in self.stderr().splitlines() if l.startswith("vent: ")]

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=STOP_TIMEOUT_S)
        self._err.close()
        return self.proc.returncode


@dataclass
class ClientResult:
    returncode: int
    code: str | None  # e.g. "2.05", "4.00"; None when no response was seen
    payload: bytes  # the (reassembled) response payload
    log: str  # coap-client's -v log (stdout and stderr)

    def json(self) -> Any:
        return json.loads(self.payload)


_PDU_LINE = re.compile(r"^v:1 t:(?:CON|NON|ACK|RST) c:(\d\.\d\d) ")
_IO_LINE = re.compile(r" (sent|received) \d+ bytes$")

# Local ports handed to coap-client in this process: each run gets one that
# no earlier run used, so the server never meets a new client on a session
# (and Block1/Block2 state) that an earlier, finished client left behind.
# libcoap keys a Block1 transfer by peer and resource (RFC 7959 §2.5), so a
# new client on a reused port would otherwise continue an abandoned one; and
# coap-client 4.3.1 starts every run with token 0x01.
_USED_LOCAL_PORTS: set[int] = set()


def fresh_local_port(ipv6: bool) -> int:
    for _ in range(1000):
        port = free_udp_port("::" if ipv6 else "0.0.0.0")
        if port not in _USED_LOCAL_PORTS:
            _USED_LOCAL_PORTS.add(port)
            return port
    raise RuntimeError("no unused local UDP port left for coap-client")


def received_pdus(log: str) -> list[str]:
    """The PDU lines of what coap-client received, in order. With -v 7 each
    PDU line follows the `sent N bytes` or `received N bytes` line of its
    datagram; what the client itself sent (requests, ACKs, RSTs, or an answer
    to a request it was sent) is left out."""
    pdus, incoming = [], False
    for line in log.splitlines():
        io = _IO_LINE.search(line)
        if io:
            incoming = io.group(1) == "received"
        elif incoming and _PDU_LINE.match(line):
            pdus.append(line)
    return pdus


def coap_client(
    url: str,
    *,
    method: str = "post",
    payload: bytes | None = None,
    content_format: str | None = "application/json",
    flavour: str = "notls",
    block: int | None = None,
    extra: list[str] | None = None,
    wait_s: int = 5,
    timeout_s: float = CLIENT_TIMEOUT_S,
    verbose: int = 7,
) -> ClientResult:
    """Runs Debian's coap-client-<flavour> once. The payload goes through a
    file (-f), so Block1 applies when it exceeds the block size. -v 7 logs
    every PDU, which is how the tests count blocks and read response codes."""
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "out"
        cmd = [f"coap-client-{flavour}", "-m", method, "-B", str(wait_s), "-o", str(out), "-v", str(verbose)]
        if content_format is not None:
            cmd += ["-t", content_format]
        if payload is not None:
            req = Path(d) / "req"
            req.write_bytes(payload)
            cmd += ["-f", str(req)]
        if block is not None:
            cmd += ["-b", str(block)]
        cmd += extra or []
        if "-p" not in (extra or []):
            cmd += ["-p", str(fresh_local_port("[" in url))]
        cmd.append(url)
        # One stream, so that each PDU line stays after its sent/received line.
        p = subprocess.run(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout_s, stdin=subprocess.DEVNULL
        )
        log = p.stdout.decode(errors="replace")
        body = out.read_bytes() if out.exists() else b""
        # Response codes are class 2..5; requests show as 0.0x.
        received = received_pdus(log)
        responses = [m.group(1) for m in map(_PDU_LINE.match, received) if m and m.group(1)[0] in "2345"]
        code = responses[-1] if responses else None
        if not body and code is not None and code[0] in "45":
            body = _error_payload(received)
        return ClientResult(p.returncode, code, body, log)


def _error_payload(received: list[str]) -> bytes:
    """The payload of the last error response received ('... :: '<payload>')."""
    last = b""
    for line in received:
        m = re.match(r"^v:1 t:\w+ c:[45]\.\d\d .* :: '(.*)'$", line)
        if m:
            last = m.group(1).encode()
    return last


def block_numbers(log: str, option: str) -> list[int]:
    """Block numbers of the Block1/Block2 options on the server's responses."""
    nums = []
    for line in log.splitlines():
        if line.startswith("v:1 t:ACK c:2.") or line.startswith("v:1 t:NON c:2."):
            m = re.search(rf"{option}:(\d+)/", line)
            if m:
                nums.append(int(m.group(1)))
    return nums
