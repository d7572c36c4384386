"""emcp-gateway over Streamable HTTP (--http): the MCP Python SDK client
(mcp 2.3.0) in both eras lists and calls the tools of three real
greenhouse-mqtt devices through the gateway; the HTTP binding's rules (Origin
check, bearer tokens) apply to the gateway as to a device.

Run with `pytest -s` to read the exchange.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

from conftest import DEVICES
from sanitizers import report_in

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
SESSION_S = 60
TOKEN = "gw-test-token-7f3a"


def names(listed) -> set[str]:
    return {t.name for t in listed.tools}


def expected(devices) -> set[str]:
    return {f"{d}.{t}" for d in devices for t in ("read_sensor", "set_vent")}


def text_of(result) -> str:
    return "\n".join(b.text for b in result.content if b.type == "text")


class HttpGateway:
    """emcp-gateway --http 127.0.0.1:0; its URL is read from its log."""

    def __init__(self, binary: str, broker_port: int, *args: str, env: dict[str, str] | None = None) -> None:
        import os

        self.proc = subprocess.Popen(
            [binary, "--broker", f"127.0.0.1:{broker_port}", "--timeout-ms", "2000", "--http", "127.0.0.1:0", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})})
        self.err: list[str] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._drain, daemon=True).start()
        deadline = time.monotonic() + 15
        self.url = ""
        while not self.url:
            with self._lock:
                for line in self.err:
                    m = re.search(r"listening on (http://127\.0\.0\.1:\d+/mcp)", line)
                    if m:
                        self.url = m.group(1)
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("emcp-gateway --http did not listen:\n" + self.text())
            time.sleep(0.02)

    def _drain(self) -> None:
        for raw in iter(self.proc.stderr.readline, b""):
            with self._lock:
                self.err.append(raw.decode(errors="replace").rstrip("\n"))

    def text(self) -> str:
        with self._lock:
            return "\n".join(self.err)

    def audits(self) -> list[str]:
        with self._lock:
            return [line for line in self.err if line.startswith("audit: ")]

    def stop(self) -> None:
        """SIGTERM: a clean stop (exit 0), no sanitizer report."""
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(10)
        time.sleep(0.05)
        assert rc == 0, f"emcp-gateway exited {rc}:\n{self.text()[-3000:]}"
        marker = report_in(self.text())
        assert marker is None, f"{marker} in emcp-gateway's stderr:\n{self.text()[-3000:]}"


def post(url: str, msg: dict[str, Any], headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    body = json.dumps(msg).encode()
    req = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN, "Mcp-Method": msg["method"], **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def envelope() -> dict[str, Any]:
    return {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}


async def sdk_session(url: str, mode: str, token: str | None, body) -> None:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    with anyio.fail_after(SESSION_S):
        async with Client(transport, mode=mode, read_timeout_seconds=10) as c:
            print(f"\n== emcp-gateway over HTTP mode={mode} -> protocol {c.protocol_version}")
            await body(c)


@pytest.mark.parametrize("mode,version", [("auto", MODERN), ("legacy", LEGACY)])
def test_fleet_over_http(gateway_bin, broker, fleet, mode, version):
    gw = HttpGateway(gateway_bin, broker.port, "--token-env", "ops=GW_TOKEN_OPS", env={"GW_TOKEN_OPS": TOKEN})
    try:
        async def session(c: Client) -> None:
            assert c.protocol_version == version
            assert (c.server_info.name if c.server_info else None) == "emcp-gateway"
            listed = await c.list_tools()
            assert names(listed) == expected(DEVICES)
            print(f"  tools/list: {sorted(names(listed))}")
            for i, d in enumerate(DEVICES):
                r = await c.call_tool(f"{d}.set_vent", {"percent": 5 * (i + 1)})
                assert r.is_error is False, text_of(r)
                assert r.structured_content == {"ok": True, "percent": 5 * (i + 1)}
            for i, d in enumerate(DEVICES):
                fleet.devices[d].wait_log(r"^vent: ", timeout=5)
                assert fleet.devices[d].vent_moves() == [f"vent: 0% -> {5 * (i + 1)}%"], d
            r = await c.call_tool("gh-c.read_sensor", {"sensor_id": "t1"})
            assert r.is_error is False and r.structured_content["value"] == 21.5
            # Invalid arguments: the gateway's core refuses them.
            r = await c.call_tool("gh-a.set_vent", {"percent": 130})
            assert r.is_error is True and "percent: 130 is above maximum 100" in text_of(r)
            # A killed device leaves the list; a call to it answers "offline".
            fleet.devices["gh-b"].kill()
            deadline = time.monotonic() + 10
            while names(await c.list_tools()) != expected(["gh-a", "gh-c"]):
                assert time.monotonic() < deadline, "gh-b's tools did not leave the list"
                await anyio.sleep(0.1)
            r = await c.call_tool("gh-b.read_sensor", {"sensor_id": "t1"})
            assert r.is_error is True and "device gh-b is offline" in text_of(r), text_of(r)

        anyio.run(sdk_session, gw.url, mode, TOKEN, session)
        audits = gw.audits()
        assert len(audits) == 6, audits
        assert all(a.startswith("audit: principal=ops device=") for a in audits), audits
        assert " outcome=offline " in audits[-1], audits
    finally:
        gw.stop()


def test_http_rules_are_the_bindings(gateway_bin, broker, fleet):
    """Host/Origin and bearer tokens are checked by the HTTP binding before
    the core sees a request: a foreign Origin gets 403, a missing or wrong
    token 401, the right token the tools."""
    gw = HttpGateway(gateway_bin, broker.port, "--token-env", "ops=GW_TOKEN_OPS",
                     "--allow-origin", "https://console.example", env={"GW_TOKEN_OPS": TOKEN})
    try:
        listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": envelope()}}
        auth = {"Authorization": f"Bearer {TOKEN}"}
        status, _ = post(gw.url, listing)
        assert status == 401
        status, _ = post(gw.url, listing, {"Authorization": "Bearer not-the-token"})
        assert status == 401
        status, _ = post(gw.url, listing, {**auth, "Origin": "https://evil.example"})
        assert status == 403
        status, body = post(gw.url, listing, {**auth, "Origin": "https://console.example"})
        assert status == 200, body
        assert {t["name"] for t in json.loads(body)["result"]["tools"]} == expected(DEVICES)
    finally:
        gw.stop()


TENANT_TOKENS = {"GW_TOKEN_NORTH": "north-token-19ad", "GW_TOKEN_SOUTH": "south-token-c07e",
                 "GW_TOKEN_AUDITOR": "auditor-token-5be0"}
# Two tenants: north has gh-a and gh-b, south has gh-c. An auditor reads
# every sensor (a tool-level item with a prefix) and moves nothing.
TENANT_POLICY = ["--allow", "north=gh-a,gh-b", "--allow", "south=gh-c", "--allow", "auditor=gh-*.read_sensor"]


def test_two_tenants_see_disjoint_devices(gateway_bin, broker, fleet):
    """Principals from bearer tokens; --allow gives each tool the core's
    principal list. Each tenant lists only its devices, and a call across
    tenants is answered exactly as an unknown tool: the device never sees it.
    One audit line per call names the principal."""
    gw = HttpGateway(gateway_bin, broker.port, "--token-env", "north=GW_TOKEN_NORTH",
                     "--token-env", "south=GW_TOKEN_SOUTH", "--token-env", "auditor=GW_TOKEN_AUDITOR",
                     *TENANT_POLICY, env=TENANT_TOKENS)
    try:
        def as_tenant(tenant: str) -> dict[str, str]:
            return {"Authorization": f"Bearer {TENANT_TOKENS['GW_TOKEN_' + tenant.upper()]}"}

        def tools(tenant: str) -> set[str]:
            status, body = post(gw.url, {"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                                         "params": {"_meta": envelope()}}, as_tenant(tenant))
            assert status == 200, body
            return {t["name"] for t in json.loads(body)["result"]["tools"]}

        def call(tenant: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
            status, body = post(gw.url, {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                         "params": {"_meta": envelope(), "name": name, "arguments": args}},
                                {**as_tenant(tenant), "Mcp-Name": name})
            return json.loads(body)

        north, south, auditor = tools("north"), tools("south"), tools("auditor")
        print(f"\n  north: {sorted(north)}\n  south: {sorted(south)}\n  auditor: {sorted(auditor)}")
        assert north == expected(["gh-a", "gh-b"])
        assert south == expected(["gh-c"])
        assert not {n.split(".")[0] for n in north} & {n.split(".")[0] for n in south}, "tenants share a device"
        assert auditor == {f"{d}.read_sensor" for d in DEVICES}

        # Each tenant's own calls work.
        assert call("north", "gh-a.set_vent", {"percent": 15})["result"]["structuredContent"] == {"ok": True, "percent": 15}
        assert call("south", "gh-c.set_vent", {"percent": 25})["result"]["structuredContent"] == {"ok": True, "percent": 25}
        assert call("auditor", "gh-b.read_sensor", {"sensor_id": "t1"})["result"]["isError"] is False

        # Across tenants: the same answer as for a tool that does not exist.
        unknown = call("south", "gh-zz.set_vent", {"percent": 35})
        cross = call("south", "gh-a.set_vent", {"percent": 35})
        cross_tool = call("auditor", "gh-b.set_vent", {"percent": 35})
        print(f"  south calls gh-a.set_vent: {cross}")
        assert "error" in cross and cross["error"]["code"] == -32602, cross
        assert cross["error"]["message"].replace("gh-a", "X") == unknown["error"]["message"].replace("gh-zz", "X")
        assert cross_tool["error"]["code"] == -32602, cross_tool
        assert call("north", "gh-c.read_sensor", {"sensor_id": "t1"})["error"]["code"] == -32602
        time.sleep(0.3)
        assert fleet.devices["gh-a"].vent_moves() == ["vent: 0% -> 15%"]
        assert fleet.devices["gh-b"].vent_moves() == []

        audits = gw.audits()
        print("  " + "\n  ".join(audits))
        assert [a.split(" ms=")[0] for a in audits] == [
            "audit: principal=north device=gh-a tool=set_vent outcome=ok",
            "audit: principal=south device=gh-c tool=set_vent outcome=ok",
            "audit: principal=auditor device=gh-b tool=read_sensor outcome=ok",
            "audit: principal=south device=gh-a tool=set_vent outcome=refused",
            "audit: principal=auditor device=gh-b tool=set_vent outcome=refused",
            "audit: principal=north device=gh-c tool=read_sensor outcome=refused",
        ]
    finally:
        gw.stop()
