"""greenhouse-stdio under valgrind memcheck: a representative session with
zero errors and no leaks.

The binary is a build *without* sanitizers (valgrind cannot run ASan code):
$GREENHOUSE_STDIO_PLAIN, default build/valgrind/examples-c/greenhouse/greenhouse-stdio
(scripts/test.d/47-valgrind.sh builds it). One process serves the whole
session: both protocol eras, successful calls and tool errors, schema
refusals, input_required, notifications (never answered), parse errors,
invalid UTF-8 and surrogates, nesting and token limits, a line just over
EMCP_STDIO_LINE_MAX and a 1 MB line, blank lines, a last line without a
newline, then EOF. Every answer is checked against the expected one written
below, and valgrind must report no error (--error-exitcode) and no leak
(--leak-check=full, every leak kind counted as an error).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEFAULT = REPO / "build" / "valgrind" / "examples-c" / "greenhouse" / "greenhouse-stdio"
VALGRIND_ERROR_EXIT = 99
V = "io.modelcontextprotocol/protocolVersion"
C = "io.modelcontextprotocol/clientCapabilities"
LINE_MAX = 16384


def env_meta(caps=None):
    return {V: "2026-07-28", C: caps if caps is not None else {}}


def j(msg) -> bytes:
    return json.dumps(msg, separators=(",", ":")).encode()


def modern(method, id, **params):
    return j({"jsonrpc": "2.0", "id": id, "method": method, "params": {"_meta": env_meta(), **params}})


def call(name, args, id, caps=None):
    return j({"jsonrpc": "2.0", "id": id, "method": "tools/call",
              "params": {"_meta": env_meta(caps), "name": name, "arguments": args}})


# (line sent, expected answer): None = no answer (notification or blank line);
# ("ok", id) = a result with that id; ("err", id, code) = an error.
SESSION: list[tuple[bytes, tuple | None]] = [
    (modern("server/discover", 1), ("ok", 1)),
    (modern("tools/list", 2), ("ok", 2)),
    (call("read_sensor", {"sensor_id": "t1"}, 3), ("ok", 3)),
    (call("read_sensor", {"sensor_id": "soil1"}, 4), ("ok", 4)),          # tool error (isError)
    (call("read_sensor", {"sensor_id": "t9"}, 5), ("ok", 5)),             # not in the enum (isError, SEP-1303)
    # set_vent runs at most once every 2 s; asking for input does not count.
    (call("set_vent", {"percent": 90}, 8, {"elicitation": {}}), ("ok", 8)),  # input_required
    (call("set_vent", {"percent": 90}, 9), ("err", 9, -32021)),           # cannot confirm
    (b'{"jsonrpc":"2.0","id":21,"met\\u0068od":"tools/call","params":{"name":"set_vent","arguments":{"percent":-0}}}', ("ok", 21)),
    (call("set_vent", {"percent": 40}, 6), ("ok", 6)),                    # rate limited (isError)
    (call("set_vent", {"percent": 101}, 7), ("ok", 7)),                   # above maximum (isError)
    (call("nope", {}, 10), ("err", 10, -32602)),
    (modern("nope/x", 11), ("err", 11, -32601)),
    (j({"jsonrpc": "2.0", "id": 12, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "valgrind", "version": "1"}}}), ("ok", 12)),
    (b'{"jsonrpc":"2.0","method":"notifications/initialized"}', None),
    (b'{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"set_vent","arguments":{"percent":5}}}', ("ok", 13)),
    (b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"set_vent","arguments":{"percent":55}}}', None),
    (b'{"jsonrpc":"2.0","id":14,"method":"ping"}', ("ok", 14)),
    (b"{nope", ("err", None, -32700)),
    (b'{"jsonrpc":"2.0","id":15,"method":"ping","params":{"x":"\xff\xfe"}}', ("err", None, -32700)),
    (b'{"jsonrpc":"2.0","id":16,"method":"ping","params":{"x":"\\udc00\\ud800"}}', ("err", None, -32700)),
    (b'{"jsonrpc":"2.0","id":17,"method":"pi\x00ng"}', ("err", None, -32700)),
    (b"[" * 5000 + b"]" * 5000, ("err", None, -32600)),                   # over MCP_MAX_DEPTH
    (b'{"jsonrpc":"2.0","id":18,"method":"ping","params":{"x":[' + b",".join([b"1"] * 300) + b"]}}",
     ("err", 18, -32600)),                                              # too many tokens
    (b"", None),                                                          # blank line
    (b'{"jsonrpc":"2.0","id":19,"method":"ping","params":{"x":"' + b"a" * LINE_MAX + b'"}}',
     ("err", 19, -32600)),                                                # just over the line limit (id kept)
    (b'{"jsonrpc":"2.0","id":20,"method":"ping","params":{"x":"' + b"b" * (1 << 20) + b'"}}',
     ("err", 20, -32600)),                                                # 1 MB line (id kept)
    (b'{"jsonrpc":"2.0","id":"\\u0041","method":"ping"}', ("ok", "A")),
    (b'{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"set_vent","arguments":{"percent":18446744073709551616}}}', ("ok", 22)),
]
# The last line has no newline: EOF ends it and it is still answered.
LAST = (b'{"jsonrpc":"2.0","id":23,"method":"ping"}', ("ok", 23))


def binary() -> Path:
    return Path(os.environ.get("GREENHOUSE_STDIO_PLAIN") or DEFAULT)


def test_greenhouse_stdio_session_is_valgrind_clean(tmp_path):
    if shutil.which("valgrind") is None:
        pytest.fail("valgrind is not installed (scripts/test.d/47-valgrind.sh installs it)", pytrace=False)
    exe = binary()
    if not exe.is_file():
        pytest.fail(f"{exe} not found: run scripts/test.d/47-valgrind.sh or set GREENHOUSE_STDIO_PLAIN", pytrace=False)
    nm = subprocess.run(["nm", str(exe)], capture_output=True, text=True, timeout=60).stdout
    assert "__asan_init" not in nm and "__ubsan_handle" not in nm, "valgrind needs a build without sanitizers"

    data = b"".join(line + b"\n" for line, _ in SESSION) + LAST[0]
    expected = [e for _, e in SESSION if e is not None] + [LAST[1]]
    log = tmp_path / "memcheck.log"
    p = subprocess.run(
        ["valgrind", "--tool=memcheck", f"--error-exitcode={VALGRIND_ERROR_EXIT}", "--leak-check=full",
         "--show-leak-kinds=all", "--errors-for-leak-kinds=all", "--track-origins=yes",
         f"--log-file={log}", str(exe)],
        input=data, capture_output=True, timeout=600)
    report = log.read_text(errors="replace")
    stderr = p.stderr.decode(errors="replace")
    assert p.returncode == 0, f"exit {p.returncode}\n--- memcheck ---\n{report[-6000:]}\n--- stderr ---\n{stderr[-2000:]}"
    m = re.search(r"ERROR SUMMARY: (\d+) errors", report)
    assert m and m.group(1) == "0", report[-6000:]
    summary = [l.split("== ", 1)[-1] for l in report.splitlines()
               if re.search(r"(ERROR SUMMARY|total heap usage|in use at exit)", l)]
    print("\n".join(summary))
    assert "All heap blocks were freed" in report or "definitely lost: 0 bytes" in report, report[-4000:]

    lines = p.stdout.split(b"\n")
    assert lines[-1] == b"", "stdout must end with a newline"
    answers = [json.loads(l) for l in lines[:-1]]
    got = []
    for a in answers:
        assert a.get("jsonrpc") == "2.0" and ("result" in a) != ("error" in a), a
        got.append(("ok", a["id"]) if "result" in a else ("err", a["id"], a["error"]["code"]))
    assert got == expected

    by_id = {a["id"]: a for a in answers if a["id"] is not None}
    assert by_id[4]["result"]["isError"] is True
    assert by_id[8]["result"]["resultType"] == "input_required"
    assert by_id[21]["result"]["structuredContent"]["percent"] == 0
    # Arguments that break the schema: an isError result naming the argument.
    for i, text in ((5, 'sensor_id: "t9" is not one of t1, t2, rh1, soil1'),
                    (7, "percent: 101 is above maximum 100"),
                    (22, "percent: 18446744073709551616 is beyond the 64-bit integer range")):
        assert by_id[i]["result"]["isError"] is True, by_id[i]
        assert by_id[i]["result"]["content"][0]["text"] == text, by_id[i]
    for i in (6, 13):  # within 2 s of id 21's run: refused by the rate limit, not run
        assert by_id[i]["result"]["isError"] is True, by_id[i]
        assert by_id[i]["result"]["content"][0]["text"].startswith("rate limited: retry in "), by_id[i]
    # One audit line per tools/call of a registered tool, in order.
    audits = [l for l in stderr.splitlines() if l.startswith("audit:")]
    outcomes = [re.search(r" outcome=(\S+) ", l).group(1) for l in audits]
    assert outcomes == ["ok", "is_error", "invalid_arguments", "input_required", "failed", "ok", "rate_limited",
                        "invalid_arguments", "rate_limited", "invalid_arguments"], audits
    assert not any('"percent":55' in l for l in audits), "a notification was executed"
    assert [l for l in stderr.splitlines() if l.startswith("vent: ")] == ["vent: 0% -> 0%"]
