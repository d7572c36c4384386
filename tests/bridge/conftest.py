"""Fixtures of the emcp-bridge tests: the bridge binary, the UART firmware
under QEMU on a free port (stopped at teardown), and sanitizer reports of
every process a test starts (the bridge is built with ASan/UBSan)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge_support import BUILD, Firmware, firmware_elf, free_port

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
from sanitizer_fixture import no_sanitizer_reports  # noqa: E402,F401 (autouse)


@pytest.fixture(scope="session")
def bridge_bin() -> Path:
    path = BUILD / "tools" / "bridge" / "emcp-bridge"
    if not path.is_file():
        pytest.fail(f"{path} is missing: cmake --build build --target emcp-bridge", pytrace=False)
    return path


@pytest.fixture
def firmware(tmp_path) -> Iterator:
    """firmware(target) starts the UART firmware on a free port."""
    started: list[Firmware] = []

    def start(target: str) -> Firmware:
        elf = firmware_elf(target)
        if not elf.is_file():
            pytest.fail(f"{elf} is missing: scripts/run-firmware --target {target} builds it", pytrace=False)
        fw = Firmware(target, free_port(), tmp_path)
        started.append(fw)
        return fw.start()

    yield start
    for fw in started:
        fw.kill()
