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
