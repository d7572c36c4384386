#!/usr/bin/env python3
"""Runs the Zephyr greenhouse built with overlay-coap.conf and
overlay-coap-selftest.conf (native_sim) and checks what its in-image libcoap
client got back from the CoAP binding over Zephyr's UDP stack.

The image prints every CoAP response as "coap-selftest: <label> <code>"
followed by "coap-selftest: <label> + <payload chunk>" lines and
"coap-selftest: done" (zephyr/samples/greenhouse/src/coap_selftest.c); the
image checks nothing, this script parses the JSON-RPC responses and the
greenhouse's audit lines and checks them.

With --psk-identity (a build with overlay-coaps.conf too) the exchanges run
over DTLS with that pre-shared key: every request's principal must be the
identity, the binding must report DTLS sessions, and the first exchange of
each client session carries the handshake's datagrams as well.

usage: zephyr_coap_check.py path/to/zephyr.exe [--psk-identity ID]
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading

RUN_TIMEOUT_S = 60.0
PREFIX = "coap-selftest: "
LABELS = ["discover", "tools_list", "read_sensor", "set_vent_120", "set_vent_30", "tools_list_64"]
SMALL_BLOCK = 64  # SELFTEST_SMALL_BLOCK in coap_selftest.c
# Datagrams Zephyr's stack receives for one exchange that fits one datagram
# each way (request and response both cross the loopback interface).
PLAIN_EXCHANGE_DATAGRAMS = 2
# libcoap's Block2 size for a session at its default MTU (1152 bytes): the
# largest block (2^(4 + SZX)) whose PDU fits it.
DEFAULT_BLOCK = 1024
failures: list[str] = []


def check(ok: bool, what: str) -> None:
    print(("   ok   " if ok else "   FAIL ") + what)
    if not ok:
        failures.append(what)


def run(exe: str) -> list[str]:
    """Runs zephyr.exe until the self-test prints 'done' or RUN_TIMEOUT_S pass, then stops it."""
    proc = subprocess.Popen([exe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace")
    lines: list[str] = []
    done = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith(PREFIX + "done"):
                done.set()
        done.set()  # end of output: zephyr.exe exited

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    done.wait(RUN_TIMEOUT_S)
    proc.kill()
    proc.wait(timeout=10)
    reader.join(timeout=10)
    return list(lines)


def udp_counts(lines: list[str]) -> dict[str, int]:
    """label -> UDP datagrams Zephyr received during that exchange."""
    out: dict[str, int] = {}
    for line in lines:
        m = re.fullmatch(re.escape(PREFIX) + r"(\w+) udp (\d+)", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def parse(lines: list[str]) -> dict[str, tuple[str, str]]:
    """label -> (CoAP code, reassembled payload)."""
    out: dict[str, tuple[str, str]] = {}
    for line in lines:
        if not line.startswith(PREFIX):
            continue
        rest = line[len(PREFIX):]
        if re.fullmatch(r"\w+ udp \d+", rest):
            continue
        m = re.fullmatch(r"(\w+) \+ (.*)", rest)
        if m and m.group(1) in out:
            code, body = out[m.group(1)]
            out[m.group(1)] = (code, body + m.group(2))
            continue
        m = re.fullmatch(r"(\w+) (\d\.\d\d|no-response)( truncated)?", rest)
        if m:
            out[m.group(1)] = (m.group(2) + (m.group(3) or ""), "")
    return out


def main() -> int:
    args = sys.argv[1:]
    identity = None
    if "--psk-identity" in args:
        i = args.index("--psk-identity")
        identity = args[i + 1]
        del args[i : i + 2]
    lines = run(args[0])
    print("== CoAP self-test on Zephyr (libcoap client -> emcp CoAP binding, Zephyr UDP"
          + (f", DTLS-PSK as {identity})" if identity else ")"))
    check(any(l.startswith(PREFIX + "done") for l in lines), "the self-test ran to the end")
    got = parse(lines)
    check(sorted(got) == sorted(LABELS), f"a response line for each request ({', '.join(got) or 'none'})")

    def body(label: str, code: str) -> dict:
        c, text = got.get(label, ("missing", ""))
        check(c == code, f"{label}: CoAP {c}, expected {code}")
        try:
            return json.loads(text)
        except ValueError:
            check(False, f"{label}: payload is JSON ({text[:80]!r})")
            return {}

    disc = body("discover", "2.05").get("result", {})
    check("2026-07-28" in disc.get("supportedVersions", []), "server/discover offers 2026-07-28")
    info = disc.get("_meta", {}).get("io.modelcontextprotocol/serverInfo", {})
    check(info.get("name") == "greenhouse-gw", f"serverInfo.name is greenhouse-gw ({info.get('name')})")

    tools = body("tools_list", "2.05").get("result", {}).get("tools", [])
    names = [t.get("name") for t in tools]
    check(names == ["read_sensor", "set_vent"], f"tools/list: {names}")

    sensor = body("read_sensor", "2.05").get("result", {})
    check(sensor.get("isError") is False and sensor.get("structuredContent", {}).get("value") == 62
          and sensor.get("structuredContent", {}).get("unit") == "%",
          f"read_sensor rh1: {sensor.get('structuredContent')}")
    text = (sensor.get("content") or [{}])[0].get("text", "")
    check(text.startswith("62 %"), f"read_sensor text {text!r}")

    # SEP-1303: out-of-contract arguments are a tool error (isError) the model reads.
    refused = body("set_vent_120", "2.05").get("result", {})
    check(refused.get("isError") is True
          and (refused.get("content") or [{}])[0].get("text") == "percent: 120 is above maximum 100",
          f"set_vent 120 refused: {refused}")

    vent = body("set_vent_30", "2.05").get("result", {})
    check(vent.get("structuredContent") == {"ok": True, "percent": 30}, f"set_vent 30: {vent.get('structuredContent')}")

    # The last exchange went block-wise both ways: its session's MTU makes
    # libcoap send the request in Block1 blocks, and it asked for 64-byte
    # Block2 blocks. Zephyr's UDP statistics count the datagrams.
    small = body("tools_list_64", "2.05")
    _, small_text = got.get("tools_list_64", ("", ""))
    check([t.get("name") for t in small.get("result", {}).get("tools", [])] == ["read_sensor", "set_vent"]
          and small.get("id") == 6, "tools_list_64: tools/list result reassembled")
    req = [l for l in lines if "emcp_coap:" in l and "principal=" in l]
    sizes = [int(m.group(1)) for l in req if (m := re.search(r"request=(\d+) bytes", l))]
    check(len(sizes) == len(LABELS), f"the binding handled {len(sizes)} requests")
    principal = identity or "-"
    check(all(f" {'DTLS' if identity else 'UDP '} principal={principal} " in l for l in req) and len(req) > 0,
          f"every request line names {'a DTLS' if identity else 'a UDP'} session and principal {principal}")
    udp = udp_counts(lines)
    # Over DTLS the first exchange of a client session also carries the handshake.
    handshake = {"discover"} if identity else set()
    plain = {k: v for k, v in udp.items() if k != "tools_list_64" and k not in handshake}
    # A response larger than one default PDU leaves in Block2 blocks of
    # DEFAULT_BLOCK bytes, each fetched by a request of its own (the
    # greenhouse's tools/list has grown past it); the others take one
    # datagram each way.
    def datagrams(label: str) -> set[int]:
        n = len(got.get(label, ("", ""))[1])
        return {PLAIN_EXCHANGE_DATAGRAMS} if n <= DEFAULT_BLOCK else \
            {PLAIN_EXCHANGE_DATAGRAMS, PLAIN_EXCHANGE_DATAGRAMS * -(-n // DEFAULT_BLOCK)}
    check(sorted(udp) == sorted(LABELS) and all(v in datagrams(k) for k, v in plain.items()),
          f"one datagram each way for the other exchanges, Block2 pairs for a response over "
          f"{DEFAULT_BLOCK} bytes ({ {k: (v, len(got.get(k, ('', ''))[1])) for k, v in plain.items()} })")
    if identity:
        check(udp.get("discover", 0) > PLAIN_EXCHANGE_DATAGRAMS,
              f"discover: {udp.get('discover', 0)} datagrams, the DTLS handshake's among them")
    if sizes and small_text:
        blocks1 = -(-sizes[-1] // SMALL_BLOCK)
        blocks2 = -(-len(small_text) // SMALL_BLOCK)
        # Block1: each block and its 2.31 Continue (the last block is answered
        # with Block2 block 0); Block2: each further block and its request.
        least = 2 * blocks1 + 2 * (blocks2 - 1)
        check(udp.get("tools_list_64", 0) >= least,
              f"tools_list_64: {udp.get('tools_list_64', 0)} datagrams for a {sizes[-1]}-byte request "
              f"({blocks1} Block1 blocks) and a {len(small_text)}-byte response ({blocks2} Block2 blocks of "
              f"{SMALL_BLOCK} bytes): at least {least}")

    audits = [re.sub(r" ms=\d+$", "", l) for l in lines if l.startswith("audit: ")]
    want = [f'audit: principal={principal} tool=read_sensor args={{"sensor_id":"rh1"}} outcome=ok trace=-',
            f'audit: principal={principal} tool=set_vent args={{"percent":120}} outcome=invalid_arguments trace=-',
            f'audit: principal={principal} tool=set_vent args={{"percent":30}} outcome=ok trace=-']
    check(audits == want, f"audit lines: {audits}")
    check(any(l.startswith("vent: 0% -> 30%") for l in lines), "the vent actuator moved 0% -> 30%")

    if failures:
        print("--- zephyr.exe output (last 40 lines)")
        print("\n".join(lines[-40:]))
    print(f"{len(failures)} failed" if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
