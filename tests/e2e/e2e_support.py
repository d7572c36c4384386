"""Shared helpers for the end-to-end tests: where the binary is, how to build
requests, and a raw stdio driver with a timeout on every wait.

The driver never blocks without a bound: stdout and stderr are drained by
reader threads, writes go through a writer thread that is joined with a
timeout, and every process is killed at teardown if it is still running.
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

E2E_DIR = Path(__file__).resolve().parent
REPO = E2E_DIR.parents[1]
DEFAULT_BINARY = REPO / "build" / "examples-c" / "greenhouse" / "greenhouse-stdio"

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
SERVER_NAME = "greenhouse-gw"
SERVER_VERSION = "0.4.0"
TOOL_NAMES = ["read_sensor", "set_vent"]
SENSOR_IDS = ["t1", "t2", "rh1", "soil1"]
# sensor -> (value, unit) of the simulated readings
READINGS = {"t1": (21.5, "C"), "t2": (34.1, "C"), "rh1": (62, "%")}

KEY_VERSION = "io.modelcontextprotocol/protocolVersion"
KEY_CAPS = "io.modelcontextprotocol/clientCapabilities"
KEY_INFO = "io.modelcontextprotocol/clientInfo"
KEY_SERVER_INFO = "io.modelcontextprotocol/serverInfo"


def binary_path() -> Path:
    """The greenhouse-stdio binary: $GREENHOUSE_STDIO or the default build path."""
    return Path(os.environ.get("GREENHOUSE_STDIO") or DEFAULT_BINARY)


def binary_problem(path: Path) -> str | None:
    """Why `path` cannot be run, or None when it can."""
    if not path.exists():
        return (
            f"greenhouse-stdio not found at {path}. Build it with "
            "`cmake -S . -B build && cmake --build build` in the repository, "
            "or point GREENHOUSE_STDIO at the binary."
        )
    if not path.is_file() or not os.access(path, os.X_OK):
        return f"GREENHOUSE_STDIO={path} is not an executable file."
    return None


def envelope(version: str = MODERN, caps: Any = None, **extra: Any) -> dict[str, Any]:
    """A 2026-07-28 `_meta` envelope."""
    meta: dict[str, Any] = {
        KEY_VERSION: version,
        KEY_CAPS: {} if caps is None else caps,
        KEY_INFO: {"name": "emcp-e2e", "version": "1"},
    }
    meta.update(extra)
    return meta


def modern(method: str, id: Any = 1, **params: Any) -> dict[str, Any]:
    """A request in the modern era (params carry the `_meta` envelope)."""
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": {"_meta": envelope(), **params}}


def legacy(method: str, id: Any = 1, **params: Any) -> dict[str, Any]:
    """A request without the envelope (legacy era)."""
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params:
        msg["params"] = params
    return msg


def call(tool: str, args: dict[str, Any] | None, id: Any = 1, era: str = "modern") -> dict[str, Any]:
    """A tools/call request."""
    params: dict[str, Any] = {"name": tool}
    if args is not None:
        params["arguments"] = args
    return modern("tools/call", id, **params) if era == "modern" else legacy("tools/call", id, **params)


def initialize(id: Any = 1, version: str = LEGACY) -> dict[str, Any]:
    return legacy(
        "initialize",
        id,
        protocolVersion=version,
        capabilities={},
        clientInfo={"name": "emcp-e2e", "version": "1"},
    )


# The greenhouse's audit line (examples-c/greenhouse/greenhouse.h), written by
# the core's audit hook once per tools/call of a registered tool.
AUDIT_RE = re.compile(
    r"audit: principal=\S+ tool=[A-Za-z0-9_.-]+ args=\S.* "
    r"outcome=(ok|is_error|refused|rate_limited|duplicate|invalid_arguments|input_required|failed|"
    r"no_space|over_declared) "
    r"trace=([0-9a-f]{32}|-) ms=\d+"
)


def audit_entry(line: str) -> str:
    """An audit line checked against the documented format, without its
    `ms=` duration (the one field that varies from run to run)."""
    assert AUDIT_RE.fullmatch(line), f"malformed audit line: {line!r}"
    return re.sub(r" ms=\d+$", "", line)


def audit_fields(line: str) -> tuple[str, str, Any, str, str]:
    """(principal, tool, parsed arguments, outcome, trace) of an audit line."""
    m = re.fullmatch(r"audit: principal=(\S+) tool=(\S+) args=(.*) outcome=(\S+) trace=(\S+)( ms=\d+)?", line)
    assert m, f"malformed audit line: {line!r}"
    return m.group(1), m.group(2), json.loads(m.group(3)), m.group(4), m.group(5)


def audit(tool: str, args: Any, outcome: str, principal: str = "local", trace: str = "-") -> str:
    """The expected audit line (without `ms=`); `args` as a dict, or the exact compact JSON text."""
    text = args if isinstance(args, str) else json.dumps(args, separators=(",", ":"), ensure_ascii=False)
    return f"audit: principal={principal} tool={tool} args={text} outcome={outcome} trace={trace}"


def line(msg: Any) -> bytes:
    """One compact JSON message and its newline."""
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


class StdioServer:
    """A greenhouse-stdio process driven through raw pipes."""

    def __init__(self, binary: str | os.PathLike[str], *args: str) -> None:
        self.argv = [os.fspath(binary), *args]
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )
        self._out: queue.Queue[bytes | None] = queue.Queue()
        self.stdout_lines: list[bytes] = []  # every stdout line as read, newline included
        self._stderr: list[bytes] = []
        self._stderr_lock = threading.Lock()
        self._stdout_eof = threading.Event()
        self._stderr_eof = threading.Event()
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # -- reader threads ---------------------------------------------------
    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        try:
            for raw in iter(self.proc.stdout.readline, b""):
                self.stdout_lines.append(raw)
                self._out.put(raw)
        except (OSError, ValueError):
            pass  # the pipe was closed at teardown
        finally:
            self._stdout_eof.set()
            self._out.put(None)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        try:
            for raw in iter(self.proc.stderr.readline, b""):
                with self._stderr_lock:
                    self._stderr.append(raw)
        except (OSError, ValueError):
            pass  # the pipe was closed at teardown
        finally:
            self._stderr_eof.set()

    # -- writing ----------------------------------------------------------
    def send_bytes(self, data: bytes, timeout: float = 10.0) -> None:
        """Writes `data` to the server's stdin, failing after `timeout` seconds."""
        assert self.proc.stdin is not None
        errors: list[BaseException] = []

        def write() -> None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        t = threading.Thread(target=write, daemon=True)
        t.start()
        t.join(timeout)
        if t.is_alive():
            raise TimeoutError(f"writing {len(data)} bytes to the server did not finish in {timeout}s")
        if errors:
            raise errors[0]

    def send(self, msg: Any) -> None:
        self.send_bytes(line(msg))

    def close_stdin(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()

    # -- reading ----------------------------------------------------------
    def recv_raw(self, timeout: float = 5.0) -> bytes:
        """The next stdout line (newline included); fails on timeout or EOF."""
        try:
            raw = self._out.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no response line within {timeout}s; stderr so far:\n{self.stderr_text()}") from None
        if raw is None:
            self._out.put(None)  # keep reporting EOF
            raise AssertionError(f"server closed stdout; exit code {self.proc.poll()}; stderr:\n{self.stderr_text()}")
        return raw

    def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        raw = self.recv_raw(timeout)
        assert raw.endswith(b"\n"), f"response line without newline: {raw!r}"
        msg = json.loads(raw)
        assert isinstance(msg, dict), raw
        return msg

    def request(self, msg: Any, timeout: float = 5.0) -> dict[str, Any]:
        self.send(msg)
        return self.recv(timeout)

    def request_raw(self, data: bytes, timeout: float = 5.0) -> bytes:
        """Sends `data` (one line, newline added if missing) and returns the raw response line."""
        if not data.endswith(b"\n"):
            data += b"\n"
        self.send_bytes(data)
        return self.recv_raw(timeout)

    def expect_silence(self, seconds: float = 0.3) -> None:
        """Asserts that no stdout line arrives within `seconds`."""
        try:
            raw = self._out.get(timeout=seconds)
        except queue.Empty:
            return
        if raw is None:
            self._out.put(None)
            raise AssertionError("server closed stdout unexpectedly")
        raise AssertionError(f"unexpected output: {raw!r}")

    # -- stderr -------------------------------------------------------------
    def stderr_lines(self) -> list[str]:
        with self._stderr_lock:
            return [b.decode("utf-8", "replace").rstrip("\n") for b in self._stderr]

    def stderr_text(self) -> str:
        return "\n".join(self.stderr_lines())

    def audit_lines(self) -> list[str]:
        """The audit lines so far, format-checked, without their `ms=` field."""
        return [audit_entry(s) for s in self.stderr_lines() if s.startswith("audit:")]

    # -- shutdown ------------------------------------------------------------
    def finish(self, timeout: float = 5.0) -> tuple[int, float]:
        """Closes stdin, waits for exit and for both pipes to drain.

        Returns (exit code, seconds from closing stdin to exit)."""
        start = time.monotonic()
        self.close_stdin()
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"server did not exit within {timeout}s of EOF on stdin") from None
        elapsed = time.monotonic() - start
        # The pipes close with the process; give the reader threads a bounded moment.
        self._stdout_eof.wait(timeout)
        self._stderr_eof.wait(timeout)
        return rc, elapsed

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass

    def __enter__(self) -> StdioServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close_stdin()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.kill()
        # Let the reader threads see EOF before their pipes are closed.
        self._stdout_eof.wait(5)
        self._stderr_eof.wait(5)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


def assert_stdout_is_jsonrpc(lines: list[bytes]) -> None:
    """Every stdout line is one UTF-8 JSON-RPC 2.0 response object and nothing else."""
    for raw in lines:
        assert raw.endswith(b"\n"), f"stdout line without newline: {raw!r}"
        body = raw[:-1]
        assert body and b"\n" not in body and b"\r" not in body, f"bad framing: {raw!r}"
        text = body.decode("utf-8")  # raises on invalid UTF-8
        msg = json.loads(text)
        assert isinstance(msg, dict), f"not an object: {raw!r}"
        assert msg.get("jsonrpc") == "2.0", raw
        assert "id" in msg, raw
        assert ("result" in msg) != ("error" in msg), raw
        assert "method" not in msg, f"server sent a request or notification: {raw!r}"
