"""The official MCP Python SDK client (mcp 2.3.0, mode auto and legacy)
starting emcp-bridge as its stdio server, exactly as README.md's
`mcpServers` entry for the QEMU firmware says, and talking through it to the
greenhouse firmware on its UART under QEMU, on a Cortex-M4F (mps2-an386) and
a Cortex-M0 (mps2-an385); then the firmware is killed and restarted in the
middle of a session. Run with `pytest -s` to read the exchange."""

from __future__ import annotations

import json
import signal
import subprocess

import anyio
import pytest
from mcp import StdioServerParameters
from mcp.client.client import Client
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from bridge_support import GONE, REPO, TARGETS, check_bridge_log, readme_server

MODERN, LEGACY = "2026-07-28", "2025-11-25"
TIMEOUT_S = 60  # one whole client session


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def run(session_fn, command: str, args: list[str], mode: str, errlog) -> None:
    async def main() -> None:
        params = StdioServerParameters(command=command, args=args)
        with anyio.fail_after(TIMEOUT_S):
            async with Client(stdio_client(params, errlog=errlog), mode=mode, read_timeout_seconds=10) as c:
                await session_fn(c)

    anyio.run(main)


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("mode,version", [("auto", MODERN), ("legacy", LEGACY)])
def test_session(bridge_bin, firmware, tmp_path, target, mode, version):
    fw = firmware(target)
    command, args = readme_server("mcpservers-bridge-qemu", port=fw.port)
    errpath = tmp_path / "bridge.stderr"

    async def session(c: Client) -> None:
        assert c.protocol_version == version
        assert (c.server_info.name, c.server_info.version) == ("greenhouse-gw", "0.4.0")
        if mode == "auto":
            assert c.session.discover_result is not None and c.session.initialize_result is None
        listed = await c.list_tools()
        assert [t.name for t in listed.tools] == ["read_sensor", "set_vent"]
        assert listed.tools[1].input_schema["properties"]["percent"] == {
            "type": "integer", "minimum": 0, "maximum": 100}

        r = await c.call_tool("read_sensor", {"sensor_id": "t1"})
        assert r.is_error is False and r.structured_content["value"] == 21.5, r
        assert text_of(r).startswith("21.5 C, ")
        r = await c.call_tool("read_sensor", {"sensor_id": "t9"})  # not in the schema's enum
        assert r.is_error is True and text_of(r) == 'sensor_id: "t9" is not one of t1, t2, rh1, soil1', r
        r = await c.call_tool("set_vent", {"percent": 40})
        assert r.is_error is False and r.structured_content == {"ok": True, "percent": 40}, r
        r = await c.call_tool("set_vent", {"percent": 150})
        assert r.is_error is True and text_of(r) == "percent: 150 is above maximum 100", r
        # The core's rate limit on the firmware's own clock: a second run within 2 s is refused.
        r = await c.call_tool("set_vent", {"percent": 10})
        assert r.is_error is True and text_of(r).startswith("rate limited: retry in "), r

        listed = await c.list_resources()
        assert [r.uri for r in listed.resources] == ["greenhouse://sensors"]
        read = await c.read_resource("greenhouse://sensors")
        assert [s["id"] for s in json.loads(read.contents[0].text)["sensors"]] == ["t1", "t2", "rh1", "soil1"]

    with open(errpath, "w") as errlog:
        run(session, command, args, mode, errlog)
    check_bridge_log(errpath)
    # The firmware's audit (semihosting stderr): every call, with the UART's principal.
    audit = [ln for ln in fw.stderr().splitlines() if ln.startswith("audit: ")]
    outcomes = [(ln.split(" tool=")[1].split()[0], ln.split(" outcome=")[1].split()[0]) for ln in audit]
    assert outcomes == [("read_sensor", "ok"), ("read_sensor", "invalid_arguments"), ("set_vent", "ok"),
                        ("set_vent", "invalid_arguments"), ("set_vent", "rate_limited")], audit
    assert all(" principal=uart0 " in ln for ln in audit), audit
    assert not [ln for ln in fw.log().splitlines() if ln.startswith("audit: ")], "audit lines on stdout"
    # scripts/run-firmware --help names the stream they came on.
    assert help_stream_of_audit_lines() == "stderr"


def help_stream_of_audit_lines() -> str | None:
    """The stream (stdout or stderr) scripts/run-firmware's help text says the
    firmware's audit lines go to: the first one it names after "audit lines"."""
    done = subprocess.run([str(REPO / "scripts" / "run-firmware"), "--help"], capture_output=True, text=True,
                          timeout=30)
    text = " ".join((done.stdout + done.stderr).split())
    at = text.find("audit lines")
    assert at >= 0, f"run-firmware --help does not say where the audit lines go:\n{text}"
    named = [(text.find(s, at), s) for s in ("stdout", "stderr") if text.find(s, at) >= 0]
    return min(named)[1] if named else None


@pytest.mark.parametrize("target", list(TARGETS))
def test_firmware_reset_mid_session(bridge_bin, firmware, tmp_path, target):
    """The firmware dies with a request in flight: that request gets the
    bridge's error (the SDK matched it by its id), the bridge reconnects to
    the restarted firmware, and the next call succeeds."""
    fw = firmware(target)
    command, args = readme_server("mcpservers-bridge-qemu", port=fw.port)
    errpath = tmp_path / "bridge.stderr"

    async def session(c: Client) -> None:
        r = await c.call_tool("read_sensor", {"sensor_id": "t2"})
        assert r.is_error is False and r.structured_content["value"] == 34.1

        # Freeze the board so the next request is surely in flight, then kill it.
        fw.signal(signal.SIGSTOP)
        failed: list[BaseException] = []

        async def in_flight() -> None:
            try:
                await c.call_tool("read_sensor", {"sensor_id": "t1"})
            except MCPError as e:
                failed.append(e)

        async with anyio.create_task_group() as tg:
            tg.start_soon(in_flight)
            await anyio.sleep(0.5)
            fw.kill()
        assert len(failed) == 1, "the request in flight was not answered with an error"
        assert failed[0].error.code == GONE, failed[0].error
        assert "went away" in failed[0].error.message

        fw.start()  # the same port: the bridge finds it again with its backoff
        r = await c.call_tool("read_sensor", {"sensor_id": "t1"})
        assert r.is_error is False and r.structured_content["value"] == 21.5, r
        listed = await c.list_tools()
        assert [t.name for t in listed.tools] == ["read_sensor", "set_vent"]

    with open(errpath, "w") as errlog:
        run(session, command, args, "auto", errlog)
    log = check_bridge_log(errpath)
    assert "device link lost" in log and "1 request(s) in flight answered with error -32000" in log, log
    assert log.count("connected to tcp:127.0.0.1:") == 2, log


@pytest.mark.parametrize("target", list(TARGETS))
def test_oversize_call_is_refused_at_once(bridge_bin, firmware, tmp_path, target):
    """A call longer than the firmware's 4 KiB UART receive buffer (a long
    argument, as a model writes a 60-step program): the SDK gets the device's
    -32600 under its own request id at once, not the bridge's -32001 after its
    timeout, and the next call is served."""
    fw = firmware(target)
    command, args = readme_server("mcpservers-bridge-qemu", port=fw.port)
    errpath = tmp_path / "bridge.stderr"

    async def session(c: Client) -> None:
        t0 = anyio.current_time()
        with pytest.raises(MCPError) as err:
            await c.call_tool("read_sensor", {"sensor_id": ";".join(f"step{i}:open 40" for i in range(400))})
        elapsed = anyio.current_time() - t0
        assert err.value.error.code == -32600, err.value.error
        assert err.value.error.message == "Request exceeds the receive buffer"
        assert elapsed < 5, f"answered after {elapsed:.1f}s"
        r = await c.call_tool("read_sensor", {"sensor_id": "t1"})
        assert r.is_error is False and r.structured_content["value"] == 21.5, r

    with open(errpath, "w") as errlog:
        run(session, command, args, "auto", errlog)
    log = check_bridge_log(errpath)
    assert "did not answer" not in log, log
