"""emcp-gateway's footprint and latency, measured once by hand (docs/gateway.md).

Usage: python3 bench/gateway_footprint.py BUILD_DIR

BUILD_DIR holds tools/gateway/emcp-gateway and
examples-c/greenhouse/greenhouse-mqtt (a Release build; the gateway's
default --max-tools serves every device). Starts a real mosquitto on
a free loopback port and 0, 1, 8, 16 and 30 greenhouse-mqtt devices, starts
the gateway for each count, lists every page of its tools, makes 200
sequential read_sensor calls through it, and prints the gateway's VmRSS,
the RSS per device above the empty gateway and the median call latency; then
200 direct calls to one device from a paho-mqtt (Python) client. Not the
fleet benchmark issue 40 asks for (scripts/fleet-bench: 200 simulated
devices, two gateways, p99): a first figure for the language choice.
"""
import argparse
import json, shutil, subprocess, sys, time, tempfile, statistics
from pathlib import Path

ap = argparse.ArgumentParser(usage="python3 bench/gateway_footprint.py BUILD_DIR",
                             description="emcp-gateway's RSS per device and call latency (docs/gateway.md).")
ap.add_argument("build_dir", type=Path)
REL = ap.parse_args().build_dir
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "mqtt")); sys.path.insert(0, str(HERE.parent / "tests" / "common"))
from mqtt_support import Broker, Gateway, Client  # noqa: E402
GW = REL / "tools/gateway/emcp-gateway"; DEV = REL / "examples-c/greenhouse/greenhouse-mqtt"
def rss(pid):
    for l in open(f"/proc/{pid}/status"):
        if l.startswith("VmRSS"): return int(l.split()[1])
env = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
def call(i, name, args): return json.dumps({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"_meta":env,"name":name,"arguments":args}}).encode()+b"\n"
tmp = Path(tempfile.mkdtemp())
b = Broker(tmp / "b"); b.start()
devs = []
try:
    results = []
    for n in (0, 1, 8, 16, 30):
        while len(devs) < n:
            g = Gateway(DEV, b.port, f"gh-{len(devs)}"); g.wait_log("subscribed to "); devs.append(g)
        p = subprocess.Popen([str(GW), "--broker", f"127.0.0.1:{b.port}"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        listed, cur, pages = [], None, 0
        while True:
            params = {"_meta": env, **({"cursor": cur} if cur else {})}
            p.stdin.write(json.dumps({"jsonrpc":"2.0","id":0,"method":"tools/list","params":params}).encode()+b"\n"); p.stdin.flush()
            res = json.loads(p.stdout.readline())["result"]; listed += res["tools"]; pages += 1
            cur = res.get("nextCursor")
            if not cur: break
        lat = []
        if n:
            for i in range(200):
                t = time.perf_counter(); p.stdin.write(call(i+1, f"gh-{i % n}.read_sensor", {"sensor_id":"t1"})); p.stdin.flush()
                r = json.loads(p.stdout.readline()); lat.append(time.perf_counter()-t); assert r["result"]["isError"] is False
        results.append((n, f"{len(listed)}/{pages}p", rss(p.pid), round(statistics.median(lat)*1e3, 2) if lat else 0))
        p.stdin.close(); p.wait(10)
    c = Client(b.port, "direct"); dl = []
    for i in range(200):
        t = time.perf_counter(); c.request("mcp/gh-0/request", json.loads(call(1, "read_sensor", {"sensor_id":"t1"}))); dl.append(time.perf_counter()-t)
    c.close()
    print("devices tools RSS_kB p50_ms(gateway)")
    for r in results: print(*r)
    base = results[0][2]
    for n, _, r, _ in results[1:]: print(f"{n} devices: {(r-base)/n:.1f} kB per device above the empty gateway")
    print(f"direct p50 ms {statistics.median(dl)*1e3:.2f}; one greenhouse-mqtt device RSS {rss(devs[0].proc.pid)} kB")
finally:
    for g in devs: g.stop()
    b.stop()
    shutil.rmtree(tmp, ignore_errors=True)
