"""The adversarial cases of issue 9 §5 for the message transports (HTTP,
CoAP, MQTT), each with its expected answer written down.

Every case is one JSON-RPC message body in the 2026-07-28 era against the
greenhouse tools. What the core answers is the same on every transport; how
it travels differs, and each transport's test maps `Expect.kind`:

| kind        | meaning                                | HTTP          | CoAP        | MQTT                          |
|-------------|----------------------------------------|---------------|-------------|-------------------------------|
| "ok"        | a result with `id`                     | 200           | 2.05        | reply                         |
| "tool_error"| an isError result (`message`), id      | 200           | 2.05        | reply                         |
| "error"     | JSON-RPC error `code` (`message`), id  | 400           | 4.00        | reply                         |
| "none"      | a notification: no answer, never run   | 202, no body  | 2.04        | no reply                      |
| "too_large" | over the transport's body limit        | 413           | 4.13        | -32600 "Request exceeds EMCP_MQTT_PAYLOAD_MAX" |

"tool_error" is how arguments that break the tool's inputSchema are answered
(SEP-1303): a result with isError true whose one text block is the message,
the tool not run; it travels like any result.

`runs` says whether the greenhouse tool executes (one audit line with
`tool=set_vent` and `outcome=ok`); no other case may leave such a line (a
call refused by the core has an audit line of another outcome). set_vent runs
at most once every 2 s, so the transports pace their `runs` cases with
VentPacer on their shared gateway.
The body limits: EMCP_HTTP_BODY_MAX 8192, EMCP_COAP_REQUEST_MAX 8192,
EMCP_MQTT_PAYLOAD_MAX 16384; MCP_MAX_DEPTH 16; MCP_MAX_JSON_TOKENS 128;
MCP_MAX_ID_LEN 64 bytes as written.

`method` and `name` are what the message means (after unescaping), for the
HTTP routing headers (Mcp-Method, Mcp-Name) that must match the body.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

V = "io.modelcontextprotocol/protocolVersion"
C = "io.modelcontextprotocol/clientCapabilities"
META = json.dumps({V: "2026-07-28", C: {}}, separators=(",", ":")).encode()

PARSE = (-32700, "Parse error")
DEPTH = (-32600, "Request nests deeper than MCP_MAX_DEPTH (16)")
TOKENS = (-32600, "Request has more JSON tokens than MCP_MAX_JSON_TOKENS (128)")


@dataclass
class Expect:
    kind: str  # "ok" | "tool_error" | "error" | "none" | "too_large"
    id: object = None
    code: int | None = None
    message: str | None = None
    percent: int | None = None  # for "ok": structuredContent.percent of set_vent
    message_prefix: str | None = None


@dataclass
class Case:
    name: str
    body: bytes
    expect: Expect
    method: str = "tools/call"
    tool: str | None = "set_vent"
    runs: bool = False
    tags: set[str] = field(default_factory=set)


def call(args: bytes, id_: bytes = b"1", tool: bytes = b'"set_vent"', meta: bytes = META,
         method_key: bytes = b'"method"') -> bytes:
    head = b'{"jsonrpc":"2.0",' + (b'"id":' + id_ + b"," if id_ else b"")
    return (head + method_key + b':"tools/call","params":{"_meta":' + meta + b',"name":' + tool
            + b',"arguments":' + args + b"}}")


def ping_like(extra: bytes, id_: bytes = b"1") -> bytes:
    """A server/discover request (answered on every transport in this era)
    carrying `extra` as a params member."""
    return (b'{"jsonrpc":"2.0","id":' + id_ + b',"method":"server/discover","params":{"_meta":' + META
            + b',"x":' + extra + b"}}")


def nested_meta(d: int) -> bytes:
    # Depth: request 1, params 2, _meta 3, x's objects 4..3+d.
    meta = META[:-1] + b',"x":' + b'{"a":' * d + b"1" + b"}" * d + b"}"
    return call(b'{"percent":3}', meta=meta)


def cases() -> list[Case]:
    out: list[Case] = []
    add = out.append

    # -- size and nesting
    deep = b"[" * 100_000 + b"]" * 100_000
    add(Case("nesting-100000-deep", call(b'{"percent":' + deep + b"}"), Expect("too_large")))
    add(Case("nesting-3000-deep-within-the-limit", call(b'{"percent":' + b"[" * 3000 + b"]" * 3000 + b"}"),
             Expect("error", 1, *DEPTH)))
    add(Case("too-many-tokens", ping_like(b"[" + b",".join([b"1"] * 200) + b"]"), Expect("error", 1, *TOKENS),
             method="server/discover", tool=None))
    add(Case("one-megabyte-string", call(b'{"percent":"' + b"a" * (1 << 20) + b'"}'), Expect("too_large")))

    # -- encoding
    for i, bad in enumerate((b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80")):
        add(Case(f"invalid-utf8-{i}", call(b'{"percent":5,"note":"' + bad + b'"}'), Expect("error", None, *PARSE)))
    for i, esc in enumerate((b"\\ud800", b"\\udfff", b"\\udc00\\ud800", b"\\ud800x", b"\\ud83d")):
        add(Case(f"surrogate-{i}", call(b'{"percent":5,"note":"' + esc + b'"}'), Expect("error", None, *PARSE)))
    add(Case("surrogate-in-id", call(b'{"percent":5}', id_=b'"\\udc00"'), Expect("error", None, *PARSE)))
    add(Case("surrogate-pair-is-fine", call(b'{"percent":6}', id_=b'"\\ud83d\\ude00"'),
             Expect("ok", "\U0001F600", percent=6), runs=True))
    add(Case("raw-nul-in-key", call(b'{"perc\x00ent":5}'), Expect("error", None, *PARSE)))
    add(Case("raw-nul-after-message", call(b'{"percent":5}') + b"\x00", Expect("error", None, *PARSE)))
    add(Case("escaped-nul-in-tool-name", call(b'{"percent":5}', id_=b"2", tool=b'"set_vent\\u0000"'),
             Expect("error", 2, -32602, message_prefix="Unknown tool"), tool="set_vent\x00"))
    add(Case("escaped-nul-in-argument-name", call(b'{"percent\\u0000":5}', id_=b"3"),
             Expect("tool_error", 3)))

    # -- numbers for the integer argument (set_vent percent: integer 0..100)
    add(Case("percent-1e400", call(b'{"percent":1e400}', b"4"),
             Expect("tool_error", 4, message="percent: 1e400 is out of range")))
    add(Case("percent-2^64", call(b'{"percent":18446744073709551616}', b"5"),
             Expect("tool_error", 5, message="percent: 18446744073709551616 is beyond the 64-bit integer range")))
    add(Case("percent--1e400", call(b'{"percent":-1e400}', b"6"), Expect("tool_error", 6)))
    add(Case("percent-minus-zero", call(b'{"percent":-0}', b"7"), Expect("ok", 7, percent=0), runs=True))
    add(Case("percent-8e1", call(b'{"percent":8e1}', b"8"), Expect("ok", 8, percent=80), runs=True))

    # -- keys
    add(Case("duplicate-argument-second-invalid", call(b'{"percent":50,"percent":500}', b"9"),
             Expect("tool_error", 9, message="percent: 500 is above maximum 100")))
    add(Case("duplicate-argument-both-valid", call(b'{"percent":10,"percent":20}', b"10"),
             Expect("ok", 10, percent=10), runs=True))
    add(Case("duplicate-id-first-wins", call(b'{"percent":11}', b'11,"id":12'), Expect("ok", 11, percent=11), runs=True))
    add(Case("method-spelled-with-an-escape", call(b'{"per\\u0063ent":12}', b"13", method_key=b'"met\\u0068od"'),
             Expect("ok", 13, percent=12), runs=True))

    # -- ids
    add(Case("id-64-bytes", call(b'{"percent":14}', b'"' + b"i" * 62 + b'"'), Expect("ok", "i" * 62, percent=14), runs=True))
    add(Case("id-65-bytes", call(b'{"percent":15}', b'"' + b"i" * 63 + b'"'), Expect("error", None, -32600)))
    add(Case("id-65-digit-number", call(b'{"percent":15}', b"1" * 65), Expect("error", None, -32600)))
    add(Case("id-100-kilobytes", call(b'{"percent":15}', b'"' + b"i" * 100_000 + b'"'), Expect("too_large")))
    add(Case("id-object", call(b'{"percent":15}', b'{"a":1}'), Expect("error", None, -32600)))

    # -- _meta
    add(Case("meta-nested-to-depth-16", nested_meta(13), Expect("ok", 1, percent=3), runs=True))
    add(Case("meta-nested-to-depth-17", nested_meta(14), Expect("error", 1, *DEPTH)))
    add(Case("meta-nested-1000", nested_meta(1000), Expect("error", 1, *DEPTH)))

    # -- truncated messages: a cut at every 9th byte, never executed
    full = call(b'{"percent":42}', b"77")
    for n in range(1, len(full), 9):
        add(Case(f"truncated-at-{n}", full[:n], Expect("error", None, *PARSE), tags={"truncated"}))

    # -- tools/call as a notification: no answer, never executed
    add(Case("tools-call-notification", call(b'{"percent":55}', id_=b""), Expect("none")))
    add(Case("tools-call-notification-bad-args", call(b'{"percent":500}', id_=b""), Expect("none")))
    return out


def check_json_answer(case: Case, msg: dict) -> None:
    """Asserts that a JSON-RPC answer is the one `case` expects ("ok", "tool_error" or "error")."""
    e = case.expect
    assert msg.get("jsonrpc") == "2.0", msg
    assert msg["id"] == e.id, (case.name, msg)
    if e.kind == "ok":
        assert "result" in msg and "error" not in msg, (case.name, msg)
        r = msg["result"]
        assert r["isError"] is False and r["structuredContent"]["percent"] == e.percent, (case.name, r)
    elif e.kind == "tool_error":
        assert "result" in msg and "error" not in msg, (case.name, msg)
        r = msg["result"]
        assert r["isError"] is True and "structuredContent" not in r, (case.name, r)
        [block] = r["content"]
        assert block["type"] == "text", (case.name, r)
        if e.message is not None:
            assert block["text"] == e.message, (case.name, r)
        detail = block["_meta"]["emcp/invalidArgument"]
        assert detail["path"] == block["text"].split(": ", 1)[0], (case.name, r)
    else:
        assert e.kind == "error", case.name
        assert "error" in msg and "result" not in msg, (case.name, msg)
        assert msg["error"]["code"] == e.code, (case.name, msg)
        if e.message is not None:
            assert msg["error"]["message"] == e.message, (case.name, msg)
        if e.message_prefix is not None:
            assert msg["error"]["message"].startswith(e.message_prefix), (case.name, msg)


class VentPacer:
    """Spaces the cases that run set_vent on one gateway by its rate limit
    (GREENHOUSE_VENT_INTERVAL_MS, 2 s): before such a case, waits until the
    interval since the previous one has passed."""

    INTERVAL_S = 2.05

    def __init__(self) -> None:
        self.last: float | None = None

    def before(self, case: "Case") -> None:
        if case.runs and self.last is not None:
            time.sleep(max(0.0, self.last + self.INTERVAL_S - time.monotonic()))

    def after(self, case: "Case") -> None:
        if case.runs:
            self.last = time.monotonic()


def executed(audit_lines: list[str]) -> int:
    """Audit lines of an executed set_vent call (matched by tokens, not by the
    exact line, whose format may grow)."""
    return sum(1 for l in audit_lines if "tool=set_vent" in l.split() and "outcome=ok" in l.split())
