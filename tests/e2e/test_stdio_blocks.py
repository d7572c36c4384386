"""greenhouse-stdio's input and output in blocks (issue 38, item 5).

A client that pipelines requests gets its answers without a system call per
line: the process's read and write calls (Linux /proc/PID/io, syscr and
syscw) are counted for a burst of requests. A client that waits for each
answer still gets it, and its audit line, before it sends the next request.
A termination signal ends the input: the calls already read are answered
and audited, nothing waits in a buffer when the process exits.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from e2e_support import audit, call, line
from sanitizers import report_in

F_SETPIPE_SZ = 1031  # fcntl.F_SETPIPE_SZ (Python 3.10+), spelled out for older ones
BLOCK = 16384  # EMCP_STDIO_LINE_MAX: the most one read(2) takes


def burst(n: int) -> tuple[list[dict], bytes]:
    """scripts/bench's stream: tools/call set_vent and read_sensor in turn."""
    reqs = []
    for i in range(n):
        if i % 2 == 0:
            reqs.append(call("set_vent", {"percent": i % 81}, i + 1))
        else:
            reqs.append(call("read_sensor", {"sensor_id": "t1"}, i + 1))
    return reqs, b"".join(line(r) for r in reqs)


def io_counts(pid: int) -> tuple[int, int]:
    """(read calls, write calls) the process has made so far."""
    fields = dict(ln.split(": ") for ln in Path(f"/proc/{pid}/io").read_text().splitlines())
    return int(fields["syscr"]), int(fields["syscw"])


def wait_for(cond, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


class FileServer:
    """greenhouse-stdio with stdin a pipe filled before it starts (so every
    read finds a full block waiting) and stdout/stderr regular files."""

    def __init__(self, binary: str, tmp: Path, data: bytes) -> None:
        r, w = os.pipe()
        try:
            fcntl.fcntl(w, F_SETPIPE_SZ, max(len(data) + 4096, 65536))
        except OSError as e:
            os.close(r)
            os.close(w)
            pytest.skip(f"cannot grow a pipe to {len(data)} bytes: {e}")
        written = os.write(w, data) if data else 0
        assert written == len(data)
        self.out_path, self.err_path = tmp / "stdout", tmp / "stderr"
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen([binary], stdin=r, stdout=out, stderr=err)
        os.close(r)
        self.stdin_w = w

    def out_lines(self) -> list[bytes]:
        return self.out_path.read_bytes().splitlines()

    def err_lines(self) -> list[str]:
        return self.err_path.read_text(errors="replace").splitlines()

    def finish(self) -> int:
        if self.stdin_w >= 0:
            os.close(self.stdin_w)
            self.stdin_w = -1
        rc = self.proc.wait(timeout=30)
        text = self.err_path.read_text(errors="replace")
        marker = report_in(text)
        assert marker is None, f"{marker} in greenhouse-stdio's stderr:\n{text[-3000:]}"
        return rc


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux /proc/PID/io")
def test_pipelined_burst_costs_system_calls_per_block_not_per_line(greenhouse_bin, tmp_path):
    n = 2000
    reqs, data = burst(n)
    # The same program idle at its first wait for input: what start-up costs.
    (tmp_path / "idle").mkdir()
    idle = FileServer(greenhouse_bin, tmp_path / "idle", b"")
    wait_for(lambda: any("serving MCP" in s for s in idle.err_lines()), 30, "the idle server's first line")
    time.sleep(0.2)
    base_r, base_w = io_counts(idle.proc.pid)
    assert idle.finish() == 0

    (tmp_path / "burst").mkdir()
    s = FileServer(greenhouse_bin, tmp_path / "burst", data)
    # Every answer out means the server sent its last block and waits again.
    wait_for(lambda: s.out_path.stat().st_size > 0 and s.out_path.read_bytes().count(b"\n") >= n, 60,
             f"{n} answers")
    time.sleep(0.2)
    r, w = io_counts(s.proc.pid)
    out_bytes, err_bytes = s.out_path.stat().st_size, s.err_path.stat().st_size
    assert s.finish() == 0

    got = [json.loads(x) for x in s.out_lines()]
    assert [g["id"] for g in got] == [q["id"] for q in reqs]
    assert all("result" in g for g in got)
    audits = [x for x in s.err_lines() if x.startswith("audit:")]
    assert len(audits) == n
    assert audits[1].startswith(audit("read_sensor", {"sensor_id": "t1"}, "ok"))

    reads, writes = r - base_r, w - base_w
    print(f"\n{n} pipelined requests ({len(data)} bytes in, {out_bytes} out, {err_bytes} log): "
          f"{reads} read and {writes} write calls")
    # One read per block of input (at most BLOCK bytes, less a cut line).
    assert reads <= len(data) // (BLOCK // 2) + 3, (reads, len(data))
    # At most one write of answers and one of log lines per BLOCK bytes of
    # answers; a write per answer or per audit line is thousands.
    assert writes <= 2 * (out_bytes // BLOCK + 1) + 2, (writes, out_bytes, err_bytes)


def test_each_answer_and_its_audit_line_arrive_before_the_next_request(spawn):
    """A client that waits for each answer is never left waiting on a buffer."""
    s = spawn()
    for i in range(30):
        args = {"sensor_id": "t2"} if i % 2 else {"sensor_id": "rh1"}
        resp = s.request(call("read_sensor", args, i), timeout=5)
        assert resp["id"] == i and "result" in resp, resp
        # The audit line left with the answer (stdin stays open: nothing but
        # the flush before the wait can have sent it).
        wait_for(lambda: len(s.audit_lines()) == i + 1, 5, f"the audit line of request {i}")
        assert s.audit_lines()[-1] == audit("read_sensor", args, "ok")
    rc, _ = s.finish()
    assert rc == 0


def test_sigterm_while_idle_exits_zero_with_every_line(spawn):
    s = spawn()
    assert "result" in s.request(call("read_sensor", {"sensor_id": "t1"}, "a"))
    s.proc.send_signal(signal.SIGTERM)
    assert s.proc.wait(timeout=5) == 0
    s._stderr_eof.wait(5)
    assert s.audit_lines() == [audit("read_sensor", {"sensor_id": "t1"}, "ok")]


def test_sigterm_during_a_burst_answers_and_audits_what_was_read(greenhouse_bin, tmp_path):
    n = 3000  # under 1 MiB: the pipe holds it all (pipe-max-size)
    reqs, data = burst(n)
    s = FileServer(greenhouse_bin, tmp_path, data)
    wait_for(lambda: s.out_path.stat().st_size > 0, 30, "the first block of answers")
    s.proc.send_signal(signal.SIGTERM)
    rc = s.finish()
    assert rc == 0, s.err_path.read_text()[-3000:]
    got = [json.loads(x) for x in s.out_lines()]
    answered = [g for g in got if "result" in g]
    # The answers are those of the first requests, in order; the request the
    # signal cut in two (if any) is answered as a last line at end of input.
    assert [g["id"] for g in answered] == [q["id"] for q in reqs[: len(answered)]]
    rest = got[len(answered):]
    assert len(rest) <= 1 and all(g.get("id") is None and "error" in g for g in rest), rest
    # Every call that ran has its audit line: none was left in a buffer.
    audits = [x for x in s.err_lines() if x.startswith("audit:")]
    assert len(audits) == len(answered)
    print(f"\nSIGTERM after the first block: {len(answered)} of {n} requests answered and audited")
