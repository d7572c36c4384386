"""greenhouse-http on wolfSSL with a key-exchange group, behind emcp-pqc-relay.

The relay (tests/pqc/emcp_pqc_relay.c) takes plain HTTP on a loopback port
and speaks TLS 1.3 to the server offering only the groups it is given, then
reports the group negotiated. RelayedServer looks like http_support's
HttpServer (url, port, audit_lines, stderr, finish), so a test written for
greenhouse-http runs through the relay unchanged (tests/http/conftest.py,
EMCP_PQC_GROUP); the relay's own report is checked on top.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

from http_support import HttpServer, binary

START_TIMEOUT_S = 10

# Key-share sizes (bytes) of each group: client's, server's (ML-KEM-768:
# encapsulation key 1184, ciphertext 1088; X25519 32; P-256 uncompressed 65).
SHARES = {
    "X25519": (32, 32),
    "X25519MLKEM768": (1184 + 32, 1088 + 32),
    "SecP256r1MLKEM768": (65 + 1184, 65 + 1088),
    "ML-KEM-768": (1184, 1088),
}
LINE_RE = re.compile(
    r"relay: conn=(\d+) (?:group=(\S+) version=(\S+) cipher=(\S+) handshake_us=(\d+) tx=(\d+) rx=(\d+) "
    r"round_trips=(\d+) heap_peak=(\d+) expect=(ok|MISMATCH|-)|handshake=failed tx=(\d+) rx=(\d+) error=(.*))"
)


def relay_bin() -> str:
    return binary("emcp-pqc-relay", "EMCP_PQC_RELAY", "build/pqc/tests/pqc/emcp-pqc-relay")


def make_cert(directory: Path) -> tuple[str, str]:
    """A P-256 certificate for localhost and its key: the same whichever group."""
    crt, key = directory / "cert.pem", directory / "key.pem"
    if not crt.exists():
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-nodes", "-keyout", str(key), "-out", str(crt), "-days", "2", "-subj", "/CN=localhost",
                        "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                       check=True, capture_output=True, timeout=60)
    return str(crt), str(key)


class Relay:
    """emcp-pqc-relay in front of 127.0.0.1:upstream_port."""

    def __init__(self, upstream_port: int, ca: str, groups: str, expect: str | None):
        self.log = tempfile.NamedTemporaryFile(prefix="emcp-relay-", suffix=".log", delete=False)
        self.report = tempfile.NamedTemporaryFile(prefix="emcp-relay-", suffix=".report", delete=False)
        args = [relay_bin(), "--connect", f"127.0.0.1:{upstream_port}", "--ca", ca, "--groups", groups,
                "--report", self.report.name]
        if expect is not None:
            args += ["--expect-group", expect]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log)
        self._wait_port("relay")

    def _wait_port(self, what: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        self.port = 0
        while time.monotonic() < deadline and not self.port:
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", Path(self.log.name).read_text(errors="replace"))
            if m:
                self.port = int(m.group(1))
            elif self.proc.poll() is not None:
                raise RuntimeError(f"{what} exited with {self.proc.returncode}: {self.stderr()}")
            else:
                time.sleep(0.02)
        if not self.port:
            self.finish()
            raise RuntimeError(f"{what} did not report its port")

    def stderr(self) -> str:
        return Path(self.log.name).read_text(errors="replace")

    def handshakes(self) -> list[dict]:
        """One dict per line of the report: conn, group, ..., or error."""
        out = []
        for line in Path(self.report.name).read_text().splitlines():
            m = LINE_RE.fullmatch(line)
            assert m, f"malformed relay line: {line!r}"
            conn, group, version, cipher, us, tx, rx, rt, heap, expect, ftx, frx, error = m.groups()
            if error is not None:
                out.append({"conn": int(conn), "error": error, "tx": int(ftx), "rx": int(frx)})
            else:
                out.append({"conn": int(conn), "group": group, "version": version, "cipher": cipher,
                            "handshake_us": int(us), "tx": int(tx), "rx": int(rx), "round_trips": int(rt),
                            "heap_peak": int(heap), "expect": expect})
        return out

    def finish(self) -> int | None:
        """SIGTERM; the relay's exit status (0, 3 another group, 4 a failed handshake)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.log.close()
        self.report.close()
        return self.proc.returncode

    def cleanup(self) -> None:
        for f in (self.log.name, self.report.name):
            try:
                os.unlink(f)
            except OSError:
                pass


class RelayedServer:
    """greenhouse-http serving TLS with --tls-groups server_groups, reached
    through a relay offering relay_groups; url and port are the relay's."""

    def __init__(self, server_bin: str, cert: tuple[str, str], server_groups: str, relay_groups: str,
                 expect: str | None, *args: str):
        crt, key = cert
        self.server = HttpServer(server_bin, "--tls-cert", crt, "--tls-key", key, "--tls-groups", server_groups,
                                 *args)
        assert self.server.scheme == "https"
        try:
            self.relay = Relay(self.server.port, crt, relay_groups, expect)
        except Exception:
            self.server.stop()
            raise
        self.port = self.relay.port
        self.scheme = "http"
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def stderr(self) -> str:
        return self.server.stderr()

    def audit_lines(self) -> list[str]:
        return self.server.audit_lines()

    def finish(self) -> tuple[bool, int | None, str]:
        """The server's (alive, exit status, stderr), as HttpServer.finish; the
        relay's report stays readable (handshakes) and its status in relay_rc."""
        self.relay_rc = self.relay.finish()
        return self.server.finish()


def assert_relayed_in_group(s: RelayedServer, group: str) -> None:
    """After s.finish(): every TLS handshake of the relay in front of s
    negotiated `group` (TLS 1.3) and the relay exited 0 (3: another group)."""
    shakes = s.relay.handshakes()
    s.relay.cleanup()
    assert shakes, "no TLS handshake went through the relay"
    for h in shakes:
        assert h.get("group") == group and h["expect"] == "ok" and h["version"] == "TLSv1.3", \
            f"negotiated {h}, wanted {group}"
    assert s.relay_rc == 0, f"emcp-pqc-relay exited {s.relay_rc}"


def group_under_test() -> tuple[str, str, str] | None:
    """(server groups, relay groups, expected group) from EMCP_PQC_GROUP (and
    EMCP_PQC_SERVER_GROUPS, EMCP_PQC_RELAY_GROUPS to try a mismatch), or None."""
    g = os.environ.get("EMCP_PQC_GROUP")
    if not g:
        return None
    return os.environ.get("EMCP_PQC_SERVER_GROUPS", g), os.environ.get("EMCP_PQC_RELAY_GROUPS", g), g



# ---- MQTT: emcp-pqc-terminator in front of mosquitto -------------------------

TERM_RE = re.compile(
    r"terminator: conn=(\d+) (?:group=(\S+) version=(\S+) cipher=(\S+) handshake_us=(\d+) rx=(\d+) tx=(\d+) "
    r"heap_peak=(\d+) expect=(ok|MISMATCH|-)|handshake=failed rx=(\d+) tx=(\d+) error=(.*))"
)


def terminator_bin() -> str:
    return binary("emcp-pqc-terminator", "EMCP_PQC_TERMINATOR", "build/pqc/tests/pqc/emcp-pqc-terminator")


class Terminator(Relay):
    """emcp-pqc-terminator: TLS 1.3 with `groups` on its port, plain to
    127.0.0.1:upstream_port (the broker). Its handshakes() are the server's
    view: rx the client's bytes (ClientHello, Finished), tx its own."""

    def __init__(self, upstream_port: int, cert: tuple[str, str], groups: str, expect: str | None):
        self.log = tempfile.NamedTemporaryFile(prefix="emcp-term-", suffix=".log", delete=False)
        self.report = tempfile.NamedTemporaryFile(prefix="emcp-term-", suffix=".report", delete=False)
        crt, key = cert
        args = [terminator_bin(), "--connect", f"127.0.0.1:{upstream_port}", "--cert", crt, "--key", key,
                "--groups", groups, "--report", self.report.name]
        if expect is not None:
            args += ["--expect-group", expect]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log)
        self._wait_port("terminator")

    def handshakes(self) -> list[dict]:
        out = []
        for line in Path(self.report.name).read_text().splitlines():
            m = TERM_RE.fullmatch(line)
            assert m, f"malformed terminator line: {line!r}"
            conn, group, version, cipher, us, rx, tx, heap, expect, frx, ftx, error = m.groups()
            if error is not None:
                out.append({"conn": int(conn), "error": error, "rx": int(frx), "tx": int(ftx)})
            else:
                out.append({"conn": int(conn), "group": group, "version": version, "cipher": cipher,
                            "handshake_us": int(us), "rx": int(rx), "tx": int(tx), "heap_peak": int(heap),
                            "expect": expect})
        return out
