#!/usr/bin/env bash
# Runs the Zephyr greenhouse HTTP build (overlay-http.conf) on native_sim in a
# network namespace of its own with the TAP interface zeth (192.0.2.2 on this
# side, 192.0.2.1 in Zephyr) and drives it with the MCP Python SDK Streamable
# HTTP client (tests/rtos/mcp_http_check.py). Needs root (ip netns).
#
#   tests/rtos/zephyr_http_tap.sh build/rtos/zephyr-http/zephyr/zephyr.exe
set -euo pipefail
exe=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
ns="emcp-http-$$"
log=$(mktemp)
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
  echo "--- zephyr.exe output (last 20 lines)"; tail -n 20 "$log"; rm -f "$log"
}
trap cleanup EXIT

ip netns add "$ns"
ip netns exec "$ns" ip link set lo up
ip netns exec "$ns" ip tuntap add dev zeth mode tap
ip netns exec "$ns" ip addr add 192.0.2.2/24 dev zeth
ip netns exec "$ns" ip link set zeth up
ip netns exec "$ns" "$exe" >"$log" 2>&1 &
pid=$!

# Wait for the listening socket (ARP, then TCP) for at most 20 s.
ip netns exec "$ns" python3 - <<'PY'
import socket, sys, time
deadline = time.monotonic() + 20
while time.monotonic() < deadline:
    try:
        socket.create_connection(("192.0.2.1", 8080), timeout=0.5).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.2)
sys.exit("zephyr.exe does not answer on 192.0.2.1:8080")
PY
ip netns exec "$ns" python3 "$here/mcp_http_check.py" http://192.0.2.1:8080/mcp greenhouse-token
