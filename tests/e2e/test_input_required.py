"""set_vent above 80 % asks a person to confirm (2026-07-28 input_required).

With the official Python SDK client (its elicitation support drives the
round trip) and with raw lines: the confirmation opens the vent, a refusal
does not, a tampered or foreign requestState is refused before the tool runs,
a client without the elicitation capability gets -32021. A legacy
(2025-11-25) client that declared elicitation is asked with a server-to-client
elicitation/create request; one that did not gets a clear refusal instead of
an actuation.
"""

from __future__ import annotations

import base64
import os

import anyio
import pytest
from mcp import StdioServerParameters
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError
import mcp.types as t

from e2e_support import audit, call, envelope

TIMEOUT_S = 30
MESSAGE = "Open the roof vent to 90%? Above 80% wind and rain can get in."


def sdk(binary: str, mode: str, answer, fn):
    """Runs `fn(client, asked)` in one SDK session whose elicitation callback
    records each question and answers with `answer` (None: no callback)."""
    asked: list[str] = []

    async def on_elicit(ctx, params):
        asked.append(params.message)
        return answer

    async def main():
        params = StdioServerParameters(command=binary, args=[], env=dict(os.environ))
        kwargs = {"elicitation_callback": on_elicit} if answer is not None else {}
        with anyio.fail_after(TIMEOUT_S):
            async with Client(params, mode=mode, read_timeout_seconds=10, **kwargs) as c:
                await fn(c, asked)

    anyio.run(main)


def test_sdk_confirmation_opens_the_vent(greenhouse_bin):
    async def go(c, asked):
        assert c.protocol_version == "2026-07-28"
        r = await c.call_tool("set_vent", {"percent": 90})
        assert asked == [MESSAGE]
        assert not r.is_error
        assert r.structured_content == {"ok": True, "percent": 90}
        # Within 2 s of that change: refused by the rate limit, nothing asked.
        r = await c.call_tool("set_vent", {"percent": 80})
        assert r.is_error and r.content[0].text.startswith("rate limited: retry in "), r
        assert asked == [MESSAGE]
        await anyio.sleep(2.05)
        # 80 % and below needs no confirmation.
        r = await c.call_tool("set_vent", {"percent": 80})
        assert asked == [MESSAGE] and r.structured_content == {"ok": True, "percent": 80}

    sdk(greenhouse_bin, "auto", t.ElicitResult(action="accept", content={"confirm": True}), go)


@pytest.mark.parametrize("answer", [
    t.ElicitResult(action="accept", content={"confirm": False}),
    t.ElicitResult(action="decline"),
    t.ElicitResult(action="cancel"),
])
def test_sdk_refusal_leaves_the_vent(greenhouse_bin, answer):
    async def go(c, asked):
        r = await c.call_tool("set_vent", {"percent": 95})
        assert len(asked) == 1
        assert r.is_error and r.content[0].text == "not confirmed: vent unchanged"

    sdk(greenhouse_bin, "auto", answer, go)


def test_sdk_without_elicitation_gets_32021(greenhouse_bin):
    async def go(c, asked):
        with pytest.raises(MCPError) as e:
            await c.call_tool("set_vent", {"percent": 90})
        assert e.value.code == -32021

    sdk(greenhouse_bin, "auto", None, go)


# ---- A 2025-11-25 client over stdio (mode="legacy", initialize handshake) ----
# It declared elicitation at initialize: the server sends it the
# elicitation/create request on stdout while the call is open (the core's
# mcp_roundtrip_t), the SDK's callback answers, and the call's result follows.

def test_sdk_legacy_confirmation_opens_the_vent(greenhouse_bin):
    async def go(c, asked):
        assert c.protocol_version == "2025-11-25"
        r = await c.call_tool("set_vent", {"percent": 90})
        assert asked == [MESSAGE]
        assert not r.is_error, r
        assert r.structured_content == {"ok": True, "percent": 90}
        # The session goes on: a plain call after the round trip.
        r = await c.call_tool("read_sensor", {"sensor_id": "t1"})
        assert not r.is_error and r.structured_content["value"] == 21.5, r

    sdk(greenhouse_bin, "legacy", t.ElicitResult(action="accept", content={"confirm": True}), go)


@pytest.mark.parametrize("answer", [
    t.ElicitResult(action="accept", content={"confirm": False}),
    t.ElicitResult(action="decline"),
    t.ElicitResult(action="cancel"),
])
def test_sdk_legacy_refusal_leaves_the_vent(greenhouse_bin, answer):
    async def go(c, asked):
        r = await c.call_tool("set_vent", {"percent": 90})
        assert asked == [MESSAGE]
        assert r.is_error and r.content[0].text == "not confirmed: vent unchanged", r

    sdk(greenhouse_bin, "legacy", answer, go)


def test_sdk_legacy_client_without_elicitation_is_refused_not_actuated(greenhouse_bin):
    async def go(c, asked):
        assert c.protocol_version == "2025-11-25"
        r = await c.call_tool("set_vent", {"percent": 90})
        assert r.is_error and "needs a confirmation" in r.content[0].text, r

    sdk(greenhouse_bin, "legacy", None, go)


def vent(percent, id, caps=None, **extra):
    msg = call("set_vent", {"percent": percent}, id)
    msg["params"]["_meta"] = envelope(caps={"elicitation": {}} if caps is None else caps)
    msg["params"].update(extra)
    return msg


def test_raw_round_trip_and_tampered_state(spawn):
    s = spawn()
    first = s.request(vent(90, 1))["result"]
    assert first["resultType"] == "input_required"
    req = first["inputRequests"]["confirm"]
    assert req["method"] == "elicitation/create" and req["params"]["mode"] == "form"
    assert req["params"]["requestedSchema"]["required"] == ["confirm"]
    assert "content" not in first and "isError" not in first
    state = first["requestState"]
    yes = {"confirm": {"action": "accept", "content": {"confirm": True}}}

    raw = bytearray(base64.b64decode(state))
    raw[1] ^= 1  # flip one bit of the state
    tampered = base64.b64encode(bytes(raw)).decode()
    for i, bad in enumerate([tampered, state[:-4], "AAAA", 42]):
        r = s.request(vent(90, 10 + i, inputResponses=yes, requestState=bad))
        assert r["error"]["code"] == -32602, r
    # The state confirms 90 %, not 100 %: the tool asks again instead of acting.
    again = s.request(vent(100, 20, inputResponses=yes, requestState=state))["result"]
    assert again["resultType"] == "input_required"
    done = s.request(vent(90, 21, inputResponses=yes, requestState=state))["result"]
    assert done["resultType"] == "complete" and done["structuredContent"] == {"ok": True, "percent": 90}
    s.close_stdin()
    s.finish()
    # One audit line per call: the four forged states were refused before the
    # tool ran; asking for input did not use up set_vent's 2 s rate limit.
    assert s.audit_lines() == [
        audit("set_vent", {"percent": 90}, "input_required"),
        *[audit("set_vent", {"percent": 90}, "invalid_arguments")] * 4,
        audit("set_vent", {"percent": 100}, "input_required"),
        audit("set_vent", {"percent": 90}, "ok"),
    ]


def test_raw_missing_capability(spawn):
    s = spawn()
    r = s.request(vent(90, 1, caps={}))
    assert r["error"]["code"] == -32021
    assert r["error"]["data"] == {"requiredCapabilities": {"elicitation": {}}}
