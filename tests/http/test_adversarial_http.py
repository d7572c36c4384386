"""The adversarial cases of issue 9 §5 against greenhouse-http (the cases and
their expected answers: tests/common/adversarial_cases.py).

One greenhouse-http serves every case; after each one it must still answer,
and only the cases marked `runs` may leave an audit line of an executed tool.
HTTP mapping: a result is 200, a JSON-RPC error 400 (its body is checked), a
notification 202 with an empty body, a body over EMCP_HTTP_BODY_MAX (8192)
413 with -32600 "Request body too large" and the connection closed. Every
request carries the routing headers of the 2026-07-28 era, computed from what
the body means (Mcp-Name in the =?base64?…?= form when it holds a NUL).
"""

from __future__ import annotations

import base64
import socket
import sys
import threading
from pathlib import Path

import pytest

from http_support import Conn, HttpServer, binary, build

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
from adversarial_cases import Case, VentPacer, cases, check_json_answer, executed  # noqa: E402
from sanitizers import report_in  # noqa: E402

CASES = cases()
PACER = VentPacer()  # the cases share one gateway: set_vent's 2 s rate limit
TOO_LARGE = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Request body too large"}}


@pytest.fixture(scope="module")
def gh():
    try:
        path = binary("greenhouse-http", "GREENHOUSE_HTTP", "build/examples-c/greenhouse/greenhouse-http")
    except FileNotFoundError as e:
        pytest.fail(str(e), pytrace=False)
    s = HttpServer(path)
    yield s
    alive, code, log = s.finish()
    assert alive, "greenhouse-http died during the adversarial cases"
    assert report_in(log) is None, log[-3000:]
    assert code == 0, f"greenhouse-http exited {code}:\n{log[-3000:]}"


def header_value(text: str) -> str:
    if text.isprintable() and text.isascii():
        return text
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


def headers(case: Case) -> dict[str, str]:
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": case.method}
    if case.tool is not None:
        h["Mcp-Name"] = header_value(case.tool)
    return h


def exchange(port: int, raw: bytes):
    """Sends `raw` from a thread (the server may stop reading after an early
    answer) and reads one response."""
    c = Conn(port)
    errors: list[BaseException] = []

    def send() -> None:
        try:
            c.send(raw)
        except OSError as e:  # the server may close after answering 413
            errors.append(e)

    t = threading.Thread(target=send, daemon=True)
    t.start()
    try:
        r = c.read_response()
    finally:
        t.join(15)
    return c, r


def still_answers(port: int) -> None:
    body = b'{"jsonrpc":"2.0","id":"alive","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
    h = {"Content-Type": "application/json", "Accept": "application/json",
         "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"}
    c = Conn(port)
    try:
        r = c.request("POST", "/mcp", h, body)
    finally:
        c.close()
    assert r.status == 200 and r.json()["id"] == "alive", r.body


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(gh, case: Case):
    PACER.before(case)
    before = executed(gh.audit_lines())
    c, r = exchange(gh.port, build("POST", "/mcp", headers(case), case.body))
    try:
        kind = case.expect.kind
        if kind == "too_large":
            assert len(case.body) > 8192
            assert r.status == 413, (r.status, r.body[:300])
            assert r.json() == TOO_LARGE
            assert r.headers.get("connection") == "close"
            assert c.closed_by_peer(), "the connection stayed open after 413"
        elif kind == "none":
            assert (r.status, r.body) == (202, b""), (r.status, r.body[:300])
        else:
            assert r.status == (200 if kind in ("ok", "tool_error") else 400), (r.status, r.body[:300])
            assert r.headers["content-type"] == "application/json"
            check_json_answer(case, r.json())
    finally:
        c.close()
    after = executed(gh.audit_lines())
    assert after - before == (1 if case.runs else 0), gh.audit_lines()[-3:]
    PACER.after(case)
    still_answers(gh.port)


def test_one_megabyte_chunked_body_is_413(gh):
    """The same limit when the size is not announced: chunked transfer."""
    before = executed(gh.audit_lines())
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"set_vent","arguments":{"percent":"' + b"a" * (1 << 20) + b'"}}}'
    head = (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: set_vent\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    chunks = b"".join(b"%x\r\n" % len(body[i:i + 4096]) + body[i:i + 4096] + b"\r\n" for i in range(0, len(body), 4096))
    c, r = exchange(gh.port, head + chunks + b"0\r\n\r\n")
    try:
        assert r.status == 413 and r.json() == TOO_LARGE, (r.status, r.body)
    finally:
        c.close()
    assert executed(gh.audit_lines()) == before
    still_answers(gh.port)


def test_truncated_http_requests(gh):
    """A request cut anywhere in its head or body, then the client leaves:
    nothing runs and the server keeps serving."""
    before = executed(gh.audit_lines())
    raw = build("POST", "/mcp", headers(CASES[0]),
                b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"set_vent","arguments":{"percent":33}}}')
    for n in range(1, len(raw), 23):
        s = socket.create_connection(("127.0.0.1", gh.port), timeout=5)
        s.sendall(raw[:n])
        s.shutdown(socket.SHUT_WR)
        s.settimeout(5)
        got = b""
        try:
            while chunk := s.recv(65536):
                got += chunk
        except (ConnectionResetError, socket.timeout):
            pass
        s.close()
        # Nothing, or an error status (a cut request line is malformed HTTP);
        # never a 200.
        assert not got.startswith(b"HTTP/1.1 200"), (n, got[:200])
    assert executed(gh.audit_lines()) == before
    still_answers(gh.port)
