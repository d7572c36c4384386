"""Starting greenhouse-http on a free port, and a small raw HTTP/1.1 client."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
START_TIMEOUT_S = 10


# The greenhouse's audit line (examples-c/greenhouse/greenhouse.h).
AUDIT_RE = re.compile(
    r"audit: principal=(\S+) tool=([A-Za-z0-9_.-]+) args=(\S.*) "
    r"outcome=(ok|is_error|refused|rate_limited|duplicate|invalid_arguments|input_required|failed) "
    r"trace=([0-9a-f]{32}|-) ms=(\d+)"
)


def audit_entry(line: str) -> str:
    """An audit line checked against the documented format, without `ms=`."""
    assert AUDIT_RE.fullmatch(line), f"malformed audit line: {line!r}"
    return re.sub(r" ms=\d+$", "", line)


def audit(tool: str, args, outcome: str, principal: str = "-", trace: str = "-") -> str:
    """An expected audit line (without `ms=`); over HTTP without a token the principal is "-"."""
    text = args if isinstance(args, str) else json.dumps(args, separators=(",", ":"), ensure_ascii=False)
    return f"audit: principal={principal} tool={tool} args={text} outcome={outcome} trace={trace}"


def binary(name: str, env: str, rel: str) -> str:
    path = Path(os.environ.get(env, ROOT / rel))
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: build with cmake (needs libhttp-parser-dev) or set {env}")
    return str(path)


class HttpServer:
    """A greenhouse-http (or other emcp HTTP example) process on 127.0.0.1:<free port>."""

    def __init__(self, path: str, *args: str):
        self.log = tempfile.NamedTemporaryFile(prefix="emcp-http-", suffix=".log", delete=False)
        self.proc = subprocess.Popen([path, "--listen", "127.0.0.1:0", *args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + START_TIMEOUT_S
        self.port = 0
        while time.monotonic() < deadline:
            m = re.search(r"listening on (https?)://127\.0\.0\.1:(\d+)/mcp", self.stderr())
            if m:
                self.scheme, self.port = m.group(1), int(m.group(2))
                break
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: {self.stderr()}")
            time.sleep(0.02)
        if not self.port:
            self.stop()
            raise RuntimeError("server did not report its port")
        self.url = f"{self.scheme}://127.0.0.1:{self.port}/mcp"

    def stderr(self) -> str:
        return Path(self.log.name).read_text(errors="replace")

    def audit_lines(self) -> list[str]:
        """The audit lines so far, format-checked, without their `ms=` duration."""
        return [audit_entry(line) for line in self.stderr().splitlines() if line.startswith("audit: ")]

    def finish(self) -> tuple[bool, int | None, str]:
        """Ends the server with SIGTERM, as a clean shutdown test expects, and
        returns (was it still running, its exit status, its whole stderr)."""
        alive = self.proc.poll() is None
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass  # stop() kills it; the status stays None
        code, log = self.proc.returncode, self.stderr()
        self.stop()
        return alive, code, log

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.log.close()
        try:
            os.unlink(self.log.name)
        except OSError:
            pass


class Response:
    def __init__(self, status: int, headers: dict[str, str], body: bytes):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        return json.loads(self.body)


class Conn:
    """One keep-alive HTTP/1.1 connection with bounded waits (TLS when given an ssl context)."""

    def __init__(self, port: int, timeout: float = 10.0, tls=None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        if tls is not None:
            self.sock = tls.wrap_socket(self.sock, server_hostname="localhost")
        self.buf = b""

    def close(self) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def request(self, method: str = "POST", path: str = "/mcp", headers: dict[str, str] | None = None,
                body: bytes | str | dict | None = None) -> Response:
        self.send(build(method, path, headers, body))
        return self.read_response()

    def read_response(self) -> Response:
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"closed before a response: {self.buf!r}")
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {}
        for line in lines[1:]:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
        n = int(headers.get("content-length", "0"))
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed inside a body")
            self.buf += chunk
        body, self.buf = self.buf[:n], self.buf[n:]
        return Response(status, headers, body)

    def closed_by_peer(self, timeout: float = 5.0) -> bool:
        self.sock.settimeout(timeout)
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False


def build(method: str, path: str, headers: dict[str, str] | None, body) -> bytes:
    if isinstance(body, dict):
        body = json.dumps(body)
    if isinstance(body, str):
        body = body.encode()
    h = {"Host": "127.0.0.1", **(headers or {})}
    if body is not None and "Content-Length" not in h:
        h["Content-Length"] = str(len(body))
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items()) + "\r\n"
    return head.encode() + (body or b"")


def modern_headers(method: str, name: str | None = None, **extra: str) -> dict[str, str]:
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if name is not None:
        h["Mcp-Name"] = name
    h.update(extra)
    return h


def modern_body(method: str, id_=1, **params) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": {"_meta": ENVELOPE, **params}}


def call_body(name: str, arguments: dict, id_=1) -> dict:
    return modern_body("tools/call", id_, name=name, arguments=arguments)
