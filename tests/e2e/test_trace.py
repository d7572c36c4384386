"""W3C trace context reaches the audit log: greenhouse-stdio's audit line carries
the trace id of a request's traceparent (`trace=-` when there is none or it is
malformed)."""

from __future__ import annotations

from e2e_support import audit, call

TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def traced(tp, id):
    msg = call("read_sensor", {"sensor_id": "t1"}, id)
    if tp is not None:
        msg["params"]["_meta"]["traceparent"] = tp
    return msg


def test_trace_id_in_the_audit_line(spawn):
    s = spawn()
    for i, tp in enumerate([TP, None, "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "junk"]):
        assert s.request(traced(tp, i))["result"]["isError"] is False
    s.close_stdin()
    s.finish()
    base = audit("read_sensor", {"sensor_id": "t1"}, "ok")
    traced_line = audit("read_sensor", {"sensor_id": "t1"}, "ok", trace="4bf92f3577b34da6a3ce929d0e0e4736")
    assert s.audit_lines() == [traced_line, base, base, base]
