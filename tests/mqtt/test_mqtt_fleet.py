"""Resilience and scale-out through a real mosquitto broker: broker restart
(reconnect, resubscribe, presence offline via the Will then online), the Will
on a crash, and two instances in one shared-subscription group."""

from __future__ import annotations

import queue
import signal
import time
import uuid

from mqtt_support import call, dumps, modern, wait_until


def presence_until(q: queue.Queue, status: str, timeout: float):
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        try:
            r = q.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        seen.append(r)
        if r.payload and r.json().get("status") == status:
            return r, seen
    raise AssertionError(f"no {status} presence within {timeout}s; saw {[s.payload for s in seen]}")


def test_broker_restart_reconnects_and_presence_goes_offline_then_online(broker, gateways, clients):
    sid = "gh-restart"
    req = f"mcp/{sid}/request"
    gw = gateways(sid)
    c = clients()
    assert c.request(req, call("set_vent", {"percent": 10}, 1)).json()["result"]["structuredContent"]["ok"]
    c.close()

    broker.stop()  # mosquitto publishes our Will (retained offline) as it shuts down
    gw.wait_log("connection lost")
    time.sleep(1.0)  # the gateway retries against a closed port, with backoff
    gw.signal(signal.SIGSTOP)  # hold it while we look at the restarted broker
    try:
        broker.start()
        restarted = time.monotonic()
        obs = clients("obs")
        pres = obs.watch(f"mcp/{sid}/presence/#")
        first, _ = presence_until(pres, "offline", 5)
        assert first.retain, "the Will left a retained offline presence"
    finally:
        gw.signal(signal.SIGCONT)

    presence_until(pres, "online", 10)
    c2 = clients()
    r = c2.request(req, call("read_sensor", {"sensor_id": "t1"}, 2), timeout=10)
    elapsed = time.monotonic() - restarted
    assert r.json()["result"]["structuredContent"]["value"] == 21.5
    assert elapsed < 10, f"answered {elapsed:.1f}s after the restart"
    print(f"answered {elapsed:.2f}s after the broker restart")
    gw.wait_log("reconnected to ")
    assert gw.count("subscribed to ") >= 2, "resubscribed after the restart"


def test_crash_publishes_the_will_and_a_new_instance_comes_online(gateways, clients):
    sid = "gh-will"
    gw = gateways(sid)
    obs = clients("obs")
    pres = obs.watch(f"mcp/{sid}/presence/#")
    presence_until(pres, "online", 5)
    gw.kill()  # no DISCONNECT: the broker publishes the Will
    r, _ = presence_until(pres, "offline", 10)
    assert r.json()["serverId"] == sid
    gateways(sid)
    presence_until(pres, "online", 10)
    obs2 = clients("late")
    late = obs2.watch(f"mcp/{sid}/presence/#")
    r, _ = presence_until(late, "online", 5)
    assert r.retain


def test_clean_stop_sets_presence_offline(gateways, clients):
    sid = "gh-stop"
    gw = gateways(sid)
    obs = clients("obs")
    pres = obs.watch(f"mcp/{sid}/presence/#")
    presence_until(pres, "online", 5)
    assert gw.stop() == 0
    presence_until(pres, "offline", 5)
    assert "stopped:" in gw.text()


def test_shared_subscription_answers_each_request_exactly_once(gateways, clients):
    sid = "gh-fleet"
    req = f"mcp/{sid}/request"
    a = gateways(sid, "--share", "gw")
    b = gateways(sid, "--share", "gw")
    obs = clients("obs")
    pres = obs.watch(f"mcp/{sid}/presence/#")
    online = set()
    deadline = time.monotonic() + 10
    while len(online) < 2 and time.monotonic() < deadline:
        try:
            m = pres.get(timeout=0.5)
        except queue.Empty:
            continue
        if m.json()["status"] == "online":
            online.add(m.topic)
    assert len(online) == 2, f"one presence per instance, got {online}"

    c = clients()
    n = 200
    corrs = [uuid.uuid4().bytes for _ in range(n)]
    for i, corr in enumerate(corrs):
        msg = call("set_vent", {"percent": i % 81}, i) if i % 2 else call("read_sensor", {"sensor_id": "t2"}, i)
        c.publish(req, dumps(msg), corr)
    wait_until(lambda: len(c.all) >= n, 30, f"{n} replies")
    time.sleep(1.0)  # any duplicate would arrive now
    got = [r.correlation for r in c.all]
    assert len(got) == n, f"{len(got)} replies for {n} requests"
    assert sorted(got) == sorted(corrs), "each request answered exactly once"
    for r in c.all:
        msg = r.json()
        assert "result" in msg and r.content_type == "application/json"
        assert corrs[msg["id"]] == r.correlation, "reply matches its request"
    wait_until(lambda: len(a.audits()) + len(b.audits()) == n, 5, "audit lines")
    print(f"instance A handled {len(a.audits())} calls, instance B {len(b.audits())}")
    assert a.audits() and b.audits(), "the broker spread the group's requests"
    # a request still works after the burst
    c.drain()
    assert c.request(req, modern("tools/list", "after")).json()["id"] == "after"


def test_keepalive_holds_an_idle_connection(broker, gateways, clients):
    """With a 5 s keep-alive (libmosquitto's minimum) the broker drops a silent
    client after 7.5 s; the gateway's PINGREQs keep it connected while idle."""
    sid = "gh-idle"
    gw = gateways(sid, "--keepalive", "5")
    time.sleep(8.0)
    assert gw.count("connection lost") == 0, gw.text()
    assert "exceeded timeout" not in broker.log_text()
    c = clients()
    assert c.request(f"mcp/{sid}/request", modern("tools/list", 1)).json()["id"] == 1
