"""Durable idempotency records (--state-dir): greenhouse-stdio killed with
SIGKILL at every step of a set_vent call (--crash-at), restarted on the same
state, and retried with the same key, then a new one.

What must hold, from the actuator log (one fsynced line per vent movement):
at most one movement per key; a retry is never told "ok" for a movement that
did not happen; a call interrupted between its intent and its result is
answered "earlier outcome unknown" (or, with --recover, settled from the
actuator log). And the state file truncated at every byte of its last
record: the server starts, and never answers with a result it did not have.
"""

from __future__ import annotations

import re
import signal
import struct
from collections import Counter
from pathlib import Path

import pytest

from e2e_support import StdioServer, call

POINTS = ["before-intent", "after-intent", "after-actuate", "after-result", "before-respond"]
# Whether the vent has moved when the process dies at each point.
MOVED_AT = {"before-intent": False, "after-intent": False, "after-actuate": True, "after-result": True, "before-respond": True}
UNKNOWN = "earlier outcome unknown"


def movements(log: Path) -> Counter:
    """Vent movements per idempotency key, from the actuator log."""
    if not log.exists():
        return Counter()
    keys = []
    for ln in log.read_text().splitlines():
        m = re.fullmatch(r"vent key=(\S+) from=(\d+) to=(\d+)", ln)
        assert m, f"malformed actuator log line: {ln!r}"
        keys.append(m.group(1))
    return Counter(keys)


def vent(percent: int, key: str, id: int) -> dict:
    return call("set_vent", {"percent": percent, "idempotency_key": key}, id=id)


def outcome(resp: dict) -> tuple[bool, str]:
    """(isError, text) of a tools/call answer."""
    assert "result" in resp, resp
    r = resp["result"]
    return r["isError"], r["content"][0]["text"]


def options(tmp: Path, recover: bool) -> list[str]:
    opts = ["--state-dir", str(tmp / "state"), "--actuator-log", str(tmp / "actuator.log"), "--vent-interval-ms", "0"]
    return opts + (["--recover"] if recover else [])


def killed_at(binary: str, opts: list[str], point: str, msg: dict) -> None:
    """Sends `msg` to a server started with --crash-at `point`: it must die
    there by SIGKILL without answering."""
    s = StdioServer(binary, *opts, "--crash-at", point)
    try:
        s.send(msg)
        rc = s.proc.wait(timeout=10)
        s._stderr_eof.wait(5)
        s._stdout_eof.wait(5)
        assert rc == -signal.SIGKILL, f"exit {rc}, not SIGKILL at {point}:\n{s.stderr_text()}"
        assert f"--crash-at {point}: SIGKILL" in s.stderr_text()
    finally:
        s.__exit__(None, None, None)
    assert s.stdout_lines == [], f"answered before dying at {point}: {s.stdout_lines}"


@pytest.mark.parametrize("recover", [False, True], ids=["default", "recover"])
@pytest.mark.parametrize("point", POINTS)
def test_killed_at_every_point_never_moves_twice(greenhouse_bin, spawn, tmp_path, point, recover):
    opts = options(tmp_path, recover)
    log = tmp_path / "actuator.log"
    killed_at(greenhouse_bin, opts, point, vent(40, "k1", 1))
    assert movements(log)["k1"] == int(MOVED_AT[point]), log.read_text() if log.exists() else ""

    s = spawn(*opts)
    first = outcome(s.request(vent(40, "k1", 2)))
    again = outcome(s.request(vent(40, "k1", 3)))
    assert again == first, "a retry of a settled key answers the same"
    moved = movements(log)["k1"]
    assert moved <= 1, f"k1 moved the vent {moved} times"
    is_error, text = first
    if not is_error:
        assert moved == 1, f"told ok without a movement: {text}"
    if point in ("after-result", "before-respond"):
        # The result was durable: answered from it, the vent not moved again.
        assert first == (False, "vent set to 40%")
    elif point == "before-intent":
        # No intent was durable, so the tool never ran: the retry runs it.
        assert first == (False, "vent set to 40%") and moved == 1
    elif not recover:
        # Interrupted between intent and result: never rerun by itself.
        assert is_error and text.startswith(UNKNOWN), text
    elif point == "after-intent":
        assert is_error and text.startswith("not moved: the call was interrupted before the vent moved"), text
    else:
        assert first == (False, "vent set to 40% (an interrupted call, confirmed from the actuator after a restart)")

    # A new key moves the vent once, and its retry does not move it again.
    new = outcome(s.request(vent(60, "k2", 4)))
    assert new == (False, "vent set to 60%")
    assert outcome(s.request(vent(60, "k2", 5))) == new
    # Without a key, set_vent refuses before the callback runs.
    bare = s.request(call("set_vent", {"percent": 10}, id=6))
    assert bare["result"]["isError"] and "idempotency_key" in bare["result"]["content"][0]["text"]
    assert s.finish()[0] == 0
    m = movements(log)
    assert m["k2"] == 1 and m["k1"] == moved and sum(m.values()) == moved + 1, m


def records(data: bytes) -> list[int]:
    """Start offsets of the records of a state file (src/store.rs layout)."""
    starts, off = [], 0
    while off < len(data):
        starts.append(off)
        assert data[off] == 0xE5, f"not a record at {off}"
        key_len, n = data[off + 3], struct.unpack_from("<H", data, off + 8)[0]
        off += 10 + key_len + n + 4
    assert off == len(data)
    return starts


def test_state_file_truncated_at_every_byte_of_its_last_record(greenhouse_bin, spawn, tmp_path):
    opts = options(tmp_path, recover=False)
    log = tmp_path / "actuator.log"
    s = spawn(*opts)
    assert outcome(s.request(vent(30, "a", 1))) == (False, "vent set to 30%")
    assert s.finish()[0] == 0
    # k's result record is the last one: killed just before answering.
    killed_at(greenhouse_bin, opts, "before-respond", vent(70, "k", 2))
    state = tmp_path / "state" / "idempotency.log"
    data = state.read_bytes()
    last = records(data)[-1]
    assert data[last + 1] == 2, "the last record is k's result (MCP_STORE_RESULT)"
    before = movements(log)
    assert before == Counter({"a": 1, "k": 1})
    for cut in range(last, len(data)):
        state.write_bytes(data[:cut])
        s = spawn(*opts)
        k = outcome(s.request(vent(70, "k", 3)))
        # k's intent is whole: interrupted, never a result it lost.
        assert k[0] and k[1].startswith(UNKNOWN), f"cut at {cut}: {k}"
        assert outcome(s.request(vent(30, "a", 4))) == (False, "vent set to 30%"), f"cut at {cut}"
        assert s.finish()[0] == 0, f"cut at {cut}"
        # The torn tail was rewritten away: the file is whole records again.
        records(state.read_bytes())
    assert movements(log) == before, "no call moved the vent again"
    # The whole file answers k from its result.
    state.write_bytes(data)
    s = spawn(*opts)
    assert outcome(s.request(vent(70, "k", 5))) == (False, "vent set to 70%")
    assert s.finish()[0] == 0
