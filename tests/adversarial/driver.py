"""A raw stdio driver for greenhouse-stdio with a bound on every wait.

stdout and stderr are drained by reader threads; writes of large payloads go
through a writer thread joined with a timeout; the process is killed at
close() if it has not exited by itself.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_BINARY = REPO / "build" / "examples-c" / "greenhouse" / "greenhouse-stdio"
WAIT = 10.0  # seconds for any single answer


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

    def audits(self) -> list[str]:
        return [l for l in self.err if l.startswith("audit:")]

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
