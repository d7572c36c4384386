"""greenhouse-stdio against the official MCP Python SDK client (mcp 2.3.0).

mode="auto" probes server/discover and must settle on 2026-07-28;
mode="legacy" uses the initialize handshake and must settle on 2025-11-25.
Run with `pytest -s` to read the exchange.
"""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError

from e2e_support import LEGACY, MODERN, READINGS, SERVER_NAME, SERVER_VERSION, TOOL_NAMES

TIMEOUT_S = 30  # for one whole client session, start to shutdown


def show(label: str, model: Any) -> None:
    """Prints one step of the exchange for a human reading `pytest -s`."""
    if hasattr(model, "model_dump"):
        model = model.model_dump(by_alias=True, mode="json", exclude_unset=True)
    print(f"  {label}: {json.dumps(model, ensure_ascii=False)}")


def run(session_fn, binary: str, mode: str, *args: str) -> None:
    """Runs `session_fn(client)` inside one client session, bounded in time."""

    async def main() -> None:
        params = StdioServerParameters(command=binary, args=list(args), env=dict(os.environ))
        with anyio.fail_after(TIMEOUT_S):
            async with Client(params, mode=mode, read_timeout_seconds=10) as c:
                print(f"\n== {os.path.basename(binary)} {' '.join(args)} mode={mode} -> protocol {c.protocol_version}")
                await session_fn(c)

    anyio.run(main)


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


@pytest.mark.parametrize("mode,version", [("auto", MODERN), ("legacy", LEGACY)])
def test_negotiation(greenhouse_bin, mode, version):
    async def session(c: Client) -> None:
        assert c.protocol_version == version
        assert c.server_info is not None
        assert (c.server_info.name, c.server_info.version) == (SERVER_NAME, SERVER_VERSION)
        assert c.server_capabilities.tools is not None
        if mode == "auto":
            d = c.session.discover_result
            assert d is not None and c.session.initialize_result is None, "auto mode fell back to initialize"
            show("server/discover", d)
            assert d.supported_versions == [MODERN]
            assert d.ttl_ms is not None and d.ttl_ms >= 0
            assert d.cache_scope in ("public", "private")
        else:
            i = c.session.initialize_result
            assert i is not None and c.session.discover_result is None
            show("initialize", i)
            assert i.protocol_version == LEGACY

    run(session, greenhouse_bin, mode)


@pytest.mark.parametrize("mode,version", [("auto", MODERN), ("legacy", LEGACY)])
def test_tools(greenhouse_bin, mode, version):
    async def session(c: Client) -> None:
        assert c.protocol_version == version
        listed = await c.list_tools()
        show("tools/list", listed)
        assert [t.name for t in listed.tools] == TOOL_NAMES
        assert listed.next_cursor is None
        read_sensor, set_vent = listed.tools
        assert read_sensor.input_schema["type"] == "object"
        assert read_sensor.input_schema["required"] == ["sensor_id"]
        assert read_sensor.input_schema["properties"]["sensor_id"] == {
            "type": "string",
            "enum": ["t1", "t2", "rh1", "soil1"],
        }
        assert set_vent.input_schema["required"] == ["percent"]
        assert set_vent.input_schema["properties"]["percent"] == {"type": "integer", "minimum": 0, "maximum": 100}
        # Both tools refuse undeclared arguments (issue 3).
        assert read_sensor.input_schema["additionalProperties"] is False
        assert set_vent.input_schema["additionalProperties"] is False
        assert read_sensor.description and set_vent.description

        for sensor, (value, unit) in READINGS.items():
            r = await c.call_tool("read_sensor", {"sensor_id": sensor})
            show(f"tools/call read_sensor {sensor}", r)
            assert r.is_error is False
            assert r.structured_content is not None
            assert r.structured_content["value"] == value
            assert r.structured_content["unit"] == unit
            assert isinstance(r.structured_content["age_s"], int) and r.structured_content["age_s"] >= 0
            assert text_of(r)

        r = await c.call_tool("read_sensor", {"sensor_id": "soil1"})
        show("tools/call read_sensor soil1", r)
        assert r.is_error is True
        assert "no reading yet" in text_of(r)

        r = await c.call_tool("set_vent", {"percent": 60})
        show("tools/call set_vent 60", r)
        assert r.is_error is False
        assert r.structured_content == {"ok": True, "percent": 60}

    run(session, greenhouse_bin, mode)


READ_SENSOR_OUTPUT_SCHEMA = {
    "type": "object",
    "required": ["value", "unit", "age_s"],
    "properties": {
        "value": {"type": "number"},
        "unit": {"type": "string"},
        "age_s": {"type": "integer"},
    },
}


@pytest.mark.parametrize("mode,version", [("auto", MODERN), ("legacy", LEGACY)])
def test_output_schema(greenhouse_bin, mode, version):
    """read_sensor declares an outputSchema (issue 18 item 5); the SDK's call_tool
    validates every non-error result against it (ClientSession.validate_tool_result)."""

    async def session(c: Client) -> None:
        listed = await c.list_tools()
        read_sensor, set_vent = listed.tools
        assert read_sensor.output_schema == READ_SENSOR_OUTPUT_SCHEMA
        assert set_vent.output_schema is None
        for sensor, (value, unit) in READINGS.items():
            r = await c.call_tool("read_sensor", {"sensor_id": sensor})  # raises if it does not match
            assert r.is_error is False and r.structured_content["value"] == value
        # A refusal carries no structuredContent (isError results are not validated).
        r = await c.call_tool("read_sensor", {"sensor_id": "soil1"})
        assert r.is_error is True and r.structured_content is None and text_of(r) == "no reading yet"
        # The validation is real: the SDK's own check (the one call_tool runs)
        # refuses a reading that does not match the schema the server declared.
        r = await c.call_tool("read_sensor", {"sensor_id": "t1"})
        await c.session.validate_tool_result("read_sensor", r)
        bad = r.model_copy(update={"structured_content": {**r.structured_content, "age_s": "0"}})
        with pytest.raises(RuntimeError, match="Invalid structured content returned by tool read_sensor"):
            await c.session.validate_tool_result("read_sensor", bad)

    run(session, greenhouse_bin, mode)


@pytest.mark.parametrize("mode,version", [("auto", MODERN), ("legacy", LEGACY)])
def test_wind_lock(greenhouse_bin, mode, version):
    async def session(c: Client) -> None:
        assert c.protocol_version == version
        r = await c.call_tool("set_vent", {"percent": 60})
        show("tools/call set_vent 60 (wind lock)", r)
        assert r.is_error is True
        assert "refused: wind lock active" in text_of(r)

        # A refused run still counts: set_vent runs at most once every 2 s.
        r = await c.call_tool("set_vent", {"percent": 0})
        assert r.is_error is True and text_of(r).startswith("rate limited: retry in "), r
        await anyio.sleep(2.05)
        r = await c.call_tool("set_vent", {"percent": 0})
        show("tools/call set_vent 0 (wind lock)", r)
        assert r.is_error is False
        assert r.structured_content == {"ok": True, "percent": 0}

    run(session, greenhouse_bin, mode, "--wind-lock")


@pytest.mark.parametrize("mode,version", [("auto", MODERN), ("legacy", LEGACY)])
def test_oversize_request_is_answered_at_once(greenhouse_bin, mode, version):
    """A call longer than the stdio binding's receive buffer (a 17 KB line
    into EMCP_STDIO_LINE_MAX = 16384): the SDK gets the -32600 refusal under
    its own request id at once, instead of waiting for a timeout it may not
    have, and the session goes on."""

    async def session(c) -> None:
        assert c.protocol_version == version
        t0 = anyio.current_time()
        with pytest.raises(MCPError) as err:
            await c.call_tool("read_sensor", {"sensor_id": "x" * (17 * 1024)})
        elapsed = anyio.current_time() - t0
        assert err.value.error.code == -32600, err.value.error
        assert err.value.error.message == "Request exceeds the receive buffer"
        assert elapsed < 5, f"answered after {elapsed:.1f}s"
        r = await c.call_tool("read_sensor", {"sensor_id": "t1"})
        assert r.is_error is False and r.structured_content["value"] == 21.5

    run(session, greenhouse_bin, mode)
