"""A small benchmark: MCP round trips per second through mosquitto on
loopback (printed, not asserted; under ASan in CI the figures are lower)."""

from __future__ import annotations

import time
import uuid

from mqtt_support import call, dumps, wait_until


def test_benchmark_round_trips_per_second(gateways, clients, capsys):
    sid = "gh-bench"
    req = f"mcp/{sid}/request"
    gateways(sid)
    c = clients("bench")
    payload = dumps(call("read_sensor", {"sensor_id": "t1"}, 1))

    for _ in range(20):  # warm-up
        c.request(req, payload)

    # One request at a time: latency-bound round trips.
    n_seq = 0
    t0 = time.monotonic()
    while n_seq < 1000 and time.monotonic() - t0 < 3.0:
        c.request(req, payload)
        n_seq += 1
    seq_s = time.monotonic() - t0

    # Pipelined: publish a burst, then collect every reply.
    c.drain()
    before = len(c.all)
    n_pipe = 1000
    t0 = time.monotonic()
    for _ in range(n_pipe):
        c.c.publish(req, payload, qos=1, properties=_props(c))
    wait_until(lambda: len(c.all) - before >= n_pipe, 60, f"{n_pipe} pipelined replies")
    pipe_s = time.monotonic() - t0

    with capsys.disabled():
        print(
            f"\nMQTT benchmark (mosquitto on loopback, QoS 1, tools/call read_sensor): "
            f"sequential {n_seq / seq_s:.0f} round trips/s ({seq_s / n_seq * 1000:.2f} ms each, n={n_seq}); "
            f"pipelined {n_pipe / pipe_s:.0f} requests/s (n={n_pipe})"
        )


def _props(c):
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    p = Properties(PacketTypes.PUBLISH)
    p.ResponseTopic = c.response_topic
    p.CorrelationData = uuid.uuid4().bytes
    p.ContentType = "application/json"
    return p
