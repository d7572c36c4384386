"""The adversarial cases of issue 9 §5 against greenhouse-mqtt through a real
mosquitto broker (the cases and their expected answers:
tests/common/adversarial_cases.py).

One broker and one gateway serve every case; after each one the gateway must
still answer, and only the cases marked `runs` may leave an audit line of an
executed tool. MQTT mapping: a result or a JSON-RPC error is the reply on the
Response Topic with the request's Correlation Data; a notification gets no
reply; a payload over EMCP_MQTT_PAYLOAD_MAX (16384) is refused with -32600
"Request exceeds EMCP_MQTT_PAYLOAD_MAX" (id null) without being parsed.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest

from mqtt_support import Broker, Client, Gateway, binary_path, call, wait_until

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
from adversarial_cases import Case, VentPacer, cases, check_json_answer, executed  # noqa: E402
from sanitizers import report_in  # noqa: E402

SID = "gh-adv"
REQ = f"mcp/{SID}/request"
CASES = cases()
PACER = VentPacer()  # the cases share one gateway: set_vent's 2 s rate limit
TOO_LARGE = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Request exceeds EMCP_MQTT_PAYLOAD_MAX"}}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    path = binary_path()
    if not path.exists():
        pytest.fail(f"greenhouse-mqtt not found at {path} (set GREENHOUSE_MQTT)", pytrace=False)
    broker = Broker(tmp_path_factory.mktemp("adv-broker"))
    broker.start()
    gw = Gateway(path, broker.port, SID)
    gw.wait_log(r"subscribed to ")
    client = Client(broker.port, "adv")
    yield gw, client
    client.close()
    code = gw.stop()
    broker.stop()
    assert report_in(gw.text()) is None, gw.text()[-3000:]
    assert code == 0, f"greenhouse-mqtt exited {code}:\n{gw.text()[-3000:]}"


def audits_settled(gw: Gateway) -> int:
    return executed(gw.lines())


def alive_after(gw: Gateway, client: Client) -> None:
    """Asks read_sensor with a fresh trace id and waits until its audit line
    has been read from the gateway's stderr pipe. The reply reaches the test
    through the broker, the audit lines through a reader thread, so without
    this barrier a loaded machine can see the reply before the line. Lines
    are written in order, so every earlier audit line is in by then."""
    trace = uuid.uuid4().hex
    msg = call("read_sensor", {"sensor_id": "t1"}, "alive")
    msg["params"]["_meta"]["traceparent"] = f"00-{trace}-{uuid.uuid4().hex[:16]}-01"
    alive = client.request(REQ, msg).json()
    assert alive["id"] == "alive" and alive["result"]["isError"] is False, alive
    wait_until(lambda: gw.count(rf"^audit: .* trace={trace}( |$)") == 1, 10, "the alive request's audit line")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(setup, case: Case):
    gw, client = setup
    client.drain()
    PACER.before(case)
    before = audits_settled(gw)
    corr = uuid.uuid4().bytes
    client.publish(REQ, case.body, corr)
    kind = case.expect.kind
    if kind == "none":
        client.expect_no_reply(0.5)
    else:
        r = client.next_reply(10)
        PACER.after(case)  # before any assertion, so one failure cannot rate-limit the next case
        assert r.correlation == corr and r.topic == client.response_topic
        msg = json.loads(r.payload)
        if kind == "too_large":
            assert len(case.body) > 16384
            assert msg == TOO_LARGE, msg
        else:
            check_json_answer(case, msg)
    # Alive, and the audit count settled (an audit line is written before the reply).
    alive_after(gw, client)
    assert audits_settled(gw) - before == (1 if case.runs else 0), gw.lines()[-4:]


def test_request_without_response_topic_is_never_executed(setup):
    """MQTT's own fire-and-forget: a valid tools/call without Response Topic
    is dropped unexecuted (docs/bindings/mqtt.md)."""
    gw, client = setup
    before = audits_settled(gw)
    client.publish(REQ, json.dumps(call("set_vent", {"percent": 61}, 1)).encode(), uuid.uuid4().bytes,
                   response_topic=None)
    wait_until(lambda: gw.count(r"dropped a request without Response Topic") >= 1, 10, "the drop log line")
    client.expect_no_reply(0.3)
    assert audits_settled(gw) == before
