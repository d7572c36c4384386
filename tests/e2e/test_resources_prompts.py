"""greenhouse-stdio's resources, prompt and completion through the official
MCP Python SDK client, in both eras (auto negotiates 2026-07-28, legacy uses
the initialize handshake), and a listen stream at 2026-07-28.
"""

from __future__ import annotations

import json
import os

import anyio
import pytest
from mcp import StdioServerParameters
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError
from mcp.types import PromptReference, ResourceTemplateReference

from e2e_support import LEGACY, MODERN

TIMEOUT_S = 30
SENSOR_IDS = ["t1", "t2", "rh1", "soil1"]


def run(session_fn, binary: str, mode: str) -> None:
    async def main() -> None:
        params = StdioServerParameters(command=binary, args=[], env=dict(os.environ))
        with anyio.fail_after(TIMEOUT_S):
            async with Client(params, mode=mode, read_timeout_seconds=10) as c:
                await session_fn(c)

    anyio.run(main)


@pytest.mark.parametrize("mode,version", [("auto", MODERN), ("legacy", LEGACY)])
def test_sensor_map_resource(greenhouse_bin, mode, version):
    async def session(c: Client) -> None:
        assert c.protocol_version == version
        caps = c.server_capabilities
        assert caps.resources is not None and caps.prompts is not None and caps.completions is not None
        listed = await c.list_resources()
        assert [(r.uri, r.name, r.mime_type) for r in listed.resources] == [
            ("greenhouse://sensors", "sensors", "application/json")
        ]
        read = await c.read_resource("greenhouse://sensors")
        assert len(read.contents) == 1
        sensor_map = json.loads(read.contents[0].text)
        assert [s["id"] for s in sensor_map["sensors"]] == SENSOR_IDS
        templates = await c.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == ["greenhouse://sensors/{sensor_id}"]
        one = await c.read_resource("greenhouse://sensors/rh1")
        assert str(one.contents[0].uri) == "greenhouse://sensors/rh1"
        assert json.loads(one.contents[0].text) == sensor_map["sensors"][2]
        with pytest.raises(MCPError) as err:
            await c.read_resource("greenhouse://sensors/t9")
        # Per era: 2025-11-25's own code, -32602 since 2026-07-28 (SEP-2164).
        assert err.value.error.code == (-32002 if mode == "legacy" else -32602)
        assert err.value.error.message == "Resource not found"

    run(session, greenhouse_bin, mode)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_vent_procedure_prompt(greenhouse_bin, mode):
    async def session(c: Client) -> None:
        prompts = await c.list_prompts()
        assert [p.name for p in prompts.prompts] == ["vent_procedure"]
        args = prompts.prompts[0].arguments
        assert [(a.name, a.required) for a in args] == [("target_percent", True)]
        got = await c.get_prompt("vent_procedure", {"target_percent": "40"})
        assert [m.role for m in got.messages] == ["user", "user"]
        embedded, steps = got.messages[0].content, got.messages[1].content
        assert embedded.type == "resource" and str(embedded.resource.uri) == "greenhouse://sensors"
        assert steps.type == "text" and "Open the roof vent to 40%" in steps.text
        assert "set_vent with percent 40" in steps.text
        with pytest.raises(MCPError) as err:
            await c.get_prompt("vent_procedure", {})
        assert err.value.error.code == -32602
        assert err.value.error.message == "Missing required argument: target_percent"
        done = await c.complete(PromptReference(type="ref/prompt", name="vent_procedure"),
                                {"name": "target_percent", "value": "1"})
        assert done.completion.values == ["10", "100"]
        ids = await c.complete(
            ResourceTemplateReference(type="ref/resource", uri="greenhouse://sensors/{sensor_id}"),
            {"name": "sensor_id", "value": "t"})
        assert ids.completion.values == ["t1", "t2"]

    run(session, greenhouse_bin, mode)


def test_listen_is_acknowledged_with_the_honoured_subset(greenhouse_bin):
    async def session(c: Client) -> None:
        assert c.protocol_version == MODERN
        async with c.listen(tools_list_changed=True,
                            resource_subscriptions=["greenhouse://sensors", "greenhouse://nope"]) as sub:
            honored = sub.honored
            assert honored.tools_list_changed is True
            assert list(honored.resource_subscriptions or []) == ["greenhouse://sensors"]
            # The stream stays open while other requests are served on stdio.
            assert (await c.list_tools()).tools

    run(session, greenhouse_bin, "auto")
