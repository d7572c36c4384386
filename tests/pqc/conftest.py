"""Fixtures of the post-quantum profile's tests: greenhouse-http built with
EMCP_HTTP_TLS=wolfssl (GREENHOUSE_HTTP, default build/pqc/...),
greenhouse-mqtt (GREENHOUSE_MQTT), emcp-pqc-relay (EMCP_PQC_RELAY) and
emcp-pqc-terminator (EMCP_PQC_TERMINATOR), all from scripts/test.d/65-pqc.sh."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "http"))
sys.path.insert(0, str(HERE.parent / "mqtt"))
sys.path.insert(0, str(HERE.parent / "common"))
from sanitizer_fixture import no_sanitizer_reports  # noqa: E402,F401 (autouse)

from http_support import binary  # noqa: E402
from pqc_support import make_cert  # noqa: E402


@pytest.fixture(scope="session")
def greenhouse_http_bin() -> str:
    try:
        return binary("greenhouse-http", "GREENHOUSE_HTTP", "build/pqc/examples-c/greenhouse/greenhouse-http")
    except FileNotFoundError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def cert(tmp_path_factory) -> tuple[str, str]:
    return make_cert(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="session")
def greenhouse_mqtt_bin() -> str:
    try:
        return binary("greenhouse-mqtt", "GREENHOUSE_MQTT", "build/pqc/examples-c/greenhouse/greenhouse-mqtt")
    except FileNotFoundError as e:
        pytest.fail(str(e), pytrace=False)
