#!/usr/bin/env python3
"""A transparent stdio tap between an MCP client and a stdio server.

    python3 wiretap.py LOGFILE COMMAND [ARGS...]

Runs COMMAND, copies this process's stdin to it and its stdout back, line by
line and unchanged, and appends every line to LOGFILE as "> <line>" (client
to server) or "< <line>" (server to client). The server's stderr is passed
through. EOF on stdin is passed on as EOF; SIGTERM and SIGINT are forwarded.
The tap exits with the server's exit code.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    log = open(sys.argv[1], "ab", buffering=0)
    lock = threading.Lock()

    def record(direction: bytes, raw: bytes) -> None:
        with lock:
            log.write(direction + b" " + raw.rstrip(b"\r\n") + b"\n")

    child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, _frame: child.send_signal(signum))

    def pump_in() -> None:
        assert child.stdin is not None
        try:
            for raw in iter(sys.stdin.buffer.readline, b""):
                record(b">", raw)
                child.stdin.write(raw)
                child.stdin.flush()
        except OSError:
            pass
        finally:
            try:
                child.stdin.close()
            except OSError:
                pass

    threading.Thread(target=pump_in, daemon=True).start()
    assert child.stdout is not None
    out = sys.stdout.buffer
    try:
        for raw in iter(child.stdout.readline, b""):
            record(b"<", raw)
            out.write(raw)
            out.flush()
    except OSError:
        pass
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
