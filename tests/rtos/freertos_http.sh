#!/usr/bin/env bash
# Runs greenhouse-freertos (FreeRTOS POSIX port) serving Streamable HTTP from
# a FreeRTOS task on a free loopback port, with a bearer token, and drives it
# with the MCP Python SDK Streamable HTTP client (tests/rtos/mcp_http_check.py:
# both eras, the schema refusal, 401 without the token). Then SIGTERM must end
# it with status 0, and its audit lines must name the token's principal.
#
#   tests/rtos/freertos_http.sh build/rtos/freertos/greenhouse-freertos
set -euo pipefail
exe=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
log=$(mktemp)
pid=""
cleanup() {
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  echo "--- greenhouse-freertos stderr (last 20 lines)"; tail -n 20 "$log"; rm -f "$log"
}
trap cleanup EXIT

"$exe" --http 127.0.0.1:0 --token freertos-token 2>"$log" &
pid=$!
url=""
for _ in $(seq 100); do
  url=$(sed -n 's/.*listening on \(http:[^ ]*\) .*/\1/p' "$log")
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || { echo "greenhouse-freertos exited before listening"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "greenhouse-freertos did not listen within 10 s"; exit 1; }
echo "== serving at $url"

python3 "$here/mcp_http_check.py" "$url" freertos-token

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=""
echo "== exit status after SIGTERM: $status"
[ "$status" -eq 0 ]
grep -q '^greenhouse-freertos: stopped ([0-9]* HTTP requests)' "$log"
calls=$(grep -c '^audit: principal=bearer-client tool=set_vent ' "$log" || true)
echo "== audit lines for set_vent by bearer-client: $calls"
[ "$calls" -eq 4 ]
