"""The real kubectl against ValidatingAdmissionPolicies: the refusal and the Warning lines it prints
(docs/admission-policies.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fakeapi import FakeAPIServer
from tests.clients.local import run_kubectl, threaded_server

POLICIES = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: names}
spec:
  matchConstraints:
    resourceRules: [{operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"]}]
  validations:
  - expression: "!object.metadata.name.startsWith('bad-')"
    messageExpression: "'name ' + object.metadata.name + ' is refused'"
    reason: Forbidden
  - expression: "!object.metadata.name.startsWith('odd-')"
    message: odd names are discouraged
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: names-deny}
spec:
  policyName: names
  validationActions: [Deny]
  matchResources:
    objectSelector: {matchExpressions: [{key: mode, operator: NotIn, values: [lenient]}]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: names-warn}
spec:
  policyName: names
  validationActions: [Warn, Audit]
  matchResources:
    objectSelector: {matchLabels: {mode: lenient}}
"""


@pytest.fixture
def server() -> Iterator[FakeAPIServer]:
    with threaded_server() as running:
        yield running


def test_kubectl_prints_the_policy_refusal_and_warnings(server: FakeAPIServer, tmp_path: Path) -> None:
    kubeconfig = server.kubeconfig(tmp_path / "kubeconfig")
    manifest = tmp_path / "policy.yaml"
    manifest.write_text(POLICIES)
    assert run_kubectl(kubeconfig, tmp_path, "apply", "-f", str(manifest))[0] == 0
    assert run_kubectl(kubeconfig, tmp_path, "create", "configmap", "good-one") == (
        0,
        "configmap/good-one created\n",
        "",
    )
    code, out, err = run_kubectl(kubeconfig, tmp_path, "create", "configmap", "bad-one")
    assert (code, out) == (1, "")
    assert err == (
        'error: failed to create configmap: configmaps "bad-one" is forbidden: ValidatingAdmissionPolicy '
        "'names' with binding 'names-deny' denied request: name bad-one is refused\n"
    )
    lenient = tmp_path / "lenient.yaml"
    lenient.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: odd-one\n  namespace: default\n  labels: {mode: lenient}\n"
    )
    assert run_kubectl(kubeconfig, tmp_path, "apply", "-f", str(lenient)) == (
        0,
        "configmap/odd-one created\n",
        "Warning: Validation failed for ValidatingAdmissionPolicy 'names' with binding 'names-warn': "
        "odd names are discouraged\n",
    )
