#!/usr/bin/env python3
"""The NVS backend of the durable idempotency records across restarts of
native_sim: tests/zephyr/store_nvs (zephyr.exe) killed by SIGKILL at every
step of a keyed call and at every store write, restarted on the same flash
simulator file (--flash=FILE), and retried with the same keys.

What must hold, from the image's lines (ACTUATE per run of the tool's
action, ANSWER per response; see tests/zephyr/store_nvs/src/main.c):

- crash points (before-intent, after-intent, after-actuate, after-result,
  before-respond): the retry after the restart is answered from the record
  (the earlier "moved <key>") when the result was recorded, "earlier
  outcome unknown" when only the intent was, and runs the tool only when
  nothing was; a new key then runs once; a key's action never runs twice.
- compaction: 5 ring-fulls of calls in one run, each call costing the flash
  writes docs/firmware.md states (2, and MCP_DEDUP_SLOTS + 2 for a call whose
  intent compacts, at the positions the ring size implies); after a restart
  the last MCP_DEDUP_SLOTS keys are answered from flash without running.
- emcp_store_nvs_open refuses an NVS smaller than its ring of largest
  records needs, and accepts the next sector count: the figure
  docs/firmware.md gives for the default limits.
- a kill before every store write (append, sync, restart) of a run that
  compacts twice (once at a call's intent, once at its result): after the restart, of the last MCP_DEDUP_SLOTS keys, none
  runs twice, each answered call is answered "moved" again without running,
  an "ok" is only given for an action that happened, and only the call in
  flight may be answered "earlier outcome unknown".

The limits (CONFIG_EMCP_DEDUP_SLOTS, CONFIG_EMCP_STORE_NVS_RECORDS) are read
from the build's zephyr/.config. --drop append|sync passes the image's
fault switch (that store hook writes nothing and reports success): the
checks must then fail, which scripts/test.d/60-rtos.sh requires.

usage: store_nvs_check.py ZEPHYR_EXE [--drop append|sync]
Exit status: 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

POINTS = ["before-intent", "after-intent", "after-actuate", "after-result", "before-respond"]
# What the retry after a kill at each point must get: the stored result, the
# unknown outcome, or a first run (nothing was recorded).
EXPECT = {"before-intent": "runs", "after-intent": "unknown", "after-actuate": "unknown",
          "after-result": "stored", "before-respond": "stored"}
UNKNOWN = "earlier outcome unknown"

failures: list[str] = []
passes = 0


def check(ok: bool, what: str) -> bool:
    global passes
    if ok:
        passes += 1
    else:
        failures.append(what)
        print("FAIL " + what)
    return ok


ROOT = Path(__file__).resolve().parents[2]
SECTOR = 4096        # the flash simulator's erase block (native_sim's devicetree)
NVS_ATE = 8          # an NVS allocation entry


def config(exe: Path) -> dict[str, int]:
    text = (exe.parent / ".config").read_text()
    out = {}
    for name in ("EMCP_DEDUP_SLOTS", "EMCP_STORE_NVS_RECORDS", "EMCP_DEDUP_KEY_MAX", "EMCP_DEDUP_RESULT_MAX"):
        m = re.search(rf"^CONFIG_{name}=([0-9]+)$", text, re.M)
        if not m:
            sys.exit(f"{exe.parent / '.config'}: no CONFIG_{name}")
        out[name] = int(m.group(1))
    return out


class Run:
    """One run of the image: its lines, parsed."""

    def __init__(self, exe: Path, flash: Path, drop: str | None, *args: str):
        # -no-rt: simulated time (the 1 ms between calls) does not wait for the host clock.
        cmd = [str(exe), "-no-rt", f"--flash={flash}", *args] + ([f"--drop={drop}"] if drop else [])
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        self.cmd = " ".join(cmd)
        self.rc = p.returncode
        self.lines = p.stdout.splitlines()
        self.stderr = p.stderr
        self.actuated = Counter()
        self.answers: dict[str, dict] = {}
        self.writes: list[int] = []
        self.crash = None
        self.done = None
        self.restored = None
        for ln in self.lines:
            if m := re.fullmatch(r"ACTUATE key=(\S+)", ln):
                self.actuated[m.group(1)] += 1
            elif m := re.fullmatch(r"ANSWER key=(\S+) writes=(\d+) (.*)", ln):
                self.answers[m.group(1)] = json.loads(m.group(3))
                self.writes.append(int(m.group(2)))
            elif m := re.fullmatch(r"CRASH (\S+)", ln):
                self.crash = m.group(1)
            elif m := re.fullmatch(r"DONE writes=(\d+) hooks=(\d+)", ln):
                self.done = (int(m.group(1)), int(m.group(2)))
            elif m := re.fullmatch(r"RESTORED (\d+)", ln):
                self.restored = int(m.group(1))

    def killed(self) -> bool:
        return self.rc == -signal.SIGKILL and self.crash is not None and self.done is None

    def clean(self) -> bool:
        return self.rc == 0 and self.done is not None

    def why(self) -> str:
        tail = "\n".join("      " + ln[:160] for ln in (self.lines + self.stderr.splitlines())[-6:])
        return f"\n    {self.cmd}: exit {self.rc}\n{tail}"


def outcome(resp: dict, key: str) -> str:
    """'moved' (the tool's own result), 'unknown', or what else it was."""
    r = resp.get("result")
    if not isinstance(r, dict):
        return f"error {resp.get('error')}"
    text = r.get("content", [{}])[0].get("text", "")
    if not r.get("isError") and text == f"moved {key}":
        return "moved"
    if r.get("isError") and text.startswith(UNKNOWN):
        return "unknown"
    return f"other {text[:80]!r}"


def crash_points(exe: Path, tmp: Path, drop: str | None) -> None:
    print("== a kill at each step of one call, then the retry and a new key")
    for point in POINTS:
        flash = tmp / f"crash-{point}.bin"
        first = Run(exe, flash, drop, "--prefix=c", f"--crash-at={point}")
        if not check(first.killed() and first.crash == point and not first.answers,
                     f"{point}: the run dies there by SIGKILL, unanswered{first.why()}"):
            continue
        retry = Run(exe, flash, drop, "--prefix=c")
        new = Run(exe, flash, drop, "--prefix=c", "--first=1")
        again = Run(exe, flash, drop, "--prefix=c", "--count=2")
        if not check(retry.clean() and new.clean() and again.clean(),
                     f"{point}: the runs after it complete{retry.why()}{new.why()}{again.why()}"):
            continue
        moves = first.actuated + retry.actuated + new.actuated + again.actuated
        got = outcome(retry.answers["c-0"], "c-0")
        want = {"runs": "moved", "stored": "moved", "unknown": "unknown"}[EXPECT[point]]
        ran_again = retry.actuated["c-0"]
        check(got == want and ran_again == (1 if EXPECT[point] == "runs" else 0),
              f"{point}: the retry is answered {want} and runs the action "
              f"{'once' if EXPECT[point] == 'runs' else 'not again'} (got {got}, ran {ran_again}x)")
        check(moves["c-0"] <= 1 and moves["c-1"] == 1,
              f"{point}: each key's action ran at most once (c-0 {moves['c-0']}x), the new key's once")
        check(outcome(new.answers["c-1"], "c-1") == "moved"
              and outcome(again.answers["c-1"], "c-1") == "moved"
              and outcome(again.answers["c-0"], "c-0") == got,
              f"{point}: the new key is answered moved, and both again as before after a second restart")
        print(f"   {point}: retry {got}, action ran {moves['c-0']}x for the key, "
              f"{retry.restored} record(s) restored")


def compaction(exe: Path, tmp: Path, drop: str | None, slots: int, ring: int) -> None:
    cap = ring - slots                        # records of a live log
    calls = 5 * cap // 2
    print(f"== {calls} calls in one run (the ring: {ring} slots, {cap} records before a compaction)")
    flash = tmp / "compaction.bin"
    run = Run(exe, flash, drop, "--prefix=m", f"--count={calls}")
    if not check(run.clean() and len(run.answers) == calls,
                 f"compaction: {calls} calls answered{run.why()}"):
        return
    check(all(outcome(a, k) == "moved" for k, a in run.answers.items()) and
          all(run.actuated[f"m-{i}"] == 1 for i in range(calls)),
          "compaction: every call ran once and was answered moved")
    # Where compactions fall: at the append (a call's intent or its result)
    # that finds the log full (cap records); the compacted log holds one
    # record per live entry, this call's included.
    want, used = [], 0
    for i in range(calls):
        live = min(i + 1, slots)
        for _ in ("intent", "result"):
            if used + 1 > cap:
                want.append(i)
                used = live
            else:
                used += 1
    got = [i for i, w in enumerate(run.writes) if w != 2]
    check(got == want, f"compaction: compactions at calls {want} (got {got})")
    check(all(run.writes[i] == slots + 2 for i in want),
          f"compaction: a compacting call writes {slots} entries + meta + its result "
          f"({sorted(set(run.writes[i] for i in got))})")
    check(run.done is not None and run.done[0] == sum(run.writes) + 1,
          f"compaction: flash writes of the run are the calls' plus the new log's meta ({run.done})")
    print(f"   flash writes per call: {sorted(Counter(run.writes).items())} (writes, calls); "
          f"compactions at calls {got}; run total {run.done[0] if run.done else '?'} "
          f"with the meta of a fresh log")
    last = calls - slots
    retry = Run(exe, flash, drop, "--prefix=m", f"--first={last}", f"--count={slots}")
    if not check(retry.clean(), f"compaction: the restarted run completes{retry.why()}"):
        return
    check(sum(retry.actuated.values()) == 0 and all(w == 0 for w in retry.writes),
          f"compaction: after a restart the last {slots} keys run nothing and write nothing "
          f"({sum(retry.actuated.values())} ran)")
    check(all(retry.answers.get(f"m-{i}") == run.answers[f"m-{i}"] for i in range(last, calls)),
          f"compaction: after a restart the last {slots} keys get the answers they had")
    print(f"   after a restart: {retry.restored} records restored, the last {slots} keys "
          f"answered from flash, {sum(retry.actuated.values())} ran again")


def kill_at_every_write(exe: Path, tmp: Path, drop: str | None, slots: int, ring: int) -> None:
    calls = ring - slots + 2                  # compactions at an intent and at a result
    clean = Run(exe, tmp / "clean.bin", drop, "--prefix=w", f"--count={calls}")
    if not check(clean.clean(), f"kill matrix: the clean run of {calls} calls{clean.why()}"):
        return
    hooks = clean.done[1]
    print(f"== a kill before each of the {hooks} store writes of {calls} calls, then the retry")
    outcomes = Counter()
    for n in range(1, hooks + 1):
        flash = tmp / f"kill-{n}.bin"
        first = Run(exe, flash, drop, "--prefix=w", f"--count={calls}", f"--kill-at-write={n}")
        if not check(first.killed(), f"kill at write {n}: the run dies by SIGKILL{first.why()}"):
            continue
        inflight = len(first.answers)         # the call that was running
        lo = max(0, inflight - slots + 1)
        retry = Run(exe, flash, drop, "--prefix=w", f"--first={lo}", f"--count={inflight - lo + 1}")
        if not check(retry.clean(), f"kill at write {n}: the restarted run completes{retry.why()}"):
            continue
        for i in range(lo, inflight + 1):
            k = f"w-{i}"
            total = first.actuated[k] + retry.actuated[k]
            got = outcome(retry.answers[k], k)
            check(total <= 1, f"kill at write {n}: {k}'s action ran {total}x")
            if i < inflight:
                check(got == "moved" and retry.actuated[k] == 0,
                      f"kill at write {n}: answered {k} is answered moved after the restart without "
                      f"running (got {got}, ran {retry.actuated[k]}x)")
            else:
                check(got == "unknown" or (got == "moved" and total == 1),
                      f"kill at write {n}: the call in flight ({k}) is answered unknown, or moved "
                      f"only once its action ran (got {got}, ran {total}x)")
                outcomes[(got, "ran" if total else "not run")] += 1
    print("   the call in flight after the restart: " +
          ", ".join(f"{g} ({r}) {c}x" for (g, r), c in sorted(outcomes.items())))


def smallest_nvs(exe: Path, tmp: Path, limits: dict[str, int]) -> None:
    """emcp_store_nvs_open's size check: the fewest sectors it accepts is
    what docs/firmware.md states for the default limits."""
    got = None
    for n in range(2, 9):
        r = Run(exe, tmp / f"sectors-{n}.bin", None, f"--sectors={n}", "--count=0")
        if r.clean():
            got = n
            break
        check("FAIL emcp_store_nvs_open: -28" in r.lines, f"{n} sectors: refused with -MCP_ENOSPC{r.why()}")
    entry = 4 + 14 + limits["EMCP_DEDUP_KEY_MAX"] + limits["EMCP_DEDUP_RESULT_MAX"]
    per_sector = (SECTOR - 3 * NVS_ATE) // (entry + NVS_ATE)
    want = 1 - (-(limits["EMCP_STORE_NVS_RECORDS"] + 1) // per_sector)
    print(f"== the smallest NVS emcp_store_nvs_open accepts: {got} sectors of {SECTOR} B "
          f"({limits['EMCP_STORE_NVS_RECORDS'] + 1} entries of {entry} B, {per_sector} a sector, one sector spare)")
    check(got == want, f"the smallest NVS accepted is {want} sectors (got {got})")
    defaults = {"EMCP_DEDUP_SLOTS": 8, "EMCP_STORE_NVS_RECORDS": 32, "EMCP_DEDUP_KEY_MAX": 64,
                "EMCP_DEDUP_RESULT_MAX": 512}
    if limits == defaults:
        doc = (ROOT / "docs/firmware.md").read_text()
        check(f"that is {got} sectors of 4 KiB" in " ".join(doc.split()),
              f"docs/firmware.md states the {got} sectors of the default limits")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("exe", type=Path)
    ap.add_argument("--drop", choices=["append", "sync"])
    a = ap.parse_args()
    limits = config(a.exe)
    slots, ring = limits["EMCP_DEDUP_SLOTS"], limits["EMCP_STORE_NVS_RECORDS"]
    print(f"== {a.exe}: MCP_DEDUP_SLOTS {slots}, EMCP_STORE_NVS_RECORDS {ring}"
          + (f", the store's {a.drop} hook dropped" if a.drop else ""))
    with tempfile.TemporaryDirectory(prefix="emcp-nvs-") as d:
        tmp = Path(d)
        crash_points(a.exe, tmp, a.drop)
        compaction(a.exe, tmp, a.drop, slots, ring)
        kill_at_every_write(a.exe, tmp, a.drop, slots, ring)
        if not a.drop:
            smallest_nvs(a.exe, tmp, limits)
    print(f"{passes} checks passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
