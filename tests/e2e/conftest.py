"""Fixtures for the end-to-end tests (see README.md in this folder)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from e2e_support import StdioServer, assert_stdout_is_jsonrpc, binary_path, binary_problem


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
