"""MCP through a real mosquitto broker: discover, list and both tools, the
replay cache (exactly-once), and bad input."""

from __future__ import annotations

import json
import uuid

from mqtt_support import CONTENT_TYPE, MODERN, audit, call, dumps, modern, wait_until

SID = "gh-test"
REQ = f"mcp/{SID}/request"


def test_presence_is_retained_online(gateways, clients):
    gateways(SID)
    c = clients("obs")
    q = c.watch(f"mcp/{SID}/presence/#")
    r = q.get(timeout=10)
    assert r.topic == f"mcp/{SID}/presence"
    assert r.retain, "presence must be retained"
    p = r.json()
    assert p["status"] == "online"
    assert p["name"] == "greenhouse-gw" and p["version"] == "0.4.0"
    assert MODERN in p["protocolVersions"] and "2025-11-25" in p["protocolVersions"]
    assert p["requestTopic"] == REQ


def test_discover_list_and_both_calls(gateways, clients):
    gw = gateways(SID)
    c = clients()

    r = c.request(REQ, modern("server/discover", 1))
    d = r.json()
    assert d["id"] == 1 and d["result"]["resultType"] == "complete"
    assert MODERN in d["result"]["supportedVersions"]
    assert d["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "greenhouse-gw"

    r = c.request(REQ, modern("tools/list", "list-1"))
    tools = r.json()["result"]["tools"]
    assert r.json()["id"] == "list-1"
    assert [t["name"] for t in tools] == ["read_sensor", "set_vent"]

    r = c.request(REQ, call("read_sensor", {"sensor_id": "t1"}, 3))
    res = r.json()["result"]
    assert res["isError"] is False
    assert res["structuredContent"]["value"] == 21.5 and res["structuredContent"]["unit"] == "C"

    r = c.request(REQ, call("set_vent", {"percent": 40}, 4))
    res = r.json()["result"]
    assert res["structuredContent"] == {"ok": True, "percent": 40}

    # The same audit lines as greenhouse-stdio, with the MQTT principal.
    wait_until(lambda: len(gw.audits()) == 2, 5, "two audit lines")
    assert gw.audits() == [
        audit("read_sensor", {"sensor_id": "t1"}, "ok"),
        audit("set_vent", {"percent": 40}, "ok"),
    ]


def test_legacy_initialize_is_answered_too(gateways, clients):
    gateways(SID)
    c = clients()
    r = c.request(REQ, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "t", "version": "1"}}})
    assert r.json()["result"]["protocolVersion"] == "2025-11-25"


def test_wind_lock_refuses_the_vent(gateways, clients):
    gw = gateways(SID, "--wind-lock")
    c = clients()
    res = c.request(REQ, call("set_vent", {"percent": 10}, 1)).json()["result"]
    assert res["isError"] is True
    assert "wind lock" in res["content"][0]["text"]
    wait_until(lambda: gw.audits("set_vent"), 5, "audit line")
    assert gw.audits("set_vent") == [audit("set_vent", {"percent": 10}, "is_error")]
    assert gw.vent_moves() == []


def test_duplicate_correlation_is_answered_from_the_replay_cache(gateways, clients):
    gw = gateways(SID)
    c = clients()
    req = dumps(call("set_vent", {"percent": 55}, 7))
    corr = b"corr-" + uuid.uuid4().bytes

    first = c.request(REQ, req, corr)
    second = c.request(REQ, req, corr)  # a client retry / QoS 1 redelivery
    assert first.payload == second.payload, "a duplicate must get the identical response"
    assert second.correlation == corr
    gw.wait_log("answered from the replay cache")
    assert len(gw.audits("set_vent")) == 1, gw.text()
    assert gw.vent_moves() == ["vent: 0% -> 55%"]

    third = c.request(REQ, req, b"corr-" + uuid.uuid4().bytes)  # new correlation: a new request
    # It reaches the core again, within set_vent's 2 s rate limit: refused, unrun.
    assert third.json()["result"]["isError"] is True
    assert third.json()["result"]["content"][0]["text"].startswith("rate limited: retry in ")
    wait_until(lambda: len(gw.audits("set_vent")) == 2, 5, "second request through the core")
    assert gw.audits("set_vent") == [
        audit("set_vent", {"percent": 55}, "ok"),
        audit("set_vent", {"percent": 55}, "rate_limited"),
    ]
    assert gw.vent_moves() == ["vent: 0% -> 55%"]
    assert gw.count("answered from the replay cache") == 1


def test_reused_correlation_with_another_request_executes(gateways, clients):
    gw = gateways(SID)
    c = clients()
    corr = b"reused"
    a = c.request(REQ, call("set_vent", {"percent": 20}, 1), corr).json()
    b = c.request(REQ, call("read_sensor", {"sensor_id": "t2"}, 1), corr).json()
    assert a["result"]["structuredContent"]["percent"] == 20
    assert b["result"]["structuredContent"]["value"] == 34.1
    wait_until(lambda: len(gw.audits()) == 2, 5, "two executions")
    assert gw.audits() == [
        audit("set_vent", {"percent": 20}, "ok"),
        audit("read_sensor", {"sensor_id": "t2"}, "ok"),
    ]


def test_malformed_json_gets_parse_error(gateways, clients):
    gw = gateways(SID)
    c = clients()
    r = c.request(REQ, b'{"jsonrpc":"2.0","id":1,"method":')
    msg = r.json()
    assert msg["id"] is None and msg["error"]["code"] == -32700
    assert gw.audits() == []


def test_no_response_topic_gets_no_response_and_one_log_line(gateways, clients):
    gw = gateways(SID)
    c = clients()
    spy = clients("spy")
    everything = spy.watch("#")
    c.publish(REQ, dumps(call("set_vent", {"percent": 90}, 1)), correlation=b"x", response_topic=None)
    gw.wait_log("without Response Topic")
    c.expect_no_reply(1.0)
    seen = []
    while not everything.empty():
        seen.append(everything.get_nowait())
    # Only the request itself (and retained presence) crossed the broker.
    assert [m.topic for m in seen if not m.topic.startswith(f"mcp/{SID}/presence")] == [REQ]
    assert gw.count("without Response Topic") == 1
    assert gw.audits() == [], "a request nobody can hear must not actuate"


def test_one_megabyte_payload_is_refused_and_later_requests_work(gateways, clients):
    gw = gateways(SID)
    c = clients()
    big = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"pad":"' + b"x" * (1024 * 1024) + b'"}}'
    r = c.request(REQ, big, b"big", timeout=20)
    msg = r.json()
    assert msg["error"]["code"] == -32600 and "EMCP_MQTT_PAYLOAD_MAX" in msg["error"]["message"]
    assert gw.audits() == []
    ok = c.request(REQ, call("read_sensor", {"sensor_id": "rh1"}, 2)).json()
    assert ok["result"]["structuredContent"]["value"] == 62
    assert gw.proc.poll() is None


def test_payload_beyond_maximum_packet_size_is_not_delivered(gateways, clients):
    gw = gateways(SID)
    c = clients()
    huge = b"[" + b"0," * (1_600_000) + b"0]"  # ~3.2 MB > EMCP_MQTT_PACKET_MAX
    c.publish(REQ, huge, b"huge")
    c.expect_no_reply(1.5)
    ok = c.request(REQ, call("read_sensor", {"sensor_id": "t2"}, 2)).json()
    assert ok["result"]["structuredContent"]["value"] == 34.1
    assert gw.proc.poll() is None


def test_wrong_content_type_is_refused(gateways, clients):
    gw = gateways(SID)
    c = clients()
    c.publish(REQ, dumps(call("set_vent", {"percent": 5}, 1)), b"ct", content_type="text/plain")
    r = c.next_reply()
    assert r.correlation == b"ct" and r.content_type == CONTENT_TYPE
    assert r.json()["error"]["code"] == -32600
    assert gw.audits() == []


def test_missing_correlation_is_answered_without_it(gateways, clients):
    gateways(SID)
    c = clients()
    c.publish(REQ, dumps(modern("tools/list", 9)), correlation=None)
    r = c.next_reply()
    assert r.correlation is None and r.content_type == CONTENT_TYPE
    assert r.json()["id"] == 9


def test_notification_gets_no_response(gateways, clients):
    gw = gateways(SID)
    c = clients()
    c.publish(REQ, json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                               "params": {"requestId": 1}}).encode(), b"n")
    c.expect_no_reply(0.7)
    assert c.request(REQ, modern("tools/list", 2)).json()["id"] == 2
    assert gw.proc.poll() is None


def test_replay_cache_evicts_the_least_recently_used_entry(gateways, clients):
    """EMCP_MQTT_REPLAY_SLOTS is 16 in this build: a 17th request evicts the oldest."""
    gw = gateways(SID)
    c = clients()
    reqs = [dumps(call("set_vent", {"percent": i}, i)) for i in range(17)]
    corrs = [f"lru-{i}".encode() for i in range(17)]
    for req, corr in zip(reqs, corrs):
        c.request(REQ, req, corr)
    # Each reaches the core once (the first moves the vent, the rest are
    # refused by set_vent's 2 s rate limit: either way, one audit line each).
    wait_until(lambda: len(gw.audits("set_vent")) == 17, 5, "17 requests through the core")

    c.request(REQ, reqs[16], corrs[16])  # newest: still cached
    gw.wait_log("answered from the replay cache")
    assert len(gw.audits("set_vent")) == 17

    c.request(REQ, reqs[0], corrs[0])  # oldest: evicted, so it runs again
    wait_until(lambda: len(gw.audits("set_vent")) == 18, 5, "re-execution after eviction")
    assert gw.count("answered from the replay cache") == 1


def test_policy_applies_to_the_mqtt_principal(gateways, clients):
    """--policy names the MQTT principal (the gateway's username, here
    "anonymous"): it may only read, whoever publishes the request."""
    gw = gateways(SID, "--policy", "anonymous=read_sensor")
    c = clients()
    listed = c.request(REQ, modern("tools/list", 1)).json()["result"]
    assert [t["name"] for t in listed["tools"]] == ["read_sensor"]
    assert listed["cacheScope"] == "private"
    err = c.request(REQ, call("set_vent", {"percent": 30}, 2)).json()["error"]
    assert err == {"code": -32602, "message": "Unknown tool: set_vent"}
    ok = c.request(REQ, call("read_sensor", {"sensor_id": "t1"}, 3)).json()["result"]
    assert ok["structuredContent"]["value"] == 21.5
    wait_until(lambda: len(gw.audits()) == 2, 5, "two audit lines")
    assert gw.audits() == [
        audit("set_vent", {"percent": 30}, "refused"),
        audit("read_sensor", {"sensor_id": "t1"}, "ok"),
    ]
    assert gw.vent_moves() == []
