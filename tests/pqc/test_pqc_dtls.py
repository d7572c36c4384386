"""DTLS 1.3 with the post-quantum groups (issue 39, item 4's measurement):
emcp-pqc-dtls runs a handshake between two wolfSSL endpoints over UDP on
loopback and counts the datagrams: the DTLS layer CoAP runs on, without
libcoap (CoAP itself on libcoap's wolfSSL backend: test_pqc_coap.py, with
LIBCOAP_PATH; docs/pqc.md).

A hybrid key share (1216 bytes) does not fit one datagram of 1200 bytes:
the ClientHello must be fragmented, and every datagram stays within the
limit.
"""

from __future__ import annotations

import subprocess

import pytest

from http_support import binary

MTU = 1200


def dtls_bin() -> str:
    return binary("emcp-pqc-dtls", "EMCP_PQC_DTLS", "build/pqc/tests/pqc/emcp-pqc-dtls")


def run(cert, groups: str, mtu: int = MTU) -> tuple[int, dict, str]:
    crt, key = cert
    p = subprocess.run([dtls_bin(), "--cert", crt, "--key", key, "--groups", groups, "--mtu", str(mtu)],
                       capture_output=True, text=True, timeout=60)
    fields = dict(kv.split("=", 1) for kv in p.stdout.split()) if p.returncode == 0 else {}
    return p.returncode, fields, p.stderr


def sizes(fields: dict, side: str) -> list[int]:
    return [int(x) for x in fields[f"{side}_datagram_sizes"].split("+")]


@pytest.mark.parametrize("group", ["X25519", "X25519MLKEM768", "SecP256r1MLKEM768"])
def test_dtls13_handshake_negotiates_the_group_within_the_mtu(cert, group):
    rc, f, err = run(cert, group)
    assert rc == 0, err
    assert f["group"] == group, f
    for side in ("client", "server"):
        assert int(f[f"{side}_datagrams"]) == len(sizes(f, side))
        assert max(sizes(f, side)) <= MTU, f


def test_hybrid_clienthello_is_fragmented(cert):
    _, classic, _ = run(cert, "X25519")
    rc, hybrid, err = run(cert, "X25519MLKEM768")
    assert rc == 0, err
    # The ML-KEM-768 encapsulation key alone (1184 bytes) exceeds what one
    # datagram can carry next to the rest of the ClientHello: more client
    # datagrams, and the client's bytes grow by at least the key.
    assert int(hybrid["client_datagrams"]) > int(classic["client_datagrams"]), (classic, hybrid)
    assert int(hybrid["client_to_server_bytes"]) - int(classic["client_to_server_bytes"]) >= 1184
    assert int(hybrid["server_to_client_bytes"]) - int(classic["server_to_client_bytes"]) >= 1088


def test_the_first_offered_group_is_negotiated(cert):
    # Both groups offered by both ends: the client's first key share is taken
    # (no HelloRetryRequest for another group), whichever comes first.
    for groups, want in (("X25519:X25519MLKEM768", "X25519"), ("X25519MLKEM768:X25519", "X25519MLKEM768")):
        rc, f, err = run(cert, groups)
        assert rc == 0 and f["group"] == want, (groups, rc, f, err)
