#!/usr/bin/env python3
"""Checks emcp's Zephyr module files without a Zephyr tree (CI has none).

- zephyr/module.yml: validated against the module metadata schema Zephyr
  documents (scripts/zephyr_module.py, METADATA_SCHEMA; "Module yaml file
  description" in the Zephyr docs), transcribed below, and every path it names
  exists (cmake dir with CMakeLists.txt, Kconfig file, samples with sample.yaml).
- zephyr/Kconfig: parsed with kconfiglib inside a stub tree that declares the
  Zephyr symbols it depends on; kconfiglib must report no warnings, no symbol
  may be undefined, and the stub list must not name symbols the Kconfig does
  not use. Then its behaviour: CONFIG_EMCP is impossible with Zephyr's own
  CONFIG_MCP_SERVER; each limit's default equals src/limits.rs; every limit
  option reaches zephyr/CMakeLists.txt; ranges refuse 0; CONFIG_EMCP_COAP needs
  libcoap's module and UDP, and each CONFIG_EMCP_COAP_* option reaches the
  CMake or the glue; CONFIG_EMCP_STORE_NVS needs NVS and its ring size
  defaults to the header's fallback.

usage: check_zephyr_module.py [REPO_ROOT]
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import kconfiglib
import yaml

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
failures: list[str] = []


def check(ok: bool, what: str) -> None:
    print(("PASS " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


# ---- module.yml --------------------------------------------------------------
# Zephyr's module metadata schema: a map; value types per key. "str", "bool",
# ["str"] (a list of strings), or a nested dict; BLOB is the blobs entry.
BLOB = {"path": "str", "sha256": "str", "type": "str", "version": "str", "license-path": "str",
        "url": "str", "description": "str", "doc-url": "str"}
BLOB_REQUIRED = {"path", "sha256", "type", "version", "license-path", "url", "description"}
SCHEMA = {
    "name": "str",
    "build": {
        "cmake": "str", "kconfig": "str", "cmake-ext": "bool", "kconfig-ext": "bool",
        "sysbuild-cmake": "str", "sysbuild-kconfig": "str", "sysbuild-cmake-ext": "bool",
        "sysbuild-kconfig-ext": "bool", "depends": ["str"],
        "settings": {k: "str" for k in ("board_root", "dts_root", "snippet_root", "soc_root",
                                        "arch_root", "module_ext_root", "sca_root")},
    },
    "tests": ["str"],
    "samples": ["str"],
    "boards": ["str"],
    "blobs": [BLOB],
}


def validate(value, schema, path: str) -> list[str]:
    errs = []
    if schema == "str":
        if not isinstance(value, str):
            errs.append(f"{path}: expected a string, got {type(value).__name__}")
    elif schema == "bool":
        if not isinstance(value, bool):
            errs.append(f"{path}: expected a boolean, got {type(value).__name__}")
    elif isinstance(schema, list):
        if not isinstance(value, list):
            return [f"{path}: expected a list"]
        for i, item in enumerate(value):
            errs += validate(item, schema[0], f"{path}[{i}]")
            if schema[0] is BLOB and isinstance(item, dict):
                errs += [f"{path}[{i}]: missing '{k}'" for k in BLOB_REQUIRED - item.keys()]
                if item.get("type") not in ("img", "lib"):
                    errs.append(f"{path}[{i}].type: must be img or lib")
    elif isinstance(schema, dict):
        if not isinstance(value, dict):
            return [f"{path}: expected a map"]
        for k, v in value.items():
            if k not in schema:
                errs.append(f"{path}.{k}: unknown key")
            else:
                errs += validate(v, schema[k], f"{path}.{k}")
    return errs


def check_module_yml() -> None:
    meta = yaml.safe_load((ROOT / "zephyr/module.yml").read_text())
    errs = validate(meta, SCHEMA, "module.yml")
    check(not errs, "zephyr/module.yml matches Zephyr's module schema" + "".join(f"\n    {e}" for e in errs))
    build = meta.get("build", {}) if isinstance(meta, dict) else {}
    cmake_dir = ROOT / build.get("cmake", "<none>")
    check((cmake_dir / "CMakeLists.txt").is_file(), f"build.cmake '{build.get('cmake')}' has a CMakeLists.txt")
    check((ROOT / build.get("kconfig", "<none>")).is_file(), f"build.kconfig '{build.get('kconfig')}' exists")
    for s in meta.get("samples", []):
        check((ROOT / s / "sample.yaml").is_file() and (ROOT / s / "prj.conf").is_file(),
              f"sample '{s}' has sample.yaml and prj.conf")
    check(meta.get("name") == "emcp", "module name is emcp (CONFIG_ZEPHYR_EMCP_MODULE)")
    # The check must be able to fail: a wrong type and an unknown key are caught.
    bad = validate({"name": 1, "build": {"cmake": "zephyr", "kconfig-ext": "yes", "cmak": "x"}}, SCHEMA, "m")
    check(len(bad) == 3, f"the schema check refuses a bad module.yml ({len(bad)} errors)")


# ---- Kconfig -----------------------------------------------------------------
# Zephyr symbols zephyr/Kconfig depends on (declared by Zephyr or its modules).
ZEPHYR_SYMBOLS = ["SERIAL", "NETWORKING", "NET_TCP", "NET_SOCKETS", "HTTP_PARSER", "NET_SOCKETS_POSIX_NAMES",
                  "NET_IPV4", "ENTROPY_HAS_DRIVER",
                  "MBEDTLS", "LIBCOAP", "NET_UDP", "MQTT_LIB", "MQTT_VERSION_5_0", "ARCH_POSIX", "NVS"]
LOG_TEMPLATE = """config $(module)_LOG_LEVEL
\tint "$(module-str) log level"
\tdefault 3
"""


def load_kconfig(tmp: Path) -> kconfiglib.Kconfig:
    (tmp / "subsys/logging").mkdir(parents=True, exist_ok=True)
    (tmp / "subsys/logging/Kconfig.template.log_config").write_text(LOG_TEMPLATE)
    stubs = "".join(f'config {s}\n\tbool "{s} (Zephyr stub)"\n\n' for s in ZEPHYR_SYMBOLS)
    # Zephyr's MCP server, with a prompt as Zephyr declares it, to test the exclusion.
    stubs += 'config MCP_SERVER\n\tbool "Zephyr MCP server (stub)"\n\n'
    top = tmp / "Kconfig"
    top.write_text(stubs + f'source "{ROOT / "zephyr/Kconfig"}"\n')
    os.environ["srctree"] = str(tmp)
    return kconfiglib.Kconfig(str(top), warn_to_stderr=False)


def check_kconfig() -> None:
    src_limits = (ROOT / "src/limits.rs").read_text()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        kconf = load_kconfig(tmp)
        check(not kconf.warnings, "kconfiglib parses zephyr/Kconfig without warnings"
              + "".join(f"\n    {w}" for w in kconf.warnings))
        # kconf.syms also holds kconfiglib's built-in MODULES; constants live apart.
        # Unquoted numbers (range 1 256) are kept as symbol references named by the number.
        undefined = sorted(n for n, s in kconf.syms.items()
                           if not s.nodes and n != "MODULES" and not re.fullmatch(r"-?[0-9]+", n))
        check(not undefined, f"no undefined symbols ({', '.join(undefined) or 'none'})")
        ours = sorted(n for n, s in kconf.syms.items() if n.startswith("EMCP") and s.nodes)
        check(len(ours) >= 20, f"{len(ours)} EMCP symbols defined")

        # Stubs the Kconfig does not reference are stale.
        text = (ROOT / "zephyr/Kconfig").read_text()
        unused = [s for s in ZEPHYR_SYMBOLS if not re.search(rf"\b{s}\b", text)]
        check(not unused, f"every stubbed Zephyr symbol is used ({', '.join(unused) or 'all'})")

        emcp = kconf.syms["EMCP"]
        kconf.syms["MCP_SERVER"].set_value(2)
        emcp.set_value(2)
        check(emcp.tri_value == 0, "CONFIG_EMCP cannot be enabled together with CONFIG_MCP_SERVER")
        kconf.syms["MCP_SERVER"].set_value(0)
        emcp.set_value(2)
        check(emcp.tri_value == 2, "CONFIG_EMCP can be enabled without CONFIG_MCP_SERVER")

        kconf.syms["SERIAL"].set_value(2)
        kconf.syms["EMCP_CONSOLE"].set_value(2)
        check(kconf.syms["EMCP_CONSOLE"].tri_value == 2, "CONFIG_EMCP_CONSOLE with SERIAL")
        check(kconf.syms["EMCP_HTTP"].set_value(2) and kconf.syms["EMCP_HTTP"].tri_value == 0,
              "CONFIG_EMCP_HTTP needs networking and sockets")
        for s in ("NETWORKING", "NET_TCP", "NET_SOCKETS", "NET_SOCKETS_POSIX_NAMES", "NET_IPV4",
                  "ENTROPY_HAS_DRIVER"):
            kconf.syms[s].set_value(2)
        kconf.syms["EMCP_HTTP"].set_value(2)
        check(kconf.syms["EMCP_HTTP"].tri_value == 2 and kconf.syms["HTTP_PARSER"].tri_value == 2,
              "CONFIG_EMCP_HTTP with sockets selects HTTP_PARSER")
        kconf.syms["EMCP_MQTT"].set_value(2)
        check(kconf.syms["EMCP_MQTT"].tri_value == 0, "CONFIG_EMCP_MQTT needs MQTT_LIB and MQTT 5")

        # CoAP: libcoap's Zephyr module (CONFIG_LIBCOAP) and UDP over IPv4.
        coap = kconf.syms["EMCP_COAP"]
        coap.set_value(2)
        check(coap.tri_value == 0, "CONFIG_EMCP_COAP needs CONFIG_LIBCOAP and UDP")
        kconf.syms["LIBCOAP"].set_value(2)
        coap.set_value(2)
        check(coap.tri_value == 0, "CONFIG_EMCP_COAP needs NET_UDP besides CONFIG_LIBCOAP")
        kconf.syms["NET_UDP"].set_value(2)
        coap.set_value(2)
        check(coap.tri_value == 2, "CONFIG_EMCP_COAP with LIBCOAP, networking, UDP and IPv4")
        glue = (ROOT / "zephyr/src/emcp_coap_zephyr.c").read_text()
        cmake = (ROOT / "zephyr/CMakeLists.txt").read_text()
        coap_opts = sorted(n for n in ours if n.startswith("EMCP_COAP_"))
        check(len(coap_opts) >= 6, f"{len(coap_opts)} CONFIG_EMCP_COAP_* options")
        for n in coap_opts:
            used = re.search(rf"\bCONFIG_{n}\b", cmake + glue) is not None
            check(used, f"CONFIG_{n} reaches zephyr/CMakeLists.txt or emcp_coap_zephyr.c")
            # Limits handed to the portable binding keep its macro name.
            if kconf.syms[n].type == kconfiglib.INT and n not in ("EMCP_COAP_PORT",):
                check(re.search(rf"\b{n}=\$\{{CONFIG_{n}\}}", cmake) is not None,
                      f"zephyr/CMakeLists.txt defines {n} for emcp_coap.c from CONFIG_{n}")
        port = kconf.syms["EMCP_COAP_PORT"]
        check(port.str_value == "5683", f"CONFIG_EMCP_COAP_PORT defaults to 5683 ({port.str_value})")
        port.set_value("0")
        check(port.str_value != "0", "CONFIG_EMCP_COAP_PORT=0 is outside its range")

        # The NVS backend of the durable records: needs NVS; its ring size
        # defaults to the header's fallback and reaches the header (autoconf.h).
        nvs = kconf.syms["EMCP_STORE_NVS"]
        nvs.set_value(2)
        check(nvs.tri_value == 0, "CONFIG_EMCP_STORE_NVS needs CONFIG_NVS")
        kconf.syms["NVS"].set_value(2)
        nvs.set_value(2)
        check(nvs.tri_value == 2, "CONFIG_EMCP_STORE_NVS with CONFIG_NVS")
        ring = kconf.syms["EMCP_STORE_NVS_RECORDS"]
        header = (ROOT / "bindings/store/emcp_store_nvs.h").read_text()
        m = re.search(r"#else\n#define EMCP_STORE_NVS_RECORDS ([0-9]+)\n", header)
        check(m is not None and m.group(1) == ring.str_value,
              f"CONFIG_EMCP_STORE_NVS_RECORDS default {ring.str_value} equals emcp_store_nvs.h's fallback"
              f" ({m.group(1) if m else 'none'})")
        check("#define EMCP_STORE_NVS_RECORDS CONFIG_EMCP_STORE_NVS_RECORDS" in header,
              "emcp_store_nvs.h sizes its ring from CONFIG_EMCP_STORE_NVS_RECORDS")
        check(re.search(r"CONFIG_EMCP_STORE_NVS\)\n\s+zephyr_library_sources\(\$\{EMCP_STORE_NVS_SOURCES\}\)",
                        (ROOT / "zephyr/CMakeLists.txt").read_text()) is not None,
              "zephyr/CMakeLists.txt compiles EMCP_STORE_NVS_SOURCES with CONFIG_EMCP_STORE_NVS")
        ring.set_value("2")
        check(ring.str_value != "2", "CONFIG_EMCP_STORE_NVS_RECORDS=2 is outside its range")

        cmake = (ROOT / "zephyr/CMakeLists.txt").read_text()
        limit_opts = [n for n in ours if kconf.syms[n].type == kconfiglib.INT
                      and re.search(rf"pub const MCP_{n[5:]}: usize = ", src_limits)]
        check(len(limit_opts) >= 10, f"{len(limit_opts)} Kconfig limits map to src/limits.rs")
        for n in limit_opts:
            m = re.search(rf"pub const MCP_{n[5:]}: usize = ([0-9_]+);", src_limits)
            default = kconf.syms[n].str_value
            check(m is not None and default == m.group(1).replace("_", ""),
                  f"CONFIG_{n} default {default} equals MCP_{n[5:]} in src/limits.rs")
            check(re.search(rf"\b{n[5:]}\b", cmake) is not None,
                  f"zephyr/CMakeLists.txt passes CONFIG_{n} to the Rust build")
        m = re.search(r"foreach\(name ([A-Z0-9_ \n]+)\)", cmake)
        passed = m.group(1).split() if m else []
        missing = [p for p in passed if f"EMCP_{p}" not in limit_opts]
        check(bool(passed) and not missing,
              f"every limit zephyr/CMakeLists.txt passes is a Kconfig option ({', '.join(missing) or 'all'})")
        sym = kconf.syms["EMCP_MAX_TOOLS"]
        sym.set_value("0")
        check(sym.str_value != "0", f"CONFIG_EMCP_MAX_TOOLS=0 is outside its range (now {sym.str_value})")


def main() -> int:
    check_module_yml()
    check_kconfig()
    print(f"{len(failures)} failed" if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
