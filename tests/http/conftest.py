"""Fixtures for the HTTP tests: greenhouse-http processes on free ports."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from http_support import HttpServer, binary

# ASan/LSan reports of every process a test starts (tests/common/sanitizers.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
from sanitizer_fixture import no_sanitizer_reports  # noqa: E402,F401 (autouse)
from sanitizers import report_in  # noqa: E402


@pytest.fixture(scope="session")
def greenhouse_http_bin() -> str:
    try:
        return binary("greenhouse-http", "GREENHOUSE_HTTP", "build/examples-c/greenhouse/greenhouse-http")
    except FileNotFoundError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture
def start(greenhouse_http_bin: str) -> Iterator:
    """start(*args) -> HttpServer; every server is stopped at teardown and must still be running."""
    started: list[HttpServer] = []

    def _start(*args: str) -> HttpServer:
        s = HttpServer(greenhouse_http_bin, *args)
        started.append(s)
        return s

    yield _start
    ended = [s.finish() for s in started]
    assert all(alive for alive, _, _ in ended), "a greenhouse-http process died during the test"
    for _, code, log in ended:
        # Built with ASan/UBSan in CI: any report (including leaks at exit) fails the test.
        assert report_in(log) is None, log[-3000:]
        assert code == 0, f"greenhouse-http exited {code} after SIGTERM:\n{log[-3000:]}"


@pytest.fixture
def server(start) -> HttpServer:
    return start()
