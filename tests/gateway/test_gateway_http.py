"""emcp-gateway over Streamable HTTP (--http): the MCP Python SDK client
(mcp 2.3.0) in both eras lists and calls the tools of three real
greenhouse-mqtt devices through the gateway; the HTTP binding's rules (Origin
check, bearer tokens) apply to the gateway as to a device.

Run with `pytest -s` to read the exchange.
"""

from __future__ import annotations

import json
import os
import queue
import re
import secrets
import shlex
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

from conftest import DEVICES, LEGACY, MODERN, expected, names, text_of
from mqtt_support import REPO
from sanitizers import report_in

SESSION_S = 60
TOKEN = "gw-test-token-7f3a"


class HttpGateway:
    """emcp-gateway --http 127.0.0.1:0; its URL is read from its log."""

    def __init__(self, binary: str, broker_port: int, *args: str, env: dict[str, str] | None = None,
                 argv: list[str] | None = None, stdio: bool = False) -> None:
        if argv is None:
            argv = [binary, "--broker", f"127.0.0.1:{broker_port}", "--timeout-ms", "2000", "--http", "127.0.0.1:0",
                    *args]
        # stdio: raw JSON-RPC lines on its stdin and stdout too (--stdio).
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdio else subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env={**os.environ, **(env or {})})
        self.err: list[str] = []
        self.out: queue.Queue[bytes] = queue.Queue()
        self._lock = threading.Lock()
        threading.Thread(target=self._drain, daemon=True).start()
        if stdio:
            threading.Thread(target=self._read, daemon=True).start()
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

    def _read(self) -> None:
        for raw in iter(self.proc.stdout.readline, b""):
            self.out.put(raw)

    def send(self, msg: dict[str, Any]) -> None:
        """One JSON-RPC line on its stdin (stdio=True)."""
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def line(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next line on its stdout, parsed."""
        try:
            return json.loads(self.out.get(timeout=timeout))
        except queue.Empty:
            raise AssertionError(f"no line on stdout within {timeout}s:\n{self.text()}") from None

    def audits(self, at_least: int = 0, timeout: float = 5.0) -> list[str]:
        """The audit lines so far, once there are `at_least` of them (or the
        timeout passed): a line is written after its answer is sent, so the
        last call's may still be on its way to the reader thread."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                got = [line for line in self.err if line.startswith("audit: ")]
            if len(got) >= at_least or time.monotonic() > deadline:
                return got
            time.sleep(0.02)

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
        audits = gw.audits(at_least=6)
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


def readme_http_command(gateway_bin: str, broker_port: int) -> tuple[list[str], dict[str, str]]:
    """README.md's "A fleet" HTTP command (`<!-- readme-command:gateway-http -->`):
    its `export` line gives the token variables (fresh random tokens, as
    `openssl rand -hex 24` would), the rest is the command line, with the
    build path, the broker's port and a free HTTP port filled in."""
    text = (REPO / "README.md").read_text()
    marker = "<!-- readme-command:gateway-http -->"
    body = text[text.index(marker) + len(marker):].split("```sh\n", 1)[1].split("\n```", 1)[0]
    export, command = body.split("\n", 1)
    env = {}
    for word in shlex.split(export)[1:]:
        name, value = word.split("=", 1)
        assert value == "$(openssl rand -hex 24)", value
        env[name] = secrets.token_hex(24)
    argv = shlex.split(command.replace("\\\n", " "))
    assert argv[0] == "build/tools/gateway/emcp-gateway", argv
    assert os.path.samefile(REPO / argv[0], gateway_bin) or argv[0].endswith("tools/gateway/emcp-gateway")
    argv[0] = gateway_bin
    swap = {"127.0.0.1:1883": f"127.0.0.1:{broker_port}", "127.0.0.1:8090": "127.0.0.1:0"}
    assert set(swap) <= set(argv), argv
    return [swap.get(a, a) for a in argv], env


def test_two_tenants_see_disjoint_devices(gateway_bin, broker, fleet):
    """README's HTTP command: principals from bearer tokens; --allow gives
    each tool the core's principal list. Each tenant lists only its devices,
    and a call across tenants is answered exactly as an unknown tool: the
    device never sees it. One audit line per call names the principal."""
    argv, tokens = readme_http_command(gateway_bin, broker.port)
    gw = HttpGateway(gateway_bin, broker.port, argv=argv, env=tokens)
    try:
        def as_tenant(tenant: str) -> dict[str, str]:
            return {"Authorization": f"Bearer {tokens['GW_TOKEN_' + tenant.upper()]}"}

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

        north, south = tools("north"), tools("south")
        print(f"\n  north: {sorted(north)}\n  south: {sorted(south)}")
        assert north == expected(["gh-a", "gh-b"])
        assert south == expected(["gh-c"])
        assert not {n.split(".")[0] for n in north} & {n.split(".")[0] for n in south}, "tenants share a device"

        # Each tenant's own calls work.
        ok = call("north", "gh-a.set_vent", {"percent": 15})["result"]["structuredContent"]
        assert ok == {"ok": True, "percent": 15}
        ok = call("south", "gh-c.set_vent", {"percent": 25})["result"]["structuredContent"]
        assert ok == {"ok": True, "percent": 25}

        # Across tenants: the same answer as for a tool that does not exist.
        unknown = call("south", "gh-zz.set_vent", {"percent": 35})
        cross = call("south", "gh-a.set_vent", {"percent": 35})
        print(f"  south calls gh-a.set_vent: {cross}")
        assert "error" in cross and cross["error"]["code"] == -32602, cross
        assert cross["error"]["message"].replace("gh-a", "X") == unknown["error"]["message"].replace("gh-zz", "X")
        assert call("north", "gh-c.read_sensor", {"sensor_id": "t1"})["error"]["code"] == -32602
        time.sleep(0.3)
        assert fleet.devices["gh-a"].vent_moves() == ["vent: 0% -> 15%"]
        assert fleet.devices["gh-c"].audits("read_sensor") == []

        audits = gw.audits(at_least=4)
        print("  " + "\n  ".join(audits))
        assert [a.split(" ms=")[0] for a in audits] == [
            "audit: principal=north device=gh-a tool=set_vent outcome=ok",
            "audit: principal=south device=gh-c tool=set_vent outcome=ok",
            "audit: principal=south device=gh-a tool=set_vent outcome=refused",
            "audit: principal=north device=gh-c tool=read_sensor outcome=refused",
        ]
    finally:
        gw.stop()


def test_allow_items_name_tools_and_globs(gateway_bin, broker, fleet):
    """--allow items: DEVICE.TOOL and '*' globs. An auditor reads every
    device's sensors and may move nothing; a principal with no rule sees no
    tool."""
    tokens = {"GW_TOKEN_AUDITOR": secrets.token_hex(24), "GW_TOKEN_GUEST": secrets.token_hex(24)}
    gw = HttpGateway(gateway_bin, broker.port, "--token-env", "auditor=GW_TOKEN_AUDITOR",
                     "--token-env", "guest=GW_TOKEN_GUEST", "--allow", "auditor=gh-*.read_sensor",
                     "--allow", "ops=gh-a", env=tokens)
    try:
        def ask(who: str, msg: dict[str, Any]) -> dict[str, Any]:
            name = {"Mcp-Name": msg["params"]["name"]} if msg["method"] == "tools/call" else {}
            status, body = post(gw.url, msg, {"Authorization": f"Bearer {tokens['GW_TOKEN_' + who.upper()]}", **name})
            assert status in (200, 400), body  # 400: a JSON-RPC error (an unknown tool)
            return json.loads(body)

        listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": envelope()}}
        assert {t["name"] for t in ask("auditor", listing)["result"]["tools"]} == {f"{d}.read_sensor" for d in DEVICES}
        assert ask("guest", listing)["result"]["tools"] == []
        r = ask("auditor", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "_meta": envelope(), "name": "gh-b.set_vent", "arguments": {"percent": 10}}})
        assert r["error"]["code"] == -32602, r
        r = ask("auditor", {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "_meta": envelope(), "name": "gh-b.read_sensor", "arguments": {"sensor_id": "t1"}}})
        assert r["result"]["isError"] is False, r
    finally:
        gw.stop()


def test_listen_stream_over_http(gateway_bin, broker, fleet):
    """2026-07-28 subscriptions/listen over HTTP: the binding's SSE stream
    gets notifications/tools/list_changed when a device's Will clears it."""
    import http.client
    import socket
    from urllib.parse import urlparse

    gw = HttpGateway(gateway_bin, broker.port)
    u = urlparse(gw.url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    try:
        body = json.dumps({"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen",
                           "params": {"_meta": envelope(), "notifications": {"toolsListChanged": True}}})
        conn.request("POST", u.path, body=body, headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": MODERN, "Mcp-Method": "subscriptions/listen"})
        resp = conn.getresponse()
        assert resp.status == 200 and resp.getheader("Content-Type", "").startswith("text/event-stream")

        def event(timeout: float) -> dict[str, Any]:
            resp.fp.raw._sock.settimeout(timeout)  # type: ignore[attr-defined]
            while True:
                try:
                    line = resp.fp.readline().decode()
                except socket.timeout:
                    raise AssertionError(f"no event within {timeout}s:\n{gw.text()}") from None
                if line.startswith("data:"):
                    return json.loads(line[5:])

        assert event(5)["method"] == "notifications/subscriptions/acknowledged"
        fleet.devices["gh-c"].kill()
        note = event(5)
        assert note["method"] == "notifications/tools/list_changed", note
        status, listed = post(gw.url, {"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                                       "params": {"_meta": envelope()}})
        assert status == 200, listed
        assert {t["name"] for t in json.loads(listed)["result"]["tools"]} == expected(["gh-a", "gh-b"])
    finally:
        conn.close()
        gw.stop()


def test_legacy_http_client_gets_list_changed(gateway_bin, broker, fleet):
    """A 2025-11-25 client over HTTP (the Python SDK in legacy mode, with a
    bearer token) opens the standalone GET stream after initialize (the HTTP
    binding's legacy_stream, which the gateway turns on). A device killed
    (its Last Will) sends it notifications/tools/list_changed and the new
    list lacks its tools; the device back, another one, and its tools are
    listed again. Without the GET stream (legacy_stream off: GET is 405)
    no notification comes and the test fails at the first wait for one."""
    gw = HttpGateway(gateway_bin, broker.port, "--token-env", "ops=GW_TOKEN_OPS", env={"GW_TOKEN_OPS": TOKEN})
    changes: list[float] = []

    async def on_message(msg) -> None:
        method = getattr(getattr(msg, "root", msg), "method", None)
        if method == "notifications/tools/list_changed":
            changes.append(time.monotonic())

    async def wait_change(count: int, what: str) -> None:
        deadline = time.monotonic() + 10
        while len(changes) < count:
            assert time.monotonic() < deadline, f"no notifications/tools/list_changed #{count} ({what})"
            await anyio.sleep(0.02)
        print(f"  list_changed #{count} ({what})")

    async def run() -> None:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        transport = streamable_http_client(gw.url, http_client=create_mcp_http_client(headers=headers))
        with anyio.fail_after(SESSION_S):
            async with Client(transport, mode="legacy", read_timeout_seconds=10, message_handler=on_message) as c:
                assert c.protocol_version == LEGACY
                assert names(await c.list_tools()) == expected(DEVICES)
                # The SDK opens the GET stream after notifications/initialized, in
                # the background: give it until the binding logs it (not asserted
                # here: without the stream the wait for the notification fails).
                gw_deadline = time.monotonic() + 5
                while "legacy GET stream opened" not in gw.text() and time.monotonic() < gw_deadline:
                    await anyio.sleep(0.02)
                t0 = time.monotonic()
                fleet.devices["gh-b"].kill()
                await wait_change(1, f"gh-b killed, after {time.monotonic() - t0:.3f}s")
                assert names(await c.list_tools()) == expected(["gh-a", "gh-c"])
                t0 = time.monotonic()
                fleet.start("gh-b")
                await wait_change(2, f"gh-b back, after {time.monotonic() - t0:.3f}s")
                # The notification follows the tools' registration: they are listed now.
                assert names(await c.list_tools()) == expected(DEVICES)
                r = await c.call_tool("gh-b.read_sensor", {"sensor_id": "t1"})
                assert r.is_error is False and r.structured_content["value"] == 21.5

    try:
        anyio.run(run)
    finally:
        gw.stop()


def test_legacy_get_stream_rules(gateway_bin, broker, fleet):
    """The legacy GET stream keeps the binding's rules: no token 401, a
    foreign Origin 403, no session 400, a session that does not verify 404,
    Accept without text/event-stream 406, a 2026-07-28 GET 405; with a valid
    session it is an SSE stream whose first event is the list change (no
    subscriptions acknowledgement, which is not a legacy message); beyond
    the binding's EMCP_HTTP_MAX_LISTENERS (4) streams 503."""
    import http.client
    import socket
    from urllib.parse import urlparse

    gw = HttpGateway(gateway_bin, broker.port, "--token-env", "ops=GW_TOKEN_OPS", env={"GW_TOKEN_OPS": TOKEN})
    u = urlparse(gw.url)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    conns: list[http.client.HTTPConnection] = []
    try:
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
        req = urllib.request.Request(gw.url, data=json.dumps(init).encode(), method="POST", headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **auth})
        with urllib.request.urlopen(req, timeout=10) as r:
            sid = r.headers["Mcp-Session-Id"]
            assert r.status == 200 and sid
            body = r.read().decode()
        # initialize says lists change: this GET stream carries them.
        init_result = json.loads(body[body.index("{"):body.rindex("}") + 1])["result"]
        assert init_result["capabilities"]["tools"] == {"listChanged": True}, init_result

        def get(headers: dict[str, str]) -> http.client.HTTPResponse:
            conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
            conns.append(conn)
            conn.request("GET", u.path, headers=headers)
            return conn.getresponse()

        sse = {"Accept": "text/event-stream", "MCP-Protocol-Version": LEGACY}
        assert get({**sse, "Mcp-Session-Id": sid}).status == 401
        assert get({**sse, **auth, "Mcp-Session-Id": sid, "Origin": "https://evil.example"}).status == 403
        assert get({**sse, **auth}).status == 400
        assert get({**sse, **auth, "Mcp-Session-Id": sid[:-1] + ("0" if sid[-1] != "0" else "1")}).status == 404
        assert get({"Accept": "application/json", **auth, "Mcp-Session-Id": sid}).status == 406
        assert get({**sse, **auth, "Mcp-Session-Id": sid, "MCP-Protocol-Version": MODERN}).status == 405
        stream = get({**sse, **auth, "Mcp-Session-Id": sid})
        assert stream.status == 200 and stream.getheader("Content-Type", "").startswith("text/event-stream")
        fleet.devices["gh-a"].kill()
        stream.fp.raw._sock.settimeout(5)  # type: ignore[attr-defined]
        while True:
            try:
                line = stream.fp.readline().decode()
            except socket.timeout:
                raise AssertionError(f"no event on the GET stream:\n{gw.text()}") from None
            if line.startswith("data:"):
                break
        note = json.loads(line[5:])
        assert note["method"] == "notifications/tools/list_changed" and "id" not in note, note
        more = [get({**sse, **auth, "Mcp-Session-Id": sid}) for _ in range(4)]
        assert [r.status for r in more] == [200, 200, 200, 503], [r.status for r in more]
    finally:
        for conn in conns:
            conn.close()
        gw.stop()


def readme_both_entry(gateway_bin: str, broker_port: int) -> tuple[list[str], dict[str, str]]:
    """README.md's stdio-and-HTTP host entry (`<!-- host-config:mcpservers-gateway-both -->`):
    its command and args with the build path, the broker's port and a free
    HTTP port filled in; its env block's "${VAR}" values as fresh tokens."""
    text = (REPO / "README.md").read_text()
    marker = "<!-- host-config:mcpservers-gateway-both -->"
    body = text[text.index(marker) + len(marker):].split("```json\n", 1)[1].split("\n```", 1)[0]
    server = json.loads(body)["mcpServers"]["fleet"]
    assert server["command"].endswith("/build/tools/gateway/emcp-gateway"), server
    env = {}
    for name, value in server["env"].items():
        assert value == "${" + name + "}", value
        env[name] = secrets.token_hex(24)
    swap = {"127.0.0.1:1883": f"127.0.0.1:{broker_port}", "127.0.0.1:8090": "127.0.0.1:0"}
    assert set(swap) <= set(server["args"]), server["args"]
    return [gateway_bin, *[swap.get(a, a) for a in server["args"]]], env


def test_stdio_and_http_from_one_process(gateway_bin, broker, fleet):
    """README's stdio-and-HTTP entry (--http with --stdio): one process serves
    an assistant on stdio and an IDE over HTTP, with one broker connection
    and one tool table, and the
    policy per transport: the stdio principal is --principal (desk), the HTTP
    one the bearer token's (ide). Each lists and calls only what --allow gives
    it; a device's Will reaches both, the stdio listen stream and the legacy
    HTTP client's GET stream; the audit lines name each principal; end of
    input stops the process cleanly."""
    argv, tokens = readme_both_entry(gateway_bin, broker.port)
    assert argv[-8:] == ["--principal", "desk", "--token-env", "ide=GW_TOKEN_IDE",
                         "--allow", "desk=gh-a,gh-b", "--allow", "ide=gh-b,gh-c"], argv
    gw = HttpGateway(gateway_bin, broker.port, argv=[*argv, "--timeout-ms", "2000"], env=tokens, stdio=True)
    http_changes: list[float] = []

    async def on_message(msg) -> None:
        if getattr(getattr(msg, "root", msg), "method", None) == "notifications/tools/list_changed":
            http_changes.append(time.monotonic())

    def stdio_tools() -> set[str]:
        gw.send({"jsonrpc": "2.0", "id": "t", "method": "tools/list", "params": {"_meta": envelope()}})
        r = gw.line()
        assert r["id"] == "t", r
        return {t["name"] for t in r["result"]["tools"]}

    async def run() -> None:
        # stdio: a 2026-07-28 listen stream, then the list and calls.
        gw.send({"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen",
                 "params": {"_meta": envelope(), "notifications": {"toolsListChanged": True}}})
        assert gw.line()["method"] == "notifications/subscriptions/acknowledged"
        assert stdio_tools() == expected(["gh-a", "gh-b"])
        # A line is answered as soon as it arrives, not when the HTTP binding's
        # wait (up to 1 s) ends: its wait ends on stdin (the binding's wake_fds).
        t0 = time.monotonic()
        for i in range(10):
            time.sleep(0.02)
            assert len(stdio_tools()) == 4
        took = time.monotonic() - t0
        print(f"\n  10 stdio tools/list with idle gaps: {took:.3f}s")
        assert took < 3.0, f"10 stdio lines took {took:.1f}s: stdin does not end the HTTP binding's wait"
        headers = {"Authorization": f"Bearer {tokens['GW_TOKEN_IDE']}"}
        transport = streamable_http_client(gw.url, http_client=create_mcp_http_client(headers=headers))
        with anyio.fail_after(SESSION_S):
            async with Client(transport, mode="legacy", read_timeout_seconds=10, message_handler=on_message) as c:
                assert names(await c.list_tools()) == expected(["gh-b", "gh-c"])
                r = await c.call_tool("gh-c.set_vent", {"percent": 20})
                assert r.is_error is False and r.structured_content == {"ok": True, "percent": 20}, text_of(r)
                # stdio between two HTTP requests: served while HTTP is too.
                gw.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                    "_meta": envelope(), "name": "gh-a.read_sensor", "arguments": {"sensor_id": "t1"}}})
                r1 = gw.line()
                assert r1["id"] == 1 and r1["result"]["structuredContent"]["value"] == 21.5, r1
                gw.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                    "_meta": envelope(), "name": "gh-c.read_sensor", "arguments": {"sensor_id": "t1"}}})
                r2 = gw.line()
                assert r2["id"] == 2 and r2["error"]["code"] == -32602, r2  # not desk's
                deadline = time.monotonic() + 5
                while "legacy GET stream opened" not in gw.text() and time.monotonic() < deadline:
                    await anyio.sleep(0.02)
                # A device's Will: both transports are told, both lists lose it.
                fleet.devices["gh-b"].kill()
                note = gw.line(timeout=5)
                assert note["method"] == "notifications/tools/list_changed", note
                deadline = time.monotonic() + 10
                while not http_changes:
                    assert time.monotonic() < deadline, "no list_changed on the HTTP client's GET stream"
                    await anyio.sleep(0.02)
                assert stdio_tools() == expected(["gh-a"])
                assert names(await c.list_tools()) == expected(["gh-c"])

    try:
        anyio.run(run)
        audits = [a.split(" ms=")[0] for a in gw.audits(at_least=3)]
        assert audits == [
            "audit: principal=ide device=gh-c tool=set_vent outcome=ok",
            "audit: principal=desk device=gh-a tool=read_sensor outcome=ok",
            "audit: principal=desk device=gh-c tool=read_sensor outcome=refused",
        ], audits
        text = gw.text()
        assert "serving on stdio and HTTP" in text, text
        assert text.count("emcp-gateway: connected to ") == 1, text  # one broker connection
        gw.proc.stdin.close()  # end of input stops both
        assert gw.proc.wait(10) == 0, gw.text()
        marker = report_in(gw.text())
        assert marker is None, f"{marker} in emcp-gateway's stderr:\n{gw.text()[-3000:]}"
    finally:
        if gw.proc.poll() is None:
            gw.proc.kill()
