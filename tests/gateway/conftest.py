"""Fixtures of the emcp-gateway tests: a real mosquitto on a free loopback
port, three real greenhouse-mqtt devices on it, and the emcp-gateway
binary (EMCP_GATEWAY, or build/tools/gateway/emcp-gateway)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "mqtt"))
sys.path.insert(0, str(HERE.parent / "common"))

from mqtt_support import REPO, Broker, Gateway, binary_path  # noqa: E402
from sanitizer_fixture import no_sanitizer_reports  # noqa: E402,F401 (autouse)
from sanitizers import report_in  # noqa: E402

DEVICES = ["gh-a", "gh-b", "gh-c"]
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
# gh-a lists one tool per tools/list page, so the gateway must follow nextCursor.
DEVICE_ARGS = {"gh-a": ["--list-page-size", "1"]}


def names(listed) -> set[str]:
    """The names of a tools/list result."""
    return {t.name for t in listed.tools}


def expected(devices) -> set[str]:
    """The gateway's names of the greenhouse tools of `devices`."""
    return {f"{d}.{t}" for d in devices for t in ("read_sensor", "set_vent")}


def text_of(result) -> str:
    """The text blocks of a CallToolResult, one per line."""
    return "\n".join(b.text for b in result.content if b.type == "text")


def gateway_path() -> Path:
    return Path(os.environ.get("EMCP_GATEWAY") or REPO / "build" / "tools" / "gateway" / "emcp-gateway")


@pytest.fixture(scope="session")
def gateway_bin() -> str:
    path = gateway_path()
    device = binary_path()
    for p, what in ((path, "emcp-gateway"), (device, "greenhouse-mqtt")):
        if not p.exists() or not os.access(p, os.X_OK):
            pytest.fail(f"{what} not found at {p}: install libmosquitto-dev and rebuild "
                        "(cmake -S . -B build && cmake --build build)", pytrace=False)
    if shutil.which("mosquitto") is None:
        pytest.fail("mosquitto is not installed (apt-get install mosquitto)", pytrace=False)
    return str(path)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path / "broker")
    b.start()
    yield b
    b.stop()


class Fleet:
    """greenhouse-mqtt devices on the test's broker, by server id."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self.devices: dict[str, Gateway] = {}
        self.all: list[Gateway] = []

    def start(self, server_id: str) -> Gateway:
        g = Gateway(binary_path(), self.broker.port, server_id, *DEVICE_ARGS.get(server_id, []))
        g.wait_log(r"subscribed to ")
        self.devices[server_id] = g
        self.all.append(g)
        return g


@pytest.fixture
def fleet(gateway_bin: str, broker: Broker) -> Iterator[Fleet]:
    f = Fleet(broker)
    for d in DEVICES:
        f.start(d)
    yield f
    for g in f.all:
        g.stop()
        marker = report_in(g.text())
        assert marker is None, f"{marker} in greenhouse-mqtt's stderr:\n{g.text()[-3000:]}"
