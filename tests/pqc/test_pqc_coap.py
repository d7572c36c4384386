"""CoAP over DTLS 1.3 on libcoap's wolfSSL backend, X25519 and X25519MLKEM768
(issue 39, item 4; docs/pqc.md): greenhouse-coap (the CoAP binding) and
emcp-pqc-coap-client, both on a libcoap built from LIBCOAP_PATH, with the
certificate of the other post-quantum tests. A tools/call is answered in each
group and the group negotiated is asserted at the client; an X25519-only
server is caught when X25519MLKEM768 is expected. The datagrams are counted
between them (pqc_coap.UdpCounter): the hybrid ClientHello is fragmented.

Skipped, naming LIBCOAP_PATH, when those programs are not built.
"""

from __future__ import annotations

import json

import pytest

from pqc_coap import SKIP_REASON, CoapServer, UdpCounter, call, clienthellos, coap_bins, summary

BINS = coap_bins()
pytestmark = pytest.mark.skipif(BINS is None, reason=SKIP_REASON)

# libcoap sets wolfSSL's DTLS MTU to COAP_DEFAULT_MTU.
COAP_DEFAULT_MTU = 1152
CALL = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "read_sensor", "arguments": {"sensor_id": "t1"}}})


@pytest.fixture()
def server(cert, request):
    s = CoapServer(BINS[0], cert, request.param)
    yield s
    assert s.stop() == 0, s.stderr()


@pytest.mark.parametrize("server", ["X25519MLKEM768:X25519"], indirect=True)
@pytest.mark.parametrize("group", ["X25519", "X25519MLKEM768"])
def test_tools_call_over_coaps_in_the_group(cert, server, group):
    counter = UdpCounter(server.port)
    try:
        p = call(BINS[1], counter.port, cert, group, group, CALL)
    finally:
        counter.close()
    assert p.returncode == 0, p.stderr
    assert f"group={group} version=DTLSv1.3 code=2.05" in p.stderr
    result = json.loads(p.stdout)["result"]
    assert result["isError"] is False and result["structuredContent"]["unit"] == "C", result
    assert "principal=localhost " in server.stderr(), server.stderr()  # the certificate's CN
    sizes = [len(d) for _, d in counter.datagrams]
    assert max(sizes) <= COAP_DEFAULT_MTU + 60, sizes  # the MTU less IP/UDP is what wolfSSL fills
    hellos = clienthellos(counter.datagrams)
    # The server (libcoap) answers the first ClientHello with a stateless
    # HelloRetryRequest cookie: two ClientHellos, the second with the key share.
    assert len(hellos) == 2, hellos
    if group == "X25519MLKEM768":
        assert len(hellos[1]) > 1, f"the hybrid ClientHello was not fragmented: {hellos}"
        assert sum(hellos[1]) > 1184 + 32
    else:
        assert len(hellos[1]) == 1, hellos
    f = summary(counter.datagrams)
    assert int(f["client_datagrams"]) >= 3 and int(f["server_datagrams"]) >= 3, f


@pytest.mark.parametrize("server", ["X25519"], indirect=True)
def test_x25519_only_server_is_caught_when_the_hybrid_is_expected(cert, server):
    # The client offers both (hybrid first) and expects the hybrid: the server
    # takes X25519 through a HelloRetryRequest, the call is answered, and the
    # client fails on the group.
    p = call(BINS[1], server.port, cert, "X25519MLKEM768:X25519", "X25519MLKEM768", CALL)
    assert p.returncode == 3, p.stderr
    assert "negotiated X25519, expected X25519MLKEM768" in p.stderr


@pytest.mark.parametrize("server", ["X25519"], indirect=True)
def test_hybrid_only_client_gets_no_answer_from_an_x25519_server(cert, server):
    p = call(BINS[1], server.port, cert, "X25519MLKEM768", "X25519MLKEM768", CALL, timeout_ms=3000)
    assert p.returncode == 4, p.stderr
