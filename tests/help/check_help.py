#!/usr/bin/env python3
"""Every script in scripts/ (and scripts/test.d) and every program the build
makes answers --help and -h with its usage on stdout and exit status 0, and
does nothing else: no file written or touched in the repository tree, in its
working directory, in $HOME or in $TMPDIR, and no process left running.

Usage: check_help.py --root REPO [--ignore DIR]... [--timeout S] [--programs-only] [PROGRAM...]

The scripts are found by listing REPO/scripts and REPO/scripts/test.d (a new
script is checked without being named anywhere); the programs are the
arguments (CMake passes every executable the build makes: tests/help;
scripts/test.d/60-rtos.sh the programs of the separate FreeRTOS and coreMQTT
projects, with --programs-only).
Each command runs in a fresh empty working directory with HOME and TMPDIR
pointing at fresh empty directories, in a session of its own, and is killed
with its whole process group after --timeout seconds. --ignore names a
directory of the tree that may change meanwhile (CTest's own Testing/ log
directory); .git is never watched. Exits 1 when any check fails, naming the command and why.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLAGS = ("--help", "-h")
DEFAULT_TIMEOUT_S = 30
# Shown of a failing command's output.
SHOWN_CHARS = 300


def scripts(root):
    """Every script a user or the test command runs: the files of scripts/
    and scripts/test.d (scripts/lib holds sourced helpers, not programs)."""
    out = []
    for d in (root / "scripts", root / "scripts" / "test.d"):
        out += sorted(p for p in d.iterdir() if p.is_file())
    return out


def command_for(path):
    """How a user starts it: directly when executable, else through the
    interpreter its name or first line names."""
    if os.access(path, os.X_OK):
        return [str(path)]
    first = path.read_text(errors="replace").split("\n", 1)[0]
    if path.suffix == ".py" or "python" in first:
        return [sys.executable, str(path)]
    if path.suffix == ".sh" or "bash" in first or first.endswith("/sh"):
        return ["bash", str(path)]
    return None


def snapshot(root, ignore):
    """Path -> (kind, size, mtime) of everything under root, minus ignore."""
    out = {}
    # .git changes under other hands (a commit in a linked worktree, an
    # editor's status refresh): no script or program writes there.
    ignore = {os.path.realpath(p) for p in ignore} | {os.path.realpath(os.path.join(root, ".git"))}
    stack = [str(root)]
    while stack:
        d = stack.pop()
        if os.path.realpath(d) in ignore:
            continue
        try:
            entries = list(os.scandir(d))
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            continue
        for e in entries:
            try:
                st = e.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            if e.is_dir(follow_symlinks=False):
                out[e.path] = ("dir", 0, 0)
                stack.append(e.path)
            else:
                out[e.path] = ("file", st.st_size, st.st_mtime_ns)
    return out


def changes(before, after):
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(p for p in set(before) & set(after)
                     if before[p] != after[p] and before[p][0] == "file")
    return [f"created {p}" for p in added] + [f"removed {p}" for p in removed] + \
           [f"modified {p}" for p in changed]


def session_members(sid):
    """Processes whose session id is sid (the command started one of its own)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid pgrp session ...: comm may hold spaces.
        fields = stat[stat.rindex(")") + 2:].split()
        if len(fields) > 3 and int(fields[3]) == sid:
            pids.append(int(entry))
    return pids


def kill_session(sid):
    for pid in session_members(sid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def check(cmd, flag, root, ignore, timeout):
    """The failures of one run of cmd + flag (an empty list: it passed)."""
    work = Path(tempfile.mkdtemp(prefix="emcp-help-"))
    cwd, home, tmp = work / "cwd", work / "home", work / "tmp"
    for d in (cwd, home, tmp):
        d.mkdir()
    env = dict(os.environ, HOME=str(home), TMPDIR=str(tmp))
    before = snapshot(root, ignore)
    fails = []
    proc = subprocess.Popen(cmd + [flag], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_session(proc.pid)
        out, err = proc.communicate()
        fails.append(f"still running after {timeout} s (killed)")
    # Whatever it started must be gone as well (give an exiting child a moment).
    deadline = time.monotonic() + 2
    while session_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = session_members(proc.pid)
    if left:
        kill_session(proc.pid)
        fails.append(f"left processes running: {left}")
    text = out.decode(errors="replace")
    if proc.returncode != 0 and not fails:
        fails.append(f"exit status {proc.returncode}")
    if not text.strip():
        fails.append("nothing on stdout")
    elif "usage" not in text.lower():
        fails.append(f"stdout has no usage text: {text[:SHOWN_CHARS]!r}")
    fails += changes(before, snapshot(root, ignore))
    for name, d in (("working directory", cwd), ("HOME", home), ("TMPDIR", tmp)):
        written = sorted(str(p.relative_to(d)) for p in d.rglob("*"))
        if written:
            fails.append(f"wrote into its {name}: {', '.join(written[:5])}")
    if fails and err:
        fails.append(f"stderr: {err.decode(errors='replace')[-SHOWN_CHARS:]!r}")
    shutil.rmtree(work, ignore_errors=True)
    return fails


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True, type=Path)
    ap.add_argument("--ignore", action="append", default=[])
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S)
    ap.add_argument("--programs-only", action="store_true", help="check only the programs named")
    ap.add_argument("programs", nargs="*")
    a = ap.parse_args()
    root = a.root.resolve()
    targets = []
    for path in [] if a.programs_only else scripts(root):
        targets.append((str(path.relative_to(root)), command_for(path)))
    for prog in a.programs:
        targets.append((prog, [os.path.abspath(prog)]))
    failed = 0
    for name, cmd in targets:
        for flag in FLAGS:
            fails = ["cannot tell how to run it (not executable, no .py/.sh)"] if cmd is None else \
                check(cmd, flag, root, a.ignore, a.timeout)
            if fails:
                failed += 1
                print(f"FAIL {name} {flag}")
                for f in fails:
                    print(f"    {f}")
            else:
                print(f"ok   {name} {flag}")
    print(f"{len(targets) * len(FLAGS) - failed} passed, {failed} failed "
          f"({len(targets)} scripts and programs, {' and '.join(FLAGS)} each)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
