"""A scenario under RBAC authorization: the racers act as the operator's ServiceAccount, so a claim
the Role does not grant is refused with 403 in every schedule (a liveness violation whose run
shows the apiserver's message), and the same claim with the verb granted holds."""

from __future__ import annotations

from typing import Any

from scenarios import explore
from tests.scenarios.conftest import CRD, job
from tests.scenarios.test_engine import racing

RBAC = "rbac.authorization.k8s.io/v1"


def operator_rbac(*verbs: str) -> list[dict[str, Any]]:
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "operator", "namespace": "default"}},
        {
            "apiVersion": RBAC,
            "kind": "Role",
            "metadata": {"name": "operator", "namespace": "default"},
            "rules": [{"apiGroups": ["example.com"], "resources": ["jobs"], "verbs": list(verbs)}],
        },
        {
            "apiVersion": RBAC,
            "kind": "RoleBinding",
            "metadata": {"name": "operator", "namespace": "default"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "operator"},
            "subjects": [{"kind": "ServiceAccount", "name": "operator", "namespace": "default"}],
        },
    ]


def under_rbac(*verbs: str) -> Any:
    return racing(
        objects=[CRD, job("job-1", owner="ada"), *operator_rbac(*verbs)],
        authorization="RBAC",
        service_accounts={"a": "default/operator", "b": "default/operator"},
    )


def test_a_claim_the_role_does_not_grant_is_refused_in_every_schedule() -> None:
    result = explore(under_rbac("get", "list", "watch"))
    assert result.verdict == "violated: liveness"
    run = result.counterexample
    assert run is not None
    assert [error.actor for error in run.errors] == ["a", "b"]
    assert all(
        'ApiException 403 Forbidden: jobs.example.com "job-1" is forbidden: User "system:serviceaccount:default:operator" '
        'cannot patch resource "jobs" in API group "example.com" in the namespace "default"' in error.text
        for error in run.errors
    )


def test_the_same_claim_with_patch_granted_holds() -> None:
    result = explore(under_rbac("get", "patch"))
    assert result.holds, result.verdict
