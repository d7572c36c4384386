#!/usr/bin/env bash
# RTOS integration (docs/zephyr.md, docs/freertos.md):
# - the Zephyr module files without a Zephyr tree: module.yml against Zephyr's
#   module schema, zephyr/Kconfig with kconfiglib (no undefined symbols, the
#   exclusion with Zephyr's CONFIG_MCP_SERVER, defaults equal src/limits.rs);
# - the CPU -> Rust target mapping and the limits header writer (cmake -P);
# - build-time limits end to end: the core and a configured header built with
#   EMCP_LIMITS="MAX_TOOLS=4;MAX_JSON_TOKENS=64", checked by tests/c/test_limits
#   (header vs library, a 5th tool gets -MCP_ENOSPC, sizeof agrees);
# - the FreeRTOS example (built and driven by the Python SDK client over
#   stdio and over HTTP) when
#   FREERTOS_KERNEL_PATH names a FreeRTOS-Kernel tree, the Zephyr sample on native_sim_64
#   when ZEPHYR_BASE names a Zephyr tree (and west is installed), also on a
#   prebuilt tree (CONFIG_EMCP_PREBUILT_DIR, with and without bin/emcp-gen), its CoAP
#   overlay when LIBCOAP_PATH also names a libcoap checkout, the
#   durable records' NVS backend on native_sim_64 across process restarts
#   (tests/zephyr/store_nvs_check.py) with the same tree, the
#   coreMQTT v5 shim (greenhouse-coremqtt against mosquitto, tests/mqtt) when
#   COREMQTT_PATH names a coreMQTT v5 checkout, and the same gateway inside a
#   FreeRTOS task when both paths are given; each is skipped with the
#   reason printed otherwise.
. "$(dirname "$0")/../lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
. scripts/lib/apt.sh
apt_ensure cmake ninja-build
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore kconfiglib==14.1.0 PyYAML

passed=0
failed=0
skipped=0
result() { # result STATUS NAME [LOG]
  if [ "$1" -eq 0 ]; then
    passed=$((passed + 1)); echo "PASS $2"
  else
    failed=$((failed + 1)); echo "FAIL $2"
    [ -n "${3:-}" ] && tail -n 40 "$3" | sed 's/^/    /'
  fi
}
skip() { skipped=$((skipped + 1)); echo "SKIP $1"; }
# zsize BUILD_DIR: the image's `size zephyr.elf` line (text, data, bss) and the
# sizes of the binding instances it links (readelf -s), the figures
# docs/zephyr.md points to instead of quoting them. Not nm: binutils' nm loads
# the LTO plugins in /usr/lib/bfd-plugins, and an LLVMgold newer than rustc's
# LLVM aborts ("LLVM ERROR: Invalid encoding") on the Rust core's .llvmbc
# section that native_sim's relocatable zephyr.elf keeps.
zsize() {
  local elf="$1/zephyr/zephyr.elf"
  [ -f "$elf" ] || return 0
  size "$elf" | awk 'NR == 2 { printf "    size zephyr.elf: text %s, data %s, bss %s\n", $1, $2, $3 }'
  readelf -sW "$elf" | while read -r _ _ sz type _ _ _ name; do
    case "$type:$name" in
      OBJECT:http | OBJECT:coap | OBJECT:binding) echo "    $name (static): $((sz)) B" ;;
    esac
  done
}
OUT=build/rtos
mkdir -p "$OUT"

rc=0; python3 tests/zephyr/check_zephyr_module.py >"$OUT/zephyr-module.log" 2>&1 || rc=$?
grep -c '^PASS' "$OUT/zephyr-module.log" | sed 's/^/    checks passed: /'
result "$rc" "zephyr/module.yml and zephyr/Kconfig (kconfiglib)" "$OUT/zephyr-module.log"

rc=0; cmake -P tests/cmake/test_rust_target.cmake >"$OUT/cmake-unit.log" 2>&1 || rc=$?
grep -c 'PASS' "$OUT/cmake-unit.log" | sed 's/^/    cases passed: /'
result "$rc" "CPU -> Rust target mapping and limits header (cmake -P)" "$OUT/cmake-unit.log"

rc=0
{
  cmake -S . -B "$OUT/limits4" -G Ninja -DEMCP_BUILD_EXAMPLES=OFF -DEMCP_SANITIZE=ON \
    -DEMCP_LIMITS="MAX_TOOLS=4;MAX_JSON_TOKENS=64" -DEMCP_TEST_EXPECT_MAX_TOOLS=4 &&
  cmake --build "$OUT/limits4" --target test_limits &&
  "$OUT/limits4/tests/c/test_limits" 4
} >"$OUT/limits4.log" 2>&1 || rc=$?
grep '^test_limits' "$OUT/limits4.log" | sed 's/^/    /' || true
result "$rc" "build-time limits MAX_TOOLS=4, MAX_JSON_TOKENS=64: header and library agree" "$OUT/limits4.log"

if [ -n "${FREERTOS_KERNEL_PATH:-}" ]; then
  apt_ensure libhttp-parser-dev
  python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r tests/e2e/requirements.txt
  rc=0
  {
    cmake -S examples-c/freertos -B "$OUT/freertos" -G Ninja -DFREERTOS_KERNEL_PATH="$FREERTOS_KERNEL_PATH" \
      -DEMCP_SANITIZE=ON &&
    cmake --build "$OUT/freertos" &&
    python3 tests/rtos/mcp_client_check.py "$PWD/$OUT/freertos/greenhouse-freertos"
  } >"$OUT/freertos.log" 2>&1 || rc=$?
  grep -E '^(== |   [a-z])' "$OUT/freertos.log" | sed 's/^/    /' || true
  result "$rc" "FreeRTOS POSIX greenhouse with the Python SDK client (stdio task)" "$OUT/freertos.log"
  # End of input stops the scheduler from the task (no exit() inside it): status 0, the
  # answer written, and no ASan/LeakSanitizer report from the FreeRTOS threads.
  rc=0
  {
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"ping"}' |
      "$OUT/freertos/greenhouse-freertos" >"$OUT/freertos-eof.out" &&
    grep -qx '{"jsonrpc":"2.0","id":1,"result":{}}' "$OUT/freertos-eof.out"
  } 2>"$OUT/freertos-eof.log" || rc=$?
  if grep -q 'Sanitizer' "$OUT/freertos-eof.log"; then rc=1; fi
  result "$rc" "FreeRTOS POSIX greenhouse ends at end of input with status 0, LeakSanitizer clean" \
    "$OUT/freertos-eof.log"
  rc=0
  python3 tests/help/check_help.py --root "$PWD" --programs-only "$PWD/$OUT/freertos/greenhouse-freertos" \
    >"$OUT/freertos-help.log" 2>&1 || rc=$?
  result "$rc" "greenhouse-freertos --help and -h: usage on stdout, exit 0, no side effect" "$OUT/freertos-help.log"
  # The same binary serving Streamable HTTP from its task (built in when http_parser is installed).
  rc=0; tests/rtos/freertos_http.sh "$OUT/freertos/greenhouse-freertos" >"$OUT/freertos-http.log" 2>&1 || rc=$?
  grep -E '^(== |   [a-z])' "$OUT/freertos-http.log" | sed 's/^/    /' || true
  result "$rc" "FreeRTOS POSIX greenhouse with the Python SDK HTTP client (HTTP task, bearer token)" \
    "$OUT/freertos-http.log"
else
  skip "FreeRTOS example: FREERTOS_KERNEL_PATH is not set (a FreeRTOS-Kernel V11 checkout)"
fi
if [ -n "${COREMQTT_PATH:-}" ]; then
  # The coreMQTT v5 shim (bindings/mqtt/emcp_mqtt_core.c) in greenhouse-coremqtt (plain host,
  # POSIX sockets), built with ASan/UBSan and driven by the client-side checks of tests/mqtt
  # against a real mosquitto broker each test starts: the same tests as greenhouse-mqtt.
  apt_ensure mosquitto
  python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r tests/mqtt/requirements.txt
  rc=0
  {
    cmake -S examples-c/coremqtt -B "$OUT/coremqtt" -G Ninja -DCOREMQTT_PATH="$COREMQTT_PATH" -DEMCP_SANITIZE=ON &&
    cmake --build "$OUT/coremqtt" &&
    (gw="$PWD/$OUT/coremqtt/greenhouse-coremqtt" && cd tests/mqtt && GREENHOUSE_MQTT="$gw" \
      python3 -m pytest -q -p no:cacheprovider test_mqtt_binding.py test_mqtt_fleet.py test_adversarial_mqtt.py)
  } >"$OUT/coremqtt.log" 2>&1 || rc=$?
  grep -E '^[0-9]+ (passed|failed)|passed|failed' "$OUT/coremqtt.log" | tail -n 1 | sed 's/^/    /' || true
  result "$rc" "coreMQTT v5 shim: greenhouse-coremqtt against mosquitto (tests/mqtt binding, fleet, adversarial)" "$OUT/coremqtt.log"
  rc=0
  python3 tests/help/check_help.py --root "$PWD" --programs-only "$PWD/$OUT/coremqtt/greenhouse-coremqtt" \
    >"$OUT/coremqtt-help.log" 2>&1 || rc=$?
  result "$rc" "greenhouse-coremqtt --help and -h: usage on stdout, exit 0, no side effect" "$OUT/coremqtt-help.log"
  if [ -n "${FREERTOS_KERNEL_PATH:-}" ]; then
    # The same gateway inside a FreeRTOS task (POSIX simulator port), same tests.
    rc=0
    {
      cmake -S examples-c/coremqtt -B "$OUT/coremqtt-freertos" -G Ninja -DCOREMQTT_PATH="$COREMQTT_PATH" \
        -DFREERTOS_KERNEL_PATH="$FREERTOS_KERNEL_PATH" -DEMCP_SANITIZE=ON &&
      cmake --build "$OUT/coremqtt-freertos" --target greenhouse-coremqtt-freertos &&
      (gw="$PWD/$OUT/coremqtt-freertos/greenhouse-coremqtt-freertos" && cd tests/mqtt && GREENHOUSE_MQTT="$gw" \
        python3 -m pytest -q -p no:cacheprovider test_mqtt_binding.py test_mqtt_fleet.py test_adversarial_mqtt.py)
    } >"$OUT/coremqtt-freertos.log" 2>&1 || rc=$?
    grep -E '^[0-9]+ (passed|failed)|passed|failed' "$OUT/coremqtt-freertos.log" | tail -n 1 | sed 's/^/    /' || true
    result "$rc" "coreMQTT v5 shim in a FreeRTOS task: greenhouse-coremqtt-freertos against mosquitto (same tests)" \
      "$OUT/coremqtt-freertos.log"
  else
    skip "coreMQTT v5 shim in a FreeRTOS task: FREERTOS_KERNEL_PATH is not set"
  fi
else
  skip "coreMQTT v5 shim: COREMQTT_PATH is not set (a coreMQTT v5 checkout, FreeRTOS/coreMQTT)"
fi

if [ -n "${ZEPHYR_BASE:-}" ] && command -v west >/dev/null; then
  rc=0
  {
    ZEPHYR_TOOLCHAIN_VARIANT=host west build -p always -b native_sim_64 zephyr/samples/greenhouse \
      -d "$PWD/$OUT/zephyr-greenhouse" -- -DZEPHYR_EXTRA_MODULES="$PWD" &&
    python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r tests/e2e/requirements.txt &&
    python3 tests/rtos/mcp_client_check.py "$PWD/$OUT/zephyr-greenhouse/zephyr/zephyr.exe"
  } >"$OUT/zephyr.log" 2>&1 || rc=$?
  grep -E '^(== |   [a-z])' "$OUT/zephyr.log" | sed 's/^/    /' || true
  result "$rc" "Zephyr greenhouse on native_sim_64 with the Python SDK client" "$OUT/zephyr.log"
  zsize "$OUT/zephyr-greenhouse"

  # The same sample with CONFIG_EMCP_PREBUILT_DIR, on a tree for
  # native_sim_64's core (x86_64-unknown-linux-gnu): cmake --install of a
  # Generic build (the core and the bare-metal bindings, no host tools), as
  # for a cross build. First as it is, without bin/emcp-gen: the module builds
  # emcp-gen from its own tools/gen (the tree's installed EmcpGenerate.cmake,
  # included after the module's, must not take that source away). Then with
  # bin/emcp-gen added (here the one the build above made), as scripts/package
  # makes the MCU trees: everything from the tree, and EMCP_CARGO=/bin/false
  # fails the build at any cargo step (the core, or emcp-gen from tools/gen).
  tree="$PWD/$OUT/zephyr-prebuilt-tree"
  rc=0
  {
    rm -rf "$OUT/zephyr-prebuilt-core" "$tree" &&
    cmake -S . -B "$OUT/zephyr-prebuilt-core" -G Ninja -DCMAKE_SYSTEM_NAME=Generic \
      -DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY -DEMCP_RUST_TARGET=x86_64-unknown-linux-gnu \
      -DCMAKE_BUILD_TYPE=MinSizeRel -DEMCP_BUILD_EXAMPLES=OFF -DEMCP_BUILD_TESTS=OFF -DEMCP_BUILD_TOOLS=OFF &&
    cmake --build "$OUT/zephyr-prebuilt-core" &&
    cmake --install "$OUT/zephyr-prebuilt-core" --prefix "$tree" &&
    [ ! -e "$tree/bin/emcp-gen" ] &&
    ZEPHYR_TOOLCHAIN_VARIANT=host west build -p always -b native_sim_64 zephyr/samples/greenhouse \
      -d "$PWD/$OUT/zephyr-prebuilt-nogen" -- -DZEPHYR_EXTRA_MODULES="$PWD" -DCONFIG_EMCP_PREBUILT_DIR="\"$tree\"" &&
    grep -qF "$PWD/$OUT/zephyr-prebuilt-nogen/emcp-gen-host/emcp-gen $PWD/examples-c/greenhouse/greenhouse_tools.json" \
      "$OUT/zephyr-prebuilt-nogen/build.ninja" &&
    grep -qF "$tree/lib/libemcp.a" "$OUT/zephyr-prebuilt-nogen/build.ninja" &&
    python3 tests/rtos/mcp_client_check.py "$PWD/$OUT/zephyr-prebuilt-nogen/zephyr/zephyr.exe"
  } >"$OUT/zephyr-prebuilt-nogen.log" 2>&1 || rc=$?
  grep -E '^-- emcp: prebuilt|^== ' "$OUT/zephyr-prebuilt-nogen.log" | sed 's/^/    /' || true
  result "$rc" "Zephyr greenhouse on a cmake --install tree without bin/emcp-gen: its libemcp.a, emcp-gen from tools/gen" \
    "$OUT/zephyr-prebuilt-nogen.log"
  rc=0
  {
    install -D -m 755 "$OUT/zephyr-greenhouse/emcp-gen-host/emcp-gen" "$tree/bin/emcp-gen" &&
    ZEPHYR_TOOLCHAIN_VARIANT=host west build -p always -b native_sim_64 zephyr/samples/greenhouse \
      -d "$PWD/$OUT/zephyr-prebuilt" -- -DZEPHYR_EXTRA_MODULES="$PWD" \
      -DCONFIG_EMCP_PREBUILT_DIR="\"$tree\"" -DEMCP_CARGO=/bin/false &&
    grep -qF "$tree/bin/emcp-gen $PWD/examples-c/greenhouse/greenhouse_tools.json" "$OUT/zephyr-prebuilt/build.ninja" &&
    grep -qF "$tree/lib/libemcp.a" "$OUT/zephyr-prebuilt/build.ninja" &&
    python3 tests/rtos/mcp_client_check.py "$PWD/$OUT/zephyr-prebuilt/zephyr/zephyr.exe"
  } >"$OUT/zephyr-prebuilt.log" 2>&1 || rc=$?
  grep -E '^(== |   [a-z])' "$OUT/zephyr-prebuilt.log" | sed 's/^/    /' || true
  result "$rc" "Zephyr greenhouse on that tree with bin/emcp-gen: its libemcp.a and emcp-gen, no cargo" \
    "$OUT/zephyr-prebuilt.log"

  # Durable idempotency records on NVS (bindings/store/emcp_store_nvs.c,
  # CONFIG_EMCP_STORE_NVS) in the flash simulator: tests/zephyr/store_nvs
  # killed by SIGKILL at every step of a keyed call and before every store
  # write, restarted on the same --flash file (tests/zephyr/store_nvs_check.py).
  # Then the same checks against the image with its store's append, or its
  # sync, writing nothing: they must fail.
  rc=0
  {
    ZEPHYR_TOOLCHAIN_VARIANT=host west build -p always -b native_sim_64 tests/zephyr/store_nvs \
      -d "$PWD/$OUT/zephyr-store-nvs" -- -DZEPHYR_EXTRA_MODULES="$PWD" &&
    python3 tests/zephyr/store_nvs_check.py "$OUT/zephyr-store-nvs/zephyr/zephyr.exe"
  } >"$OUT/zephyr-store-nvs.log" 2>&1 || rc=$?
  grep -E '^(== |   [a-z])|checks passed' "$OUT/zephyr-store-nvs.log" | sed 's/^/    /' || true
  result "$rc" "Zephyr NVS store on native_sim_64: killed at every step and store write, restarted on its flash file" \
    "$OUT/zephyr-store-nvs.log"
  zsize "$OUT/zephyr-store-nvs"
  obj=$(find "$OUT/zephyr-store-nvs" -name 'emcp_store_nvs.c.obj' | head -n 1)
  if [ -n "$obj" ]; then
    size "$obj" | awk 'NR == 2 { printf "    emcp_store_nvs.c: text %s, data %s, bss %s\n", $1, $2, $3 }'
    readelf -sW "$OUT/zephyr-store-nvs/zephyr/zephyr.elf" | while read -r _ _ sz type _ _ _ name; do
      case "$type:$name" in
        OBJECT:nvs) echo "    emcp_store_nvs_t (static RAM): $((sz)) B" ;;
      esac
    done
  fi
  if [ "$rc" -eq 0 ]; then
    for hook in append sync; do
      rc=0
      python3 tests/zephyr/store_nvs_check.py "$OUT/zephyr-store-nvs/zephyr/zephyr.exe" --drop "$hook" \
        >"$OUT/zephyr-store-nvs-drop-$hook.log" 2>&1 || rc=$?
      tail -n 1 "$OUT/zephyr-store-nvs-drop-$hook.log" | sed 's/^/    /'
      # 1: checks failed (what must happen); anything else is the driver's own trouble.
      result "$([ "$rc" -eq 1 ] && echo 0 || echo 1)" \
        "the same checks fail against a store whose $hook writes nothing" "$OUT/zephyr-store-nvs-drop-$hook.log"
    done
  fi

  # The HTTP glue: overlay-http.conf (TAP zeth), then the SDK's HTTP client
  # from a network namespace when we may create one (root and ip).
  rc=0
  ZEPHYR_TOOLCHAIN_VARIANT=host west build -p always -b native_sim_64 zephyr/samples/greenhouse \
    -d "$PWD/$OUT/zephyr-http" -- -DZEPHYR_EXTRA_MODULES="$PWD" -DOVERLAY_CONFIG=overlay-http.conf \
    >"$OUT/zephyr-http-build.log" 2>&1 || rc=$?
  result "$rc" "Zephyr greenhouse with overlay-http.conf builds for native_sim_64" "$OUT/zephyr-http-build.log"
  zsize "$OUT/zephyr-http"
  if [ "$rc" -eq 0 ] && [ "$(id -u)" -eq 0 ] && command -v ip >/dev/null && [ -c /dev/net/tun ]; then
    rc=0
    tests/rtos/zephyr_http_tap.sh "$OUT/zephyr-http/zephyr/zephyr.exe" >"$OUT/zephyr-http.log" 2>&1 || rc=$?
    grep -E '^(== |   [a-z])' "$OUT/zephyr-http.log" | sed 's/^/    /' || true
    result "$rc" "Zephyr HTTP greenhouse over TAP in a network namespace with the Python SDK HTTP client" \
      "$OUT/zephyr-http.log"
  else
    skip "Zephyr HTTP run: needs the build, root (ip netns) and /dev/net/tun"
  fi

  # HTTPS: overlay-https.conf on top, Mbed TLS inside the binding, from Zephyr's
  # mbedtls module (ZEPHYR_MBEDTLS_PATH, or modules/crypto/mbedtls of the west
  # workspace: its checkout at the revision the manifest pins).
  mbedtls=${ZEPHYR_MBEDTLS_PATH:-$ZEPHYR_BASE/../modules/crypto/mbedtls}
  if [ -f "$mbedtls/zephyr/module.yml" ]; then
    rc=0
    ZEPHYR_TOOLCHAIN_VARIANT=host west build -p always -b native_sim_64 zephyr/samples/greenhouse \
      -d "$PWD/$OUT/zephyr-https" -- -DZEPHYR_EXTRA_MODULES="$PWD;$(realpath "$mbedtls")" \
      -DOVERLAY_CONFIG="overlay-http.conf;overlay-https.conf" >"$OUT/zephyr-https-build.log" 2>&1 || rc=$?
    result "$rc" "Zephyr greenhouse with overlay-https.conf (Mbed TLS) builds for native_sim_64" \
      "$OUT/zephyr-https-build.log"
    zsize "$OUT/zephyr-https"
    if [ "$rc" -eq 0 ] && [ "$(id -u)" -eq 0 ] && command -v ip >/dev/null && [ -c /dev/net/tun ]; then
      rc=0
      tests/rtos/zephyr_http_tap.sh "$OUT/zephyr-https/zephyr/zephyr.exe" \
        "$OUT/zephyr-https/emcp-https/server-cert.pem" >"$OUT/zephyr-https.log" 2>&1 || rc=$?
      grep -E '^(== |   [a-z])' "$OUT/zephyr-https.log" | sed 's/^/    /' || true
      result "$rc" "Zephyr HTTPS greenhouse over TAP: SDK client verifying the certificate, an idle connection held" \
        "$OUT/zephyr-https.log"
    else
      skip "Zephyr HTTPS run: needs the build, root (ip netns) and /dev/net/tun"
    fi
  else
    skip "Zephyr HTTPS: no Mbed TLS module at '$mbedtls' (set ZEPHYR_MBEDTLS_PATH)"
  fi

  # CoAP through libcoap's own Zephyr module (LIBCOAP_PATH: a libcoap checkout
  # with its zephyr/ directory, v4.3.5-8-g4803f161 or later: the overlays set
  # CONFIG_LIBCOAP_LOG_WARNING, which the v4.3.5 tag lacks, checked first by
  # tests/zephyr/check_libcoap_kconfig.py). The overlay alone, then with
  # the in-image libcoap client whose responses tests/rtos/zephyr_coap_check.py
  # checks (Zephyr 3.4.99's TAP driver cannot be built with the C library
  # libcoap needs there, so the exchange runs over the loopback interface).
  libcoap_ok=0
  if [ -n "${LIBCOAP_PATH:-}" ]; then
    rc=0; python3 tests/zephyr/check_libcoap_kconfig.py "$LIBCOAP_PATH" >"$OUT/libcoap-kconfig.log" 2>&1 || rc=$?
    sed 's/^/    /' "$OUT/libcoap-kconfig.log"
    result "$rc" "LIBCOAP_PATH's Zephyr module defines every CONFIG_LIBCOAP_* the CoAP overlays set" \
      "$OUT/libcoap-kconfig.log"
    libcoap_ok=$rc
  fi
  if [ -n "${LIBCOAP_PATH:-}" ] && [ "$libcoap_ok" -eq 0 ]; then
    rc=0
    ZEPHYR_TOOLCHAIN_VARIANT=host west build -p always -b native_sim_64 zephyr/samples/greenhouse \
      -d "$PWD/$OUT/zephyr-coap" -- -DZEPHYR_EXTRA_MODULES="$PWD;$LIBCOAP_PATH" \
      -DOVERLAY_CONFIG=overlay-coap.conf >"$OUT/zephyr-coap-build.log" 2>&1 || rc=$?
    result "$rc" "Zephyr greenhouse with overlay-coap.conf (libcoap module) builds for native_sim_64" \
      "$OUT/zephyr-coap-build.log"
    zsize "$OUT/zephyr-coap"
    rc=0
    {
      ZEPHYR_TOOLCHAIN_VARIANT=host west build -p always -b native_sim_64 zephyr/samples/greenhouse \
        -d "$PWD/$OUT/zephyr-coap-selftest" -- -DZEPHYR_EXTRA_MODULES="$PWD;$LIBCOAP_PATH" \
        -DOVERLAY_CONFIG="overlay-coap.conf;overlay-coap-selftest.conf" &&
      python3 tests/rtos/zephyr_coap_check.py "$OUT/zephyr-coap-selftest/zephyr/zephyr.exe"
    } >"$OUT/zephyr-coap.log" 2>&1 || rc=$?
    grep -E '^(== |   [a-zA-Z])' "$OUT/zephyr-coap.log" | sed 's/^/    /' || true
    result "$rc" "Zephyr CoAP greenhouse: libcoap client in the image, MCP over Zephyr's UDP (loopback)" \
      "$OUT/zephyr-coap.log"
    zsize "$OUT/zephyr-coap-selftest"
    # The same over DTLS-PSK (overlay-coaps.conf: libcoap's Mbed TLS backend, from the mbedtls module).
    if [ -f "$mbedtls/zephyr/module.yml" ]; then
      rc=0
      {
        ZEPHYR_TOOLCHAIN_VARIANT=host west build -p always -b native_sim_64 zephyr/samples/greenhouse \
          -d "$PWD/$OUT/zephyr-coaps-selftest" -- \
          -DZEPHYR_EXTRA_MODULES="$PWD;$LIBCOAP_PATH;$(realpath "$mbedtls")" \
          -DOVERLAY_CONFIG="overlay-coap.conf;overlay-coaps.conf;overlay-coap-selftest.conf" &&
        python3 tests/rtos/zephyr_coap_check.py "$OUT/zephyr-coaps-selftest/zephyr/zephyr.exe" \
          --psk-identity greenhouse-operator
      } >"$OUT/zephyr-coaps.log" 2>&1 || rc=$?
      grep -E '^(== |   [a-zA-Z])' "$OUT/zephyr-coaps.log" | sed 's/^/    /' || true
      result "$rc" "Zephyr CoAP greenhouse over DTLS-PSK: the in-image client as greenhouse-operator" \
        "$OUT/zephyr-coaps.log"
      zsize "$OUT/zephyr-coaps-selftest"
    else
      skip "Zephyr CoAP over DTLS: no Mbed TLS module at '$mbedtls' (set ZEPHYR_MBEDTLS_PATH)"
    fi
  elif [ -n "${LIBCOAP_PATH:-}" ]; then
    skip "Zephyr CoAP builds: LIBCOAP_PATH's libcoap cannot configure the overlays (above)"
  else
    skip "Zephyr CoAP sample: LIBCOAP_PATH is not set (a libcoap checkout with its zephyr/ module, v4.3.5-8-g4803f161 or later)"
  fi
else
  skip "Zephyr sample and NVS store test: ZEPHYR_BASE is not set or west is not installed (see docs/zephyr.md)"
  skip "Zephyr CoAP sample: needs ZEPHYR_BASE and west, and LIBCOAP_PATH (a libcoap checkout with its zephyr/ module, v4.3.5-8-g4803f161 or later)"
  if [ -n "${LIBCOAP_PATH:-}" ]; then
    # Without Zephyr the libcoap revision is still checked.
    rc=0; python3 tests/zephyr/check_libcoap_kconfig.py "$LIBCOAP_PATH" >"$OUT/libcoap-kconfig.log" 2>&1 || rc=$?
    sed 's/^/    /' "$OUT/libcoap-kconfig.log"
    result "$rc" "LIBCOAP_PATH's Zephyr module defines every CONFIG_LIBCOAP_* the CoAP overlays set" \
      "$OUT/libcoap-kconfig.log"
  fi
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
