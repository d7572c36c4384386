"""The portable part (emcp_mqtt.c) alone, without a broker: builds
portable_test.c against build/'s libemcp_mqtt.a and the core with ASan/UBSan
and runs it (topic rules, presence JSON, refusals, replay cache with TTL
expiry on a fake clock and LRU eviction)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from mqtt_support import REPO, binary_path


def build_dir() -> Path:
    env = os.environ.get("EMCP_BUILD_DIR")
    return Path(env) if env else binary_path().resolve().parents[2]


def test_portable_part_unit_checks(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.fail("no C compiler", pytrace=False)
    b = build_dir()
    mqtt_lib = b / "bindings" / "mqtt" / "libemcp_mqtt.a"
    core = b / "cargo" / "release" / "libemcp.a"
    for lib in (mqtt_lib, core):
        if not lib.exists():
            pytest.fail(f"{lib} not built (set EMCP_BUILD_DIR to the CMake build directory)", pytrace=False)
    exe = tmp_path / "portable_test"
    flags = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-fsanitize=address,undefined",
             "-fno-sanitize-recover=all", "-D_POSIX_C_SOURCE=200809L"]
    subprocess.run(
        [cc, *flags, "-I", str(REPO / "include"), "-I", str(REPO / "bindings" / "mqtt"),
         str(Path(__file__).with_name("portable_test.c")), str(mqtt_lib), str(core), "-o", str(exe)],
        check=True, timeout=120,
    )
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "all checks passed" in p.stdout
