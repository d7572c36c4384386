"""Fixtures for the CoAP binding tests (see README.md in this folder)."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from coap_support import Server, binary_path, binary_problem, free_udp_port

# ASan/LSan reports of every process a test starts (tests/common/sanitizers.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
from sanitizer_fixture import no_sanitizer_reports  # noqa: E402,F401 (autouse)


@pytest.fixture(scope="session")
def coap_bin() -> str:
    """Path of greenhouse-coap; a missing binary fails the tests, never skips them."""
    path = binary_path()
    problem = binary_problem(path)
    if problem:
        pytest.fail(problem, pytrace=False)
    for client in ("coap-client-notls", "coap-client-openssl"):
        if shutil.which(client) is None:
            pytest.fail(f"{client} not found: install Debian's libcoap3-bin", pytrace=False)
    return str(path)


@pytest.fixture
def spawn(coap_bin: str, tmp_path: Path) -> Iterator:
    """Starts greenhouse-coap processes on free loopback ports; stops them at
    teardown and checks that none had crashed (exit 0 after SIGTERM)."""
    started: list[Server] = []

    def start(*args: str, host: str = "127.0.0.1") -> Server:
        s = Server(coap_bin, list(args), host, free_udp_port(host), tmp_path)
        started.append(s)
        return s.start()

    yield start
    codes = [(s.port, s.stop(), s.stderr()) for s in started]
    for port, code, err in codes:
        assert code == 0, f"greenhouse-coap on port {port} exited {code}; stderr:\n{err[-4000:]}"


@pytest.fixture
def server(spawn):
    """A plain coap:// greenhouse-coap on 127.0.0.1 that logs every request."""
    return spawn("--log-requests")
