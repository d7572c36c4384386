"""2025-11-25 server-to-client requests and log messages over raw HTTP.

A legacy tools/call whose tool asks for input is answered on an SSE stream:
each input request goes out as a JSON-RPC request with an id of the server's,
the client POSTs the response on another connection (202), and the final
result ends the first stream. The capabilities come from initialize (kept in
the session id); unknown ids, other sessions, silence (bounded wait) and
disconnects are covered, as is the bound on waiting calls. Log messages of a
legacy call reach a client that takes SSE without a logLevel in _meta."""

from __future__ import annotations

import json
import socket
import time

import pytest

from http_support import LEGACY, Conn, HttpServer, binary, build
from pqc_support import RelayedServer, assert_relayed_in_group, group_under_test

PQC = group_under_test()

INPUT_TIMEOUT_MS = 800
MAX_INPUT_CALLS = 4  # EMCP_HTTP_MAX_INPUT_CALLS (emcp_http.h)
SSE_ACCEPT = "application/json, text/event-stream"


@pytest.fixture
def start_conformance(pqc_cert):
    try:
        path = binary("conformance-server", "CONFORMANCE_SERVER", "build/tests/fixtures/conformance-server")
    except FileNotFoundError as e:
        pytest.fail(str(e), pytrace=False)
    started: list[HttpServer] = []

    def _start(*args: str) -> HttpServer:
        if PQC:  # the post-quantum profile (conftest.py): TLS with that group, through emcp-pqc-relay
            s = RelayedServer(path, pqc_cert, *PQC, "--input-timeout-ms", str(INPUT_TIMEOUT_MS), *args)
        else:
            s = HttpServer(path, "--input-timeout-ms", str(INPUT_TIMEOUT_MS), *args)
        started.append(s)
        return s

    yield _start
    for s in started:
        alive, code, log = s.finish()
        assert alive, "conformance-server died during the test:\n" + log[-3000:]
        for marker in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
            assert marker not in log, log[-3000:]
        assert code == 0, f"conformance-server exited {code} after SIGTERM:\n{log[-3000:]}"
    for s in started if PQC else []:
        assert_relayed_in_group(s, PQC[2])


@pytest.fixture
def legacy_server(start_conformance) -> HttpServer:
    return start_conformance("--legacy-fixtures")


def headers(session: str | None = None, accept: str = SSE_ACCEPT) -> dict[str, str]:
    h = {"Content-Type": "application/json", "Accept": accept}
    if session is not None:
        h["Mcp-Session-Id"] = session
        h["MCP-Protocol-Version"] = LEGACY
    return h


def initialize(port: int, caps: dict, accept: str = SSE_ACCEPT) -> tuple[str, dict]:
    c = Conn(port)
    r = c.request(headers=headers(accept=accept), body={
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": caps, "clientInfo": {"name": "t", "version": "1"}}})
    c.close()
    assert r.status == 200, r.body
    return r.headers["mcp-session-id"], r.json()["result"]


def call(name: str, arguments: dict, id_=5) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


class Stream:
    """The tools/call connection: the response head, then SSE events as they come."""

    def __init__(self, port: int, session: str, body: dict):
        self.conn = Conn(port)
        self.conn.send(build("POST", "/mcp", headers(session), body))
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            self._recv()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split(" ")[1])
        self.headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:])}

    def _recv(self) -> bool:
        data = self.conn.sock.recv(65536)
        if not data:
            return False
        self.buf += data
        return True

    def event(self, timeout: float = 5.0) -> dict:
        self.conn.sock.settimeout(timeout)
        while b"\r\n\r\n" not in self.buf:
            if not self._recv():
                raise ConnectionError(f"stream ended: {self.buf!r}")
        block, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = block.decode().split("\r\n")
        assert lines[0] == "event: message" and lines[1].startswith("data: "), block
        return json.loads(lines[1][6:])

    def ended(self, timeout: float = 5.0) -> bool:
        """True when the server closes the stream (nothing more is sent)."""
        self.conn.sock.settimeout(timeout)
        try:
            while self._recv():
                pass
        except socket.timeout:
            return False
        return self.buf == b""


def answer(port: int, session: str, id_, result: dict | None = None, error: dict | None = None):
    body = {"jsonrpc": "2.0", "id": id_}
    body.update({"error": error} if error is not None else {"result": result})
    c = Conn(port)
    r = c.request(headers=headers(session), body=body)
    c.close()
    return r


SAMPLED = {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m", "stopReason": "endTurn"}


def test_sampling_round_trip(legacy_server):
    port = legacy_server.port
    session, init = initialize(port, {"sampling": {}, "elicitation": {}})
    s = Stream(port, session, call("test_sampling", {"prompt": 'say "hi"'}))
    assert s.status == 200 and s.headers["content-type"] == "text/event-stream"
    req = s.event()
    assert req["method"] == "sampling/createMessage" and isinstance(req["id"], int)
    assert req["params"]["messages"][0]["content"]["text"] == 'say "hi"'
    assert req["params"]["maxTokens"] == 100
    r = answer(port, session, req["id"], SAMPLED)
    assert (r.status, r.body) == (202, b"")
    final = s.event()
    assert final["id"] == 5 and final["result"]["content"][0]["text"] == "LLM response: Paris", final
    assert "resultType" not in final["result"], "a legacy result"
    assert s.ended()
    # The id is spent: answering it again is refused.
    r = answer(port, session, req["id"], SAMPLED)
    assert r.status == 400 and r.json()["error"]["code"] == -32600


def test_elicitation_answers_reach_the_tool(legacy_server):
    port = legacy_server.port
    session, _ = initialize(port, {"elicitation": {}})
    s = Stream(port, session, call("test_elicitation_sep1034_defaults", {}, id_="call-1"))
    req = s.event()
    assert req["method"] == "elicitation/create"
    props = req["params"]["requestedSchema"]["properties"]
    assert props["score"]["default"] == 95.5 and props["status"]["default"] == "active"
    content = {"name": "Jane", "age": 25, "score": 88, "status": "inactive", "verified": False}
    assert answer(port, session, req["id"], {"action": "accept", "content": content}).status == 202
    final = s.event()
    assert final["id"] == "call-1"
    text = final["result"]["content"][0]["text"]
    assert text == ('Elicitation completed: action=accept, content={name: "Jane", age: 25, score: 88, '
                    'status: "inactive", verified: false}'), text


def test_several_requests_and_rounds(start_conformance):
    """The input_required fixtures, called by a legacy client: three requests
    in one round (each with its own id), then a tool that asks in two rounds."""
    srv = start_conformance()  # default set: test_input_required_result_*
    port = srv.port
    session, _ = initialize(port, {"sampling": {}, "elicitation": {}, "roots": {}})
    s = Stream(port, session, call("test_input_required_result_multiple_inputs", {}))
    reqs = [s.event() for _ in range(3)]
    assert sorted(r["method"] for r in reqs) == ["elicitation/create", "roots/list", "sampling/createMessage"]
    assert len({r["id"] for r in reqs}) == 3
    results = {"elicitation/create": {"action": "accept", "content": {"name": "Ann"}},
               "sampling/createMessage": SAMPLED,
               "roots/list": {"roots": [{"uri": "file:///tmp", "name": "tmp"}]}}
    for r in reversed(reqs):  # any order
        assert answer(port, session, r["id"], results[r["method"]]).status == 202
    final = s.event()
    assert final["result"]["content"][0]["text"] == "All three inputs received", final
    # Two rounds: the second round's requests carry new ids.
    s = Stream(port, session, call("test_input_required_result_multi_round", {}, id_=6))
    ids = []
    while True:
        ev = s.event()
        if "method" not in ev:
            break
        ids.append(ev["id"])
        result = results.get(ev["method"], {"action": "accept", "content": {"name": "Ann", "confirm": True}})
        assert answer(port, session, ev["id"], result).status == 202
    assert ev["id"] == 6 and ev["result"]["content"][0]["text"] == "Both steps completed", ev
    assert len(ids) == 2 and ids[0] != ids[1]


def test_unknown_id_and_other_session(legacy_server):
    port = legacy_server.port
    session, _ = initialize(port, {"sampling": {}})
    other, _ = initialize(port, {"sampling": {}})
    s = Stream(port, session, call("test_sampling", {"prompt": "p"}))
    req = s.event()
    for sess, id_ in ((session, req["id"] + 1000), (session, "x"), (session, None), (other, req["id"])):
        r = answer(port, sess, id_, SAMPLED)
        assert r.status == 400, (sess, id_, r.status)
        assert r.json()["error"] == {"code": -32600, "message": "No pending request with this id"}
    # The call still waits, and the right answer completes it.
    assert answer(port, session, req["id"], SAMPLED).status == 202
    assert s.event()["result"]["content"][0]["text"] == "LLM response: Paris"


def test_client_error_ends_the_call(legacy_server):
    port = legacy_server.port
    session, _ = initialize(port, {"elicitation": {}})
    s = Stream(port, session, call("test_elicitation", {"message": "m"}))
    req = s.event()
    r = answer(port, session, req["id"], error={"code": -32601, "message": "Method not found"})
    assert r.status == 202
    final = s.event()
    assert final["id"] == 5 and final["error"]["code"] == -32603, final
    assert s.ended()


def test_silent_client_times_out(legacy_server):
    port = legacy_server.port
    session, _ = initialize(port, {"elicitation": {}})
    t0 = time.monotonic()
    s = Stream(port, session, call("test_elicitation", {"message": "m"}))
    req = s.event()
    final = s.event(timeout=INPUT_TIMEOUT_MS / 1000 + 5)
    waited = time.monotonic() - t0
    assert final == {"jsonrpc": "2.0", "id": 5, "error": {
        "code": -32001, "message": "Timed out waiting for the client's input responses"}}
    assert INPUT_TIMEOUT_MS / 1000 * 0.9 <= waited < INPUT_TIMEOUT_MS / 1000 + 3, waited
    assert s.ended()
    assert answer(port, session, req["id"], {"action": "cancel"}).status == 400  # too late


def test_disconnect_cancels_and_waiting_calls_are_bounded(legacy_server):
    port = legacy_server.port
    session, _ = initialize(port, {"sampling": {}})
    streams = [Stream(port, session, call("test_sampling", {"prompt": "p"}, id_=i)) for i in range(MAX_INPUT_CALLS)]
    reqs = [s.event() for s in streams]
    # Every slot waits: the next call cannot ask, and the tool says so.
    c = Conn(port)
    r = c.request(headers=headers(session), body=call("test_sampling", {"prompt": "p"}, id_=99))
    assert r.status == 200 and r.headers["content-type"] == "application/json"
    assert r.json()["result"]["isError"] is True, r.body
    # A client that goes away cancels its call and frees its slot.
    streams[0].conn.close()
    time.sleep(0.2)
    assert answer(port, session, reqs[0]["id"], SAMPLED).status == 400
    s = Stream(port, session, call("test_sampling", {"prompt": "again"}, id_=100))
    again = s.event()
    assert again["method"] == "sampling/createMessage"
    # The others are unaffected.
    for st, rq in list(zip(streams, reqs))[1:] + [(s, again)]:
        assert answer(port, session, rq["id"], SAMPLED).status == 202
        assert st.event()["result"]["content"][0]["text"] == "LLM response: Paris"
    # The server is still answering on the kept-alive connection.
    assert c.request(headers=headers(session), body={"jsonrpc": "2.0", "id": 1, "method": "ping"}).status == 200
    c.close()


def test_capabilities_come_from_initialize(legacy_server):
    port = legacy_server.port
    session, _ = initialize(port, {"elicitation": {}})
    c = Conn(port)
    # Sampling was not declared: -32021, no request is sent.
    r = c.request(headers=headers(session), body=call("test_sampling", {"prompt": "p"}))
    assert r.headers["content-type"] == "application/json"
    assert r.json()["error"]["code"] == -32021, r.body
    # The declared capabilities are in the session id, under its MAC: changing them loses the session.
    forged = format(int(session[:16], 16) | 7, "016x") + session[16:]
    r = c.request(headers=headers(forged), body=call("test_sampling", {"prompt": "p"}))
    assert r.status == 404
    # A client that takes only JSON cannot be asked: the call is answered as before.
    r = c.request(headers=headers(session, accept="application/json"), body=call("test_elicitation", {"message": "m"}))
    assert r.headers["content-type"] == "application/json"
    assert r.json()["result"]["isError"] is True
    c.close()


def test_log_messages_on_the_call_stream(legacy_server):
    port = legacy_server.port
    session, init = initialize(port, {})
    assert "logging" in init["capabilities"]
    _, json_only = initialize(port, {}, accept="application/json")
    assert "logging" not in json_only["capabilities"]
    c = Conn(port)
    assert c.request(headers=headers(session), body={
        "jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "debug"}}).status == 200
    r = c.request(headers=headers(session), body=call("test_tool_with_logging", {}))
    assert r.headers["content-type"] == "text/event-stream"
    events = [json.loads(b.split("data: ", 1)[1]) for b in r.body.decode().split("\r\n\r\n") if b]
    assert [e["params"]["data"] for e in events[:3]] == [
        "Tool execution started", "Tool processing data", "Tool execution completed"]
    assert all(e["method"] == "notifications/message" and e["params"]["level"] == "info" for e in events[:3])
    assert events[3]["result"]["content"][0]["text"] == "Tool with logging executed successfully"
    # To a client that takes only JSON: the result alone.
    r = c.request(headers=headers(session, accept="application/json"), body=call("test_tool_with_logging", {}))
    assert r.headers["content-type"] == "application/json" and r.json()["result"]["isError"] is False
    c.close()


# ---- The official Python SDK client (mcp 2.3.0), in both eras ----------------
# The same callbacks answer the server's questions: in legacy mode they are
# server-to-client requests on the call's stream (the bridge above); in auto
# mode (2026-07-28) input_required results the SDK retries itself.

@pytest.mark.parametrize("mode,version", [("legacy", LEGACY), ("auto", "2026-07-28")])
def test_python_sdk_sampling_elicitation_and_logs(legacy_server, mode, version):
    import anyio
    import mcp.types as types
    from mcp.client.client import Client

    asked: list[str] = []
    logs: list[str] = []

    async def sampling(context, params):
        asked.append("sampling:" + params.messages[0].content.text)
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="Paris"),
                                         model="m", stop_reason="endTurn")

    async def elicitation(context, params):
        asked.append("elicitation:" + params.message)
        return types.ElicitResult(action="accept", content={"username": "ann", "email": "a@example.com"})

    async def logging(params):
        logs.append(params.data)

    async def main() -> None:
        with anyio.fail_after(30):
            async with Client(legacy_server.url, mode=mode, read_timeout_seconds=10, sampling_callback=sampling,
                              elicitation_callback=elicitation, logging_callback=logging) as c:
                assert c.protocol_version == version
                r = await c.call_tool("test_sampling", {"prompt": "Capital of France?"})
                assert not r.is_error and r.content[0].text == "LLM response: Paris", r
                r = await c.call_tool("test_elicitation", {"message": "Who are you?"})
                assert r.content[0].text == 'User response: <action=accept, content={username: "ann", ' \
                                            'email: "a@example.com"}>', r
                if mode == "legacy":
                    await c.set_logging_level("debug")
                    r = await c.call_tool("test_tool_with_logging", {})
                    assert not r.is_error

    anyio.run(main)
    assert asked == ["sampling:Capital of France?", "elicitation:Who are you?"]
    if mode == "legacy":
        assert logs == ["Tool execution started", "Tool processing data", "Tool execution completed"]


def test_shutdown_ends_a_waiting_call():
    srv = HttpServer(binary("conformance-server", "CONFORMANCE_SERVER",
                            "build/tests/fixtures/conformance-server"), "--legacy-fixtures")
    try:
        session, _ = initialize(srv.port, {"sampling": {}})
        s = Stream(srv.port, session, call("test_sampling", {"prompt": "p"}))
        assert s.event()["method"] == "sampling/createMessage"
        srv.proc.terminate()
        final = s.event()
        assert final == {"jsonrpc": "2.0", "id": 5, "error": {"code": -32603, "message": "Server shutting down"}}
        assert s.ended()
        assert srv.proc.wait(timeout=10) == 0
        log = srv.stderr()
        for marker in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
            assert marker not in log, log[-3000:]
    finally:
        srv.stop()
