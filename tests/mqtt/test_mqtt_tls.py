"""TLS (broker CA plus client certificate) and username/password against a
mosquitto TLS listener whose certificates the test makes with openssl."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from pathlib import Path

import pytest

from mqtt_support import Broker, Gateway, audit, call, wait_until


def make_pki(d: Path) -> dict[str, Path]:
    d.mkdir(parents=True, exist_ok=True)

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True, timeout=60)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=emcp test CA")
    (d / "server.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.crt", "-days", "2", "-extfile", "server.ext")
    run("req", *ec, "-keyout", "client.key", "-out", "client.csr", "-subj", "/CN=greenhouse")
    run("x509", "-req", "-in", "client.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "client.crt", "-days", "2")
    for f in d.iterdir():
        f.chmod(0o644)
    return {k: d / f"{k}" for k in ["ca.crt", "server.crt", "server.key", "client.crt", "client.key"]}


@pytest.mark.skipif(shutil.which("openssl") is None or shutil.which("mosquitto_passwd") is None,
                    reason="needs openssl and mosquitto_passwd")
def test_tls_with_client_certificate_and_password(tmp_path, gateway_bin, clients):
    pki = make_pki(tmp_path / "pki")
    passwd = tmp_path / "passwd"
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(passwd), "gw-user", "gw-secret"], check=True, timeout=30)
    subprocess.run(["mosquitto_passwd", "-b", str(passwd), "model", "model-secret"], check=True, timeout=30)
    passwd.chmod(0o644)
    broker = Broker(tmp_path / "tls-broker", extra_conf=(
        f"cafile {pki['ca.crt']}\ncertfile {pki['server.crt']}\nkeyfile {pki['server.key']}\n"
        f"require_certificate true\nallow_anonymous false\npassword_file {passwd}\n"
    ))
    broker.start()
    gw = None
    try:
        gw = Gateway(gateway_bin, broker.port, "gh-tls",
                     "--cafile", str(pki["ca.crt"]), "--cert", str(pki["client.crt"]), "--key", str(pki["client.key"]),
                     "--username", "gw-user", "--password-env", "GH_MQTT_PASSWORD",
                     env={"GH_MQTT_PASSWORD": "gw-secret"})
        gw.wait_log(r"subscribed to mcp/gh-tls/request")
        assert "with TLS" in gw.text() and "principal gw-user" in gw.text()
        tls = {"ca_certs": str(pki["ca.crt"]), "certfile": str(pki["client.crt"]),
               "keyfile": str(pki["client.key"]), "cert_reqs": ssl.CERT_REQUIRED}
        c = clients("tls", port=broker.port, username="model", password="model-secret", tls=tls)
        r = c.request("mcp/gh-tls/request", call("read_sensor", {"sensor_id": "t1"}, 1))
        assert r.json()["result"]["structuredContent"]["value"] == 21.5
        # The principal is the username the gateway authenticated as (the
        # line arrives through a reader thread, maybe after the reply).
        wait_until(lambda: gw.audits(), 5, "the audit line")
        assert gw.audits() == [audit("read_sensor", {"sensor_id": "t1"}, "ok", principal="gw-user")]
    finally:
        if gw is not None:
            gw.stop()
        broker.stop()


def test_wrong_password_is_retried_not_fatal(tmp_path, gateway_bin):
    passwd = tmp_path / "passwd"
    if shutil.which("mosquitto_passwd") is None:
        pytest.skip("needs mosquitto_passwd")
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(passwd), "gw-user", "right"], check=True, timeout=30)
    passwd.chmod(0o644)
    broker = Broker(tmp_path / "auth-broker", extra_conf=f"allow_anonymous false\npassword_file {passwd}\n")
    broker.start()
    gw = None
    try:
        gw = Gateway(gateway_bin, broker.port, "gh-auth", "--username", "gw-user", "--password-env", "GH_PW",
                     env={"GH_PW": "wrong"})
        gw.wait_log("broker refused the connection", timeout=10, count=2)
        assert gw.proc.poll() is None, "keeps retrying with backoff"
        assert gw.count("subscribed to") == 0
    finally:
        if gw is not None:
            assert gw.stop() == 0
        broker.stop()
