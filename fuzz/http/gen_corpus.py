#!/usr/bin/env python3
"""Writes the seed corpus of the HTTP binding harness (fuzz/http/corpus/).

Each seed is one mode byte (bit 0: the instance that requires a bearer token;
bits 1..7: chunking, 0 = one write) followed by what a client sends: valid
requests of both eras for the harness's tools, every status the binding
decides, chunked bodies, pipelining, Expect: 100-continue, and a few
malformed ones. Run it after changing the harness's tools or headers.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
V = "io.modelcontextprotocol/protocolVersion"
C = "io.modelcontextprotocol/clientCapabilities"
META = {V: "2026-07-28", C: {}}


def body(method: str, id_=1, **params) -> bytes:
    msg = {"jsonrpc": "2.0", "method": method, "params": {"_meta": META, **params}}
    if id_ is not None:
        msg["id"] = id_
    return json.dumps(msg, separators=(",", ":")).encode()


def req(b: bytes, headers: dict[str, str] | None = None, method="POST", path="/mcp",
        version="HTTP/1.1", chunked=False) -> bytes:
    h = {"Host": "127.0.0.1", "Content-Type": "application/json",
         "Accept": "application/json, text/event-stream", **(headers or {})}
    if chunked:
        h["Transfer-Encoding"] = "chunked"
        parts, out = [b[i:i + 17] for i in range(0, len(b), 17)], b""
        for p in parts:
            out += b"%x\r\n" % len(p) + p + b"\r\n"
        b = out + b"0\r\n\r\n"
    elif b is not None:
        h["Content-Length"] = str(len(b))
    head = f"{method} {path} {version}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items()) + "\r\n"
    return head.encode() + (b or b"")


def modern(method: str, name: str | None = None, **extra: str) -> dict[str, str]:
    h = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if name:
        h["Mcp-Name"] = name
    h.update(extra)
    return h


call_probe = body("tools/call", 1, name="probe", arguments={"n": 3})
call_note = body("tools/call", 2, name="note", arguments={"text": "héllo"})
legacy_init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "f", "version": "1"}}}).encode()
legacy_call = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"probe","arguments":{"n":1}}}'

SEEDS: dict[str, tuple[int, bytes]] = {
    "call-probe": (0, req(call_probe, modern("tools/call", "probe", **{"Mcp-Param-N": "3"}))),
    "call-probe-chunked-writes": (2 * 5, req(call_probe, modern("tools/call", "probe", **{"Mcp-Param-N": "3"}))),
    "call-probe-b64-header": (0, req(call_probe, modern("tools/call", "=?base64?" + base64.b64encode(b"probe").decode() + "?=",
                                                        **{"Mcp-Param-N": " 3 "}))),
    "call-note-sse-progress": (0, req(body("tools/call", 2, name="note", arguments={"text": "hi"}) .replace(
        b'"_meta":{', b'"_meta":{"progressToken":"p1",'), modern("tools/call", "note"))),
    "call-note-json-only": (0, req(call_note, {**modern("tools/call", "note"), "Accept": "application/json"})),
    "call-bad-args": (0, req(body("tools/call", 3, name="probe", arguments={"n": 99}), modern("tools/call", "probe", **{"Mcp-Param-N": "99"}))),
    "call-notification": (0, req(body("tools/call", None, name="probe", arguments={"n": 3}), modern("tools/call", "probe", **{"Mcp-Param-N": "3"}))),
    "call-header-mismatch": (0, req(call_probe, modern("tools/call", "note", **{"Mcp-Param-N": "3"}))),
    "call-duplicate-header": (0, req(call_probe, modern("tools/call", "probe", **{"Mcp-Param-N": "3"})).replace(
        b"Mcp-Method: tools/call\r\n", b"Mcp-Method: tools/call\r\nMcp-Method: tools/call\r\n")),
    "discover": (0, req(body("server/discover", 7), modern("server/discover"))),
    "tools-list": (0, req(body("tools/list", 8), modern("tools/list"))),
    "legacy-initialize": (0, req(legacy_init)),
    "legacy-call-no-session": (0, req(legacy_call)),
    "legacy-call-bad-session": (0, req(legacy_call, {"Mcp-Session-Id": "0" * 32})),
    "legacy-ping-http10": (0, req(b'{"jsonrpc":"2.0","id":1,"method":"ping"}', version="HTTP/1.0")),
    "chunked-call": (0, req(call_probe, modern("tools/call", "probe", **{"Mcp-Param-N": "3"}), chunked=True)),
    "pipelined": (0, req(body("tools/list", 1), modern("tools/list")) + req(call_probe, modern("tools/call", "probe", **{"Mcp-Param-N": "3"}))
                  + req(b'{"jsonrpc":"2.0","id":9,"method":"ping"}', {"Connection": "close"})),
    "expect-continue": (0, req(call_probe, {**modern("tools/call", "probe", **{"Mcp-Param-N": "3"}), "Expect": "100-continue"})),
    "get": (0, req(None, method="GET")),
    "delete": (0, req(None, method="DELETE")),
    "wrong-path": (0, req(call_probe, path="/other?x=1")),
    "query-ok": (0, req(call_probe, modern("tools/call", "probe", **{"Mcp-Param-N": "3"}), path="/mcp?a=b")),
    "text-plain": (0, req(call_probe, {"Content-Type": "text/plain"})),
    "accept-html": (0, req(call_probe, {"Accept": "text/html"})),
    "bad-origin": (0, req(call_probe, {"Origin": "http://evil.example"})),
    "bad-host": (0, req(call_probe, {"Host": "evil.example:80"})),
    "content-length-too-big": (0, b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 999999\r\n\r\n{}"),
    "malformed-request-line": (0, b"POST /mcp HTTP/9.9 junk\r\n\r\n"),
    "header-no-colon": (0, b"POST /mcp HTTP/1.1\r\nHost localhost\r\n\r\n"),
    "not-json": (0, req(b"{nope", modern("tools/list"))),
    "deep-json": (0, req(b"[" * 3000 + b"]" * 3000, modern("tools/list"))),
    "upgrade": (0, req(b'{"jsonrpc":"2.0","id":1,"method":"ping"}', {"Connection": "Upgrade", "Upgrade": "websocket"})),
    "auth-ok-call": (1, req(call_probe, {**modern("tools/call", "probe", **{"Mcp-Param-N": "3"}), "Authorization": "Bearer fuzz-token"})),
    "auth-wrong": (1, req(call_probe, {**modern("tools/call", "probe"), "Authorization": "Bearer nope"})),
    "auth-missing": (1, req(call_probe, modern("tools/call", "probe"))),
    "slow-bytes": (2 * 1, req(body("tools/list", 4), modern("tools/list"))),
    # 431: more than EMCP_HTTP_HEADER_MAX (4096) bytes before the end of the headers.
    "headers-over-4096": (0, req(call_probe, {**modern("tools/call", "probe"), "X-Pad": "p" * 4200})),
    # 413: chunk extensions fill the receive buffer while the body stays small.
    "chunk-framing-fills-rx": (0, b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                               b"Transfer-Encoding: chunked\r\n\r\n" + (b"1;e=" + b"x" * 120 + b"\r\n{\r\n") * 110),
    # 413 from Content-Length, with the whole body sent anyway.
    "body-over-8192": (0, req(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"a" * 8200 + b'"}}', modern("ping"))),
}


def main() -> None:
    out = HERE / "corpus"
    out.mkdir(exist_ok=True)
    for old in out.iterdir():
        old.unlink()
    for name, (mode, data) in SEEDS.items():
        (out / name).write_bytes(bytes([mode]) + data)
    print(f"wrote {len(SEEDS)} seeds to {out}")


if __name__ == "__main__":
    main()
