"""greenhouse-stdio against the MCP Inspector CLI (@modelcontextprotocol/inspector 2.12.0).

The inspector is installed from tests/e2e/package-lock.json: run `npm ci` in
tests/e2e before these tests. Each run is one `npx --offline` invocation with
`--format json` (one JSON object on stdout); the exit code is 0 for a result,
5 for an isError result or an unknown tool.

Most runs go through wiretap.py, a transparent line copier between the
inspector and the server, so the tests can check on the wire which era the
inspector negotiated (initialize vs server/discover) and print the exchange
for `pytest -s`.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from e2e_support import (
    E2E_DIR,
    KEY_SERVER_INFO,
    KEY_VERSION,
    LEGACY,
    MODERN,
    SERVER_NAME,
    SERVER_VERSION,
    TOOL_NAMES,
    audit_fields,
)

INSPECTOR_PKG = E2E_DIR / "node_modules" / "@modelcontextprotocol" / "inspector"
WIRETAP = E2E_DIR / "wiretap.py"
RUN_TIMEOUT_S = 90
ERAS = ["legacy", "modern"]
ERA_VERSION = {"legacy": LEGACY, "modern": MODERN, "auto": MODERN}


def audits(stderr: str) -> list[tuple[str, str, object, str, str]]:
    """(principal, tool, arguments, outcome, trace) of each of the server's audit lines."""
    return [audit_fields(line[line.index("audit: ") :]) for line in stderr.splitlines() if "audit: " in line]


@pytest.fixture(scope="session")
def npx() -> str:
    if not INSPECTOR_PKG.is_dir():
        pytest.fail(
            f"{INSPECTOR_PKG} is missing: run `npm ci` in {E2E_DIR} before these tests.",
            pytrace=False,
        )
    exe = shutil.which("npx")
    if exe is None:
        pytest.fail("npx not found on PATH (Node.js and npm are needed for the inspector tests).", pytrace=False)
    return exe


class Run:
    """One finished inspector invocation."""

    def __init__(self, rc: int, stdout: str, stderr: str, wire: list[tuple[str, dict[str, Any]]]) -> None:
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.wire = wire  # (">" client to server | "<" server to client, message)

    def json(self) -> dict[str, Any]:
        try:
            out = json.loads(self.stdout)
        except json.JSONDecodeError:
            raise AssertionError(f"inspector stdout is not one JSON object:\n{self.stdout}\nstderr:\n{self.stderr}") from None
        assert isinstance(out, dict), out
        return out

    def sent(self) -> list[dict[str, Any]]:
        return [m for d, m in self.wire if d == ">"]

    def answer_to(self, request: dict[str, Any]) -> dict[str, Any]:
        for d, m in self.wire:
            if d == "<" and "id" in m and m["id"] == request["id"] and "method" not in m:
                return m
        raise AssertionError(f"no answer to {request} on the wire")


@pytest.fixture
def inspector(npx: str, greenhouse_bin: str, tmp_path: Path):
    """Runs the inspector CLI against greenhouse-stdio, bounded in time."""
    counter = [0]

    def run(era: str, *method_args: str, server_args: tuple[str, ...] = (), tap: bool = True) -> Run:
        counter[0] += 1
        wire_log = tmp_path / f"wire-{counter[0]}.log"
        target = [greenhouse_bin, *server_args]
        if tap:
            target = [sys.executable, str(WIRETAP), str(wire_log), *target]
        argv = [npx, "--offline", "@modelcontextprotocol/inspector", "--cli", *target]
        argv += ["--protocol-era", era, "--format", "json", *method_args]
        env = dict(os.environ)
        # Keep the inspector's catalog and client config out of the user's home.
        env["MCP_CATALOG_PATH"] = str(tmp_path / "catalog.json")
        env["MCP_CLIENT_CONFIG_PATH"] = str(tmp_path / "client.json")
        env.setdefault("NO_COLOR", "1")
        proc = subprocess.Popen(
            argv,
            cwd=E2E_DIR,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its own process group, so a timeout can stop node and the server too
        )
        try:
            stdout, stderr = proc.communicate(timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate(timeout=10)
            raise AssertionError(
                f"inspector did not finish within {RUN_TIMEOUT_S}s: {argv}\nstdout:\n{stdout}\nstderr:\n{stderr}"
            ) from None
        wire: list[tuple[str, dict[str, Any]]] = []
        if tap and wire_log.exists():
            for raw in wire_log.read_text().splitlines():
                direction, _, body = raw.partition(" ")
                wire.append((direction, json.loads(body)))
        print(f"\n== inspector --protocol-era {era} {' '.join(method_args)} (server args: {list(server_args)})")
        for direction, msg in wire:
            print(f"  {direction} {json.dumps(msg, ensure_ascii=False)}")
        print(f"  exit {proc.returncode}, stdout: {stdout.strip()}")
        if stderr.strip():
            print("  stderr: " + stderr.strip().replace("\n", "\n          "))
        return Run(proc.returncode, stdout, stderr, wire)

    return run


def assert_era(run: Run, era: str) -> None:
    """Checks on the wire that the inspector negotiated the era's protocol version."""
    sent = run.sent()
    assert sent, f"nothing was sent to the server (stderr: {run.stderr})"
    methods = [m.get("method") for m in sent]
    if ERA_VERSION[era] == LEGACY:
        assert methods[0] == "initialize", methods
        assert "server/discover" not in methods
        init = run.answer_to(sent[0])
        assert init["result"]["protocolVersion"] == LEGACY, init
        info = init["result"]["serverInfo"]
        assert (info["name"], info["version"]) == (SERVER_NAME, SERVER_VERSION)
        for m in sent[1:]:
            assert KEY_VERSION not in m.get("params", {}).get("_meta", {}), m
    else:
        assert methods[0] == "server/discover", methods
        assert "initialize" not in methods
        probe = run.answer_to(sent[0])
        assert probe["id"] == sent[0]["id"]
        assert probe["result"]["supportedVersions"] == [MODERN], probe
        info = probe["result"]["_meta"][KEY_SERVER_INFO]
        assert (info["name"], info["version"]) == (SERVER_NAME, SERVER_VERSION)
        for m in sent:
            if "id" in m and m.get("method") == "subscriptions/listen":
                # A listen stream is answered by its acknowledgement; its
                # result comes only when the stream ends (never, here).
                acks = [x for d, x in run.wire if d == "<" and x.get("method") == "notifications/subscriptions/acknowledged"
                        and x["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == m["id"]]
                assert len(acks) == 1, run.wire
            elif "id" in m:
                assert m["params"]["_meta"][KEY_VERSION] == MODERN, m
                assert run.answer_to(m)["result"]["resultType"] == "complete"


def call_result(run: Run, era: str, rc: int) -> dict[str, Any]:
    assert run.rc == rc, f"exit code {run.rc}, expected {rc}\nstdout:\n{run.stdout}\nstderr:\n{run.stderr}"
    result = run.json()["result"]
    assert "content" in result, result
    if ERA_VERSION[era] == MODERN:
        assert result["_meta"][KEY_SERVER_INFO]["name"] == SERVER_NAME
    else:
        assert "_meta" not in result
    return result


def text_of(result: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in result["content"] if b.get("type") == "text")


@pytest.mark.parametrize("era", [*ERAS, "auto"])
def test_tools_list(inspector, era):
    run = inspector(era, "--method", "tools/list")
    assert run.rc == 0, run.stderr
    assert_era(run, era)
    tools = run.json()["result"]["tools"]
    assert [t["name"] for t in tools] == TOOL_NAMES
    read_sensor, set_vent = tools
    assert read_sensor["inputSchema"]["required"] == ["sensor_id"]
    assert read_sensor["inputSchema"]["properties"]["sensor_id"]["enum"] == ["t1", "t2", "rh1", "soil1"]
    assert set_vent["inputSchema"]["required"] == ["percent"]
    assert set_vent["inputSchema"]["properties"]["percent"] == {"type": "integer", "minimum": 0, "maximum": 100}
    # Both tools refuse undeclared arguments (issue 3).
    assert read_sensor["inputSchema"]["additionalProperties"] is False
    assert set_vent["inputSchema"]["additionalProperties"] is False
    assert read_sensor["annotations"]["readOnlyHint"] is True


@pytest.mark.parametrize("era", ERAS)
def test_tools_list_without_tap(inspector, era):
    """The inspector spawning the binary itself, with nothing in between."""
    run = inspector(era, "--method", "tools/list", tap=False)
    assert run.rc == 0, run.stderr
    assert [t["name"] for t in run.json()["result"]["tools"]] == TOOL_NAMES


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("sensor,value,unit", [("t1", 21.5, "C"), ("t2", 34.1, "C"), ("rh1", 62, "%")])
def test_read_sensor(inspector, era, sensor, value, unit):
    run = inspector(era, "--method", "tools/call", "--tool-name", "read_sensor", "--tool-arg", f"sensor_id={sensor}")
    result = call_result(run, era, 0)
    assert_era(run, era)
    assert result["isError"] is False
    sc = result["structuredContent"]
    assert (sc["value"], sc["unit"]) == (value, unit)
    assert isinstance(sc["age_s"], int) and sc["age_s"] >= 0
    assert audits(run.stderr) == [("local", "read_sensor", {"sensor_id": sensor}, "ok", "-")]


@pytest.mark.parametrize("era", ERAS)
def test_read_sensor_without_reading_is_error(inspector, era):
    run = inspector(era, "--method", "tools/call", "--tool-name", "read_sensor", "--tool-arg", "sensor_id=soil1")
    result = call_result(run, era, 5)
    assert_era(run, era)
    assert result["isError"] is True
    assert "no reading yet" in text_of(result)
    assert "tool_is_error" in run.stderr


@pytest.mark.parametrize("era", ERAS)
def test_set_vent(inspector, era):
    run = inspector(era, "--method", "tools/call", "--tool-name", "set_vent", "--tool-arg", "percent=60")
    result = call_result(run, era, 0)
    assert_era(run, era)
    assert result["isError"] is False
    assert result["structuredContent"] == {"ok": True, "percent": 60}
    # The inspector sent the argument as a JSON integer, as the schema asks.
    call = next(m for m in run.sent() if m.get("method") == "tools/call")
    assert call["params"]["arguments"] == {"percent": 60}


@pytest.mark.parametrize("era", ERAS)
def test_set_vent_refused_by_wind_lock(inspector, era):
    run = inspector(
        era, "--method", "tools/call", "--tool-name", "set_vent", "--tool-arg", "percent=60", server_args=("--wind-lock",)
    )
    result = call_result(run, era, 5)
    assert_era(run, era)
    assert result["isError"] is True
    assert "refused: wind lock active" in text_of(result)
    assert audits(run.stderr) == [("local", "set_vent", {"percent": 60}, "is_error", "-")]


@pytest.mark.parametrize("era", ERAS)
def test_set_vent_closed_under_wind_lock(inspector, era):
    run = inspector(
        era, "--method", "tools/call", "--tool-name", "set_vent", "--tool-arg", "percent=0", server_args=("--wind-lock",)
    )
    result = call_result(run, era, 0)
    assert result["isError"] is False
    assert result["structuredContent"] == {"ok": True, "percent": 0}


@pytest.mark.parametrize("era", ERAS)
def test_unknown_tool(inspector, era):
    run = inspector(era, "--method", "tools/call", "--tool-name", "open_doors")
    assert run.rc == 5, f"exit {run.rc}\n{run.stdout}\n{run.stderr}"
    assert "tool_not_found" in run.stderr and "open_doors" in run.stderr
    assert_era(run, era)
    # The inspector checks the name against the server's listing and never sends the call.
    assert [m.get("method") for m in run.sent() if m.get("method") == "tools/call"] == []


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    "tool,arg,sent,message",
    [
        ("set_vent", "percent=120", {"percent": 120}, "percent: 120 is above maximum 100"),
        ("set_vent", "percent=60.5", {"percent": 60.5}, "percent: expected integer, got number"),
        ("read_sensor", "sensor_id=t9", {"sensor_id": "t9"}, 'sensor_id: "t9" is not one of t1, t2, rh1, soil1'),
    ],
)
def test_out_of_contract_arguments(inspector, era, tool, arg, sent, message):
    """SEP-1303: the server answers with an isError result whose text names
    the argument and the rule (so the model can correct the call), not a
    JSON-RPC error; the tool never runs (audited as invalid_arguments); the
    inspector reports the result and exits 5, as for any isError result."""
    run = inspector(era, "--method", "tools/call", "--tool-name", tool, "--tool-arg", arg)
    result = call_result(run, era, 5)
    assert_era(run, era)
    call = next(m for m in run.sent() if m.get("method") == "tools/call")
    assert call["params"]["arguments"] == sent, call
    answer = run.answer_to(call)
    assert "error" not in answer, answer
    assert result["isError"] is True and "structuredContent" not in result, result
    assert text_of(result) == message, result
    assert result["content"][0]["_meta"]["emcp/invalidArgument"]["path"] == message.split(": ", 1)[0], result
    assert audits(run.stderr) == [("local", tool, sent, "invalid_arguments", "-")], run.stderr
