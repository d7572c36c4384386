#!/usr/bin/env bash
# Runs the Zephyr greenhouse HTTP build (overlay-http.conf) on native_sim in a
# network namespace of its own with the TAP interface zeth (192.0.2.2 on this
# side, 192.0.2.1 in Zephyr) and drives it with the MCP Python SDK Streamable
# HTTP client (tests/rtos/mcp_http_check.py). Needs root (ip netns).
# Given the CA file of an overlay-https.conf build, it speaks HTTPS to port
# 8443, verifies the server's certificate against it, and holds a connection
# that never starts its handshake open during the check.
#
#   tests/rtos/zephyr_http_tap.sh build/rtos/zephyr-http/zephyr/zephyr.exe
#   tests/rtos/zephyr_http_tap.sh build/rtos/zephyr-https/zephyr/zephyr.exe \
#     build/rtos/zephyr-https/emcp-https/server-cert.pem
set -euo pipefail
exe=$(realpath "$1")
ca=${2:+$(realpath "$2")}
if [ -n "$ca" ]; then port=8443; url=https://192.0.2.1:8443/mcp; else port=8080; url=http://192.0.2.1:8080/mcp; fi
here=$(cd "$(dirname "$0")" && pwd)
ns="emcp-http-$$"
log=$(mktemp)
pid=""
cleanup() {
  [ -n "${idle:-}" ] && kill "$idle" 2>/dev/null || true
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
ip netns exec "$ns" python3 - "$port" "$ca" <<'PY'
import socket, ssl, sys, time
port, ca = int(sys.argv[1]), sys.argv[2]
deadline = time.monotonic() + 20
while time.monotonic() < deadline:
    try:
        s = socket.create_connection(("192.0.2.1", port), timeout=0.5)
        if ca:  # a complete handshake: a bare connect would hold the accept()
            s.settimeout(10)
            s = ssl.create_default_context(cafile=ca).wrap_socket(s, server_hostname="192.0.2.1")
        s.close()
        sys.exit(0)
    except OSError:
        time.sleep(0.2)
sys.exit(f"zephyr.exe does not answer on 192.0.2.1:{port}")
PY
if [ -n "$ca" ]; then
  # A client that connects and never starts its handshake, held open during
  # the whole check: the binding's handshakes are non-blocking, so it must
  # not hold the others (Zephyr's own TLS sockets block in accept() there).
  ip netns exec "$ns" python3 -c '
import socket, time
s = socket.create_connection(("192.0.2.1", 8443))
time.sleep(120)' &
  idle=$!
  sleep 0.5
  echo "== an idle TCP connection (no ClientHello) is held open during the check"
fi
ip netns exec "$ns" python3 "$here/mcp_http_check.py" "$url" greenhouse-token ${ca:+--ca "$ca"}
[ -n "${idle:-}" ] && kill "$idle" 2>/dev/null || true
