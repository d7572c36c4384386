"""Durable idempotency records through a real mosquitto broker:
greenhouse-mqtt --state-dir killed with SIGKILL at every step of a set_vent
call (--crash-at), restarted on the same state, and the same request
(same Correlation Data and idempotency key) published again, then a new key.

As over stdio (tests/e2e/test_durable.py): at most one vent movement per key
in the actuator log, a retry never told "ok" for a movement that did not
happen, and an interrupted call answered "earlier outcome unknown".
"""

from __future__ import annotations

import json
import re
import signal
from collections import Counter
from pathlib import Path

import pytest

from mqtt_support import call, dumps, wait_until

SID = "gh-durable"
REQ = f"mcp/{SID}/request"
POINTS = ["before-intent", "after-intent", "after-actuate", "after-result", "before-respond"]
MOVED_AT = {"before-intent": 0, "after-intent": 0, "after-actuate": 1, "after-result": 1, "before-respond": 1}


def movements(log: Path) -> Counter:
    if not log.exists():
        return Counter()
    return Counter(re.fullmatch(r"vent key=(\S+) from=\d+ to=\d+", ln).group(1) for ln in log.read_text().splitlines())


def outcome(reply) -> tuple[bool, str]:
    r = reply.json()["result"]
    return r["isError"], r["content"][0]["text"]


@pytest.mark.parametrize("point", POINTS)
def test_killed_at_every_point_never_moves_twice(gateways, clients, tmp_path, point):
    log = tmp_path / "actuator.log"
    opts = ["--state-dir", str(tmp_path / "state"), "--actuator-log", str(log), "--vent-interval-ms", "0"]
    c = clients()
    first = call("set_vent", {"percent": 40, "idempotency_key": "k1"}, id=1)
    corr = b"corr-k1"

    gw = gateways(SID, *opts, "--crash-at", point)
    c.publish(REQ, json.dumps(first).encode(), corr)
    wait_until(lambda: gw.proc.poll() is not None, 10, f"greenhouse-mqtt to die at {point}")
    gw.killed = True
    assert gw.proc.returncode == -signal.SIGKILL, gw.text()
    assert c.drain() == [], "no answer from a gateway killed before responding"
    assert movements(log)["k1"] == MOVED_AT[point]

    gateways(SID, *opts)
    retry = outcome(c.request(REQ, first, corr))
    moved = movements(log)["k1"]
    assert moved <= 1, f"k1 moved the vent {moved} times"
    if not retry[0]:
        assert moved == 1, f"told ok without a movement: {retry}"
    if point in ("after-result", "before-respond", "before-intent"):
        assert retry == (False, "vent set to 40%")
    else:
        assert retry[0] and retry[1].startswith("earlier outcome unknown"), retry
    # The same answer again, and a new key moves the vent once.
    assert outcome(c.request(REQ, call("set_vent", {"percent": 40, "idempotency_key": "k1"}, id=2))) == retry
    assert outcome(c.request(REQ, call("set_vent", {"percent": 60, "idempotency_key": "k2"}, id=3))) == (
        False,
        "vent set to 60%",
    )
    m = movements(log)
    assert m["k1"] == moved and m["k2"] == 1, m


@pytest.mark.parametrize("point", POINTS)
def test_keyless_call_keyed_by_correlation_data_survives_a_kill(gateways, clients, tmp_path, point):
    """The replay cache made durable: set_vent without an idempotency_key,
    re-published with the same Correlation Data (what a client whose reply
    never came does) after greenhouse-mqtt was killed at `point`, is
    answered from the durable record of its (Response Topic, Correlation
    Data) and never moves the vent twice."""
    log = tmp_path / "actuator.log"
    opts = ["--state-dir", str(tmp_path / "state"), "--actuator-log", str(log), "--vent-interval-ms", "0"]
    c = clients()
    first = call("set_vent", {"percent": 40}, id=7)
    corr = b"corr-keyless"

    gw = gateways(SID, *opts, "--crash-at", point)
    c.publish(REQ, dumps(first), corr)  # the very bytes c.request sends
    wait_until(lambda: gw.proc.poll() is not None, 10, f"greenhouse-mqtt to die at {point}")
    gw.killed = True
    assert gw.proc.returncode == -signal.SIGKILL, gw.text()
    assert c.drain() == [], "no answer from a gateway killed before responding"
    keys = [k for k in movements(log) if k.startswith("retry:")]
    assert sum(movements(log).values()) == MOVED_AT[point] == len(keys), movements(log)

    gw = gateways(SID, *opts)
    retry = c.request(REQ, first, corr)
    assert retry.json()["id"] == 7
    retry = outcome(retry)
    m = movements(log)
    assert sum(m.values()) <= 1, f"one request moved the vent {sum(m.values())} times: {m}"
    if not retry[0]:
        assert sum(m.values()) == 1, f"told ok without a movement: {retry}"
    if point in ("after-result", "before-respond", "before-intent"):
        assert retry == (False, "vent set to 40%")
    else:
        assert retry[0] and retry[1].startswith("earlier outcome unknown"), retry
    # Once more after a second restart: the same answer, from the log.
    gw.stop()
    gateways(SID, *opts)
    assert outcome(c.request(REQ, first, corr)) == retry
    assert movements(log) == m
    # New Correlation Data is a new request: it moves the vent.
    assert outcome(c.request(REQ, call("set_vent", {"percent": 60}, id=8), b"corr-next")) == (
        False,
        "vent set to 60%",
    )
    assert sum(movements(log).values()) == sum(m.values()) + 1
    # Without Correlation Data (no retry key) nothing keys it: refused.
    c.publish(REQ, dumps(call("set_vent", {"percent": 10}, id=9)), None)
    r = outcome(c.next_reply())
    assert r == (True, "idempotency_key is required"), r
    assert sum(movements(log).values()) == sum(m.values()) + 1
