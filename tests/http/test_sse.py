"""Request-scoped SSE: notifications a tool emits (progress) go out as
`event: message` SSE events before the final response, on conformance-server's
test_tool_with_progress."""

from __future__ import annotations

import json

import pytest

from http_support import ENVELOPE, Conn, HttpServer, binary, modern_headers


@pytest.fixture
def conformance_server():
    try:
        path = binary("conformance-server", "CONFORMANCE_SERVER", "build/tests/fixtures/conformance-server")
    except FileNotFoundError as e:
        pytest.fail(str(e), pytrace=False)
    s = HttpServer(path)
    yield s
    alive, code, log = s.finish()
    assert alive, "conformance-server died during the test"
    for marker in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
        assert marker not in log, log[-3000:]
    assert code == 0, f"conformance-server exited {code} after SIGTERM:\n{log[-3000:]}"


def progress_call(token="p1", id_=7):
    meta = {**ENVELOPE, "progressToken": token} if token else ENVELOPE
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call",
            "params": {"_meta": meta, "name": "test_tool_with_progress", "arguments": {}}}


def sse_events(body: bytes) -> list[dict]:
    events = []
    for block in body.decode().split("\r\n\r\n"):
        if not block.strip():
            continue
        lines = block.split("\r\n")
        assert lines[0] == "event: message", block
        assert lines[1].startswith("data: "), block
        events.append(json.loads(lines[1][6:]))
    return events


def test_progress_streams_before_the_result(conformance_server):
    c = Conn(conformance_server.port)
    r = c.request("POST", "/mcp", modern_headers("tools/call", "test_tool_with_progress"), progress_call())
    assert r.status == 200 and r.headers["content-type"] == "text/event-stream"
    assert r.headers.get("x-accel-buffering") == "no"
    events = sse_events(r.body)
    assert [e.get("method") for e in events] == ["notifications/progress"] * 3 + [None]
    assert [e["params"]["progress"] for e in events[:3]] == [0, 50, 100]
    assert all(e["params"]["progressToken"] == "p1" for e in events[:3])
    assert events[3]["id"] == 7 and events[3]["result"]["content"][0]["text"] == "Progress tool completed"
    # The connection stays usable (Content-Length framing keeps keep-alive).
    r = c.request("POST", "/mcp", modern_headers("tools/call", "test_tool_with_progress"), progress_call(None, 8))
    assert r.headers["content-type"] == "application/json" and r.json()["id"] == 8  # no token: no stream
    # A client that takes only JSON gets no notifications, just the result.
    h = {**modern_headers("tools/call", "test_tool_with_progress"), "Accept": "application/json"}
    r = c.request("POST", "/mcp", h, progress_call("p2", 9))
    assert r.headers["content-type"] == "application/json" and r.json()["result"]["content"][0]["type"] == "text"
    c.close()
