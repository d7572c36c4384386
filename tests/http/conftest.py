"""Fixtures for the HTTP tests: greenhouse-http processes on free ports."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from http_support import HttpServer, binary


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
    alive = [s.proc.poll() is None for s in started]
    logs = []
    for s in started:
        s.proc.terminate()
        try:
            s.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001 - stop() kills it
            pass
        logs.append(s.stderr())
        s.stop()
    assert all(alive), "a greenhouse-http process died during the test"
    for log in logs:
        # Built with ASan/UBSan in CI: any report (including leaks at exit) fails the test.
        for marker in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
            assert marker not in log, log[-3000:]


@pytest.fixture
def server(start) -> HttpServer:
    return start()
