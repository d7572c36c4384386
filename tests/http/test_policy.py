"""Gateway policy end to end (issue 10): the real greenhouse-http with two named
bearer tokens and a --policy per principal.

    greenhouse-http --token operator:OP --token viewer:VIEW
                    --policy viewer=read_sensor --policy operator=read_sensor,set_vent

- The viewer's tools/list has only read_sensor (cacheScope private: the list
  depends on who asks); its set_vent is answered exactly as an unknown tool
  (-32602), the vent does not move, and its audit line says refused.
- The operator's second set_vent within 2 s is refused by the core's rate
  limit (isError, "retry in N ms"), the vent does not move; after 2 s it runs.
- A repeated idempotency key returns the first call's result, byte for byte
  except the id, without running set_vent again.
- Every tools/call appears in the audit log exactly once, with the principal
  of the token that made it and the trace id of its traceparent.

The vent's movements are read from the actuator's own log lines
(`vent: A% -> B%`), so "did not move" is observed, not assumed.
"""

from __future__ import annotations

import re
import subprocess
import time

import pytest

from http_support import ENVELOPE, Conn, audit, call_body, modern_body, modern_headers

OPERATOR, VIEWER = "op-3f9a1c", "view-77b2e0"
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
INTERVAL_S = 2.0  # GREENHOUSE_VENT_INTERVAL_MS


class Client:
    """One principal's keep-alive connection to the gateway."""

    def __init__(self, srv, token: str | None):
        self.conn = Conn(srv.port)
        self.token = token
        self.next_id = 1

    def post(self, method: str, body: dict, name: str | None = None):
        h = modern_headers(method, name)
        if self.token is not None:
            h["Authorization"] = f"Bearer {self.token}"
        return self.conn.request("POST", "/mcp", h, body)

    def list_tools(self) -> dict:
        r = self.post("tools/list", modern_body("tools/list", self._id()))
        assert r.status == 200, r.body
        return r.json()["result"]

    def call(self, tool: str, args: dict, traceparent: str | None = None):
        body = call_body(tool, args, self._id())
        if traceparent is not None:
            body["params"]["_meta"] = {**ENVELOPE, "traceparent": traceparent}
        return self.post("tools/call", body, tool)

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id

    def close(self) -> None:
        self.conn.close()


def vent_moves(srv) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in re.findall(r"^vent: (\d+)% -> (\d+)%$", srv.stderr(), re.M)]


def rate_limited_ms(result: dict) -> int:
    """The wait an isError rate-limit refusal asks for."""
    assert result["isError"] is True, result
    m = re.fullmatch(r"rate limited: retry in (\d+) ms", result["content"][0]["text"])
    assert m, result
    return int(m.group(1))


@pytest.fixture
def gateway(start):
    srv = start("--token", f"operator:{OPERATOR}", "--token", f"viewer:{VIEWER}",
                "--policy", "viewer=read_sensor", "--policy", "operator=read_sensor,set_vent")
    clients = []

    def client(token):
        c = Client(srv, token)
        clients.append(c)
        return c

    yield srv, client
    for c in clients:
        c.close()


def test_two_principals_policy_rate_limit_idempotency_and_audit(gateway):
    srv, client = gateway
    viewer, operator = client(VIEWER), client(OPERATOR)
    expected = []  # every audit line, in order

    # -- the viewer: sees and calls only read_sensor ------------------------
    listed = viewer.list_tools()
    assert [t["name"] for t in listed["tools"]] == ["read_sensor"]
    assert listed["cacheScope"] == "private"
    r = viewer.call("read_sensor", {"sensor_id": "t1"})
    assert r.status == 200 and r.json()["result"]["structuredContent"]["value"] == 21.5
    expected.append(audit("read_sensor", {"sensor_id": "t1"}, "ok", principal="viewer"))

    r = viewer.call("set_vent", {"percent": 40}, traceparent=f"00-{TRACE}-00f067aa0ba902b7-01")
    assert r.status == 400, r.body
    err = r.json()["error"]
    assert err == {"code": -32602, "message": "Unknown tool: set_vent"}, err
    # Exactly as for a tool that does not exist.
    unknown = viewer.call("open_doors", {})
    assert unknown.status == 400 and unknown.json()["error"] == {"code": -32602, "message": "Unknown tool: open_doors"}
    expected.append(audit("set_vent", {"percent": 40}, "refused", principal="viewer", trace=TRACE))
    assert vent_moves(srv) == [], "the viewer moved the vent"

    # -- the operator: both tools, one vent change every 2 s -----------------
    listed = operator.list_tools()
    assert [t["name"] for t in listed["tools"]] == ["read_sensor", "set_vent"]
    assert listed["cacheScope"] == "private"

    t_sent = time.monotonic()
    first = operator.call("set_vent", {"percent": 40, "idempotency_key": "move-1"})
    t_first = time.monotonic()  # the server's run was stamped between t_sent and now
    assert first.status == 200
    first_result = first.json()["result"]
    assert first_result["structuredContent"] == {"ok": True, "percent": 40}
    expected.append(audit("set_vent", {"percent": 40, "idempotency_key": "move-1"}, "ok", principal="operator"))

    r = operator.call("set_vent", {"percent": 60})
    assert r.status == 200
    wait_ms = rate_limited_ms(r.json()["result"])
    assert 2000 - (time.monotonic() - t_sent) * 1000 - 2 <= wait_ms <= 2000, wait_ms
    expected.append(audit("set_vent", {"percent": 60}, "rate_limited", principal="operator"))
    assert vent_moves(srv) == [(0, 40)], "the rate-limited call moved the vent"

    # The same key again (also within the 2 s): the first result, not run again.
    again = operator.call("set_vent", {"percent": 40, "idempotency_key": "move-1"})
    assert again.status == 200 and again.json()["result"] == first_result
    expected.append(audit("set_vent", {"percent": 40, "idempotency_key": "move-1"}, "duplicate",
                          principal="operator"))
    assert vent_moves(srv) == [(0, 40)]

    # Out of contract: refused before the rate limit or the tool, as a tool
    # error the model reads (SEP-1303), not a JSON-RPC error.
    r = operator.call("set_vent", {"percent": 140})
    assert r.status == 200 and "error" not in r.json(), r.body
    assert r.json()["result"]["isError"] is True, r.body
    assert r.json()["result"]["content"][0]["text"] == "percent: 140 is above maximum 100", r.body
    expected.append(audit("set_vent", {"percent": 140}, "invalid_arguments", principal="operator"))

    # After the interval the operator can move it again.
    time.sleep(max(0.0, INTERVAL_S + 0.05 - (time.monotonic() - t_first)))
    r = operator.call("set_vent", {"percent": 70, "idempotency_key": "move-2"})
    assert r.json()["result"]["structuredContent"] == {"ok": True, "percent": 70}, r.body
    expected.append(audit("set_vent", {"percent": 70, "idempotency_key": "move-2"}, "ok", principal="operator"))
    # The first key still answers with its own (old) result, and moves nothing.
    again = operator.call("set_vent", {"percent": 40, "idempotency_key": "move-1"})
    assert again.json()["result"] == first_result
    expected.append(audit("set_vent", {"percent": 40, "idempotency_key": "move-1"}, "duplicate",
                          principal="operator"))
    assert vent_moves(srv) == [(0, 40), (40, 70)]

    # The viewer is still refused (policy is checked on every call), and a
    # request without a valid token never reaches the core.
    r = viewer.call("set_vent", {"percent": 0})
    assert r.status == 400 and r.json()["error"]["message"] == "Unknown tool: set_vent"
    expected.append(audit("set_vent", {"percent": 0}, "refused", principal="viewer"))
    for token in (None, "op-3f9a1", "operator"):
        r = client(token).call("set_vent", {"percent": 0})
        assert r.status == 401, (token, r.body)
    assert vent_moves(srv) == [(0, 40), (40, 70)]

    # -- the audit log: every call exactly once, with its principal ----------
    lines = srv.audit_lines()
    assert lines == expected, "\n".join(lines)
    assert not any("principal=viewer" in line and "outcome=ok" in line and "set_vent" in line for line in lines)


def test_unnamed_principal_sees_nothing(start):
    """With --policy, a token no --policy names gets no tool at all."""
    srv = start("--token", f"operator:{OPERATOR}", "--token", f"guest:{VIEWER}",
                "--policy", "operator=read_sensor,set_vent")
    guest = Client(srv, VIEWER)
    try:
        assert guest.list_tools()["tools"] == []
        r = guest.call("read_sensor", {"sensor_id": "t1"})
        assert r.status == 400 and r.json()["error"]["message"] == "Unknown tool: read_sensor"
    finally:
        guest.close()
    assert srv.audit_lines() == [audit("read_sensor", {"sensor_id": "t1"}, "refused", principal="guest")]


@pytest.mark.parametrize("args,why", [
    (("--policy", "viewer"), "wants PRINCIPAL=TOOL"),
    (("--policy", "viewer=open_doors"), "does not exist"),
    (("--token", "operator:"), "--token wants"),
    (("--token", "a:same", "--token", "b:same"), "same TOKEN"),
])
def test_bad_options_are_refused(greenhouse_http_bin, args, why):
    r = subprocess.run([greenhouse_http_bin, "--listen", "127.0.0.1:0", *args], capture_output=True, text=True,
                       timeout=10)
    assert r.returncode == 2 and why in r.stderr, r.stderr
