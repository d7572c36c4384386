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


# The post-quantum profile (tests/pqc, scripts/test.d/65-pqc.sh): with
# EMCP_PQC_GROUP set, every server start() gives is a greenhouse-http built
# on wolfSSL serving TLS with that key-exchange group, reached through
# emcp-pqc-relay (plain HTTP in, TLS 1.3 out); at teardown every handshake
# the relay made must have negotiated that group.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pqc"))
from pqc_support import RelayedServer, assert_relayed_in_group, group_under_test, make_cert  # noqa: E402

PQC = group_under_test()


@pytest.fixture(scope="session")
def pqc_cert(tmp_path_factory) -> tuple[str, str] | None:
    return make_cert(tmp_path_factory.mktemp("pqc")) if PQC else None


@pytest.fixture
def start(greenhouse_http_bin: str, pqc_cert) -> Iterator:
    """start(*args) -> HttpServer; every server is stopped at teardown and must still be running."""
    started: list[HttpServer] = []

    def _start(*args: str) -> HttpServer:
        if PQC:
            server_groups, relay_groups, expect = PQC
            s = RelayedServer(greenhouse_http_bin, pqc_cert, server_groups, relay_groups, expect, *args)
        else:
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
    for s in started if PQC else []:
        assert_relayed_in_group(s, PQC[2])


@pytest.fixture
def server(start) -> HttpServer:
    return start()
