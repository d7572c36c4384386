"""Fixtures: a fresh greenhouse-stdio per test, checked at teardown."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from driver import Greenhouse, binary

# ASan/LSan reports of every process a test starts (tests/common/sanitizers.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
from sanitizer_fixture import no_sanitizer_reports  # noqa: E402,F401 (autouse)


@pytest.fixture
def fresh():
    """fresh() -> a new greenhouse-stdio; each is checked at teardown. A case
    that must run set_vent twice uses a fresh gateway for the second run:
    set_vent runs at most once every 2 s."""
    path = binary()
    if not path.is_file():
        pytest.fail(
            f"greenhouse-stdio not found at {path}: build it (cmake -S . -B build && "
            "cmake --build build) or set GREENHOUSE_STDIO",
            pytrace=False,
        )
    started: list[Greenhouse] = []

    def start() -> Greenhouse:
        g = Greenhouse()
        started.append(g)
        return g

    yield start
    for g in started:
        rc = g.close()
        err = "".join(g.err)
        # Built with ASan/UBSan in the test command: any report is a failure.
        assert "AddressSanitizer" not in err and "runtime error:" not in err, err[-3000:]
        assert rc == 0, f"exit code {rc}; stderr: {err[-2000:]}"
        # stdout carries only JSON-RPC responses, one per line.
        for line in g.raw_out:
            m = json.loads(line)
            assert m.get("jsonrpc") == "2.0" and "id" in m and ("result" in m) != ("error" in m), line[:300]


@pytest.fixture
def gh(fresh):
    return fresh()
