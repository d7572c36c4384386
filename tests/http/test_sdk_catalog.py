"""greenhouse-http's resources, prompt and completion through the official
MCP Python SDK Streamable HTTP client, in both eras.
"""

from __future__ import annotations

import json

import anyio
import pytest
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError
from mcp.types import PromptReference

from http_support import LEGACY, MODERN

TIMEOUT_S = 30


def run(url: str, mode: str, body) -> None:
    async def main() -> None:
        with anyio.fail_after(TIMEOUT_S):
            async with Client(url, mode=mode, read_timeout_seconds=10) as c:
                await body(c)

    anyio.run(main)


@pytest.mark.parametrize("mode,version", [("auto", MODERN), ("legacy", LEGACY)])
def test_resources_prompt_and_completion_over_http(server, mode, version):
    async def session(c: Client) -> None:
        assert c.protocol_version == version
        listed = await c.list_resources()
        assert [r.uri for r in listed.resources] == ["greenhouse://sensors"]
        read = await c.read_resource("greenhouse://sensors")
        sensor_map = json.loads(read.contents[0].text)
        assert [s["id"] for s in sensor_map["sensors"]] == ["t1", "t2", "rh1", "soil1"]
        one = await c.read_resource("greenhouse://sensors/t2")
        assert json.loads(one.contents[0].text)["zone"] == "south bench"
        with pytest.raises(MCPError) as err:
            await c.read_resource("greenhouse://elsewhere")
        # Per era: 2025-11-25's own code, -32602 since 2026-07-28 (SEP-2164).
        assert err.value.error.code == (-32602 if version == MODERN else -32002)
        got = await c.get_prompt("vent_procedure", {"target_percent": "25"})
        assert got.messages[0].content.type == "resource"
        assert "Open the roof vent to 25%" in got.messages[1].content.text
        done = await c.complete(PromptReference(type="ref/prompt", name="vent_procedure"),
                                {"name": "target_percent", "value": "5"})
        assert done.completion.values == ["50"]

    run(server.url, mode, session)
    # Reading resources and prompts runs no tool: nothing is audited.
    assert server.audit_lines() == []
