"""Fixtures for the end-to-end tests (see README.md in this folder)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e_support import StdioServer, assert_stdout_is_jsonrpc, binary_path, binary_problem

# ASan/LSan reports of every process a test starts (tests/common/sanitizers.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
from sanitizer_fixture import no_sanitizer_reports  # noqa: E402,F401 (autouse)
from sanitizers import report_in  # noqa: E402


@pytest.fixture(scope="session")
def greenhouse_bin() -> str:
    """Path of greenhouse-stdio; the test errors out clearly when it is missing."""
    path = binary_path()
    problem = binary_problem(path)
    if problem:
        pytest.fail(problem, pytrace=False)
    return str(path)


@pytest.fixture
def spawn(greenhouse_bin: str) -> Iterator:
    """Starts greenhouse-stdio processes; each is checked and stopped at teardown.

    At teardown every line the server wrote to stdout must have been a
    JSON-RPC response (stdout carries only MCP messages)."""
    started: list[StdioServer] = []

    def start(*args: str) -> StdioServer:
        s = StdioServer(greenhouse_bin, *args)
        started.append(s)
        return s

    yield start
    for s in started:
        s.__exit__(None, None, None)
    for s in started:
        assert_stdout_is_jsonrpc(s.stdout_lines)
        # Built with ASan/UBSan in the test command: a UBSan report ends the
        # process with status 1; a clean EOF ends it with 0.
        marker = report_in(s.stderr_text())
        assert marker is None, f"{marker} in greenhouse-stdio's stderr:\n{s.stderr_text()[-3000:]}"
        assert s.proc.returncode == 0, f"greenhouse-stdio exited {s.proc.returncode}:\n{s.stderr_text()[-3000:]}"

