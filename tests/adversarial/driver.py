"""A raw stdio driver for greenhouse-stdio with a bound on every wait.

stdout and stderr are drained by reader threads; writes of large payloads go
through a writer thread joined with a timeout; the process is killed at
close() if it has not exited by itself.
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

REPO = Path(__file__).resolve().parents[2]
DEFAULT_BINARY = REPO / "build" / "examples-c" / "greenhouse" / "greenhouse-stdio"
WAIT = 10.0  # seconds for any single answer

# The greenhouse's audit line (examples-c/greenhouse/greenhouse.h).
AUDIT_RE = re.compile(
    r"audit: principal=local tool=[A-Za-z0-9_.-]+ args=\S.* "
    r"outcome=(ok|is_error|refused|rate_limited|duplicate|invalid_arguments|input_required|failed) "
    r"trace=([0-9a-f]{32}|-) ms=\d+"
)
# Outcomes after which the tool had run.
RAN = ("ok", "is_error", "input_required", "failed")


def audit(args: str, outcome: str, tool: str = "set_vent") -> str:
    """An expected audit line (without `ms=`), with the arguments' exact text."""
    return f"audit: principal=local tool={tool} args={args} outcome={outcome} trace=-"


def binary() -> Path:
    return Path(os.environ.get("GREENHOUSE_STDIO") or DEFAULT_BINARY)


class Greenhouse:
    def __init__(self, *args: str) -> None:
        self.p = subprocess.Popen(
            [str(binary()), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )
        self.out: queue.Queue[bytes] = queue.Queue()
        self.err: list[str] = []
        self.raw_out: list[bytes] = []
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_out(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            self.raw_out.append(line)
            self.out.put(line)

    def _read_err(self) -> None:
        assert self.p.stderr is not None
        for line in self.p.stderr:
            self.err.append(line.decode("utf-8", "replace"))

    # -- writing
    def write(self, data: bytes, timeout: float = 30.0) -> None:
        """Writes `data` (any size) from a thread, waiting at most `timeout`."""
        box: list[BaseException] = []

        def go() -> None:
            try:
                assert self.p.stdin is not None
                self.p.stdin.write(data)
                self.p.stdin.flush()
            except BaseException as e:  # noqa: BLE001 - reported below
                box.append(e)

        t = threading.Thread(target=go, daemon=True)
        t.start()
        t.join(timeout)
        assert not t.is_alive(), f"writing {len(data)} bytes took over {timeout}s"
        if box:
            raise box[0]

    def send(self, msg: bytes | dict) -> None:
        line = msg if isinstance(msg, bytes) else json.dumps(msg, separators=(",", ":")).encode()
        self.write(line + b"\n")

    # -- reading
    def raw_line(self, timeout: float = WAIT) -> bytes:
        try:
            return self.out.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no response within {timeout}s; exit={self.p.poll()} stderr={''.join(self.err)[-2000:]}"
            ) from None

    def response(self, timeout: float = WAIT) -> dict:
        line = self.raw_line(timeout)
        assert line.endswith(b"\n"), line[:200]
        assert line.count(b"\n") == 1
        return json.loads(line)

    def request(self, msg: bytes | dict, timeout: float = WAIT) -> dict:
        self.send(msg)
        return self.response(timeout)

    def nothing_pending(self, settle: float = 0.3) -> bool:
        time.sleep(settle)
        return self.out.empty()

    def audits(self, at_least: int = 0) -> list[str]:
        """Audit lines, format-checked, without their `ms=` duration. The
        server writes a line before its response, but stderr is read by
        another thread: with `at_least`, waits (bounded) for that many."""
        deadline = time.monotonic() + WAIT
        while sum(l.startswith("audit:") for l in list(self.err)) < at_least and time.monotonic() < deadline:
            time.sleep(0.01)
        out = []
        for line in list(self.err):
            if line.startswith("audit:"):
                line = line.rstrip("\n")
                assert AUDIT_RE.fullmatch(line), f"malformed audit line: {line!r}"
                out.append(re.sub(r" ms=\d+$", "", line))
        return out

    def ran(self, at_least: int = 0) -> list[str]:
        """The audit lines of calls that ran their tool."""
        return [l for l in self.audits(at_least) if l.rsplit(" outcome=", 1)[1].split(" ")[0] in RAN]

    def vent_moves(self) -> list[str]:
        """The simulated actuator's log: one `vent: A% -> B%` line per movement."""
        return [l.rstrip("\n") for l in self.err if l.startswith("vent: ")]

    def close(self, timeout: float = WAIT) -> int:
        """Closes stdin (EOF ends the serve loop) and returns the exit code."""
        try:
            if self.p.stdin and not self.p.stdin.closed:
                self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait(5)
            raise AssertionError("greenhouse-stdio did not exit at EOF") from None
