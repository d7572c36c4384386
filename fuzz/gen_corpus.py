#!/usr/bin/env python3
"""Writes the committed seed corpus under fuzz/corpus/<target>/.

Run from anywhere: python3 fuzz/gen_corpus.py. It rewrites only the seeds it
names (seed-*), so files libFuzzer adds elsewhere are not touched. The
JSONTestSuite files are copied from tests/data/JSONTestSuite/test_parsing.
"""
import hashlib
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(HERE, "corpus")

V = "io.modelcontextprotocol/protocolVersion"
C = "io.modelcontextprotocol/clientCapabilities"
ENV = {V: "2026-07-28", C: {"elicitation": {}}}


def req(method, id=1, params=None, meta=True):
    m = {"jsonrpc": "2.0"}
    if id is not None:
        m["id"] = id
    m["method"] = method
    p = dict(params or {})
    if meta:
        p["_meta"] = dict(ENV)
    if p:
        m["params"] = p
    return json.dumps(m, separators=(",", ":")).encode()


def requests():
    out = []
    for era in (True, False):
        out += [
            req("server/discover", 1, meta=era),
            req("tools/list", "a", meta=era),
            req("tools/list", 2, {"cursor": "2"}, meta=era),
            req("tools/call", 3, {"name": "bounded", "arguments": {"n": 5, "mode": "bb", "pos": {"x": 3, "y": 1.25}, "list": [1, 2, 3]}}, meta=era),
            req("tools/call", 4, {"name": "bounded", "arguments": {"n": 101}}, meta=era),
            req("tools/call", 5, {"name": "text", "arguments": {"s": "h\u00e9!", "flag": True, "k": 2}}, meta=era),
            req("tools/call", 6, {"name": "any", "arguments": {"a": [1, {"b": None}], "c": "x"}}, meta=era),
            req("tools/call", 7, {"name": "typed", "arguments": {"n": 11}}, meta=era),
            req("tools/call", 8, {"name": "ask", "arguments": {}}, meta=era),
            req("tools/call", None, {"name": "bounded", "arguments": {"n": 1}}, meta=era),
            req("ping", 9, meta=era),
            req("notifications/initialized", None, meta=era),
            req("resources/list", 10, meta=era),
            req("resources/templates/list", 11, meta=era),
            req("resources/read", 12, {"uri": "fz://text"}, meta=era),
            req("resources/read", 13, {"uri": "fz://item/7"}, meta=era),
            req("resources/read", 14, {"uri": "fz://item/none"}, meta=era),
            req("resources/read", 15, {"uri": "fz://nope"}, meta=era),
            req("prompts/list", 16, meta=era),
            req("prompts/get", 17, {"name": "text", "arguments": {"s": "x"}}, meta=era),
            req("prompts/get", 18, {"name": "text"}, meta=era),
            req("completion/complete", 19, {"ref": {"type": "ref/prompt", "name": "text"}, "argument": {"name": "s", "value": "ab"}}, meta=era),
            req("subscriptions/listen", "L", {"notifications": {"toolsListChanged": True, "resourceSubscriptions": ["fz://text"]}}, meta=era),
            req("resources/subscribe", 20, {"uri": "fz://text"}, meta=era),
        ]
    for v in ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "1999-01-01"):
        out.append(req("initialize", 0, {"protocolVersion": v, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}, meta=False))
    raw = [
        b'{"jsonrpc":"2.0","id":1,"met\\u0068od":"ping"}',
        b'{"jsonrpc":"2.0","id":1,"method":"ping","id":2}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bounded","arguments":{"n":1,"n":1000}}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bounded","arguments":{"n":1e400}}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bounded","arguments":{"n":18446744073709551616}}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bounded","arguments":{"n":-0}}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bounded","arguments":{"n":1e1}}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"text","arguments":{"s":"\\ud800"}}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"text","arguments":{"s":"\\udc00\\ud800"}}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"text","arguments":{"s":"\\ud83d\\ude00"}}}',
        b'{"jsonrpc":"2.0","id":"' + b"i" * 62 + b'","method":"ping"}',
        b'{"jsonrpc":"2.0","id":"' + b"i" * 63 + b'","method":"ping"}',
        b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":' + b'{"a":' * 14 + b'1' + b'}' * 14 + b'}}',
        b'{"jsonrpc":"2.0","id":1,"method":"ping"',
        b'{"jsonrpc":"2.0","id":1,"method":"pi\x00ng"}',
        b'{"jsonrpc":"2.0","id":1,"method":"p\xffing"}',
        b'[' * 20 + b']' * 20,
        b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
        b'{"jsonrpc":"2.0","id":1.5e3,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":null,"method":"ping"}',
        b'{"jsonrpc":"2.0","method":"tools/call","params":5}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b\\u006funded","arguments":{"n":3}}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","progressToken":"p"},"name":"any"}}',
        b' \t\r\n{"jsonrpc":"2.0","id":1,"method":"ping"} \n',
        b'',
        b'{}',
        b'"\\u0000"',
    ]
    return out + raw


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def seed(target, data):
    write(target, "seed-" + hashlib.sha1(data).hexdigest()[:16], data)


def main():
    reqs = requests()
    for r in reqs:
        seed("handle", r)
        seed("tokenizer_diff", r)
    suite = os.path.join(ROOT, "tests", "data", "JSONTestSuite", "test_parsing")
    for n in sorted(os.listdir(suite)):
        with open(os.path.join(suite, n), "rb") as f:
            data = f.read()
        write("tokenizer_diff", "jsts-" + n, data)
        seed("handle", data) if n.startswith(("n_structure", "i_")) else None
    schemas = [
        '{"type":"object","required":["n"],"additionalProperties":false,"properties":{"n":{"type":"integer","minimum":-5,"maximum":100},"mode":{"type":"string","enum":["a","bb","ccc"]}}}',
        '{"type":"object","properties":{"pos":{"type":"object","required":["x"],"properties":{"x":{"type":"integer","exclusiveMinimum":0,"multipleOf":3}}},"list":{"type":"array","items":{"type":"number","maximum":1.5},"minItems":1,"maxItems":3}}}',
        '{"type":"object","properties":{"s":{"type":["string","null"],"minLength":1,"maxLength":4,"default":"x"},"c":{"const":{"a":[1,2]}},"e":{"enum":[1,"1",null,true]}}}',
        '{"type":"object","title":"t","description":"d","$schema":"https://json-schema.org/draft/2020-12/schema","examples":[{}],"properties":{"h":{"type":"string","x-mcp-header":"H"}}}',
        '{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"array","items":{"type":"object","properties":{"d":{"type":"boolean"}}}}}}}}}}',
        '{"type":"object","oneOf":[]}',
        '{"type":"object","properties":{"n":{"type":"integer","minimum":"x"}}}',
        '{"type":"object","properties":{"n":{"type":"integer","multipleOf":0}}}',
        '{}',
    ]
    args = [
        '{"n":5,"mode":"bb"}', '{"n":1e400}', '{"n":-0,"n":101}', '{"n":18446744073709551616}',
        '{"pos":{"x":3},"list":[1.5,1e-400]}', '{"pos":{"x":0},"list":[]}', '{"s":"\\ud83d\\ude00\\u00e9ab"}',
        '{"s":null,"c":{"a":[1,2]},"e":"1"}', '{"a":{"b":{"c":[{"d":true},{"d":1}]}}}', '{}', '[]', '5',
    ]
    for s in schemas:
        for a in args:
            seed("schema", s.encode() + b"\x00" + a.encode())
    # Framer and the arbitrary-built targets: a few byte strings to start from.
    stream = b"\n".join(reqs[:6]) + b"\r\n\r\n" + b"x" * 400 + b"\n" + reqs[10] + b"\n"
    for cap in (b"\x00\x10", b"\x01\x00", b"\x2c\x01"):
        seed("framer", cap + b"\x03\x01\x07\x40" + stream)
    for i in range(8):
        blob = hashlib.sha256(b"emcp%d" % i).digest() * 8
        seed("handle_structured", blob)
        seed("headers", blob)
        seed("roundtrip", blob)


if __name__ == "__main__":
    main()
