"""subscriptions/listen over Streamable HTTP: long-lived SSE streams from
conformance-server --stateless-fixtures, whose test_trigger_tool_change and
test_trigger_prompt_change list and unlist test_dynamic_tool and
test_dynamic_prompt through mcp_server_enable (the change is announced on the
open streams while another connection's request runs)."""

from __future__ import annotations

import json
import signal
import socket
import time

import pytest

from http_support import Conn, HttpServer, binary, call_body, modern_body, modern_headers

# EMCP_HTTP_MAX_LISTENERS in bindings/http/emcp_http.h (the default build).
MAX_LISTENERS = 4


def conformance_server(*args: str) -> HttpServer:
    try:
        path = binary("conformance-server", "CONFORMANCE_SERVER", "build/tests/fixtures/conformance-server")
    except FileNotFoundError as e:
        pytest.fail(str(e), pytrace=False)
    return HttpServer(path, "--stateless-fixtures", *args)


def stop_clean(s: HttpServer) -> None:
    alive, code, log = s.finish()
    for marker in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
        assert marker not in log, log[-3000:]
    assert alive or code == 0, "conformance-server died during the test"


@pytest.fixture
def server():
    s = conformance_server()
    yield s
    stop_clean(s)


@pytest.fixture
def fast_server():
    """Idle keep-alive connections closed after 300 ms, listen keep-alive every 400 ms."""
    s = conformance_server("--idle-timeout-ms", "300", "--keepalive-ms", "400")
    yield s
    stop_clean(s)


class Stream:
    """One open listen stream: the response head, then SSE events as they come."""

    def __init__(self, port: int, sub_id, notifications: dict, accept="application/json, text/event-stream"):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        body = json.dumps(modern_body("subscriptions/listen", sub_id, notifications=notifications)).encode()
        h = {**modern_headers("subscriptions/listen"), "Accept": accept, "Host": "127.0.0.1",
             "Content-Length": str(len(body))}
        self.sock.sendall(b"POST /mcp HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items()).encode()
                          + b"\r\n" + body)
        self.buf = b""
        self.comments: list[str] = []
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"closed before a response: {self.buf!r}")
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split(" ")[1])
        self.headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:])}

    def error_body(self) -> dict:
        n = int(self.headers["content-length"])
        while len(self.buf) < n:
            self.buf += self.sock.recv(65536)
        return json.loads(self.buf[:n])

    def next_event(self, timeout: float = 5.0):
        """The next SSE message as JSON, None when nothing came within timeout, "EOF" at the end."""
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return None
            if not chunk:
                assert self.buf == b"", f"stream ended inside an event: {self.buf!r}"
                return "EOF"
            self.buf += chunk
        block, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = block.decode().split("\r\n")
        if lines[0].startswith(":"):  # a keep-alive comment
            self.comments.append(lines[0])
            return self.next_event(max(0.0, deadline - time.monotonic()))
        assert lines[0] == "event: message" and lines[1].startswith("data: "), block
        return json.loads(lines[1][6:])

    def close(self) -> None:
        self.sock.close()


def call(port: int, name: str, id_=1) -> dict:
    c = Conn(port)
    r = c.request("POST", "/mcp", modern_headers("tools/call", name), call_body(name, {}, id_))
    c.close()
    assert r.status == 200, r.body
    return r.json()


def listed(port: int, method: str, key: str) -> list[str]:
    c = Conn(port)
    r = c.request("POST", "/mcp", modern_headers(method), modern_body(method))
    c.close()
    return [t["name"] for t in r.json()["result"][key]]


def ack_of(s: Stream, sub_id) -> dict:
    assert s.status == 200 and s.headers["content-type"] == "text/event-stream", s.headers
    assert "content-length" not in s.headers
    ack = s.next_event()
    assert ack["method"] == "notifications/subscriptions/acknowledged", ack
    assert ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == sub_id
    return ack


def open_stream(port: int, sub_id, notifications: dict, timeout: float = 3.0) -> Stream:
    """Opens a stream, retrying while the pool is still full (a slot frees when
    the server notices a disconnect, on its next poll step)."""
    deadline = time.monotonic() + timeout
    while True:
        s = Stream(port, sub_id, notifications)
        if s.status != 503 or time.monotonic() > deadline:
            return s
        s.close()
        time.sleep(0.05)


def test_ack_first_then_list_changed_from_another_request(server):
    s = Stream(server.port, "sub-1", {"toolsListChanged": True, "promptsListChanged": True, "other": True})
    ack = ack_of(s, "sub-1")
    assert ack["params"]["notifications"] == {"toolsListChanged": True, "promptsListChanged": True}
    assert s.next_event(0.3) is None  # nothing until something changes
    assert "test_dynamic_tool" not in listed(server.port, "tools/list", "tools")
    # Another connection's tools/call lists test_dynamic_tool: the stream hears of it.
    r = call(server.port, "test_trigger_tool_change")
    assert r["result"]["content"][0]["text"] == "test_dynamic_tool is now listed"
    ev = s.next_event()
    assert ev == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                  "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "sub-1"}}}
    assert "test_dynamic_tool" in listed(server.port, "tools/list", "tools")
    call(server.port, "test_dynamic_tool")
    # ... and unlisted again: a second notification.
    call(server.port, "test_trigger_tool_change", 2)
    assert s.next_event()["method"] == "notifications/tools/list_changed"
    assert "test_dynamic_tool" not in listed(server.port, "tools/list", "tools")
    call(server.port, "test_trigger_prompt_change")
    ev = s.next_event()
    assert ev["method"] == "notifications/prompts/list_changed"
    assert ev["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "sub-1"
    assert "test_dynamic_prompt" in listed(server.port, "prompts/list", "prompts")
    call(server.port, "test_trigger_prompt_change", 2)
    assert s.next_event()["method"] == "notifications/prompts/list_changed"
    assert s.next_event(0.3) is None
    s.close()


def test_filter_is_honoured_per_stream(server):
    tools = Stream(server.port, 10, {"toolsListChanged": True})
    prompts = Stream(server.port, "p", {"promptsListChanged": True})
    assert ack_of(tools, 10)["params"]["notifications"] == {"toolsListChanged": True}
    assert ack_of(prompts, "p")["params"]["notifications"] == {"promptsListChanged": True}
    call(server.port, "test_trigger_tool_change")
    ev = tools.next_event()
    assert ev["method"] == "notifications/tools/list_changed"
    assert ev["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 10
    call(server.port, "test_trigger_prompt_change")
    ev = prompts.next_event()
    assert ev["method"] == "notifications/prompts/list_changed"
    assert ev["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "p"
    # Neither stream got what it did not ask for.
    assert tools.next_event(0.3) is None and prompts.next_event(0.3) is None
    tools.close()
    prompts.close()


def test_pool_limit_503_and_disconnect_frees_slots(server):
    # Discovery advertises listChanged (the transport streams).
    c = Conn(server.port)
    caps = c.request("POST", "/mcp", modern_headers("server/discover"),
                     modern_body("server/discover")).json()["result"]["capabilities"]
    assert caps["tools"]["listChanged"] is True and caps["prompts"]["listChanged"] is True
    streams = [open_stream(server.port, i, {"toolsListChanged": True}) for i in range(MAX_LISTENERS)]
    for i, s in enumerate(streams):
        ack_of(s, i)
    extra = Stream(server.port, 99, {"toolsListChanged": True})
    assert extra.status == 503 and extra.headers.get("retry-after") == "1"
    assert extra.error_body()["error"]["code"] == -32603
    extra.close()
    # A full pool does not change what discovery says, nor other requests.
    caps2 = c.request("POST", "/mcp", modern_headers("server/discover"),
                      modern_body("server/discover")).json()["result"]["capabilities"]
    assert caps2 == caps
    c.close()
    # Clients that go away free their slots: more streams over time than the pool holds.
    opened = MAX_LISTENERS
    for round_ in range(3):
        for s in streams[:2]:
            s.close()
        streams = streams[2:]
        for k in range(2):
            sub = f"r{round_}-{k}"
            s = open_stream(server.port, sub, {"toolsListChanged": True})
            ack_of(s, sub)
            streams.append(s)
            opened += 1
        full = Stream(server.port, "full", {"toolsListChanged": True})
        assert full.status == 503
        full.close()
    assert opened > 2 * MAX_LISTENERS
    # Every live stream still gets the change, each with its own id.
    call(server.port, "test_trigger_tool_change")
    ids = set()
    for s in streams:
        ev = s.next_event()
        assert ev["method"] == "notifications/tools/list_changed"
        ids.add(ev["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"])
    assert len(ids) == MAX_LISTENERS
    for s in streams:
        s.close()
    assert "listen stream closed by the client" in server.stderr()


def test_listen_needs_event_stream(server):
    s = Stream(server.port, 1, {"toolsListChanged": True}, accept="application/json")
    assert s.status == 406
    assert s.error_body()["error"]["code"] == -32600
    s.close()
    # No slot was taken: the whole pool is still there.
    streams = [Stream(server.port, i, {"toolsListChanged": True}) for i in range(MAX_LISTENERS)]
    assert all(s.status == 200 for s in streams)
    for s in streams:
        s.close()


def test_shutdown_ends_streams_with_the_final_result(server):
    s = Stream(server.port, "bye", {"toolsListChanged": True})
    ack_of(s, "bye")
    s2 = Stream(server.port, 7, {"promptsListChanged": True})
    ack_of(s2, 7)
    server.proc.send_signal(signal.SIGTERM)
    for stream, sub in ((s, "bye"), (s2, 7)):
        end = stream.next_event()
        assert end == {"jsonrpc": "2.0", "id": sub, "result": {
            "resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": sub}}}
        assert stream.next_event() == "EOF"
        stream.close()
    assert server.proc.wait(timeout=10) == 0


def test_idle_timeout_spares_streams_which_get_pings(fast_server):
    s = Stream(fast_server.port, "k", {"toolsListChanged": True})
    ack_of(s, "k")
    idle = Conn(fast_server.port)
    r = idle.request("POST", "/mcp", modern_headers("tools/list"), modern_body("tools/list"))
    assert r.status == 200
    # The kept-alive connection is closed after its idle time; the stream is not.
    assert idle.closed_by_peer(timeout=3)
    idle.close()
    assert s.next_event(1.5) is None  # nothing but ": ping" comments for 1.5 s
    assert len(s.comments) >= 2 and set(s.comments) == {": ping"}, s.comments
    call(fast_server.port, "test_trigger_tool_change")
    assert s.next_event()["method"] == "notifications/tools/list_changed"
    s.close()
