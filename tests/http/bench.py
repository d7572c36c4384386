#!/usr/bin/env python3
"""Benchmark (printed, not asserted): tools/call on loopback with keep-alive.

    python3 tests/http/bench.py [--greenhouse PATH] [--seconds 5] [--clients 8]

Runs greenhouse-http and the Python SDK's own Streamable HTTP server
(bench_py_server.py: the same two tools, stateless, JSON responses) one after
the other, each driven by the same closed-loop load: N keep-alive
connections, each sending 2026-07-28 tools/call requests for read_sensor back
to back. Prints requests/s, p50 and p99 latency, and the ratio. Use a build
without sanitizers for meaningful figures (cmake -B build-rel; the CI build
uses ASan/UBSan).
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from http_support import ROOT, Conn, HttpServer, build, call_body, modern_headers  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listening on {port}")


def load(port: int, clients: int, seconds: float) -> tuple[int, list[float]]:
    req = build("POST", "/mcp", {**modern_headers("tools/call", "read_sensor"), "Host": f"127.0.0.1:{port}"},
                json.dumps(call_body("read_sensor", {"sensor_id": "t1"})))
    lat: list[list[float]] = [[] for _ in range(clients)]
    errors: list[str] = []
    stop_at = time.monotonic() + seconds

    def worker(i: int) -> None:
        try:
            c = Conn(port, timeout=30)
            while time.monotonic() < stop_at:
                t0 = time.perf_counter()
                c.send(req)
                r = c.read_response()
                lat[i].append(time.perf_counter() - t0)
                if r.status != 200 or b'"isError":false' not in r.body.replace(b" ", b""):
                    errors.append(f"{r.status} {r.body[:120]!r}")
                    return
            c.close()
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=seconds + 60)
    if errors:
        raise RuntimeError(errors[0])
    flat = [x for l in lat for x in l]
    return len(flat), flat


def report(name: str, n: int, lat: list[float], seconds: float) -> float:
    lat.sort()
    rps = n / seconds
    p50 = statistics.median(lat) * 1000
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
    print(f"{name:34s} {rps:10.0f} req/s   p50 {p50:7.3f} ms   p99 {p99:7.3f} ms   ({n} calls)")
    return rps


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--greenhouse", default=str(ROOT / "build/examples-c/greenhouse/greenhouse-http"))
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--clients", type=int, default=8)
    a = ap.parse_args()
    print(f"tools/call read_sensor, {a.clients} keep-alive clients, {a.seconds:.0f} s each, loopback")

    gh = HttpServer(a.greenhouse)
    try:
        load(gh.port, a.clients, 0.5)  # warm-up
        n, lat = load(gh.port, a.clients, a.seconds)
        c_rps = report("greenhouse-http (emcp, C)", n, lat, a.seconds)
    finally:
        gh.stop()

    port = free_port()
    py = subprocess.Popen([sys.executable, str(Path(__file__).with_name("bench_py_server.py")), str(port)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        load(port, a.clients, 0.5)
        n, lat = load(port, a.clients, a.seconds)
        p_rps = report("Python SDK MCPServer (mcp 2.3.0)", n, lat, a.seconds)
    finally:
        py.terminate()
        try:
            py.wait(timeout=10)
        except subprocess.TimeoutExpired:
            py.kill()
    print(f"ratio: greenhouse-http serves {c_rps / p_rps:.1f}x the requests/s of the Python SDK server")
    return 0


if __name__ == "__main__":
    sys.exit(main())
