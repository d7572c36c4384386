"""Adversarial inputs against greenhouse-stdio (the stdio transport).

Each case writes down the answer it expects. The rules they pin:

- A line longer than EMCP_STDIO_LINE_MAX (16384 bytes) is dropped and answered
  with -32600 "Request exceeds the receive buffer" (the framer's), with the
  request's id when the line's first bytes hold it (a string or number of at
  most 64 bytes), else id null; the next line is served normally.
- Not JSON (RFC 8259, strict: invalid UTF-8, lone or reversed surrogate
  escapes, raw control characters such as NUL) is -32700 "Parse error", id null.
- Deeper than MCP_MAX_DEPTH (16) or more than MCP_MAX_JSON_TOKENS (128) tokens (answered with the request's own id)
  is -32600, id null (the id is not read from a message that was not read).
- Duplicate keys: the first occurrence is what the core and callbacks read
  (id, method, name, arguments); inside arguments every occurrence is
  validated, so whichever one a callback reads has passed the schema.
- Keys and strings compare after unescaping: "met\\u0068od" is "method".
- An id is echoed byte for byte when it is at most 64 bytes as written;
  longer is -32600 with id null.
- A notification (no id) is never answered and never executed: no audit line.
- A tools/call of a registered tool has exactly one audit line, from the
  core's audit hook; a refused one (outcome invalid_arguments: an isError
  result naming the argument, SEP-1303) never ran the
  tool, and the actuator's log (`vent: A% -> B%`) shows no movement.
  set_vent runs at most once every 2 s, so a case that must run it again
  uses a fresh gateway.
- Integer arguments are exact: 1e400 and 2^64 are refused, never wrapped;
  -0 is 0; 8e1 is 80.
"""

from __future__ import annotations

import json
import threading
import time

from driver import audit

V = "io.modelcontextprotocol/protocolVersion"
C = "io.modelcontextprotocol/clientCapabilities"
LINE_MAX = 16384
OVERLONG = {"code": -32600, "message": "Request exceeds the receive buffer"}


def err(resp: dict, code: int, id=None, message: str | None = None) -> dict:
    assert "error" in resp and "result" not in resp, resp
    assert resp["id"] == id, resp
    assert resp["error"]["code"] == code, resp
    if message is not None:
        assert resp["error"]["message"] == message, resp
    return resp["error"]


def tool_error(resp: dict, id=1, message: str | None = None) -> str:
    """SEP-1303: arguments that break the schema are an isError result (the
    model reads the text), not a JSON-RPC error; returns the text."""
    r = ok(resp, id)
    assert r["isError"] is True and "structuredContent" not in r, resp
    [block] = r["content"]
    assert block["type"] == "text", resp
    if message is not None:
        assert block["text"] == message, resp
    assert block["_meta"]["emcp/invalidArgument"]["path"] == block["text"].split(": ", 1)[0], resp
    return block["text"]


def ok(resp: dict, id=1) -> dict:
    assert "result" in resp and "error" not in resp, resp
    assert resp["id"] == id, resp
    return resp["result"]


def ping(id=1) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"ping"}' % id


def vent(args: str, id: int = 1) -> bytes:
    return ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"set_vent","arguments":%s}}' % (id, args)).encode()


def alive(gh, id: int = 99) -> None:
    assert ok(gh.request(ping(id)), id) == {}


# ---------------------------------------------------------------------------
# Size and nesting


def test_nesting_100000_deep_is_over_the_line_limit(gh):
    line = b"[" * 100_000 + b"]" * 100_000
    assert err(gh.request(line), -32600) == OVERLONG
    alive(gh)


def test_nesting_100000_deep_inside_a_request(gh):
    line = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
    assert err(gh.request(line), -32600, 1) == OVERLONG
    alive(gh)


def test_nesting_within_the_line_but_over_max_depth(gh):
    for depth in (17, 1000, 8000):
        line = b"[" * depth + b"]" * depth
        e = err(gh.request(line), -32600)
        assert e["message"] == "Request nests deeper than MCP_MAX_DEPTH (16)", e
    # Inside a request: refused for a limit, it is answered with its own id
    # (found by a bounded scan of the top level), so the client can match it.
    deep = b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":' + b"[" * 5000 + b"]" * 5000 + b"}}"
    err(gh.request(deep), -32600, 7, "Request nests deeper than MCP_MAX_DEPTH (16)")
    # The id after the deep member is found too.
    deep = b'{"jsonrpc":"2.0","method":"ping","params":{"x":' + b"[" * 5000 + b"]" * 5000 + b'}, "id": "late"}'
    err(gh.request(deep), -32600, "late", "Request nests deeper than MCP_MAX_DEPTH (16)")
    alive(gh)


def test_too_many_tokens(gh):
    line = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":[' + b",".join([b"1"] * 200) + b"]}}"
    err(gh.request(line), -32600, 1, "Request has more JSON tokens than MCP_MAX_JSON_TOKENS (128)")


def test_one_megabyte_string(gh):
    big = b"a" * (1 << 20)
    line = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_sensor","arguments":{"sensor_id":"' + big + b'"}}}'
    assert err(gh.request(line), -32600, 1) == OVERLONG
    assert gh.audits() == []
    alive(gh)


def test_longest_line_that_fits_and_one_byte_more(gh):
    # A ping padded with spaces to exactly LINE_MAX bytes is served; one more is not.
    base = ping(5)
    fits = base[:-1] + b" " * (LINE_MAX - len(base)) + b"}"
    assert len(fits) == LINE_MAX
    assert ok(gh.request(fits), 5) == {}
    over = base[:-1] + b" " * (LINE_MAX + 1 - len(base)) + b"}"
    assert err(gh.request(over), -32600, 5) == OVERLONG
    alive(gh)


# ---------------------------------------------------------------------------
# Encoding


def test_invalid_utf8(gh):
    for bad in (b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80"):
        line = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + bad + b'"}}'
        err(gh.request(line), -32700, None, "Parse error")
    # Outside a string too.
    err(gh.request(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\xff'), -32700, None, "Parse error")
    alive(gh)


def test_lone_and_reversed_surrogate_escapes(gh):
    for esc in (b"\\ud800", b"\\udfff", b"\\udc00\\ud800", b"\\ud800x", b"\\ud800\\u0041", b"\\ud83d"):
        line = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + esc + b'"}}'
        err(gh.request(line), -32700, None, "Parse error")
    # A lone surrogate in a key, and in the id, are no better.
    err(gh.request(b'{"jsonrpc":"2.0","id":"\\udc00","method":"ping"}'), -32700, None, "Parse error")
    # A proper pair is fine.
    line = b'{"jsonrpc":"2.0","id":"\\ud83d\\ude00","method":"ping","params":{"x":"\\ud83d\\ude00"}}'
    assert ok(gh.request(line), "\U0001F600") == {}


def test_nul_bytes(gh):
    # Raw NUL is a control character: not JSON, inside or outside a string.
    err(gh.request(b'{"jsonrpc":"2.0","id":1,"method":"pi\x00ng"}'), -32700, None, "Parse error")
    err(gh.request(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\x00'), -32700, None, "Parse error")
    err(gh.request(b'\x00'), -32700, None, "Parse error")
    # Escaped NUL is a valid string; as a tool name it names no tool.
    assert ok(gh.request(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\\u0000"}}')) == {}
    e = err(gh.request(b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"set_vent\\u0000","arguments":{"percent":1}}}'), -32602, 2)
    assert e["message"].startswith("Unknown tool"), e
    tool_error(gh.request(vent('{"percent\\u0000":1}', 3)), 3)
    # The unknown name has no audit line; the refused arguments have one, as sent.
    assert gh.audits(1) == [audit('{"percent\\u0000":1}', "invalid_arguments")]
    assert gh.vent_moves() == []


# ---------------------------------------------------------------------------
# Numbers for an integer argument (set_vent percent: integer 0..100)


def test_numbers_for_an_integer_argument(gh, fresh):
    tool_error(gh.request(vent('{"percent":1e400}')), 1, "percent: 1e400 is out of range")
    tool_error(
        gh.request(vent('{"percent":18446744073709551616}', 2)),
        2,
        "percent: 18446744073709551616 is beyond the 64-bit integer range",
    )
    tool_error(gh.request(vent('{"percent":-1e400}', 3)), 3)
    tool_error(gh.request(vent('{"percent":1e-400}', 4)), 4)
    tool_error(gh.request(vent('{"percent":50.5}', 5)), 5, "percent: expected integer, got number")
    tool_error(gh.request(vent('{"percent":101}', 6)), 6, "percent: 101 is above maximum 100")
    tool_error(gh.request(vent('{"percent":-1}', 7)), 7)
    refused = ["1e400", "18446744073709551616", "-1e400", "1e-400", "50.5", "101", "-1"]
    assert gh.audits(len(refused)) == [audit('{"percent":%s}' % t, "invalid_arguments") for t in refused]
    assert gh.ran() == [] and gh.vent_moves() == [], "a refused call reached the callback"
    # Exact integers however written (one gateway each: every one moves the vent).
    for i, (text, value) in enumerate([("-0", 0), ("8e1", 80), ("5.0", 5), ("0.5e1", 5), ("-0.0", 0)], 10):
        g = gh if i == 10 else fresh()
        r = ok(g.request(vent('{"percent":%s}' % text, i)), i)
        assert r["isError"] is False and r["structuredContent"]["percent"] == value, (text, r)
        assert g.ran(1 if g is not gh else len(refused) + 1) == [audit('{"percent":%s}' % text, "ok")]
        assert g.vent_moves() == [f"vent: 0% -> {value}%"]


# ---------------------------------------------------------------------------
# Keys


def test_duplicate_keys(gh, fresh):
    # Every occurrence inside arguments is validated.
    assert "500" in tool_error(gh.request(vent('{"percent":50,"percent":500}')), 1)
    assert "500" in tool_error(gh.request(vent('{"percent":500,"percent":50}', 2)), 2)
    assert gh.ran(2) == [] and gh.vent_moves() == []
    # Both valid: the callback reads the first.
    r = ok(gh.request(vent('{"percent":10,"percent":20}', 3)), 3)
    assert r["structuredContent"]["percent"] == 10, r
    assert gh.ran(3) == [audit('{"percent":10,"percent":20}', "ok")] and gh.vent_moves() == ["vent: 0% -> 10%"]
    # Envelope members: the first occurrence counts.
    assert ok(gh.request(b'{"jsonrpc":"2.0","id":4,"id":5,"method":"ping"}'), 4) == {}
    assert ok(gh.request(b'{"jsonrpc":"2.0","id":6,"method":"ping","method":"tools/list"}'), 6) == {}
    g = fresh()  # set_vent runs again: a fresh gateway (2 s rate limit)
    r = ok(g.request(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"set_vent","name":"read_sensor","arguments":{"percent":0}}}'), 7)
    assert r["structuredContent"]["percent"] == 0, r
    assert g.audits(1) == [audit('{"percent":0}', "ok")]
    # A second arguments object is not what the callback reads (nor the audit).
    g = fresh()
    r = ok(g.request(b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"set_vent","arguments":{"percent":1},"arguments":{"percent":2}}}'), 8)
    assert r["structuredContent"]["percent"] == 1, r
    assert g.audits(1) == [audit('{"percent":1}', "ok")] and g.vent_moves() == ["vent: 0% -> 1%"]


def test_keys_that_differ_only_by_escapes(gh):
    assert ok(gh.request(b'{"jsonrpc":"2.0","id":1,"met\\u0068od":"ping"}')) == {}
    assert ok(gh.request(b'{"\\u006asonrpc":"2.0","\\u0069d":2,"method":"p\\u0069ng"}'), 2) == {}
    r = ok(gh.request(b'{"jsonrpc":"2.0","id":3,"method":"tools\\/call","params":{"n\\u0061me":"set_v\\u0065nt","argu\\u006dents":{"per\\u0063ent":7}}}'), 3)
    assert r["structuredContent"]["percent"] == 7, r
    # additionalProperties:false sees the unescaped name: not an extra key.
    assert len(gh.audits(1)) == 1


# ---------------------------------------------------------------------------
# Ids


def test_very_long_ids(gh):
    id62 = "i" * 62  # 64 bytes with its quotes: the longest accepted
    line = b'{"jsonrpc":"2.0","id":"%s","method":"ping"}' % id62.encode()
    raw = gh.request(line)
    assert raw == {"jsonrpc": "2.0", "id": id62, "result": {}}
    err(gh.request(b'{"jsonrpc":"2.0","id":"%s","method":"ping"}' % (b"i" * 63)), -32600, None)
    n64 = "1" * 64
    gh.send(b'{"jsonrpc":"2.0","id":%s,"method":"ping"}' % n64.encode())
    assert gh.raw_line() == b'{"jsonrpc":"2.0","id":%s,"result":{}}\n' % n64.encode()
    err(gh.request(b'{"jsonrpc":"2.0","id":%s,"method":"ping"}' % (b"1" * 65)), -32600, None)
    # 100 KB id: over the line limit.
    assert err(gh.request(b'{"jsonrpc":"2.0","id":"%s","method":"ping"}' % (b"i" * 100_000)), -32600) == OVERLONG
    # Ids are echoed byte for byte, escapes and number spelling included.
    for id_raw in (b"1.0", b"-0", b"1E+2", b"1e400", b'"\\u0041"', b'"a\\/b"'):
        gh.send(b'{"jsonrpc":"2.0","id":%s,"method":"ping"}' % id_raw)
        assert gh.raw_line() == b'{"jsonrpc":"2.0","id":%s,"result":{}}\n' % id_raw
    # Not a string or number: -32600 with id null.
    for id_raw in (b"null", b"true", b"{}", b"[1]"):
        err(gh.request(b'{"jsonrpc":"2.0","id":%s,"method":"ping"}' % id_raw), -32600, None)


def test_deeply_nested_meta(gh):
    def nested(d: int) -> bytes:
        return b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"x":' + b'{"a":' * d + b"1" + b"}" * d + b'},"name":"set_vent","arguments":{"percent":3}}}'
    # Depth: request 1, params 2, _meta 3, then the d objects of x: 3 + d.
    r = ok(gh.request(nested(13)))  # depth 16 = MCP_MAX_DEPTH
    assert r["structuredContent"]["percent"] == 3
    err(gh.request(nested(14)), -32600, 1, "Request nests deeper than MCP_MAX_DEPTH (16)")
    err(gh.request(nested(2000)), -32600, 1, "Request nests deeper than MCP_MAX_DEPTH (16)")
    assert err(gh.request(nested(5000)), -32600, 1) == OVERLONG
    assert len(gh.audits(1)) == 1


def test_truncated_messages(gh):
    full = vent('{"percent":42}', 77)
    for n in range(1, len(full)):
        prefix = full[:n]
        if prefix.strip() == b"":
            continue
        err(gh.request(prefix), -32700, None, "Parse error")
    assert gh.audits() == [], "a truncated message ran a tool"
    r = ok(gh.request(full), 77)
    assert r["structuredContent"]["percent"] == 42
    assert len(gh.audits(1)) == 1


# ---------------------------------------------------------------------------
# Notifications


def test_tools_call_as_a_notification_never_runs(gh):
    legacy = b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"set_vent","arguments":{"percent":55}}}'
    modern = json.dumps({"jsonrpc": "2.0", "method": "tools/call", "params": {
        "_meta": {V: "2026-07-28", C: {}}, "name": "set_vent", "arguments": {"percent": 56}}}).encode()
    bad_args = b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"set_vent","arguments":{"percent":500}}}'
    for n in (legacy, modern, bad_args, b'{"jsonrpc":"2.0","method":"tools/call","params":5}'):
        gh.send(n)
    # The next answer is the ping's: nothing was sent for the notifications.
    assert ok(gh.request(ping(9)), 9) == {}
    assert gh.nothing_pending()
    time.sleep(0.2)
    assert gh.audits() == [], gh.audits()
    # And the vent did not move: reading it back is not possible over MCP, but
    # a real call still works and is audited once.
    ok(gh.request(vent('{"percent":1}', 10)), 10)
    assert len(gh.audits(1)) == 1


# ---------------------------------------------------------------------------
# Endless line


def test_endless_line_then_a_valid_request(gh):
    """A writer streams for several seconds without a newline; the server
    keeps reading (dropping), answers the line with the overlong error once it
    ends, and then answers the next request."""
    stop = time.monotonic() + 4.0
    sent = 0
    chunk = b"x" * 65536
    assert gh.p.stdin is not None
    while time.monotonic() < stop:
        gh.write(chunk, timeout=10)
        sent += len(chunk)
    assert sent > 10 * LINE_MAX, sent
    assert gh.nothing_pending(0.1), "answered before the line ended"
    gh.write(b"\n" + ping(3) + b"\n")
    assert err(gh.response(), -32600) == OVERLONG
    assert ok(gh.response(), 3) == {}
    assert gh.p.poll() is None
