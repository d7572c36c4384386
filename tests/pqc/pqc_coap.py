"""CoAP over DTLS 1.3 on libcoap's wolfSSL backend (issue 39, item 4).

greenhouse-coap built on such a libcoap (GREENHOUSE_COAP_WOLFSSL) serves coaps:// with a certificate and the groups of
--dtls-groups; emcp-pqc-coap-client (EMCP_PQC_COAP_CLIENT) POSTs one MCP
message with its own --groups and reports the group negotiated. Between them
UdpCounter forwards every datagram and records it, so the handshake is
counted at the CoAP layer: the UDP payloads libcoap sends and receives.
Used by tests/pqc/test_pqc_coap.py and scripts/pqc-report.
"""

from __future__ import annotations

import os
import select
import socket
import subprocess
import tempfile
import threading
import time

SKIP_REASON = ("CoAP over DTLS 1.3 needs LIBCOAP_PATH (a libcoap checkout with the wolfSSL backend, v4.3.5 or "
               "later): scripts/test.d/65-pqc.sh then builds greenhouse-coap and emcp-pqc-coap-client on it")
START_TIMEOUT_S = 10


def coap_bins() -> tuple[str, str] | None:
    """greenhouse-coap and emcp-pqc-coap-client on libcoap's wolfSSL backend, from the environment
    scripts/test.d/65-pqc.sh sets when LIBCOAP_PATH is given (scripts/lib/pqc_coap.sh); None without."""
    gh, client = os.environ.get("GREENHOUSE_COAP_WOLFSSL"), os.environ.get("EMCP_PQC_COAP_CLIENT")
    if not gh or not client:
        return None
    for b in (gh, client):
        if not os.access(b, os.X_OK):
            raise FileNotFoundError(f"{b} is not an executable (scripts/lib/pqc_coap.sh builds it)")
    return gh, client


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class CoapServer:
    """greenhouse-coap serving coaps:// with CERT (also the CA) and the groups given."""

    def __init__(self, gh: str, cert: tuple[str, str], groups: str):
        crt, key = cert
        self.port = free_udp_port()
        self._err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([gh, "--listen", f"127.0.0.1:{self.port}", "--cert", crt, "--key", key,
                                      "--ca", crt, "--dtls-groups", groups, "--log-requests"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._err)
        deadline = time.monotonic() + START_TIMEOUT_S
        while "serving MCP on" not in self.stderr():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"greenhouse-coap did not start ({self.proc.returncode}): {self.stderr()}")
            time.sleep(0.05)

    def stderr(self) -> str:
        self._err.seek(0)
        return self._err.read().decode(errors="replace")

    def stop(self) -> int:
        self.proc.terminate()
        try:
            return self.proc.wait(timeout=10)
        finally:
            self._err.close()


class UdpCounter:
    """Forwards datagrams between one client (on self.port) and 127.0.0.1:upstream; records each one."""

    def __init__(self, upstream: int):
        self.front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.front.bind(("127.0.0.1", 0))
        self.port = self.front.getsockname()[1]
        self.back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.back.connect(("127.0.0.1", upstream))
        self.datagrams: list[tuple[str, bytes]] = []  # ("c2s" | "s2c", payload)
        self._client = None
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop:
            ready, _, _ = select.select([self.front, self.back], [], [], 0.05)
            for s in ready:
                if s is self.front:
                    data, self._client = self.front.recvfrom(65535)
                    self.datagrams.append(("c2s", data))
                    self.back.send(data)
                else:
                    data = self.back.recv(65535)
                    self.datagrams.append(("s2c", data))
                    if self._client is not None:
                        self.front.sendto(data, self._client)

    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=5)
        self.front.close()
        self.back.close()


def is_handshake(data: bytes) -> bool:
    """A datagram of the DTLS 1.3 handshake: its first record is a plaintext handshake record
    (ClientHello, HelloRetryRequest, ServerHello: content type 22) or an encrypted record of
    epoch 2 (the handshake keys; unified header 001CSLEE, EE the epoch's low bits)."""
    if not data:
        return False
    if data[0] == 22:
        return True
    return (data[0] & 0xE0) == 0x20 and (data[0] & 0x03) == 2


def clienthellos(datagrams: list[tuple[str, bytes]]) -> list[list[int]]:
    """The sizes of the datagrams carrying each ClientHello the client sent (by handshake
    message_seq: the first, and the second after the server's HelloRetryRequest)."""
    hellos: dict[int, list[int]] = {}
    for direction, data in datagrams:
        # record header 13 bytes, then msg_type(1) length(3) message_seq(2)
        if direction == "c2s" and len(data) > 18 and data[0] == 22 and data[13] == 1:
            hellos.setdefault(int.from_bytes(data[17:19], "big"), []).append(len(data))
    return [hellos[k] for k in sorted(hellos)]


def summary(datagrams: list[tuple[str, bytes]]) -> dict[str, str]:
    """key=value fields of the handshake datagrams each way (pqc-report's dtls columns)."""
    out: dict[str, str] = {}
    for side, direction, to in (("client", "c2s", "client_to_server"), ("server", "s2c", "server_to_client")):
        sizes = [len(d) for dr, d in datagrams if dr == direction and is_handshake(d)]
        out[f"{side}_datagrams"] = str(len(sizes))
        out[f"{side}_datagram_sizes"] = "+".join(map(str, sizes)) or "0"
        out[f"{to}_bytes"] = str(sum(sizes))
    out["clienthello_datagram_sizes"] = "|".join("+".join(map(str, h)) for h in clienthellos(datagrams)) or "0"
    return out


def call(client: str, port: int, cert: tuple[str, str], groups: str, expect: str | None,
         payload: str, timeout_ms: int = 10000) -> subprocess.CompletedProcess:
    crt, key = cert
    args = [client, "--connect", f"127.0.0.1:{port}", "--cert", crt, "--key", key, "--ca", crt,
            "--groups", groups, "--payload", payload, "--timeout", str(timeout_ms)]
    if expect:
        args += ["--expect", expect]
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def measure(gh: str, client: str, cert: tuple[str, str], group: str, payload: str) -> dict[str, str]:
    """One tools/call in GROUP through a UdpCounter: the client's report and the datagrams counted."""
    server = CoapServer(gh, cert, group)
    counter = UdpCounter(server.port)
    try:
        p = call(client, counter.port, cert, group, group, payload)
    finally:
        counter.close()
        server.stop()
    if p.returncode != 0:
        raise RuntimeError(f"emcp-pqc-coap-client exited {p.returncode}: {p.stderr}")
    fields = dict(kv.split("=", 1) for kv in p.stderr.strip().splitlines()[-1].split())
    return {"group": fields["group"], **summary(counter.datagrams)}
