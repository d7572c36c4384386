#!/usr/bin/env python3
"""Checks, without a Zephyr tree, that a libcoap checkout's Zephyr module
defines every CONFIG_LIBCOAP_* symbol the greenhouse sample's CoAP overlays
set (zephyr/samples/greenhouse/overlay-coap*.conf). Zephyr stops at Kconfig on
an assignment to an undefined symbol, so a libcoap that lacks one cannot build
the sample; this says which symbol and which libcoap is needed, in a second.

usage: check_libcoap_kconfig.py LIBCOAP_PATH

The overlays set CONFIG_LIBCOAP_LOG_WARNING, which libcoap's zephyr/Kconfig
first defines in 4803f161 ("zephyr: Examples support", v4.3.5-8): the v4.3.5
release tag lacks it. Exit status 0 when every symbol is defined.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "zephyr" / "samples" / "greenhouse"
NEEDS = "libcoap v4.3.5-8-g4803f161 or later (the v4.3.5 tag lacks CONFIG_LIBCOAP_LOG_WARNING)"


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    libcoap = Path(sys.argv[1])
    kconfig = libcoap / "zephyr" / "Kconfig"
    if not kconfig.is_file():
        print(f"FAIL {libcoap} has no zephyr/Kconfig: not a libcoap with its Zephyr module ({NEEDS})")
        return 1
    defined = set(re.findall(r"^\s*(?:menu)?config\s+(\w+)", kconfig.read_text(), re.M))
    described = subprocess.run(["git", "-C", str(libcoap), "describe", "--tags", "--always"],
                               capture_output=True, text=True).stdout.strip() or "not a git checkout"
    missing = []
    for conf in sorted(SAMPLE.glob("overlay-coap*.conf")):
        for sym in re.findall(r"^CONFIG_(LIBCOAP\w*)=", conf.read_text(), re.M):
            if sym not in defined:
                missing.append(f"CONFIG_{sym} ({conf.name})")
    if missing:
        print(f"FAIL libcoap at {libcoap} ({described}) does not define {', '.join(missing)}: needs {NEEDS}")
        return 1
    print(f"PASS libcoap at {libcoap} ({described}) defines every CONFIG_LIBCOAP_* the CoAP overlays set")
    return 0


if __name__ == "__main__":
    sys.exit(main())
