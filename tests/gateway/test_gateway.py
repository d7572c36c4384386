"""emcp-gateway end to end: three real greenhouse-mqtt devices behind a real
mosquitto, one gateway on stdio, and the MCP Python SDK client (mcp 2.3.0,
as tests/e2e uses it) in both eras; plus raw JSON-RPC lines for what the SDK
hides (exact number text, the request's id on a timeout).

Run with `pytest -s` to read the exchange.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters
from mcp.client.client import Client

from conftest import DEVICES, LEGACY, MODERN, expected, names, text_of
from mqtt_support import REPO
from mqtt_support import Client as MqttClient

SESSION_S = 90


def settled_audits(device) -> int:
    """The device's audit lines once its stderr reader has caught up (no new line for 0.3 s)."""
    n = -1
    while True:
        time.sleep(0.3)
        now = len(device.audits())
        if now == n:
            return n
        n = now


def readme_entry(gateway_bin: str, port: int) -> tuple[str, list[str]]:
    """README.md's "A fleet" host entry (`<!-- host-config:mcpservers-gateway -->`),
    with the build path and the broker's port filled in."""
    text = (REPO / "README.md").read_text()
    marker = "<!-- host-config:mcpservers-gateway -->"
    at = text.index(marker) + len(marker)
    body = text[at:].split("```json\n", 1)[1].split("\n```", 1)[0]
    build = str(Path(gateway_bin).resolve().parents[2])
    body = body.replace("/ABSOLUTE/PATH/TO/emcp/build", build).replace("127.0.0.1:1883", f"127.0.0.1:{port}")
    server = json.loads(body)["mcpServers"]["fleet"]
    return server["command"], server["args"]


def gateway_args(broker, *extra: str) -> list[str]:
    return ["--broker", f"127.0.0.1:{broker.port}", "--timeout-ms", "2000", *extra]


async def wait_listed(c: Client, want: set[str], absent: set[str], timeout: float = 10.0) -> float:
    """Lists until every name of `want` is there and none of `absent`; returns the seconds it took."""
    start = time.monotonic()
    while True:
        got = names(await c.list_tools())
        if want <= got and not (absent & got):
            return time.monotonic() - start
        if time.monotonic() - start > timeout:
            raise AssertionError(f"after {timeout}s the list is {sorted(got)}; want {sorted(want)}, not {sorted(absent)}")
        await anyio.sleep(0.1)


@pytest.mark.parametrize("mode,version", [("auto", MODERN), ("legacy", LEGACY)])
def test_fleet_through_gateway(gateway_bin, broker, fleet, mode, version):
    async def session(c: Client) -> None:
        assert c.protocol_version == version
        assert (c.server_info.name if c.server_info else None) == "emcp-gateway"

        # Every device's tools, named DEVICE.TOOL, saying which device.
        listed = await c.list_tools()
        assert names(listed) == expected(DEVICES)
        for t in listed.tools:
            device = t.name.split(".")[0]
            assert f"device {device}" in (t.description or ""), t
        print(f"  tools/list: {sorted(names(listed))}")

        # Calls reach the right device, and only it.
        for i, d in enumerate(DEVICES):
            r = await c.call_tool(f"{d}.set_vent", {"percent": 10 * (i + 1)})
            assert r.is_error is False, text_of(r)
            assert r.structured_content == {"ok": True, "percent": 10 * (i + 1)}
        for i, d in enumerate(DEVICES):
            fleet.devices[d].wait_log(r"^vent: ", timeout=5)  # its stderr is read by a thread
            moves = fleet.devices[d].vent_moves()
            assert moves == [f"vent: 0% -> {10 * (i + 1)}%"], (d, moves)
        r = await c.call_tool("gh-b.read_sensor", {"sensor_id": "t1"})
        assert r.is_error is False
        assert r.structured_content["value"] == 21.5 and r.structured_content["unit"] == "C"
        assert "gh-b.read_sensor" not in text_of(r)

        # Invalid arguments: refused by the gateway's core, never forwarded.
        before = settled_audits(fleet.devices["gh-a"])
        r = await c.call_tool("gh-a.set_vent", {"percent": 130})
        assert r.is_error is True
        assert "percent: 130 is above maximum 100" in text_of(r)
        r = await c.call_tool("gh-a.read_sensor", {"sensor_id": "t9"})
        assert r.is_error is True and "sensor_id" in text_of(r)
        assert settled_audits(fleet.devices["gh-a"]) == before, fleet.devices["gh-a"].audits()
        assert fleet.devices["gh-a"].vent_moves() == ["vent: 0% -> 10%"]

        # A killed device: its Will clears its presence, its tools leave the
        # list, and a call to it answers "offline" as an isError result.
        fleet.devices["gh-c"].kill()
        gone = await wait_listed(c, expected(["gh-a", "gh-b"]), expected(["gh-c"]))
        print(f"  gh-c killed: its tools left the list after {gone:.2f}s")
        t0 = time.monotonic()
        r = await c.call_tool("gh-c.set_vent", {"percent": 70})
        assert r.is_error is True
        assert "gh-c" in text_of(r) and "offline" in text_of(r), text_of(r)
        assert time.monotonic() - t0 < 1.0, "an offline device must be answered at once, not after the timeout"
        print(f"  call to gh-c: {text_of(r)}")
        # The others still work (a read: set_vent runs at most once per 2 s on a device).
        r = await c.call_tool("gh-a.read_sensor", {"sensor_id": "rh1"})
        assert r.is_error is False and r.structured_content["value"] == 62

        # It comes back: listed again, and calls reach the new process.
        back = fleet.start("gh-c")
        again = await wait_listed(c, expected(DEVICES), set())
        print(f"  gh-c restarted: listed again after {again:.2f}s")
        r = await c.call_tool("gh-c.set_vent", {"percent": 55})
        assert r.is_error is False, text_of(r)
        assert r.structured_content == {"ok": True, "percent": 55}
        back.wait_log(r"^vent: ", timeout=5)
        assert back.vent_moves() == ["vent: 0% -> 55%"]

    async def main() -> None:
        # Exactly the host entry README.md documents.
        command, args = readme_entry(gateway_bin, broker.port)
        assert os.path.samefile(command, gateway_bin)
        params = StdioServerParameters(command=command, args=args, env=dict(os.environ))
        with anyio.fail_after(SESSION_S):
            async with Client(params, mode=mode, read_timeout_seconds=10) as c:
                print(f"\n== emcp-gateway mode={mode} -> protocol {c.protocol_version}")
                await session(c)

    anyio.run(main)


class RawGateway:
    """emcp-gateway with raw JSON-RPC lines on its stdin and stdout."""

    def __init__(self, binary: str, args: list[str]) -> None:
        self.proc = subprocess.Popen([binary, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.err: list[str] = []
        self.out: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()
        threading.Thread(target=self._read, daemon=True).start()

    def _drain(self) -> None:
        for raw in iter(self.proc.stderr.readline, b""):
            self.err.append(raw.decode(errors="replace").rstrip("\n"))

    def _read(self) -> None:
        for raw in iter(self.proc.stdout.readline, b""):
            self.out.put(raw)

    def send(self, msg: dict[str, Any]) -> None:
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def line(self, timeout: float = 10.0) -> bytes:
        try:
            return self.out.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line within {timeout}s; stderr:\n" + "\n".join(self.err)) from None

    def ask(self, msg: dict[str, Any], timeout: float = 10.0) -> bytes:
        self.send(msg)
        return self.line(timeout)

    def close(self) -> int:
        self.proc.stdin.close()
        return self.proc.wait(10)


def envelope() -> dict[str, Any]:
    return {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}


def call(id: Any, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"_meta": envelope(), "name": name, "arguments": args}}


def exact(payload: bytes) -> Any:
    """JSON with every number kept as its text, to compare numbers exactly."""
    return json.loads(payload, parse_float=str, parse_int=lambda s: "int:" + s)


def test_exact_results_and_timeout(gateway_bin, broker, fleet):
    gw = RawGateway(gateway_bin, gateway_args(broker))
    mq = MqttClient(broker.port, "direct")
    try:
        # The gateway's structuredContent is the device's, number text for
        # number text (21.5 stays 21.5, 62 stays an integer).
        for sensor in ("t1", "t2", "rh1"):
            via = exact(gw.ask(call(f"x-{sensor}", "gh-a.read_sensor", {"sensor_id": sensor})))
            direct = exact(mq.request("mcp/gh-a/request", call(1, "read_sensor", {"sensor_id": sensor})).payload)
            assert via["id"] == f"x-{sensor}"
            v, d = via["result"], direct["result"]
            assert v["content"] == d["content"]
            assert v["isError"] == d["isError"] is False
            v["structuredContent"].pop("age_s")
            d["structuredContent"].pop("age_s")
            assert v["structuredContent"] == d["structuredContent"], (v, d)
            print(f"  {sensor}: {v['structuredContent']}")
        # A device's own refusal (isError from the device) passes through.
        r = exact(gw.ask(call(5, "gh-a.read_sensor", {"sensor_id": "soil1"})))
        d = exact(mq.request("mcp/gh-a/request", call(1, "read_sensor", {"sensor_id": "soil1"})).payload)
        assert r["result"]["isError"] is True and r["result"]["content"] == d["result"]["content"]

        # Invalid arguments: the gateway's core refuses them (nothing forwarded).
        before = settled_audits(fleet.devices["gh-a"])
        r = exact(gw.ask(call(6, "gh-a.set_vent", {"percent": -1})))
        assert r["result"]["isError"] is True
        assert r["result"]["content"][0]["_meta"]["emcp/invalidArgument"]["keyword"] == "minimum"
        assert settled_audits(fleet.devices["gh-a"]) == before

        # A device that hangs (SIGSTOP: its connection stays, no Will) gets an
        # isError result after the timeout, under the request's id.
        hung = fleet.devices["gh-b"]
        hung.signal(signal.SIGSTOP)
        try:
            t0 = time.monotonic()
            r = json.loads(gw.ask(call("hang-1", "gh-b.set_vent", {"percent": 40}), timeout=10))
            took = time.monotonic() - t0
        finally:
            hung.signal(signal.SIGCONT)
        assert r["id"] == "hang-1"
        res = r["result"]
        assert res["isError"] is True
        assert "gh-b" in res["content"][0]["text"] and "timeout" in res["content"][0]["text"], res
        assert 1.9 <= took < 5.0, took
        print(f"  hung gh-b answered after {took:.2f}s: {res['content'][0]['text']}")
    finally:
        mq.close()
        assert gw.close() == 0, "\n".join(gw.err)
    # One audit line per call, with device, tool, outcome and latency.
    audits = [line for line in gw.err if line.startswith("audit: ")]
    print("  " + "\n  ".join(audits))
    assert len(audits) == 6, audits
    assert audits[0].startswith("audit: principal=local device=gh-a tool=read_sensor outcome=ok ms=")
    assert audits[4].startswith("audit: principal=local device=gh-a tool=set_vent outcome=invalid_arguments ms=")
    assert audits[5].startswith("audit: principal=local device=gh-b tool=set_vent outcome=timeout ms=")
    assert int(audits[5].rsplit("ms=", 1)[1]) >= 1900


def test_listen_stream_sees_devices_leave_and_return(gateway_bin, broker, fleet):
    """2026-07-28 subscriptions/listen: the stream gets tools/list_changed when
    a device's Will clears it and when it is back; tools/list follows."""
    gw = RawGateway(gateway_bin, gateway_args(broker))
    try:
        gw.send({"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen",
                 "params": {"_meta": envelope(), "notifications": {"toolsListChanged": True}}})
        ack = json.loads(gw.line())
        assert ack["method"] == "notifications/subscriptions/acknowledged", ack

        def tools() -> set[str]:
            r = json.loads(gw.ask({"jsonrpc": "2.0", "id": "t", "method": "tools/list",
                                   "params": {"_meta": envelope()}}))
            assert r["id"] == "t", r
            return {t["name"] for t in r["result"]["tools"]}

        assert tools() == expected(DEVICES)
        fleet.devices["gh-b"].kill()
        note = json.loads(gw.line(timeout=5))
        assert note["method"] == "notifications/tools/list_changed", note
        assert note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "L"
        assert tools() == expected(["gh-a", "gh-c"])
        fleet.start("gh-b")
        note = json.loads(gw.line(timeout=5))
        assert note["method"] == "notifications/tools/list_changed", note
        assert tools() == expected(DEVICES)
    finally:
        assert gw.close() == 0, "\n".join(gw.err)


def test_broker_restart(gateway_bin, broker, fleet):
    """The broker restarts: the gateway reconnects and subscribes again, the
    devices come back, and calls work again; meanwhile a call is an isError
    result, never a hang."""
    gw = RawGateway(gateway_bin, gateway_args(broker))
    try:
        r = json.loads(gw.ask(call(1, "gh-a.read_sensor", {"sensor_id": "t1"})))
        assert r["result"]["isError"] is False
        broker.stop()
        t0 = time.monotonic()
        r = json.loads(gw.ask(call(2, "gh-a.read_sensor", {"sensor_id": "t1"})))
        assert r["id"] == 2 and r["result"]["isError"] is True, r
        assert "gh-a" in r["result"]["content"][0]["text"]
        assert time.monotonic() - t0 < 5.0
        print(f"  broker down: {r['result']['content'][0]['text']}")
        broker.start()

        def tools() -> set[str]:
            r = json.loads(gw.ask({"jsonrpc": "2.0", "id": "t", "method": "tools/list",
                                   "params": {"_meta": envelope()}}))
            return {t["name"] for t in r["result"]["tools"]}

        deadline = time.monotonic() + 15
        while tools() != expected(DEVICES):
            assert time.monotonic() < deadline, f"after a broker restart the list is {sorted(tools())}"
            time.sleep(0.2)
        print(f"  listed again {time.monotonic() - t0:.2f}s after the broker stopped")
        r = json.loads(gw.ask(call(3, "gh-c.read_sensor", {"sensor_id": "rh1"})))
        assert r["id"] == 3 and r["result"]["isError"] is False, r
        assert r["result"]["structuredContent"]["value"] == 62
    finally:
        assert gw.close() == 0, "\n".join(gw.err)


def test_restarted_gateway_is_not_answered_from_the_replay_cache(gateway_bin, broker, fleet):
    """Two runs with one --client-id share a Response Topic: the second run's
    calls must carry new Correlation Data, or the device's replay cache
    answers them with the first run's responses instead of executing them."""
    device = fleet.devices["gh-a"]
    for run in (1, 2):
        before = settled_audits(device)
        gw = RawGateway(gateway_bin, gateway_args(broker, "--client-id", "gw-fixed"))
        try:
            r = json.loads(gw.ask(call(1, "gh-a.read_sensor", {"sensor_id": "t1"})))
            assert r["result"]["isError"] is False, r
        finally:
            assert gw.close() == 0, "\n".join(gw.err)
        assert settled_audits(device) == before + 1, f"run {run}: the call was not executed:\n{device.text()}"


def test_gateway_started_before_the_broker(gateway_bin, broker, fleet):
    """The gateway starts while the broker is down: it serves an empty list,
    keeps connecting, and registers the devices' tools at run time once the
    broker is up (the first registration happens while serving)."""
    broker.stop()
    gw = RawGateway(gateway_bin, gateway_args(broker, "--discover-ms", "300"))
    try:
        def tools() -> set[str]:
            r = json.loads(gw.ask({"jsonrpc": "2.0", "id": "t", "method": "tools/list",
                                   "params": {"_meta": envelope()}}))
            return {t["name"] for t in r["result"]["tools"]}

        assert tools() == set()
        broker.start()
        deadline = time.monotonic() + 15
        while tools() != expected(DEVICES):
            assert time.monotonic() < deadline, f"the list is {sorted(tools())}\n" + "\n".join(gw.err)
            time.sleep(0.2)
        r = json.loads(gw.ask(call(1, "gh-b.set_vent", {"percent": 35})))
        assert r["result"]["structuredContent"] == {"ok": True, "percent": 35}, r
    finally:
        assert gw.close() == 0, "\n".join(gw.err)


def test_stdio_principal_from_the_host(gateway_bin, broker, fleet):
    """On stdio the host names the principal (--principal, or
    EMCP_GATEWAY_PRINCIPAL in the host's env block); --allow then decides
    what it sees, through the core's principal lists: another device's tool
    is unknown to it. The audit line carries the principal."""
    for how in ("flag", "env"):
        args = gateway_args(broker, "--allow", "north=gh-a", "--allow", "south=gh-b,gh-c")
        env_before = os.environ.get("EMCP_GATEWAY_PRINCIPAL")
        if how == "flag":
            args += ["--principal", "north"]
        else:
            os.environ["EMCP_GATEWAY_PRINCIPAL"] = "north"
        try:
            gw = RawGateway(gateway_bin, args)
        finally:
            if env_before is None:
                os.environ.pop("EMCP_GATEWAY_PRINCIPAL", None)
            else:
                os.environ["EMCP_GATEWAY_PRINCIPAL"] = env_before
        try:
            r = json.loads(gw.ask({"jsonrpc": "2.0", "id": "t", "method": "tools/list",
                                   "params": {"_meta": envelope()}}))
            assert {t["name"] for t in r["result"]["tools"]} == expected(["gh-a"]), (how, r)
            r = json.loads(gw.ask(call(2, "gh-a.read_sensor", {"sensor_id": "t1"})))
            assert r["result"]["isError"] is False, r
            r = json.loads(gw.ask(call(3, "gh-b.read_sensor", {"sensor_id": "t1"})))
            assert r["error"]["code"] == -32602 and r["error"]["message"] == "Unknown tool: gh-b.read_sensor", r
        finally:
            assert gw.close() == 0, "\n".join(gw.err)
        audits = [line.split(" ms=")[0] for line in gw.err if line.startswith("audit: ")]
        assert audits == ["audit: principal=north device=gh-a tool=read_sensor outcome=ok",
                          "audit: principal=north device=gh-b tool=read_sensor outcome=refused"], (how, audits)


def take_over_session(port: int, client_id: str, hold_s: float) -> None:
    """Cuts the gateway's broker connection: a second client connects with its
    client id (MQTT session takeover: the broker drops the first), holds it
    for `hold_s`, then leaves, and the gateway reconnects."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    up = threading.Event()
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    c.on_connect = lambda *a: up.set()
    c.connect("127.0.0.1", port, keepalive=30)
    c.loop_start()
    assert up.wait(10), "the takeover client did not connect"
    time.sleep(hold_s)
    c.disconnect()
    c.loop_stop()


def test_exactly_once_across_a_lost_broker_connection(gateway_bin, broker, fleet):
    """Mid-call, the gateway's broker connection is cut: the device runs the
    request while the gateway is away, and its reply is lost. After
    reconnecting the gateway resends the request with the same Correlation
    Data, the device's replay cache answers it, and the call succeeds with
    the vent moved once (without the resend the call times out)."""
    device = fleet.devices["gh-a"]
    gw = RawGateway(gateway_bin, gateway_args(broker, "--client-id", "gw-eo", "--timeout-ms", "8000"))
    try:
        r = json.loads(gw.ask(call(1, "gh-a.read_sensor", {"sensor_id": "t1"})))
        assert r["result"]["isError"] is False, r
        device.signal(signal.SIGSTOP)  # the request waits at the device
        try:
            gw.send(call("eo-1", "gh-a.set_vent", {"percent": 44, "idempotency_key": "k-eo-1"}))
            time.sleep(0.3)  # published and acknowledged by the broker
            kicker = threading.Thread(target=take_over_session, args=(broker.port, "gw-eo", 0.5))
            kicker.start()
            time.sleep(0.3)  # the gateway is disconnected now
        finally:
            device.signal(signal.SIGCONT)  # it runs the call; the reply finds no gateway
        kicker.join(15)
        r = json.loads(gw.line(timeout=10))
        assert r["id"] == "eo-1", r
        assert r["result"]["isError"] is False, r
        assert r["result"]["structuredContent"] == {"ok": True, "percent": 44}, r
        time.sleep(0.3)
        assert device.vent_moves() == ["vent: 0% -> 44%"], device.vent_moves()
        print(f"  after the cut: {r['result']['structuredContent']}, vent moves {device.vent_moves()}")
    finally:
        assert gw.close() == 0, "\n".join(gw.err)
    assert any("resent a request to mcp/gh-a/request" in line for line in gw.err), "\n".join(gw.err)
    assert len([a for a in device.audits("set_vent")]) == 1, device.audits()


def test_exactly_once_when_the_gateway_is_killed_mid_call(gateway_bin, broker, fleet):
    """The gateway is SIGKILLed while a call with an idempotency key is at the
    device; the device runs it, its reply is lost. The client retries through
    a new gateway process with the same key: the key passes through in the
    arguments and the device's duplicate table answers with the first result;
    the vent moved once."""
    device = fleet.devices["gh-b"]
    args = {"percent": 33, "idempotency_key": "k-eo-2"}
    first = RawGateway(gateway_bin, gateway_args(broker))
    r = json.loads(first.ask(call(1, "gh-b.read_sensor", {"sensor_id": "t1"})))
    assert r["result"]["isError"] is False, r
    device.signal(signal.SIGSTOP)
    try:
        first.send(call("eo-2", "gh-b.set_vent", args))
        time.sleep(0.3)
        first.proc.kill()
        first.proc.wait(10)
    finally:
        device.signal(signal.SIGCONT)
    device.wait_log(r"^vent: ", timeout=5)
    second = RawGateway(gateway_bin, gateway_args(broker))
    try:
        r = json.loads(second.ask(call("eo-2", "gh-b.set_vent", args)))
        assert r["result"]["isError"] is False, r
        assert r["result"]["structuredContent"] == {"ok": True, "percent": 33}, r
        time.sleep(0.3)
        assert device.vent_moves() == ["vent: 0% -> 33%"], device.vent_moves()
    finally:
        assert second.close() == 0, "\n".join(second.err)
    outcomes = [a.split(" outcome=")[1].split(" ")[0] for a in device.audits("set_vent")]
    print(f"  device gh-b's set_vent audits: {outcomes}")
    assert outcomes == ["ok", "duplicate"], device.audits()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_list_changed_reaches_the_stdio_client(gateway_bin, broker, fleet, mode):
    """The Python SDK on stdio in each era with a message handler. A
    2025-11-25 client (legacy) gets notifications/tools/list_changed as a line
    of its own when a device's Will clears it and when it is back, with the
    list following; without those lines (the gateway before: the stdio
    binding sends notifications only on listen streams) the wait fails. A
    2026-07-28 client (auto) opened no listen stream, so it gets none: it
    sees the change on its next tools/list (the SDK's listen API is the way
    to get them, tested with raw lines above)."""
    changes: list[str] = []

    async def on_message(msg) -> None:
        method = getattr(getattr(msg, "root", msg), "method", None)
        if method == "notifications/tools/list_changed":
            changes.append(method)

    async def wait_change(count: int, what: str) -> None:
        deadline = time.monotonic() + 10
        while len(changes) < count:
            assert time.monotonic() < deadline, f"no notifications/tools/list_changed #{count} ({what})"
            await anyio.sleep(0.02)

    async def main() -> None:
        params = StdioServerParameters(command=gateway_bin, args=gateway_args(broker), env=dict(os.environ))
        with anyio.fail_after(SESSION_S):
            async with Client(params, mode=mode, read_timeout_seconds=10, message_handler=on_message) as c:
                assert c.protocol_version == (LEGACY if mode == "legacy" else MODERN)
                if mode == "legacy":
                    # initialize said lists change (MCP_CTX_LEGACY_LIST_CHANGED).
                    assert c.server_capabilities.tools.list_changed is True
                assert names(await c.list_tools()) == expected(DEVICES)
                fleet.devices["gh-a"].kill()
                if mode == "legacy":
                    await wait_change(1, "gh-a killed")
                    assert names(await c.list_tools()) == expected(["gh-b", "gh-c"])
                    fleet.start("gh-a")
                    await wait_change(2, "gh-a back")
                    assert names(await c.list_tools()) == expected(DEVICES)
                else:
                    await wait_listed(c, expected(["gh-b", "gh-c"]), expected(["gh-a"]))
                    assert changes == []

    anyio.run(main)


def raw_member(payload: bytes, key: str) -> str:
    """The raw JSON text of member `key` of the response's result, as written
    (escapes, number text and key order kept)."""
    text = payload.decode()
    at = text.index('"result":')
    start = text.index(f'"{key}":', at) + len(key) + 3
    _, end = json.JSONDecoder().raw_decode(text, start)
    return text[start:end]


def test_rich_results_pass_through_exactly(gateway_bin, broker):
    """A real emcp core on a device (emcp-fleet-sim --rich) answers
    sample_media with every content block kind (annotated text, image, audio,
    resource_link, embedded text and blob resources), structuredContent with
    nested arrays, int64 and double edge numbers, -0.0, escapes and
    non-ASCII text, padded up to the device's response limit
    (EMCP_MQTT_RESPONSE_MAX, 4096 bytes). Through the gateway (stdio) the
    client gets content, structuredContent and isError byte for byte as the
    device wrote them to a direct MQTT call, and the gateway logs nothing
    lost. Before the pass-through wrote each block's type, every non-text
    block came out as a note, text annotations were dropped, and
    9223372036854775807 became 9.223372036854776e18."""
    sim_bin = str(Path(gateway_bin).parent / "emcp-fleet-sim")
    sim = subprocess.Popen([sim_bin, "--devices", "1", "--id-prefix", "rich-", "--rich",
                            "--broker", f"127.0.0.1:{broker.port}"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    gw = None
    mq = MqttClient(broker.port, "direct-rich")
    try:
        assert sim.stdout.readline().strip() == b"running 1"
        gw = RawGateway(gateway_bin, gateway_args(broker))
        listed = json.loads(gw.ask({"jsonrpc": "2.0", "id": "l", "method": "tools/list",
                                    "params": {"_meta": envelope()}}))
        assert "rich-000.sample_media" in {t["name"] for t in listed["result"]["tools"]}, listed
        # The unpadded answer's size gives the largest pad the device can send.
        base = len(mq.request("mcp/rich-000/request", call(1, "sample_media", {})).payload)
        limit = 4096
        for pad in (0, 1000, limit - base - 40):
            direct = mq.request("mcp/rich-000/request", call(1, "sample_media", {"pad": pad})).payload
            via = gw.ask(call(f"p{pad}", "rich-000.sample_media", {"pad": pad}))
            assert b'"error"' not in direct[:40], direct[:300]
            print(f"  pad {pad}: device answer {len(direct)} bytes, gateway answer {len(via)} bytes")
            for key in ("content", "structuredContent", "isError"):
                d, v = raw_member(direct, key), raw_member(via, key)
                assert v == d, f"{key} differs (pad {pad}):\n device  {d[:600]}\n gateway {v[:600]}"
            kinds = [b["type"] for b in json.loads(direct)["result"]["content"]]
            assert kinds[:6] == ["text", "image", "audio", "resource_link", "resource", "resource"], kinds
        assert limit - 100 < len(direct) <= limit, len(direct)
        assert "was not passed on exactly" not in "\n".join(gw.err), "\n".join(gw.err)
    finally:
        mq.close()
        if gw is not None:
            assert gw.close() == 0, "\n".join(gw.err)
        sim.stdin.close()
        assert sim.wait(10) == 0, sim.stderr.read().decode()


def test_a_device_back_with_a_changed_schema_is_reread(gateway_bin, broker):
    """A device that comes back with a changed schema for a tool (emcp-fleet-sim
    --vent-max 50: set_vent allows 0-50 instead of 0-100) is listed again with
    the new schema, and the gateway validates calls by it
    (mcp_server_replace_tool). Before, the gateway kept the first schema until
    it restarted, and passed percent 70 on to the device."""
    sim_bin = str(Path(gateway_bin).parent / "emcp-fleet-sim")

    def sim(*extra: str) -> subprocess.Popen:
        p = subprocess.Popen([sim_bin, "--devices", "1", "--id-prefix", "chg-", *extra,
                              "--broker", f"127.0.0.1:{broker.port}"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert p.stdout.readline().strip() == b"running 1"
        return p

    first = sim()
    second = None
    gw = RawGateway(gateway_bin, gateway_args(broker))
    try:
        def vent_max():
            listed = json.loads(gw.ask({"jsonrpc": "2.0", "id": "l", "method": "tools/list",
                                        "params": {"_meta": envelope()}}))
            tool = {t["name"]: t for t in listed["result"]["tools"]}.get("chg-000.set_vent")
            return tool and tool["inputSchema"]["properties"]["percent"]["maximum"]

        def wait_for(want, what: str) -> None:
            deadline = time.monotonic() + 10
            while vent_max() != want:
                assert time.monotonic() < deadline, f"{what}: set_vent's maximum is {vent_max()}"
                time.sleep(0.05)

        wait_for(100, "listed")
        first.kill()
        first.wait()
        wait_for(None, "gone with its Will")
        second = sim("--vent-max", "50")
        wait_for(50, "back with its changed schema")
        answer = json.loads(gw.ask(call("c", "chg-000.set_vent", {"percent": 70})))
        result = answer["result"]
        assert result["isError"] is True, answer
        assert "percent: 70 is above maximum 50" in result["content"][0]["text"], answer
    finally:
        gw.close()
        for p in (first, second):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()



def test_the_separator_is_configurable(gateway_bin, broker):
    """--separator __ names a tool DEVICE__TOOL; --allow items use it, and the
    audit line still splits device and tool by the tool's own record. A
    separator outside the name alphabet is refused."""
    sim_bin = str(Path(gateway_bin).parent / "emcp-fleet-sim")
    bad = subprocess.run([gateway_bin, *gateway_args(broker, "--separator", "/")], capture_output=True,
                         stdin=subprocess.DEVNULL, timeout=10)
    assert bad.returncode != 0 and b"--separator wants" in bad.stderr, bad.stderr
    sim = subprocess.Popen([sim_bin, "--devices", "1", "--id-prefix", "s_p-", "--broker", f"127.0.0.1:{broker.port}"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    gw = None
    try:
        assert sim.stdout.readline().strip() == b"running 1"
        gw = RawGateway(gateway_bin, gateway_args(broker, "--separator", "__",
                                                  "--allow", "local=s_p-000__read_sensor"))
        deadline = time.monotonic() + 10
        while True:
            listed = json.loads(gw.ask({"jsonrpc": "2.0", "id": "l", "method": "tools/list",
                                        "params": {"_meta": envelope()}}))
            got = {t["name"] for t in listed["result"]["tools"]}
            if got:
                break
            assert time.monotonic() < deadline, listed
            time.sleep(0.05)
        assert got == {"s_p-000__read_sensor"}, got
        answer = json.loads(gw.ask(call("r", "s_p-000__read_sensor", {"sensor_id": "t1"})))
        assert answer["result"]["isError"] is False, answer
        deadline = time.monotonic() + 5
        while not any("device=s_p-000 tool=read_sensor outcome=ok" in e for e in gw.err):
            assert time.monotonic() < deadline, gw.err
            time.sleep(0.05)
    finally:
        if gw is not None:
            gw.close()
        sim.kill()
        sim.wait()
