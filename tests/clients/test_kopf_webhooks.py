"""A real kopf operator's admission webhooks: kopf's own WebhookServer registers its configurations
(``settings.admission.managed``), and fakeapi calls it on every widget write.

This module is also that operator (``kopf run -m tests.clients.test_kopf_webhooks``), configured
from the environment the test gives it: the port and the certificate files of its webhook server
(made here, since kopf's self-signed certificates need a library this project does not install).
"""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import kopf
import kubernetes
import pytest

from fakeapi._http.certificates import generate_certificates
from fakeapi.pytest_plugin import FakeAPI
from tests.conftest import crd

GROUP, VERSION, PLURAL, KIND = "example.com", "v1", "widgets", "Widget"
REPOSITORY = Path(__file__).resolve().parents[2]
DEADLINE = 60.0
MANAGED = "widgets.example.com"


# -- the operator ---------------------------------------------------------------------------------


@kopf.on.startup()
async def serve_webhooks(settings: kopf.OperatorSettings, **_: Any) -> None:
    settings.admission.server = kopf.WebhookServer(
        addr="127.0.0.1",
        port=int(os.environ["WIDGET_WEBHOOK_PORT"]),
        certfile=os.environ["WIDGET_WEBHOOK_CERT"],
        pkeyfile=os.environ["WIDGET_WEBHOOK_KEY"],
        cafile=os.environ["WIDGET_WEBHOOK_CA"],
    )
    settings.admission.managed = MANAGED


@kopf.on.validate(GROUP, VERSION, PLURAL, id="size")
async def refuse_big_widgets(spec: kopf.Spec, warnings: list[str], **_: Any) -> None:
    if spec.get("size", 0) > 10:
        raise kopf.AdmissionError("a widget is at most 10 big", code=422)
    warnings.append("widget sizes are checked")


@kopf.on.mutate(GROUP, VERSION, PLURAL, id="note")
async def default_the_note(spec: kopf.Spec, patch: kopf.Patch, **_: Any) -> None:
    if "note" not in spec:
        patch.spec["note"] = "set by the webhook"


# -- the test -------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextmanager
def running_operator(log: Path, environment: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    command = [sys.executable, "-m", "kopf", "run", "--standalone", "--namespace=default", "--verbose"]
    command += ["-m", "tests.clients.test_kopf_webhooks"]
    environment = {**os.environ, **environment, "PYTHONPATH": str(REPOSITORY)}
    with log.open("wb") as output:
        process = subprocess.Popen(command, cwd=REPOSITORY, env=environment, stdout=output, stderr=subprocess.STDOUT)
        try:
            yield process
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_for(condition: Callable[[], bool], what: str, operator: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        try:
            code = operator.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; operator log:\n{log.read_text()}") from None
            continue
        raise AssertionError(f"the operator exited with {code} while waiting for {what}:\n{log.read_text()}")


def test_kopf_webhooks_judge_and_change_widgets(fakeapi: FakeAPI, fakeapi_kubeconfig: Path, tmp_path: Path) -> None:
    fakeapi.load(crd(PLURAL, KIND))
    certificates = generate_certificates("127.0.0.1")
    files = {"CERT": certificates.certificate, "KEY": certificates.private_key, "CA": certificates.ca_certificate}
    environment = {f"WIDGET_WEBHOOK_{name}": str(tmp_path / name.lower()) for name in files}
    for name, data in files.items():
        (tmp_path / name.lower()).write_bytes(data)
    environment["WIDGET_WEBHOOK_PORT"] = str(free_port())
    api_client = kubernetes.config.new_client_from_config(str(fakeapi_kubeconfig))
    widgets = kubernetes.client.CustomObjectsApi(api_client)
    log = tmp_path / "kopf.log"

    def configured() -> bool:
        found = [
            fakeapi.find("admissionregistration.k8s.io/v1", kind, MANAGED)
            for kind in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")
        ]
        return all(config is not None and config.get("webhooks") for config in found)

    with running_operator(log, environment) as operator:
        wait_for(configured, "kopf to register its webhook configurations", operator, log)
        validating = fakeapi.find("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", MANAGED)
        assert validating is not None
        (hook,) = validating["webhooks"]
        assert base64.b64decode(hook["clientConfig"]["caBundle"]) == certificates.ca_certificate

        with pytest.raises(kubernetes.client.ApiException) as refused:
            big = {"apiVersion": f"{GROUP}/{VERSION}", "kind": KIND, "metadata": {"name": "big"}, "spec": {"size": 11}}
            widgets.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, big)
        assert refused.value.status == 422
        assert json.loads(refused.value.body) == {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": f'admission webhook "{hook["name"]}" denied the request: a widget is at most 10 big',
            "code": 422,
        }

        small = {"apiVersion": f"{GROUP}/{VERSION}", "kind": KIND, "metadata": {"name": "small"}, "spec": {"size": 3}}
        created, status, headers = widgets.create_namespaced_custom_object_with_http_info(
            GROUP, VERSION, "default", PLURAL, small
        )
        assert status == 201
        assert created["spec"] == {"size": 3, "note": "set by the webhook"}
        assert headers.get("Warning") == '299 - "widget sizes are checked"'
    assert operator.returncode == 0, log.read_text()
    assert fakeapi.find(f"{GROUP}/{VERSION}", KIND, "big") is None
