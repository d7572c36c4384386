"""The post-quantum TLS profile over MQTT (issue 39, item 3).

Debian's mosquitto links OpenSSL 3.0, which has no ML-KEM, so the real
broker is fronted by emcp-pqc-terminator (tests/pqc/emcp_pqc_terminator.c),
a TLS 1.3 server on wolfSSL that accepts only the groups it is given and
reports the group negotiated. greenhouse-mqtt (the MQTT binding on
libmosquitto) speaks plain MQTT to its own wolfSSL client, emcp-pqc-relay,
which is the device's TLS stack here:

  greenhouse-mqtt --MQTT--> relay --TLS 1.3, group--> terminator --MQTT--> mosquitto <-- MCP client (paho)

With EMCP_PQC_COREMQTT (greenhouse-coremqtt-wolfssl, built by
scripts/test.d/65-pqc.sh when COREMQTT_PATH names a coreMQTT v5 checkout),
every test runs a second time with that device: the coreMQTT shim over
coreMQTT's transport interface on wolfSSL (examples-c/coremqtt/
transport_wolfssl.c), the firmware pairing, with no relay:

  greenhouse-coremqtt-wolfssl --TLS 1.3, group--> terminator --MQTT--> mosquitto <-- MCP client

The MCP client's tools/call crosses the broker, reaches the device through
the TLS hop and is answered. The group is asserted at the terminator (the
broker's side): a device that offers only X25519 where the hybrid is
expected is caught there, and no MQTT byte of it reaches the broker.

EMCP_PQC_DEVICE_GROUPS and EMCP_PQC_TERMINATOR_GROUPS override the groups
each side offers in test_tools_call_through_the_terminator (the expected
group stays the parametrized one), to see the assertion fail.
"""

from __future__ import annotations

import os
import re

import pytest

from mqtt_support import Broker, Client, Gateway, call, wait_until
from pqc_support import SHARES, Relay, Terminator
from sanitizers import report_in

SID = "gh-pqc"
REQ = f"mcp/{SID}/request"


@pytest.fixture
def broker(tmp_path):
    b = Broker(tmp_path / "broker")
    b.start()
    yield b
    b.stop()


COREMQTT = os.environ.get("EMCP_PQC_COREMQTT")


@pytest.fixture(params=["libmosquitto+relay", "coremqtt+wolfssl"])
def device(request):
    if request.param == "coremqtt+wolfssl" and not COREMQTT:
        pytest.skip("coreMQTT device: set COREMQTT_PATH (a coreMQTT v5 checkout) for scripts/test.d/65-pqc.sh, "
                    "which then builds greenhouse-coremqtt-wolfssl and sets EMCP_PQC_COREMQTT")
    return request.param


class DeviceLog:
    """The coreMQTT device's own view of its handshakes (transport_wolfssl's
    log lines), shaped like Relay.handshakes()."""

    def __init__(self, gw: Gateway):
        self.gw = gw

    def finish(self) -> int:
        return 0

    def cleanup(self) -> None:
        pass

    def handshakes(self) -> list[dict]:
        return [{"group": m.group(2), "version": m.group(1)}
                for m in (re.match(r"transport_wolfssl: (\S+) with \S+, group (\S+),", l) for l in self.gw.lines())
                if m]


@pytest.fixture
def chain(greenhouse_mqtt_bin, broker, cert, device):
    """chain(terminator_groups, device_groups, expect) -> (terminator, device's TLS view, gateway)."""
    made: list = []

    def start(terminator_groups: str, device_groups: str, expect: str):
        term = Terminator(broker.port, cert, terminator_groups, expect)
        made.append(term)
        # The device's TLS client verifies the terminator's certificate
        # (the same P-256 certificate in every group) and offers its groups.
        if device == "coremqtt+wolfssl":
            gw = Gateway(COREMQTT, term.port, SID, "--tls-ca", cert[0], "--tls-groups", device_groups,
                         "--tls-server-name", "localhost")
            made.append(gw)
            return term, DeviceLog(gw), gw
        dev = Relay(term.port, cert[0], device_groups, None)
        made.append(dev)
        gw = Gateway(greenhouse_mqtt_bin, dev.port, SID)
        made.append(gw)
        return term, dev, gw

    yield start
    for p in reversed(made):
        if isinstance(p, Gateway):
            code = p.stop()
            marker = report_in(p.text())
            assert marker is None, f"{marker} in greenhouse-mqtt's stderr:\n{p.text()[-3000:]}"
            assert code == 0, f"greenhouse-mqtt exited {code}:\n{p.text()[-3000:]}"
        else:
            p.finish()
            p.cleanup()


# The two groups of the profile, and the optional ones (the terminator, the
# relay and coreMQTT's wolfSSL transport take them as well).
@pytest.mark.parametrize("group", ["X25519", "X25519MLKEM768", "SecP256r1MLKEM768", "ML-KEM-768"])
def test_tools_call_through_the_terminator(chain, broker, group):
    term, dev, gw = chain(os.environ.get("EMCP_PQC_TERMINATOR_GROUPS", group),
                          os.environ.get("EMCP_PQC_DEVICE_GROUPS", group), group)
    # The group first: a device that fell back never gets its CONNECT through.
    wait_until(lambda: term.handshakes(), 10, "a handshake at the terminator")
    first = term.handshakes()[0]
    assert (first.get("group"), first.get("expect")) == (group, "ok"), f"terminator negotiated {first}"
    gw.wait_log(r"subscribed to ")
    c = Client(broker.port, "pqc")
    try:
        r = c.request(REQ, call("read_sensor", {"sensor_id": "t1"}, 7))
    finally:
        c.close()
    res = r.json()
    assert res["id"] == 7 and res["result"]["isError"] is False, res
    assert res["result"]["structuredContent"]["value"] == 21.5
    assert term.finish() == 0, term.stderr()
    hs = term.handshakes()
    assert hs, "no handshake at the terminator"
    for h in hs:
        assert (h.get("group"), h.get("version"), h.get("expect")) == (group, "TLSv1.3", "ok"), h
        # The shares crossed the wire: the device's in its ClientHello, the
        # terminator's in its ServerHello (plus the certificate).
        client_share, server_share = SHARES[group]
        assert h["rx"] > client_share and h["tx"] > server_share, h
        assert h["heap_peak"] > 0, h
    # The device side saw the same group.
    dev.finish()
    seen = [h["group"] for h in dev.handshakes()]
    assert seen and seen == [group] * len(seen), dev.handshakes()


def test_device_offering_only_x25519_is_caught_at_the_terminator(chain, broker):
    # The terminator would accept X25519 (a broker serving old devices too)
    # but the test expects the hybrid: the device's X25519-only handshake
    # succeeds, is reported as a mismatch, and the connection is closed
    # before its CONNECT reaches mosquitto.
    term, dev, gw = chain("X25519MLKEM768:X25519", "X25519", "X25519MLKEM768")
    wait_until(lambda: any(h.get("expect") == "MISMATCH" for h in term.handshakes()), 10,
               "a mismatch reported by the terminator")
    c = Client(broker.port, "pqc")
    try:
        presence = c.watch(f"mcp/{SID}/presence")
        c.expect_no_reply(0.5)
        assert presence.empty(), "the device reached the broker over X25519"
    finally:
        c.close()
    assert gw.count(r"subscribed to ") == 0, gw.text()
    assert term.finish() == 3, term.stderr()
    hs = term.handshakes()
    assert hs and all((h["group"], h["expect"]) == ("X25519", "MISMATCH") for h in hs), hs


def test_device_demanding_the_hybrid_from_an_x25519_terminator_fails(chain, broker):
    term, dev, gw = chain("X25519", "X25519MLKEM768", "X25519")
    wait_until(lambda: any("error" in h for h in term.handshakes()), 10, "a failed handshake")
    assert gw.count(r"subscribed to ") == 0, gw.text()
    assert term.finish() == 4, term.stderr()
