"""Sanitizer reports of the processes a test starts, wherever their stderr goes.

The test command builds every C example with ASan + UBSan
(-fno-sanitize-recover=all). A process whose stderr a test does not read (one
an MCP SDK or the Inspector spawns, a server whose log is only read on
failure) could print an AddressSanitizer or LeakSanitizer report, e.g. a leak
found at exit, and still look fine. `asan_reports()` points ASan's `log_path`
into a folder for the duration of a test, so every report of every child
process lands there as a file, and returns what was written; the suites'
conftest.py fail the test on any.

UBSan reports stay on stderr (GCC's combined runtime ignores log_path for
them), but with -fno-sanitize-recover=all each one also ends the process with
exit status 1, which the fixtures check, together with the stderr markers.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MARKERS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer", "runtime error:")


def report_in(text: str) -> str | None:
    """The first sanitizer marker in a process's stderr, or None."""
    for m in MARKERS:
        if m in text:
            return m
    return None


@contextmanager
def asan_reports(folder: Path) -> Iterator[list[str]]:
    """Within the block, ASan/LSan reports of child processes go to
    folder/asan.<pid>; the yielded list is filled with their texts at exit."""
    folder.mkdir(parents=True, exist_ok=True)
    old = os.environ.get("ASAN_OPTIONS")
    opts = [o for o in (old or "").split(":") if o and not o.startswith("log_path=")]
    os.environ["ASAN_OPTIONS"] = ":".join([*opts, f"log_path={folder / 'asan'}"])
    found: list[str] = []
    try:
        yield found
    finally:
        if old is None:
            os.environ.pop("ASAN_OPTIONS", None)
        else:
            os.environ["ASAN_OPTIONS"] = old
        for f in sorted(folder.glob("asan.*")):
            found.append(f"{f.name}:\n{f.read_text(errors='replace')[-4000:]}")
