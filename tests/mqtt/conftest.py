"""Fixtures for the MQTT binding tests: a real mosquitto broker per test on a
free loopback port, greenhouse-mqtt processes and paho-mqtt MQTT 5 clients,
all stopped at teardown."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqtt_support import Broker, Client, Gateway, binary_path

# ASan/LSan reports of every process a test starts (tests/common/sanitizers.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
from sanitizer_fixture import no_sanitizer_reports  # noqa: E402,F401 (autouse)
from sanitizers import report_in  # noqa: E402


@pytest.fixture(scope="session")
def gateway_bin() -> Path:
    path = binary_path()
    if not path.exists() or not os.access(path, os.X_OK):
        pytest.fail(
            f"greenhouse-mqtt not found at {path}: install libmosquitto-dev, rebuild "
            "(cmake -S . -B build && cmake --build build) or set GREENHOUSE_MQTT",
            pytrace=False,
        )
    if shutil.which("mosquitto") is None:
        pytest.fail("mosquitto is not installed (apt-get install mosquitto)", pytrace=False)
    return path


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path / "broker")
    b.start()
    yield b
    b.stop()


@pytest.fixture
def gateways(gateway_bin: Path, broker: Broker) -> Iterator:
    """Starts greenhouse-mqtt processes on the test's broker."""
    started: list[Gateway] = []

    def start(server_id: str, *args: str, port: int | None = None, env: dict | None = None,
              wait_subscribed: bool = True) -> Gateway:
        g = Gateway(gateway_bin, port or broker.port, server_id, *args, env=env)
        started.append(g)
        if wait_subscribed:
            g.wait_log(r"subscribed to ")
        return g

    yield start
    codes = [g.stop() for g in started]
    for g, code in zip(started, codes):
        # stdout carries nothing: logs and audit lines go to stderr.
        assert g._stdout == [], g._stdout[:3]
        # Built with ASan/UBSan in the test command: no report, and a clean
        # exit after SIGTERM (a UBSan report ends the process with status 1).
        marker = report_in(g.text())
        assert marker is None, f"{marker} in greenhouse-mqtt's stderr:\n{g.text()[-3000:]}"
        if not g.killed:
            assert code == 0, f"greenhouse-mqtt exited {code}:\n{g.text()[-3000:]}"


@pytest.fixture
def clients(broker: Broker) -> Iterator:
    made: list[Client] = []

    def make(name: str = "req", port: int | None = None, **kw) -> Client:
        c = Client(port or broker.port, name, **kw)
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()
