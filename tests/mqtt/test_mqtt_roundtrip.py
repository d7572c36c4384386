"""The legacy (2025-11-25) server-to-client round trip over MQTT, through a
real mosquitto broker, with a paho-mqtt client speaking the protocol (no
MQTT MCP client SDK exists for this binding).

A client that declared `elicitation` at initialize calls set_vent 90 (above
80 % the greenhouse asks for confirmation): the gateway publishes an
`elicitation/create` request to the client's Response Topic, with the
call's Correlation Data and the gateway's request topic as Response Topic;
the client publishes its JSON-RPC response there; the call then runs again
with the answer and its final response arrives with the call's Correlation
Data. Accept, decline and cancel, and a client that did not declare
elicitation (refused, as before).
"""

from __future__ import annotations

import time

import pytest

from mqtt_support import dumps

SID = "gh-rt"
REQ = f"mcp/{SID}/request"
LEGACY = "2025-11-25"


def initialize(c, caps: dict) -> None:
    r = c.request(REQ, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                        "params": {"protocolVersion": LEGACY, "capabilities": caps,
                                   "clientInfo": {"name": "paho-legacy", "version": "1"}}})
    assert r.json()["result"]["protocolVersion"] == LEGACY
    c.publish(REQ, dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), b"n1")
    c.expect_no_reply(0.2)


def set_vent_90(c, corr: bytes):
    c.publish(REQ, dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                          "params": {"name": "set_vent", "arguments": {"percent": 90}}}), corr)
    return c.next_reply()


ANSWERS = {
    "accept": ({"action": "accept", "content": {"confirm": True}}, (False, "vent set to 90%"), 1),
    "decline": ({"action": "decline"}, (True, "not confirmed: vent unchanged"), 0),
    "cancel": ({"action": "cancel"}, (True, "not confirmed: vent unchanged"), 0),
}


@pytest.mark.parametrize("answer", list(ANSWERS))
def test_legacy_confirmation_round_trip(gateways, clients, answer):
    gw = gateways(SID)
    c = clients()
    initialize(c, {"elicitation": {}})
    result, expected, moves = ANSWERS[answer]

    ask = set_vent_90(c, b"call-2")
    assert ask.correlation == b"call-2" and ask.topic == c.response_topic
    assert ask.response_topic == REQ, "the client answers on the gateway's request topic"
    req = ask.json()
    assert req["method"] == "elicitation/create", req
    assert "90%" in req["params"]["message"]
    assert req["params"]["requestedSchema"]["required"] == ["confirm"]
    assert gw.vent_moves() == []

    # The client's response: to the Response Topic it was given, with the
    # Correlation Data echoed and no Response Topic of its own.
    c.publish(ask.response_topic, dumps({"jsonrpc": "2.0", "id": req["id"], "result": result}),
              ask.correlation, response_topic=None)
    final = c.next_reply()
    assert final.correlation == b"call-2" and final.topic == c.response_topic
    body = final.json()
    assert body["id"] == 2, body
    r = body["result"]
    assert (r["isError"], r["content"][0]["text"]) == expected, r
    if moves:
        gw.wait_log(r"^vent: ", count=moves)  # stderr is read by a thread: it may lag the reply
    assert len(gw.vent_moves()) == moves
    c.expect_no_reply(0.3)


def test_an_answer_to_nothing_is_dropped_and_the_call_still_completes(gateways, clients):
    gw = gateways(SID)
    c = clients()
    initialize(c, {"elicitation": {}})
    ask = set_vent_90(c, b"call-2")
    sid = ask.json()["id"]
    c.publish(REQ, dumps({"jsonrpc": "2.0", "id": 987654, "result": {"action": "accept"}}), None,
              response_topic=None)
    c.expect_no_reply(0.3)
    # Other requests are served while the call waits.
    r = c.request(REQ, {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                        "params": {"name": "read_sensor", "arguments": {"sensor_id": "t1"}}})
    assert r.json()["id"] == 5 and r.json()["result"]["isError"] is False
    c.publish(REQ, dumps({"jsonrpc": "2.0", "id": sid, "result": {"action": "accept", "content": {"confirm": True}}}),
              ask.correlation, response_topic=None)
    final = c.next_reply()
    assert final.correlation == b"call-2"
    assert final.json()["result"]["content"][0]["text"] == "vent set to 90%"
    gw.wait_log(r"^vent: ")
    assert len(gw.vent_moves()) == 1
    # The storage is free again: the next call (after set_vent's 2 s rate
    # limit) is asked afresh, with a new id.
    time.sleep(2.1)
    again = set_vent_90(c, b"call-3")
    assert again.correlation == b"call-3"
    assert again.json()["method"] == "elicitation/create", again.json()
    assert again.json()["id"] != sid


def test_a_legacy_client_without_elicitation_is_refused_as_before(gateways, clients):
    gw = gateways(SID)
    c = clients()
    initialize(c, {})
    r = set_vent_90(c, b"call-2").json()["result"]
    assert r["isError"] is True
    assert "needs a confirmation this client cannot give" in r["content"][0]["text"], r
    assert gw.vent_moves() == []


def test_notifications_cancelled_abandons_the_waiting_call(gateways, clients):
    gw = gateways(SID)
    c = clients()
    initialize(c, {"elicitation": {}})
    ask = set_vent_90(c, b"call-2")
    sid = ask.json()["id"]
    c.publish(REQ, dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                          "params": {"requestId": 2, "reason": "the user gave up"}}), b"cancel-1")
    c.expect_no_reply(0.5)
    gw.wait_log(r"cancelled by its client")
    # A late answer matches nothing; the call never runs again.
    c.publish(REQ, dumps({"jsonrpc": "2.0", "id": sid, "result": {"action": "accept", "content": {"confirm": True}}}),
              ask.correlation, response_topic=None)
    c.expect_no_reply(0.5)
    assert gw.vent_moves() == []
    # The storage is free: the next call is asked.
    again = set_vent_90(c, b"call-3")
    assert again.json()["method"] == "elicitation/create", again.json()

