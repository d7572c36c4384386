"""The adversarial cases of issue 9 §5 against greenhouse-coap with Debian's
libcoap client (the cases and their expected answers:
tests/common/adversarial_cases.py).

One greenhouse-coap serves every case; after each one it must still answer,
and only the cases marked `runs` may leave an audit line of an executed tool.
CoAP mapping (docs/bindings/coap.md): a result is 2.05, a JSON-RPC error 4.00
with the JSON-RPC body, a notification 2.04 without payload, a body over
EMCP_COAP_REQUEST_MAX (8192, sent block-wise, 1 KB blocks) 4.13 with Size1
8192 and the diagnostic "Request exceeds EMCP_COAP_REQUEST_MAX".
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from coap_support import Server, binary_path, binary_problem, call, coap_client, dumps, free_udp_port

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
from adversarial_cases import Case, VentPacer, cases, check_json_answer, executed  # noqa: E402
from sanitizers import report_in  # noqa: E402

CASES = cases()
PACER = VentPacer()  # the cases share one gateway: set_vent's 2 s rate limit


@pytest.fixture(scope="module")
def gh(tmp_path_factory):
    path = binary_path()
    problem = binary_problem(path)
    if problem:
        pytest.fail(problem, pytrace=False)
    s = Server(str(path), [], "127.0.0.1", free_udp_port(), tmp_path_factory.mktemp("coap-adv")).start()
    yield s
    alive = s.alive()
    code = s.stop()
    assert alive, "greenhouse-coap died during the adversarial cases"
    assert report_in(s.stderr()) is None, s.stderr()[-3000:]
    assert code == 0, f"greenhouse-coap exited {code}:\n{s.stderr()[-3000:]}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(gh, case: Case):
    PACER.before(case)
    before = executed(gh.audit_lines())
    r = coap_client(gh.url(), payload=case.body, block=1024)
    kind = case.expect.kind
    if kind == "too_large":
        assert len(case.body) > 8192
        assert r.code == "4.13", r.log[-2000:]
        assert "Size1:8192" in r.log
        assert r.payload == b"Request exceeds EMCP_COAP_REQUEST_MAX", r.payload[:200]
    elif kind == "none":
        assert r.code == "2.04" and r.payload == b"", (r.code, r.payload[:200])
    else:
        assert r.code == ("2.05" if kind in ("ok", "tool_error") else "4.00"), (r.code, r.payload[:300], r.log[-3000:])
        check_json_answer(case, json.loads(r.payload))
    assert executed(gh.audit_lines()) - before == (1 if case.runs else 0), gh.audit_lines()[-3:]
    PACER.after(case)
    alive = coap_client(gh.url(), payload=dumps(call("read_sensor", {"sensor_id": "t1"}, "alive")))
    assert alive.code == "2.05" and alive.json()["id"] == "alive", alive.log[-2000:]
