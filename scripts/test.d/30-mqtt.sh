#!/usr/bin/env bash
# MQTT 5 binding (docs/bindings/mqtt.md): builds greenhouse-mqtt on
# libmosquitto and runs tests/mqtt against real mosquitto brokers that the
# tests start on free loopback ports: request/response properties, the replay
# cache, broker restart, the Will, shared subscriptions, bad input, TLS and
# passwords, and a round-trip benchmark (printed).
. "$(dirname "$0")/../lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"

. scripts/lib/apt.sh
apt_ensure_retry 30-mqtt mosquitto mosquitto-clients libmosquitto-dev pkg-config openssl
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r tests/mqtt/requirements.txt

# build/ was configured before libmosquitto-dev was installed on a fresh
# machine, which skipped greenhouse-mqtt: configure and build again.
cmake -S . -B build -DEMCP_SANITIZE=ON >/dev/null
cmake --build build -j"$(nproc)"
bin="$PWD/build/examples-c/greenhouse/greenhouse-mqtt"
if [ ! -x "$bin" ]; then
  echo "30-mqtt: $bin was not built (is libmosquitto found by pkg-config?)" >&2
  exit 1
fi

GREENHOUSE_MQTT="$bin" python3 -m pytest -v tests/mqtt
