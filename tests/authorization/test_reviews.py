"""What SubjectAccessReview, SelfSubjectAccessReview and SelfSubjectRulesReview answer (pkg/registry/authorization)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi._state.authorization import (
    StaticRBAC,
    UserInfo,
    self_subject_access_review_status,
    self_subject_rules_review_status,
    service_account_user,
    subject_access_review_status,
)
from fakeapi.errors import APIError
from tests.authorization.objects import cluster_role, cluster_role_binding, role, role_binding, rule

OPERATOR = service_account_user("ops", "op")
SOURCE = StaticRBAC(
    roles=[
        role(
            "widgets",
            "ops",
            rule("get,list,watch", "example.com", "widgets"),
            rule("patch", "example.com", "widgets/status"),
        )
    ],
    cluster_roles=[
        cluster_role("health", rule("get", urls="/healthz,/readyz")),
        cluster_role("leader", rule("get,update", "coordination.k8s.io", "leases", names="op-leader")),
    ],
    role_bindings=[
        role_binding("op", "ops", "Role:widgets", "ServiceAccount:op"),
        role_binding("lease", "ops", "ClusterRole:leader", "ServiceAccount:ops/op"),
        role_binding("gone", "ops", "Role:gone", "Group:system:serviceaccounts"),
    ],
    cluster_role_bindings=[cluster_role_binding("health", "health", "Group:system:authenticated")],
)


def resource_spec(verb: str, resource: str, **fields: Any) -> dict[str, Any]:
    return {"resourceAttributes": {"verb": verb, "resource": resource, **fields}}


def test_self_subject_access_review_allowed_names_the_binding() -> None:
    spec = resource_spec("patch", "widgets", group="example.com", subresource="status", namespace="ops", name="w")
    assert self_subject_access_review_status(SOURCE, OPERATOR, spec) == {
        "allowed": True,
        "reason": 'RBAC: allowed by RoleBinding "op/ops" of Role "widgets" to ServiceAccount "op/ops"',
    }


def test_self_subject_access_review_denied_carries_the_rbac_errors() -> None:
    spec = resource_spec("delete", "widgets", group="example.com", namespace="ops")
    assert self_subject_access_review_status(SOURCE, OPERATOR, spec) == {
        "allowed": False,
        "reason": 'RBAC: role.rbac.authorization.k8s.io "gone" not found',
    }


def test_a_denial_elsewhere_has_no_reason() -> None:
    spec = resource_spec("list", "widgets", group="example.com", namespace="default")
    assert self_subject_access_review_status(SOURCE, OPERATOR, spec) == {"allowed": False}


def test_a_non_resource_review() -> None:
    spec = {"nonResourceAttributes": {"verb": "get", "path": "/readyz"}}
    assert self_subject_access_review_status(SOURCE, OPERATOR, spec) == {
        "allowed": True,
        "reason": 'RBAC: allowed by ClusterRoleBinding "health" of ClusterRole "health" to Group "system:authenticated"',
    }
    spec = {"nonResourceAttributes": {"verb": "post", "path": "/readyz"}}
    assert self_subject_access_review_status(SOURCE, OPERATOR, spec) == {"allowed": False}


def test_subject_access_review_uses_the_spec_groups_as_given() -> None:
    # The spec's user without its groups: nothing adds system:authenticated.
    spec = {"nonResourceAttributes": {"verb": "get", "path": "/healthz"}, "user": OPERATOR.name}
    assert subject_access_review_status(SOURCE, spec) == {"allowed": False}
    spec["groups"] = ["system:authenticated"]
    assert subject_access_review_status(SOURCE, spec)["allowed"] is True
    masters = {**resource_spec("*", "*", group="*"), "user": "root", "groups": ["system:masters"]}
    assert subject_access_review_status(SOURCE, masters) == {"allowed": True}


def test_resource_names_and_list() -> None:
    get = resource_spec("get", "leases", group="coordination.k8s.io", namespace="ops", name="op-leader")
    assert self_subject_access_review_status(SOURCE, OPERATOR, get)["allowed"] is True
    listing = resource_spec("list", "leases", group="coordination.k8s.io", namespace="ops")
    assert self_subject_access_review_status(SOURCE, OPERATOR, listing)["allowed"] is False


@pytest.mark.parametrize(
    ("selectors", "note"),
    [
        ({"labelSelector": {"rawSelector": "app=web"}}, None),
        ({"labelSelector": {"rawSelector": "app=="}}, None),
        (
            {"labelSelector": {"rawSelector": "app in (a"}},
            "spec.resourceAttributes.labelSelector ignored due to parse error",
        ),
        ({"fieldSelector": {"rawSelector": "metadata.name=w"}}, None),
        (
            {"fieldSelector": {"rawSelector": "metadata.name"}},
            "spec.resourceAttributes.fieldSelector ignored due to parse error",
        ),
        (
            {
                "labelSelector": {
                    "requirements": [
                        {"key": "a", "operator": "In", "values": ["b"]},
                        {"key": "c", "operator": "Gt", "values": ["1"]},
                    ]
                }
            },
            "spec.resourceAttributes.labelSelector partially ignored due to parse error",
        ),
        (
            {"labelSelector": {"requirements": [{"key": "c", "operator": "Lt", "values": ["1"]}]}},
            "spec.resourceAttributes.labelSelector ignored due to parse error",
        ),
        (
            {"fieldSelector": {"requirements": [{"key": "a", "operator": "In", "values": ["b", "c"]}]}},
            "spec.resourceAttributes.fieldSelector ignored due to parse error",
        ),
        (
            {
                "fieldSelector": {
                    "requirements": [
                        {"key": "a", "operator": "NotIn", "values": ["b"]},
                        {"key": "c", "operator": "Exists"},
                    ]
                }
            },
            "spec.resourceAttributes.fieldSelector partially ignored due to parse error",
        ),
        (
            {"fieldSelector": {"rawSelector": "x"}, "labelSelector": {"rawSelector": "!"}},
            "spec.resourceAttributes.fieldSelector ignored due to parse error; spec.resourceAttributes.labelSelector ignored due to parse error",
        ),
    ],
)
def test_unreadable_selectors_are_the_evaluation_error(selectors: dict[str, Any], note: str | None) -> None:
    spec = resource_spec("list", "widgets", group="example.com", namespace="ops", **selectors)
    expected: dict[str, Any] = {
        "allowed": True,
        "reason": 'RBAC: allowed by RoleBinding "op/ops" of Role "widgets" to ServiceAccount "op/ops"',
    }
    if note:
        expected["evaluationError"] = note
    assert self_subject_access_review_status(SOURCE, OPERATOR, spec) == expected


def test_self_subject_rules_review_lists_rules_and_errors() -> None:
    status = self_subject_rules_review_status(SOURCE, OPERATOR, {"namespace": "ops"})
    assert list(status) == ["resourceRules", "nonResourceRules", "incomplete", "evaluationError"]
    assert status == {
        "resourceRules": [
            {"verbs": ["get", "list", "watch"], "apiGroups": ["example.com"], "resources": ["widgets"]},
            {"verbs": ["patch"], "apiGroups": ["example.com"], "resources": ["widgets/status"]},
            {
                "verbs": ["get", "update"],
                "apiGroups": ["coordination.k8s.io"],
                "resources": ["leases"],
                "resourceNames": ["op-leader"],
            },
        ],
        "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/readyz"]}],
        "incomplete": False,
        "evaluationError": 'role.rbac.authorization.k8s.io "gone" not found',
    }


def test_rules_review_elsewhere_and_for_masters() -> None:
    assert self_subject_rules_review_status(SOURCE, OPERATOR, {"namespace": "default"}) == {
        "resourceRules": [],
        "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/readyz"]}],
        "incomplete": False,
    }
    # system:masters is allowed everything, but only RBAC lists rules.
    master = UserInfo("root", ("system:masters",))
    assert self_subject_rules_review_status(SOURCE, master, {"namespace": "ops"}) == {
        "resourceRules": [],
        "nonResourceRules": [],
        "incomplete": False,
    }


def test_rules_review_needs_a_namespace() -> None:
    with pytest.raises(APIError) as caught:
        self_subject_rules_review_status(SOURCE, OPERATOR, {})
    assert caught.value.status() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "no namespace on request",
        "reason": "BadRequest",
        "code": 400,
    }
