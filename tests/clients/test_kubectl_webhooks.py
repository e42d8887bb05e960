"""The real kubectl against webhooks' verdicts: the refusal and the Warning lines a cluster makes it print."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from fakeapi import FakeAPIServer, WebhookAnswer, WebhookCall
from tests.clients.local import run_kubectl, threaded_server

VALIDATING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: policy}
webhooks:
- name: policy.example.com
  clientConfig: {url: "https://policy.example/validate"}
  rules: [{operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"]}]
  sideEffects: None
  admissionReviewVersions: ["v1"]
"""


async def policy(call: WebhookCall) -> WebhookAnswer:
    """Refuses configmaps named ``bad-*`` with 403, warns about every other one."""
    request = json.loads(call.body)["request"]
    response: dict[str, object] = {"uid": request["uid"], "allowed": True, "warnings": ["configmaps are audited"]}
    if request["name"].startswith("bad-"):
        response = {
            "uid": request["uid"],
            "allowed": False,
            "status": {"code": 403, "message": "bad names are refused"},
        }
    review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response}
    return WebhookAnswer(200, "application/json", json.dumps(review).encode())


@pytest.fixture
def server() -> Iterator[FakeAPIServer]:
    with threaded_server() as running:
        running.set_webhook_caller(policy)
        yield running


def test_kubectl_prints_the_webhooks_refusal_and_warnings(server: FakeAPIServer, tmp_path: Path) -> None:
    kubeconfig = server.kubeconfig(tmp_path / "kubeconfig")
    manifest = tmp_path / "policy.yaml"
    manifest.write_text(VALIDATING)
    assert run_kubectl(kubeconfig, tmp_path, "apply", "-f", str(manifest))[0] == 0
    code, out, err = run_kubectl(kubeconfig, tmp_path, "create", "configmap", "good-one")
    assert (code, out, err) == (0, "configmap/good-one created\n", "Warning: configmaps are audited\n")
    code, out, err = run_kubectl(kubeconfig, tmp_path, "create", "configmap", "bad-one")
    assert code == 1
    assert err == (
        'error: failed to create configmap: admission webhook "policy.example.com" denied the request: '
        "bad names are refused\n"
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad-two}\n")
    code, out, err = run_kubectl(kubeconfig, tmp_path, "apply", "-f", str(bad))
    assert code == 1
    # The webhook's Status gave a code and no reason, so kubectl names no reason, as against a cluster.
    assert err == (
        f'Error from server: error when creating "{bad}": admission webhook "policy.example.com" '
        "denied the request: bad names are refused\n"
    )


def test_kubectl_prints_a_webhook_that_cannot_be_called(server: FakeAPIServer, tmp_path: Path) -> None:
    server.set_webhook_caller(None)  # over HTTP, to a name that does not resolve
    kubeconfig = server.kubeconfig(tmp_path / "kubeconfig")
    manifest = tmp_path / "policy.yaml"
    manifest.write_text(VALIDATING.replace("https://policy.example/", "https://policy.invalid/"))
    assert run_kubectl(kubeconfig, tmp_path, "apply", "-f", str(manifest))[0] == 0
    code, _, err = run_kubectl(kubeconfig, tmp_path, "create", "configmap", "any")
    assert code == 1
    assert err == (
        'error: failed to create configmap: Internal error occurred: failed calling webhook "policy.example.com": '
        'failed to call webhook: Post "https://policy.invalid/validate?timeout=10s": '
        f"dial tcp: lookup policy.invalid{resolver_suffix()}: no such host\n"
    )


def resolver_suffix() -> str:
    """Go's own resolver names the name server it asked (the first of resolv.conf)."""
    for line in Path("/etc/resolv.conf").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[0] == "nameserver":
            return f" on {fields[1]}:53"
    return ""
