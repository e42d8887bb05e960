"""The kopf operator of ``test_kopf``, run as a ServiceAccount whose Role forgot ``widgets/status``.

Under RBAC authorization (docs/rbac.md) the operator's status patches get the apiserver's 403, while
everything its Role grants goes through; the permissions report then names the one missing rule and
the grants it never used, which is what the operator's author needs to fix the manifest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fakeapi.pytest_plugin import FakeAPI, Requests
from tests.clients.test_kopf import GROUP, KIND, PLURAL, VERSION, running_operator, wait_for
from tests.conftest import crd

RBAC = "rbac.authorization.k8s.io/v1"
ACCOUNT = {"kind": "ServiceAccount", "name": "widget-operator", "namespace": "default"}


def _manifests() -> list[dict[str, Any]]:
    """What an operator repo's deploy folder would hold: the account, its Role and binding, and a
    ClusterRole for what kopf reads cluster-wide (with discovery, until the bootstrap policy grants
    it to every authenticated user)."""
    role_ref = {"apiGroup": "rbac.authorization.k8s.io"}
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "widget-operator"}},
        {
            "apiVersion": RBAC,
            "kind": "Role",
            "metadata": {"name": "widget-operator", "namespace": "default"},
            "rules": [
                {"apiGroups": [GROUP], "resources": [PLURAL], "verbs": ["get", "list", "watch", "patch", "update"]},
                {"apiGroups": [""], "resources": ["events"], "verbs": ["create"]},
            ],
        },
        {
            "apiVersion": RBAC,
            "kind": "RoleBinding",
            "metadata": {"name": "widget-operator", "namespace": "default"},
            "roleRef": {**role_ref, "kind": "Role", "name": "widget-operator"},
            "subjects": [ACCOUNT],
        },
        {
            "apiVersion": RBAC,
            "kind": "ClusterRole",
            "metadata": {"name": "widget-operator-cluster"},
            "rules": [
                {"nonResourceURLs": ["/api", "/api/*", "/apis", "/apis/*", "/version"], "verbs": ["get"]},
                # What kopf's documented RBAC grants it cluster-wide: it observes CRDs and namespaces.
                {
                    "apiGroups": ["apiextensions.k8s.io"],
                    "resources": ["customresourcedefinitions"],
                    "verbs": ["list", "watch"],
                },
                {"apiGroups": [""], "resources": ["namespaces"], "verbs": ["list", "watch"]},
            ],
        },
        {
            "apiVersion": RBAC,
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "widget-operator-cluster"},
            "roleRef": {**role_ref, "kind": "ClusterRole", "name": "widget-operator-cluster"},
            "subjects": [ACCOUNT],
        },
    ]


@pytest.mark.fakeapi(authorization="RBAC")
def test_an_operator_without_patch_on_status_gets_403_and_the_report_names_the_rule(
    fakeapi: FakeAPI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fakeapi.load(crd(PLURAL, KIND), *_manifests())
    monkeypatch.setenv("KUBECONFIG", str(fakeapi.kubeconfig(service_account="default/widget-operator")))
    log = tmp_path / "kopf.log"

    def refused() -> Requests:
        return fakeapi.requests(resource=PLURAL, subresource="status", status=403)

    with running_operator(log) as operator:
        wait_for(lambda: len(fakeapi.requests(verb="watch", resource=PLURAL)) > 0, "kopf to watch", operator, log)
        widget = {"apiVersion": f"{GROUP}/{VERSION}", "kind": KIND, "metadata": {"name": "alpha"}, "spec": {}}
        fakeapi.server.load(widget)
        wait_for(lambda: len(refused()) > 0, "the status patch to be refused", operator, log)

    denial = refused()[0]
    assert denial.user == "system:serviceaccount:default:widget-operator" and denial.authorized is False
    assert json.loads(denial.response_body) == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f'{PLURAL}.{GROUP} "alpha" is forbidden: User "system:serviceaccount:default:widget-operator" '
        f'cannot patch resource "{PLURAL}/status" in API group "{GROUP}" in the namespace "default"',
        "reason": "Forbidden",
        "details": {"name": "alpha", "group": GROUP, "kind": PLURAL},
        "code": 403,
    }
    assert fakeapi.requests(verb="watch", resource=PLURAL, status=200)
    assert not fakeapi.requests(resource=PLURAL, subresource="", status=403)

    report = fakeapi.permissions(service_account="default/widget-operator")
    assert report.missing_manifests() == [
        {
            "apiVersion": RBAC,
            "kind": "Role",
            "metadata": {"name": "missing-default", "namespace": "default"},
            "rules": [{"verbs": ["patch"], "apiGroups": [GROUP], "resources": [f"{PLURAL}/status"]}],
        }
    ]
    assert f'- patch {PLURAL}/status in {GROUP} "alpha", namespace default: 0 allowed,' in str(report)
