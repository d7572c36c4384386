"""Helpers for the MQTT binding tests: a real mosquitto broker on a free
loopback port, greenhouse-mqtt processes, and a paho-mqtt 2.x MQTT 5
requester. Every wait has a timeout; every process is stopped at teardown.
"""

from __future__ import annotations

import getpass
import json
import os
import queue
import re
import signal
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEFAULT_BINARY = REPO / "build" / "examples-c" / "greenhouse" / "greenhouse-mqtt"

MODERN = "2026-07-28"
CONTENT_TYPE = "application/json"


def binary_path() -> Path:
    """greenhouse-mqtt: $GREENHOUSE_MQTT or the default build path."""
    return Path(os.environ.get("GREENHOUSE_MQTT") or DEFAULT_BINARY)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(pred, timeout: float, what: str, interval: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


# ---- JSON-RPC requests ------------------------------------------------------


def envelope() -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "emcp-mqtt-tests", "version": "1"},
    }


def modern(method: str, id: Any = 1, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": {"_meta": envelope(), **params}}


def call(tool: str, args: dict[str, Any], id: Any = 1) -> dict[str, Any]:
    return modern("tools/call", id, name=tool, arguments=args)


def dumps(msg: Any) -> bytes:
    return json.dumps(msg, separators=(",", ":")).encode()


# ---- Broker -----------------------------------------------------------------


class Broker:
    """A mosquitto 2.x broker on 127.0.0.1:port with persistence in `workdir`
    (so retained presence, and the Wills mosquitto publishes when it shuts
    down, survive a restart)."""

    def __init__(self, workdir: Path, port: int | None = None, extra_conf: str = "") -> None:
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.workdir, 0o777)
        self.port = port or free_port()
        self.conf = self.workdir / "mosquitto.conf"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\n"
            f"persistence true\npersistence_location {self.workdir}/\n"
            f"user {getpass.getuser()}\nset_tcp_nodelay true\n"
            "log_type error\nlog_type warning\nlog_type notice\nlog_type information\n"
            + (extra_conf or "allow_anonymous true\n")
        )
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    def start(self, timeout: float = 10.0) -> None:
        assert self.proc is None
        self.starts += 1
        log = open(self.workdir / f"mosquitto-{self.starts}.log", "wb")
        self.proc = subprocess.Popen(
            ["mosquitto", "-c", str(self.conf)], stdout=log, stderr=subprocess.STDOUT
        )
        log.close()

        def listening() -> bool:
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(f"mosquitto exited: {self.log_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return True
            except OSError:
                return False

        wait_until(listening, timeout, f"mosquitto on port {self.port}")

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout)
        self.proc = None

    def log_text(self) -> str:
        return "".join(p.read_text(errors="replace") for p in sorted(self.workdir.glob("mosquitto-*.log")))


# ---- greenhouse-mqtt ---------------------------------------------------------

# The greenhouse's audit line (examples-c/greenhouse/greenhouse.h).
AUDIT_RE = re.compile(
    r"audit: principal=\S+ tool=[A-Za-z0-9_.-]+ args=\S.* "
    r"outcome=(ok|is_error|refused|rate_limited|duplicate|invalid_arguments|input_required|failed) "
    r"trace=([0-9a-f]{32}|-) ms=\d+"
)


def audit_entry(line: str) -> str:
    """An audit line checked against the documented format, without `ms=`."""
    assert AUDIT_RE.fullmatch(line), f"malformed audit line: {line!r}"
    return re.sub(r" ms=\d+$", "", line)


def audit(tool: str, args, outcome: str, principal: str = "anonymous", trace: str = "-") -> str:
    """An expected audit line (without `ms=`); the principal is the gateway's
    MQTT username, "anonymous" without --username."""
    text = args if isinstance(args, str) else json.dumps(args, separators=(",", ":"), ensure_ascii=False)
    return f"audit: principal={principal} tool={tool} args={text} outcome={outcome} trace={trace}"


class Gateway:
    """A greenhouse-mqtt process; stderr (logs and audit lines) is collected."""

    def __init__(self, binary: Path, port: int, server_id: str, *args: str, env: dict | None = None) -> None:
        self.server_id = server_id
        self.argv = [str(binary), "--broker", f"127.0.0.1:{port}", "--server-id", server_id, *args]
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        self._lines: list[str] = []
        self._lock = threading.Lock()
        self.killed = False  # the test killed it on purpose (no exit status to check)
        self._stdout: list[bytes] = []
        threading.Thread(target=self._read, args=(self.proc.stderr, True), daemon=True).start()
        threading.Thread(target=self._read, args=(self.proc.stdout, False), daemon=True).start()

    def _read(self, stream, is_err: bool) -> None:
        try:
            for raw in iter(stream.readline, b""):
                if is_err:
                    with self._lock:
                        self._lines.append(raw.decode(errors="replace").rstrip("\n"))
                else:
                    self._stdout.append(raw)
        except (OSError, ValueError):
            pass

    def lines(self) -> list[str]:
        with self._lock:
            return list(self._lines)

    def text(self) -> str:
        return "\n".join(self.lines())

    def count(self, pattern: str) -> int:
        rx = re.compile(pattern)
        return sum(1 for line in self.lines() if rx.search(line))

    def audits(self, tool: str | None = None) -> list[str]:
        """The audit lines so far (of one tool), format-checked, without `ms=`."""
        return [audit_entry(l) for l in self.lines() if l.startswith("audit: ") and (tool is None or f" tool={tool} " in l)]

    def vent_moves(self) -> list[str]:
        """The simulated actuator's log: one `vent: A% -> B%` line per movement."""
        return [l for l in self.lines() if l.startswith("vent: ")]

    def wait_log(self, pattern: str, timeout: float = 10.0, count: int = 1) -> None:
        try:
            wait_until(lambda: self.count(pattern) >= count, timeout, f"log line /{pattern}/ x{count}")
        except AssertionError:
            raise AssertionError(f"no log /{pattern}/ (x{count}) within {timeout}s; stderr:\n{self.text()}") from None

    def signal(self, sig: int) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)

    def stop(self, timeout: float = 10.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)
        return self.proc.returncode

    def kill(self) -> None:
        self.killed = True
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


# ---- MQTT 5 client (paho-mqtt 2.x) ----------------------------------------------


class Reply:
    def __init__(self, msg: mqtt.MQTTMessage) -> None:
        self.topic = msg.topic
        self.payload: bytes = msg.payload
        self.retain = msg.retain
        props = msg.properties
        self.correlation: bytes | None = getattr(props, "CorrelationData", None) if props else None
        self.content_type: str | None = getattr(props, "ContentType", None) if props else None
        self.response_topic: str | None = getattr(props, "ResponseTopic", None) if props else None
        self.received = time.monotonic()

    def json(self) -> Any:
        return json.loads(self.payload)


class Client:
    """An MQTT 5 requester: its own response topic, correlation per request."""

    def __init__(self, port: int, name: str = "req", username: str | None = None, password: str | None = None,
                 tls: dict | None = None) -> None:
        self.port = port
        self.client_id = f"{name}-{uuid.uuid4().hex[:8]}"
        self.response_topic = f"clients/{self.client_id}/responses"
        self.replies: queue.Queue[Reply] = queue.Queue()
        self.all: list[Reply] = []
        self.extra: dict[str, queue.Queue[Reply]] = {}
        self._connected = threading.Event()
        self._subacks: queue.Queue[int] = queue.Queue()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=self.client_id, protocol=mqtt.MQTTv5)
        self.c.max_inflight_messages_set(100)
        if username is not None:
            self.c.username_pw_set(username, password)
        if tls is not None:
            self.c.tls_set(**tls)
        self.c.on_connect = lambda c, u, f, rc, p: self._connected.set() if not rc.is_failure else None
        self.c.on_message = self._on_message
        self.c.on_subscribe = lambda c, u, mid, rcs, p: self._subacks.put(mid)
        self.c.connect("127.0.0.1", port, keepalive=30)
        # paho leaves Nagle on: a PUBACK followed by the next PUBLISH would
        # wait for the broker's delayed ACK (~40 ms per round trip).
        sock = self.c.socket()
        if isinstance(sock, socket.socket):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.c.loop_start()
        if not self._connected.wait(10):
            raise AssertionError(f"MQTT client could not connect to port {port}")
        self.subscribe(self.response_topic)

    def subscribe(self, topic: str, timeout: float = 10.0) -> None:
        rc, mid = self.c.subscribe(topic, qos=1)
        assert rc == mqtt.MQTT_ERR_SUCCESS
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self._subacks.get(timeout=max(0.01, deadline - time.monotonic())) == mid:
                    return
            except queue.Empty:
                raise AssertionError(f"no SUBACK for {topic} within {timeout}s") from None

    def watch(self, topic_filter: str) -> queue.Queue[Reply]:
        """Collects messages on `topic_filter` (e.g. presence) in their own queue."""
        q: queue.Queue[Reply] = queue.Queue()
        self.extra[topic_filter] = q
        self.subscribe(topic_filter)
        return q

    def _on_message(self, c, u, msg: mqtt.MQTTMessage) -> None:
        r = Reply(msg)
        for flt, q in self.extra.items():
            if mqtt.topic_matches_sub(flt, msg.topic):
                q.put(r)
                return
        self.all.append(r)
        self.replies.put(r)

    def publish(self, topic: str, payload: bytes, correlation: bytes | None = None,
                response_topic: str | None | bool = True, content_type: str | None = CONTENT_TYPE,
                timeout: float = 10.0) -> None:
        props = Properties(PacketTypes.PUBLISH)
        if response_topic is True:
            props.ResponseTopic = self.response_topic
        elif response_topic:
            props.ResponseTopic = response_topic
        if correlation is not None:
            props.CorrelationData = correlation
        if content_type is not None:
            props.ContentType = content_type
        info = self.c.publish(topic, payload, qos=1, properties=props)
        info.wait_for_publish(timeout)
        assert info.is_published(), f"PUBLISH to {topic} was not acknowledged within {timeout}s"

    def next_reply(self, timeout: float = 10.0) -> Reply:
        try:
            return self.replies.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no reply within {timeout}s") from None

    def drain(self) -> list[Reply]:
        """Takes every reply queued so far."""
        out = []
        while True:
            try:
                out.append(self.replies.get_nowait())
            except queue.Empty:
                return out

    def expect_no_reply(self, seconds: float = 1.0) -> None:
        try:
            r = self.replies.get(timeout=seconds)
        except queue.Empty:
            return
        raise AssertionError(f"unexpected reply: {r.payload[:200]!r}")

    def request(self, topic: str, msg: Any, correlation: bytes | None = None, timeout: float = 10.0) -> Reply:
        """Publishes one request and returns its reply, checking the properties."""
        corr = correlation if correlation is not None else uuid.uuid4().bytes
        payload = msg if isinstance(msg, bytes) else dumps(msg)
        self.publish(topic, payload, corr)
        r = self.next_reply(timeout)
        assert r.correlation == corr, f"correlation {r.correlation!r} != {corr!r}"
        assert r.content_type == CONTENT_TYPE, f"content type {r.content_type!r}"
        assert r.topic == self.response_topic
        return r

    def close(self) -> None:
        try:
            self.c.disconnect()
        finally:
            self.c.loop_stop()
