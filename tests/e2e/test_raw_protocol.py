"""greenhouse-stdio driven with raw lines through its pipes.

Covers the JSON-RPC layer (every error code, id echoing, notifications,
pipelining), both MCP eras on the wire, the stdio framing (oversize lines,
EOF) and the audit trail on stderr.
"""

from __future__ import annotations

import json
import time

import pytest

from e2e_support import (
    KEY_CAPS,
    KEY_SERVER_INFO,
    KEY_VERSION,
    LEGACY,
    MODERN,
    READINGS,
    SERVER_NAME,
    SERVER_VERSION,
    TOOL_NAMES,
    assert_stdout_is_jsonrpc,
    audit,
    call,
    envelope,
    initialize,
    legacy,
    line,
    modern,
)

LINE_MAX = 16384  # EMCP_STDIO_LINE_MAX of the stdio binding


def error_of(resp: dict, code: int, id=None) -> dict:
    assert "error" in resp and "result" not in resp, resp
    assert resp["error"]["code"] == code, resp
    assert isinstance(resp["error"]["message"], str) and resp["error"]["message"], resp
    assert resp["id"] == id, resp
    return resp["error"]


def result_of(resp: dict, id=1) -> dict:
    assert "result" in resp and "error" not in resp, resp
    assert resp["id"] == id, resp
    return resp["result"]


# ---------------------------------------------------------------------------
# Both eras on the wire


def test_discover(spawn):
    s = spawn()
    r = result_of(s.request(modern("server/discover")))
    assert r["resultType"] == "complete"
    assert r["supportedVersions"] == [MODERN]
    assert "tools" in r["capabilities"]
    assert isinstance(r["ttlMs"], int) and r["ttlMs"] >= 0
    assert r["cacheScope"] in ("public", "private")
    info = r["_meta"][KEY_SERVER_INFO]
    assert (info["name"], info["version"]) == (SERVER_NAME, SERVER_VERSION)


def test_modern_tools_list(spawn):
    s = spawn()
    r = result_of(s.request(modern("tools/list", 9)), 9)
    assert [t["name"] for t in r["tools"]] == TOOL_NAMES
    assert r["resultType"] == "complete"
    assert isinstance(r["ttlMs"], int) and r["ttlMs"] >= 0
    assert r["cacheScope"] in ("public", "private")
    assert "nextCursor" not in r
    assert r["_meta"][KEY_SERVER_INFO]["name"] == SERVER_NAME
    read_sensor, set_vent = r["tools"]
    sid = read_sensor["inputSchema"]["properties"]["sensor_id"]
    assert read_sensor["inputSchema"]["type"] == "object"
    assert read_sensor["inputSchema"]["required"] == ["sensor_id"]
    assert sid["type"] == "string" and sid["enum"] == ["t1", "t2", "rh1", "soil1"]
    pct = set_vent["inputSchema"]["properties"]["percent"]
    assert set_vent["inputSchema"]["required"] == ["percent"]
    assert (pct["type"], pct["minimum"], pct["maximum"]) == ("integer", 0, 100)
    # Both tools refuse undeclared arguments (issue 3).
    assert read_sensor["inputSchema"]["additionalProperties"] is False
    assert set_vent["inputSchema"]["additionalProperties"] is False
    # Deterministic order: the same list twice.
    again = result_of(s.request(modern("tools/list", 10)), 10)
    assert again["tools"] == r["tools"]


@pytest.mark.parametrize("requested,answered", [(LEGACY, LEGACY), ("2025-06-18", "2025-06-18"), ("2024-01-01", LEGACY)])
def test_legacy_initialize(spawn, requested, answered):
    s = spawn()
    r = result_of(s.request(initialize(1, requested)))
    assert r["protocolVersion"] == answered
    assert "tools" in r["capabilities"]
    assert (r["serverInfo"]["name"], r["serverInfo"]["version"]) == (SERVER_NAME, SERVER_VERSION)
    assert "resultType" not in r
    s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    r = result_of(s.request(legacy("tools/list", 2)), 2)
    assert [t["name"] for t in r["tools"]] == TOOL_NAMES
    for key in ("resultType", "ttlMs", "cacheScope", "_meta"):
        assert key not in r, f"legacy tools/list carries 2026 member {key}: {r}"
    assert result_of(s.request(legacy("ping", 3)), 3) == {}


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_tool_results(spawn, era):
    s = spawn()
    for i, (sensor, (value, unit)) in enumerate(READINGS.items()):
        r = result_of(s.request(call("read_sensor", {"sensor_id": sensor}, i, era)), i)
        assert r["isError"] is False
        sc = r["structuredContent"]
        assert sc["value"] == value and sc["unit"] == unit, r
        assert isinstance(sc["age_s"], int) and sc["age_s"] >= 0
        assert r["content"] and r["content"][0]["type"] == "text"
        if era == "modern":
            assert r["resultType"] == "complete"
        else:
            assert "resultType" not in r
    r = result_of(s.request(call("read_sensor", {"sensor_id": "soil1"}, 10, era)), 10)
    assert r["isError"] is True
    assert "no reading yet" in r["content"][0]["text"]
    r = result_of(s.request(call("set_vent", {"percent": 60}, 11, era)), 11)
    assert r["isError"] is False
    assert r["structuredContent"] == {"ok": True, "percent": 60}


def test_wind_lock(spawn):
    s = spawn("--wind-lock")
    r = result_of(s.request(call("set_vent", {"percent": 60}, 1)), 1)
    assert r["isError"] is True
    assert "refused: wind lock active" in r["content"][0]["text"]
    # A fresh gateway: set_vent runs at most once every 2 s, refused runs too.
    s = spawn("--wind-lock")
    r = result_of(s.request(call("set_vent", {"percent": 0}, 2)), 2)
    assert r["isError"] is False
    assert r["structuredContent"] == {"ok": True, "percent": 0}


# ---------------------------------------------------------------------------
# Error codes


@pytest.mark.parametrize(
    "raw",
    [
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list"',  # truncated
        b"{bad json}",
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list",}',  # trailing comma
        b"nul",
        b"'single quotes'",
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list"} {"x":1}',  # two values on one line
    ],
)
def test_parse_error(spawn, raw):
    s = spawn()
    resp_raw = s.request_raw(raw)
    error_of(json.loads(resp_raw), -32700, None)
    assert b'"id":null' in resp_raw, resp_raw
    # The connection is still served.
    result_of(s.request(modern("tools/list", 2)), 2)


@pytest.mark.parametrize(
    "raw,id",
    [
        (b'[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]', None),  # batch
        (b"[]", None),
        (b"42", None),
        (b'"tools/list"', None),
        (b"null", None),
        (b"true", None),
        (b'{"jsonrpc":"1.0","id":7,"method":"tools/list"}', 7),
        (b'{"id":7,"method":"tools/list"}', 7),  # no jsonrpc
        (b'{"jsonrpc":2.0,"id":7,"method":"tools/list"}', 7),
        (b'{"jsonrpc":"2.0","id":7,"method":5}', 7),
        (b'{"jsonrpc":"2.0","id":7}', 7),  # no method
        (b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}', None),
        (b'{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', None),
        (b'{"jsonrpc":"2.0","id":[1],"method":"tools/list"}', None),
        (b'{"jsonrpc":"2.0","id":"' + b"x" * 70 + b'","method":"tools/list"}', None),  # > MCP_MAX_ID_LEN
    ],
)
def test_invalid_request(spawn, raw, id):
    s = spawn()
    resp_raw = s.request_raw(raw)
    error_of(json.loads(resp_raw), -32600, id)
    if id is None:
        assert b'"id":null' in resp_raw, resp_raw
    result_of(s.request(modern("tools/list", 2)), 2)


@pytest.mark.parametrize(
    "method",
    [
        # removed at 2026-07-28: inside the envelope they do not exist
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        # never served by this server
        "greenhouse/open_all",
        "tasks/get",
        "sampling/createMessage",
        "notifications/initialized",
        "TOOLS/LIST",
    ],
)
def test_method_not_found_modern(spawn, method):
    s = spawn()
    params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}
    if method == "logging/setLevel":
        params = {"level": "info"}
    elif method.startswith("resources/"):
        params = {"uri": "greenhouse://x"}
    error_of(s.request(modern(method, "m-1", **params)), -32601, "m-1")


@pytest.mark.parametrize("method", ["greenhouse/open_all", "tasks/get", "roots/list", "server/discoverx"])
def test_method_not_found_legacy(spawn, method):
    s = spawn()
    error_of(s.request(legacy(method, 3)), -32601, 3)


@pytest.mark.parametrize(
    "msg",
    [
        # envelope keys missing or malformed
        {"jsonrpc": "2.0", "id": 4, "method": "server/discover"},
        {"jsonrpc": "2.0", "id": 4, "method": "server/discover", "params": {}},
        {"jsonrpc": "2.0", "id": 4, "method": "server/discover", "params": {"_meta": {}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": {KEY_VERSION: MODERN}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": {KEY_CAPS: {}}}},
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"_meta": {KEY_VERSION: MODERN}, "name": "read_sensor", "arguments": {"sensor_id": "t1"}},
        },
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": envelope(caps=[])}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": envelope(version=20260728)}},
        # params not an object
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": [1, 2]},
        # unknown tool, both eras
        call("open_doors", {}, 4),
        call("open_doors", {}, 4, era="legacy"),
        call("READ_SENSOR", {"sensor_id": "t1"}, 4),
        # name missing or not a string, arguments not an object
        modern("tools/call", 4, arguments={}),
        modern("tools/call", 4, name=5),
        modern("tools/call", 4, name="read_sensor", arguments=["t1"]),
        # a list cursor that was never handed out
        modern("tools/list", 4, cursor="bogus"),
    ],
)
def test_invalid_params(spawn, msg):
    s = spawn()
    err = error_of(s.request(msg), -32602, 4)
    if msg["method"] == "tools/call" and msg["params"].get("name") == "open_doors":
        assert "open_doors" in err["message"]
    s.finish()
    assert s.audit_lines() == [], "a refused tools/call must not be executed"


@pytest.mark.parametrize(
    "method,requested",
    [("server/discover", "2099-01-01"), ("tools/list", LEGACY), ("tools/call", "2025-06-18"), ("tools/call", "")],
)
def test_unsupported_version(spawn, method, requested):
    s = spawn()
    params = {"name": "set_vent", "arguments": {"percent": 10}} if method == "tools/call" else {}
    msg = {"jsonrpc": "2.0", "id": "v", "method": method, "params": {"_meta": envelope(version=requested), **params}}
    err = error_of(s.request(msg), -32022, "v")
    assert err["data"] == {"supported": [MODERN], "requested": requested}
    s.finish()
    assert s.audit_lines() == []


# ---------------------------------------------------------------------------
# Ids


@pytest.mark.parametrize(
    "raw_id",
    [
        b"0",
        b"-1",
        b"7",
        b"12345678901234567890",  # 20 digits: beyond int64 and exact doubles
        b"-98765432109876543210",
        b"1.5",
        b"1E+2",
        b"3.141592653589793238462643383279",
        b'"abc"',
        b'""',
        b'"with \\"quotes\\", \\\\ and \\u00e9 \xc3\xa9"',
        b'"12345678901234567890"',
    ],
)
def test_id_echoed_byte_for_byte(spawn, raw_id):
    s = spawn()
    env = json.dumps(envelope(), separators=(",", ":")).encode()
    for method in (b"tools/list", b"server/discover"):
        req = b'{"jsonrpc":"2.0","id":' + raw_id + b',"method":"' + method + b'","params":{"_meta":' + env + b"}}"
        resp = s.request_raw(req)
        assert b'"id":' + raw_id + b"," in resp, f"id not echoed byte for byte: sent {raw_id!r}, got {resp[:120]!r}"
        assert "result" in json.loads(resp)
    # Error responses echo it too.
    resp = s.request_raw(b'{"jsonrpc":"2.0","id":' + raw_id + b',"method":"no/such"}')
    assert b'"id":' + raw_id + b"," in resp, resp
    assert json.loads(resp)["error"]["code"] == -32601


# ---------------------------------------------------------------------------
# Notifications


def test_notifications_get_no_response_and_run_nothing(spawn):
    s = spawn()
    notes = [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "test"}},
        {"jsonrpc": "2.0", "method": "notifications/greenhouse/unknown", "params": {}},
        # a tools/call without id is a notification: never executed
        {
            "jsonrpc": "2.0",
            "method": "tools/call",
            "params": {"_meta": envelope(), "name": "set_vent", "arguments": {"percent": 42}},
        },
        {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "read_sensor", "arguments": {"sensor_id": "t1"}}},
        {"jsonrpc": "2.0", "method": "tools/list", "params": [1]},
        {"jsonrpc": "2.0", "method": "server/discover"},
    ]
    s.send_bytes(b"".join(line(n) for n in notes))
    s.expect_silence(0.5)
    # The next request is answered first: nothing was queued for the notifications.
    result_of(s.request(modern("tools/list", "after")), "after")
    # The vent was not moved by the notification: a read-back is not exposed, so
    # the audit trail is the evidence that no tool ran.
    rc, _ = s.finish()
    assert rc == 0
    assert s.audit_lines() == [], s.stderr_text()
    assert len(s.stdout_lines) == 1


# ---------------------------------------------------------------------------
# Pipelining


def test_2000_pipelined_requests_answered_in_order(spawn):
    s = spawn()
    n = 2000
    reqs = []
    expected_audit = []
    for i in range(n):
        id = i if i % 2 == 0 else f"req-{i}"
        kind = i % 4
        if kind == 0:
            reqs.append(call("read_sensor", {"sensor_id": "t1"}, id))
        elif kind == 1:
            reqs.append(modern("tools/list", id))
        elif kind == 2:
            pct = i % 81  # above 80 % set_vent first asks the client to confirm (input_required)
            reqs.append(call("set_vent", {"percent": pct}, id, era="legacy"))
        else:
            reqs.append(modern("server/discover", id))
    blob = b"".join(line(r) for r in reqs)
    t0 = time.monotonic()
    s.send_bytes(blob, timeout=60)  # all at once; the reader thread drains stdout meanwhile
    ran = 0
    for i, req in enumerate(reqs):
        resp = s.recv(timeout=30)
        assert resp.get("id") == req["id"], f"response {i} out of order: {resp.get('id')!r} != {req['id']!r}"
        assert "result" in resp, resp
        if i % 4 == 0:
            assert resp["result"]["structuredContent"]["value"] == 21.5
            expected_audit.append(audit("read_sensor", {"sensor_id": "t1"}, "ok"))
        elif i % 4 == 1:
            assert len(resp["result"]["tools"]) == 2
        elif i % 4 == 2:
            # set_vent runs at most once every 2 s: the first call runs, the
            # rest run only when 2 s have passed, else are refused unrun.
            args = req["params"]["arguments"]
            if resp["result"]["isError"]:
                assert resp["result"]["content"][0]["text"].startswith("rate limited: retry in "), resp
                expected_audit.append(audit("set_vent", args, "rate_limited"))
            else:
                assert resp["result"]["structuredContent"] == {"ok": True, **args}
                expected_audit.append(audit("set_vent", args, "ok"))
                ran += 1
        else:
            assert resp["result"]["supportedVersions"] == [MODERN]
    elapsed = time.monotonic() - t0
    rc, _ = s.finish(timeout=10)
    assert rc == 0
    assert len(s.stdout_lines) == n
    assert 1 <= ran <= 1 + int(elapsed / 2), (ran, elapsed)
    assert s.audit_lines() == expected_audit
    print(f"\n{n} pipelined requests answered in order in {elapsed:.2f}s")


# ---------------------------------------------------------------------------
# Framing: oversize lines, CRLF, EOF


def padded_call(total: int) -> bytes:
    """A valid tools/call line of exactly `total` bytes (newline excluded)."""
    base = call("read_sensor", {"sensor_id": "t1"}, "big")
    base["params"]["_meta"]["pad"] = ""
    size = len(line(base)) - 1
    base["params"]["_meta"]["pad"] = "p" * (total - size)
    out = line(base)[:-1]
    assert len(out) == total
    return out


def test_oversize_line_is_refused_and_next_line_served(spawn):
    s = spawn()
    for size in (LINE_MAX + 1, 20000, 200_000):
        resp_raw = s.request_raw(padded_call(size), timeout=10)
        # The id is in the line's first bytes: the refusal carries it.
        err = error_of(json.loads(resp_raw), -32600, "big")
        assert err["message"] == "Request exceeds the receive buffer", (size, err)
        r = result_of(s.request(call("read_sensor", {"sensor_id": "t2"}, "next")), "next")
        assert r["structuredContent"]["value"] == 34.1
    # An id that comes only after the first LINE_MAX bytes cannot be known:
    # the refusal says null, and the session still goes on.
    late = padded_call(LINE_MAX + 100)
    late = late.replace(b'"id":"big",', b"", 1)[:-1] + b',"id":"late"}'
    error_of(json.loads(s.request_raw(late, timeout=10)), -32600, None)
    rc, _ = s.finish()
    assert rc == 0
    # only the three served reads were executed, none of the oversize ones
    assert s.audit_lines() == [audit("read_sensor", {"sensor_id": "t2"}, "ok")] * 3


def test_line_of_exactly_line_max_is_served(spawn):
    s = spawn()
    r = result_of(json.loads(s.request_raw(padded_call(LINE_MAX))), "big")
    assert r["structuredContent"]["value"] == 21.5


def test_crlf_and_blank_lines(spawn):
    s = spawn()
    s.send_bytes(b"\n\r\n" + line(modern("tools/list", 1))[:-1] + b"\r\n\n")
    result_of(s.recv(), 1)
    s.expect_silence(0.3)


def test_eof_exits_zero_promptly(spawn):
    s = spawn()
    result_of(s.request(modern("server/discover", 1)))
    rc, elapsed = s.finish(timeout=5)
    assert rc == 0
    # The SDK's stdio client sends SIGTERM 2 s after closing stdin.
    assert elapsed < 1.0, f"exit took {elapsed:.2f}s after EOF"


def test_eof_without_any_input(spawn):
    s = spawn()
    rc, elapsed = s.finish(timeout=5)
    assert rc == 0 and elapsed < 1.0
    assert s.stdout_lines == []


def test_last_line_without_newline_is_answered_at_eof(spawn):
    s = spawn()
    s.send_bytes(line(call("read_sensor", {"sensor_id": "rh1"}, "last"))[:-1])
    s.close_stdin()
    r = result_of(s.recv(), "last")
    assert r["structuredContent"]["value"] == 62
    rc, _ = s.finish()
    assert rc == 0


# ---------------------------------------------------------------------------
# stdout discipline and the audit trail


def test_stdout_only_json_and_one_audit_line_per_call(spawn):
    s = spawn()
    session = [
        b"{not json",
        b"[1,2]",
        b'{"jsonrpc":"2.0","id":1,"method":"\xff\xfe"}',  # invalid UTF-8 in the request
        line(modern("server/discover", 2)),
        line(call("read_sensor", {"sensor_id": "t1"}, 3)),
        line(call("read_sensor", {"sensor_id": "soil1"}, 4)),
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":'
        + json.dumps(envelope()).encode()
        + b', "name" : "set_vent", "arguments" : { "percent" : 60 } }}',  # spaced: audit shows it compact
        line(call("open_doors", {}, 6)),  # unknown tool: not executed
        line(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"_meta": envelope(version="2099-01-01"), "name": "set_vent", "arguments": {"percent": 1}},
            }
        ),  # -32022: not executed
        line({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "set_vent", "arguments": {"percent": 9}}}),
        line(call("set_vent", {"percent": 35}, 8, era="legacy")),
        padded_call(LINE_MAX + 100),
        line(modern("ping", 9)),
    ]
    s.send_bytes(b"".join(x if x.endswith(b"\n") else x + b"\n" for x in session))
    codes = {}
    for _ in range(len(session) - 1):  # the notification gets no response
        resp = s.recv()
        codes[json.dumps(resp.get("id"))] = resp.get("error", {}).get("code", 0)
    rc, _ = s.finish()
    assert rc == 0
    assert len(s.stdout_lines) == len(session) - 1
    assert_stdout_is_jsonrpc(s.stdout_lines)
    assert codes["2"] == codes["3"] == codes["4"] == codes["5"] == codes["8"] == 0
    assert (codes["6"], codes["7"], codes["9"]) == (-32602, -32022, -32601)
    # One line per tools/call of a registered tool, whatever its outcome;
    # the unknown tool, the -32022 call and the notification have none.
    assert s.audit_lines() == [
        audit("read_sensor", {"sensor_id": "t1"}, "ok"),
        audit("read_sensor", {"sensor_id": "soil1"}, "is_error"),
        audit("set_vent", {"percent": 60}, "ok"),
        # pipelined within 2 s of the first: refused by the rate limit, not run
        audit("set_vent", {"percent": 35}, "rate_limited"),
    ], s.stderr_text()


def test_wind_lock_refusal_is_audited_as_error(spawn):
    s = spawn("--wind-lock")
    assert result_of(s.request(call("set_vent", {"percent": 60}, 1)))["isError"] is True
    time.sleep(2.05)  # set_vent's rate limit: one run every 2 s
    assert result_of(s.request(call("set_vent", {"percent": 0}, 2)), 2)["isError"] is False
    s.finish()
    assert s.audit_lines() == [
        audit("set_vent", {"percent": 60}, "is_error"),
        audit("set_vent", {"percent": 0}, "ok"),
    ]


def test_session_reports_the_largest_result_of_each_tool(spawn):
    """A host run gives the value to declare: at exit the gateway prints, per
    tool, its max_result_len and the largest result it wrote (the bytes
    max_result_len counts: content blocks and ,"structuredContent":{...})."""
    s = spawn()
    r = result_of(s.request(call("set_vent", {"percent": 80}, 1)), 1)
    assert r["isError"] is False
    # {"type":"text","text":"vent set to 80%"} and its structuredContent.
    written = len(json.dumps(r["content"][0], separators=(",", ":"))) + len(
        ',"structuredContent":' + json.dumps(r["structuredContent"], separators=(",", ":"))
    )
    rc, _ = s.finish()
    assert rc == 0
    rows = {}
    for text in s.stderr_lines():
        parts = text.split()
        if len(parts) == 4 and parts[0] in TOOL_NAMES and parts[2] == "/":
            rows[parts[0]] = (int(parts[1]), int(parts[3]))
    assert rows == {"read_sensor": (0, 0), "set_vent": (129, written)}, s.stderr_text()
