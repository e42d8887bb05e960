"""Escalation prevention on RBAC writes: the role and binding policy-based storages of kubernetes.

``test_role_writes`` reproduces role/policybased and clusterrole/policybased storage_test.go
``TestEscalation``: superuser, bob, steve (allowed by the authorizer: here, the ``escalate`` verb)
and alice (who holds everything), for a create and an update.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi._state.authorization import Attributes, StaticRBAC, UserInfo, confirm_binding_write, confirm_role_write
from fakeapi.errors import APIError
from tests.authorization.objects import RBAC, cluster_role, cluster_role_binding, role, role_binding, rule

SUPERUSER = UserInfo("superuser", ("system:masters",))
BOB = UserInfo("bob")
STEVE = UserInfo("steve")
ALICE = UserInfo("alice")

SOURCE = StaticRBAC(
    cluster_roles=[
        cluster_role("alice-role", rule("*", "*", "*")),
        cluster_role("escalator", rule("escalate", RBAC, "roles,clusterroles")),
    ],
    cluster_role_bindings=[
        cluster_role_binding("alice", "alice-role", "User:alice"),
        cluster_role_binding("steve", "escalator", "User:steve"),
    ],
)
POD_READER = rule("get", "", "pods")


def write(user: UserInfo, verb: str, resource: str, namespace: str = "", name: str = "") -> Attributes:
    return Attributes.for_resource(
        user, verb, resource, api_group=RBAC, api_version="v1", namespace=namespace, name=name
    )


def refusal(call: Any, *args: Any) -> APIError:
    with pytest.raises(APIError) as caught:
        call(*args)
    return caught.value


@pytest.mark.parametrize(
    ("user", "allowed"),
    [(SUPERUSER, True), (BOB, False), (STEVE, True), (ALICE, True)],
    ids=["superuser", "bob", "steve", "alice"],
)
@pytest.mark.parametrize(("resource", "namespace"), [("roles", "myns"), ("clusterroles", "")])
def test_role_writes(user: UserInfo, allowed: bool, resource: str, namespace: str) -> None:
    obj = role("myrole", namespace, POD_READER) if namespace else cluster_role("myrole", POD_READER)
    old = role("myrole", namespace) if namespace else cluster_role("myrole")
    for request, previous in (
        (write(user, "create", resource, namespace), None),
        (write(user, "update", resource, namespace, "myrole"), old),
    ):
        if allowed:
            confirm_role_write(SOURCE, request, obj, previous)
        else:
            error = refusal(confirm_role_write, SOURCE, request, obj, previous)
            assert error.code == 403 and error.reason == "Forbidden"


def test_the_refusal_names_what_is_not_held() -> None:
    error = refusal(
        confirm_role_write, SOURCE, write(BOB, "create", "roles", "myns"), role("myrole", "myns", POD_READER)
    )
    assert error.status() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'roles.rbac.authorization.k8s.io "myrole" is forbidden: user "bob" (groups=[]) is attempting to grant'
        ' RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}',
        "reason": "Forbidden",
        "details": {"name": "myrole", "group": RBAC, "kind": "roles"},
        "code": 403,
    }


def test_missing_rules_are_compacted_sorted_and_listed_with_resolution_errors() -> None:
    source = StaticRBAC(
        roles=[role("reader", "ns1", rule("get,list", "", "pods"))],
        role_bindings=[
            role_binding("r", "ns1", "Role:reader", "User:bob"),
            role_binding("g", "ns1", "Role:gone", "Group:devs"),
        ],
    )
    wanted = role(
        "big",
        "ns1",
        rule("get,list,watch", "", "pods,secrets"),
        rule("patch", "apps", "deployments", names="web"),
        rule("update", "apps", "deployments/status"),
    )
    user = UserInfo("bob", ("devs", "system:authenticated"))
    error = refusal(confirm_role_write, source, write(user, "create", "roles", "ns1"), wanted)
    assert error.message == (
        'roles.rbac.authorization.k8s.io "big" is forbidden: user "bob" (groups=["devs" "system:authenticated"]) is'
        " attempting to grant RBAC permissions not currently held:\n"
        '{APIGroups:[""], Resources:["pods"], Verbs:["watch"]}\n'
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}\n'
        '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["patch"]}\n'
        '{APIGroups:["apps"], Resources:["deployments/status"], Verbs:["update"]}'
        '; resolution errors: [roles.rbac.authorization.k8s.io "gone" not found]'
    )


def test_rules_held_in_a_namespace_grant_in_that_namespace_only() -> None:
    source = StaticRBAC(
        cluster_roles=[cluster_role("edit", rule("get,list,watch,create,update", "", "configmaps"))],
        role_bindings=[role_binding("e", "ns1", "ClusterRole:edit", "User:bob")],
    )
    wanted = rule("get,update", "", "configmaps")
    confirm_role_write(source, write(BOB, "create", "roles", "ns1"), role("cm", "ns1", wanted))
    assert (
        refusal(confirm_role_write, source, write(BOB, "create", "roles", "ns2"), role("cm", "ns2", wanted)).code == 403
    )
    assert (
        refusal(confirm_role_write, source, write(BOB, "create", "clusterroles"), cluster_role("cm", wanted)).code
        == 403
    )


def test_escalate_restricted_by_name_needs_the_requests_name() -> None:
    source = StaticRBAC(
        roles=[role("esc", "ns1", rule("escalate", RBAC, "roles", names="myrole"))],
        role_bindings=[role_binding("b", "ns1", "Role:esc", "User:bob")],
    )
    obj = role("myrole", "ns1", rule("*", "*", "*"))
    confirm_role_write(source, write(BOB, "update", "roles", "ns1", "myrole"), obj, role("myrole", "ns1"))
    # A create carries no name yet, so the named grant does not apply.
    assert refusal(confirm_role_write, source, write(BOB, "create", "roles", "ns1"), obj).code == 403


def test_an_aggregation_rule_takes_full_authority() -> None:
    # bob holds the (empty) rules, but neither full authority nor escalate (which "*" verbs would include).
    aggregated = cluster_role("agg", aggregationRule={"clusterRoleSelectors": [{"matchLabels": {"a": "b"}}]})
    almost = StaticRBAC(
        cluster_roles=[
            cluster_role("most", rule("get,list,watch,create,update,patch,delete", "*", "*"), rule("*", urls="*"))
        ],
        cluster_role_bindings=[cluster_role_binding("b", "most", "User:bob")],
    )
    error = refusal(confirm_role_write, almost, write(BOB, "create", "clusterroles"), aggregated)
    assert error.message == (
        'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule'
    )
    # Dropping an aggregationRule needs the same.
    plain = cluster_role("agg")
    update = write(BOB, "update", "clusterroles", name="agg")
    assert refusal(confirm_role_write, almost, update, plain, aggregated).code == 403
    full = StaticRBAC(
        cluster_roles=[cluster_role("cluster-admin", rule("*", "*", "*"), rule("*", urls="*"))],
        cluster_role_bindings=[cluster_role_binding("b", "cluster-admin", "User:bob")],
    )
    confirm_role_write(full, write(BOB, "create", "clusterroles"), aggregated)
    confirm_role_write(full, update, plain, aggregated)


def test_an_update_of_garbage_collector_fields_only_is_not_checked() -> None:
    old = {
        **role("myrole", "ns1", rule("*", "*", "*")),
        "metadata": {"name": "myrole", "namespace": "ns1", "finalizers": ["a"]},
    }
    finalizers_only = {**old, "metadata": {"name": "myrole", "namespace": "ns1", "ownerReferences": [{"uid": "1"}]}}
    confirm_role_write(SOURCE, write(BOB, "update", "roles", "ns1", "myrole"), finalizers_only, old)
    labelled = {**old, "metadata": {**old["metadata"], "labels": {"x": "y"}}}
    assert (
        refusal(confirm_role_write, SOURCE, write(BOB, "update", "roles", "ns1", "myrole"), labelled, old).code == 403
    )


VIEW = rule("get,list,watch", "", "pods")
BINDING_SOURCE = StaticRBAC(
    roles=[role("local-view", "ns1", VIEW)],
    cluster_roles=[
        cluster_role("view", VIEW),
        cluster_role("edit", VIEW, rule("create,delete", "", "pods")),
        cluster_role("binder", rule("bind", RBAC, "clusterroles", names="view")),
        cluster_role("pod-viewer", VIEW),
    ],
    role_bindings=[role_binding("binder", "ns1", "ClusterRole:binder", "User:bob")],
)


def test_bind_on_the_referenced_role_allows_the_binding() -> None:
    binding = role_binding("b", "ns1", "ClusterRole:view", "User:carol")
    confirm_binding_write(BINDING_SOURCE, write(BOB, "create", "rolebindings", "ns1"), binding)
    # bind was granted in ns1 only, and only for "view".
    other_ns = role_binding("b", "ns2", "ClusterRole:view", "User:carol")
    assert (
        refusal(confirm_binding_write, BINDING_SOURCE, write(BOB, "create", "rolebindings", "ns2"), other_ns).code
        == 403
    )
    edit = role_binding("b", "ns1", "ClusterRole:edit", "User:carol")
    error = refusal(confirm_binding_write, BINDING_SOURCE, write(BOB, "create", "rolebindings", "ns1"), edit)
    assert error.status()["message"] == (
        'rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "bob" (groups=[]) is attempting to grant RBAC'
        " permissions not currently held:\n"
        '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list" "watch" "create" "delete"]}'
    )
    assert error.status()["details"] == {"name": "b", "group": RBAC, "kind": "rolebindings"}


def test_holding_the_roles_rules_allows_the_binding() -> None:
    source = StaticRBAC(
        roles=[role("local-view", "ns1", VIEW)],
        cluster_roles=[cluster_role("view", VIEW)],
        role_bindings=[role_binding("mine", "ns1", "Role:local-view", "User:bob")],
    )
    confirm_binding_write(
        source, write(BOB, "create", "rolebindings", "ns1"), role_binding("b", "ns1", "ClusterRole:view", "User:carol")
    )
    crb = cluster_role_binding("b", "view", "User:carol")
    # Held in ns1 only, which does not cover a cluster-wide grant.
    assert refusal(confirm_binding_write, source, write(BOB, "create", "clusterrolebindings"), crb).code == 403


@pytest.mark.parametrize(
    ("binding", "resource", "namespace", "code", "message", "reason"),
    [
        (
            role_binding("b", "ns1", "Role:nope", "User:x"),
            "rolebindings",
            "ns1",
            404,
            'roles.rbac.authorization.k8s.io "nope" not found',
            "NotFound",
        ),
        (
            role_binding("b", "ns1", "ClusterRole:nope", "User:x"),
            "rolebindings",
            "ns1",
            404,
            'clusterroles.rbac.authorization.k8s.io "nope" not found',
            "NotFound",
        ),
        (
            cluster_role_binding("b", "nope", "User:x"),
            "clusterrolebindings",
            "",
            404,
            'clusterroles.rbac.authorization.k8s.io "nope" not found',
            "NotFound",
        ),
        (
            role_binding("b", "ns1", "ClusterRole:", "User:x"),
            "rolebindings",
            "ns1",
            400,
            "Name parameter required.",
            "BadRequest",
        ),
        (
            role_binding("b", "ns1", "Role:a/b%c", "User:x"),
            "rolebindings",
            "ns1",
            400,
            "Name parameter invalid: \"a/b%c\": may not contain '/';may not contain '%'",
            "BadRequest",
        ),
        (
            role_binding("b", "ns1", "Role:..", "User:x"),
            "rolebindings",
            "ns1",
            400,
            "Name parameter invalid: \"..\": may not be '..'",
            "BadRequest",
        ),
        (
            {
                **cluster_role_binding("b", "view", "User:x"),
                "roleRef": {"apiGroup": RBAC, "kind": "Role", "name": "view"},
            },
            "clusterrolebindings",
            "",
            400,
            "Namespace parameter required.",
            "BadRequest",
        ),
        (
            role_binding("b", "ns1", "Robot:x", "User:x"),
            "rolebindings",
            "ns1",
            500,
            'unsupported role reference kind: "Robot"',
            "",
        ),
    ],
)
def test_a_role_reference_storage_cannot_read(
    binding: dict[str, Any], resource: str, namespace: str, code: int, message: str, reason: str
) -> None:
    error = refusal(confirm_binding_write, BINDING_SOURCE, write(BOB, "create", resource, namespace), binding)
    assert (error.code, error.message, error.reason) == (code, message, reason)


def test_masters_bind_anything_even_what_does_not_exist() -> None:
    confirm_binding_write(
        BINDING_SOURCE,
        write(SUPERUSER, "create", "rolebindings", "ns1"),
        role_binding("b", "ns1", "Role:nope", "User:x"),
    )


def test_a_binding_update_of_finalizers_only_is_not_checked() -> None:
    old = role_binding("b", "ns1", "ClusterRole:edit", "User:carol")
    new = {**old, "metadata": {**old["metadata"], "finalizers": ["x"]}}
    confirm_binding_write(BINDING_SOURCE, write(BOB, "update", "rolebindings", "ns1", "b"), new, old)
    changed = {**new, "subjects": [{"kind": "User", "name": "dave"}]}
    assert (
        refusal(
            confirm_binding_write, BINDING_SOURCE, write(BOB, "update", "rolebindings", "ns1", "b"), changed, old
        ).code
        == 403
    )
