"""The decision and its reason: kubernetes' rbac_test.go ``TestAuthorizer``, rule_test.go ``TestAppliesTo``
and ``TestDefaultRuleResolver``, and the reasons rbac.go and the union authorizer write."""

from __future__ import annotations

import pytest

from fakeapi._state.authorization import (
    Attributes,
    Decision,
    PolicyRule,
    StaticRBAC,
    UserInfo,
    authorize,
    service_account_user,
)
from fakeapi._state.authorization.resolving import applies_to, rules_for
from tests.authorization.objects import (
    cluster_role,
    cluster_role_binding,
    role,
    role_binding,
    rule,
    subject,
)


def user(spec: str) -> UserInfo:
    """``name`` or ``name|group1,group2``."""
    name, _, groups = spec.partition("|")
    return UserInfo(name, tuple(groups.split(",")) if groups else ())


def allowed(source: StaticRBAC, who: str, verb: str, res: str, ns: str = "", sub: str = "") -> bool:
    return authorize(source, Attributes.for_resource(user(who), verb, res, namespace=ns, subresource=sub)).allowed


ADMIN_IN_NS1 = StaticRBAC(
    cluster_roles=[cluster_role("admin", rule("*", "*", "*", urls="*"))],
    role_bindings=[role_binding("b", "ns1", "ClusterRole:admin", "User:admin", "Group:admins")],
)


# TestAuthorizer, first case: a RoleBinding to a ClusterRole grants it in its namespace only.
@pytest.mark.parametrize(
    ("who", "verb", "res", "ns", "expected"),
    [
        ("admin", "get", "Pods", "ns1", True),
        ("admin", "watch", "Pods", "ns1", True),
        ("admin|group1", "watch", "Foobar", "ns1", True),
        ("joe|admins", "watch", "Foobar", "ns1", True),
        ("joe|group1,admins", "watch", "Foobar", "ns1", True),
        ("admin", "GET", "Pods", "ns2", False),
        ("admin", "GET", "Nodes", "", False),
        ("admin|admins", "GET", "Pods", "ns2", False),
        ("admin|admins", "GET", "Nodes", "", False),
    ],
)
def test_role_binding_to_cluster_role_is_namespaced(who: str, verb: str, res: str, ns: str, expected: bool) -> None:
    assert allowed(ADMIN_IN_NS1, who, verb, res, ns) is expected


NON_RESOURCE = StaticRBAC(
    cluster_roles=[
        cluster_role("non-resource-url-getter", rule("get", urls="/apis")),
        cluster_role("non-resource-url", rule("*", urls="/apis")),
        cluster_role("non-resource-url-prefix", rule("get", urls="/apis/*")),
    ],
    cluster_role_bindings=[
        cluster_role_binding("a", "non-resource-url-getter", "User:foo", "Group:bar"),
        cluster_role_binding("b", "non-resource-url", "User:admin", "Group:admin"),
        cluster_role_binding("c", "non-resource-url-prefix", "User:prefixed", "Group:prefixed"),
    ],
)


# TestAuthorizer, non-resource-url case.
@pytest.mark.parametrize(
    ("who", "verb", "url", "expected"),
    [
        ("foo", "get", "/apis", True),
        ("|bar", "get", "/apis", True),
        ("admin", "get", "/apis", True),
        ("|admin", "watch", "/apis", True),
        ("prefixed", "get", "/apis/v1", True),
        ("|prefixed", "get", "/apis/v1/foobar", True),
        ("foo", "watch", "/apis", False),
        ("|bar", "watch", "/apis", False),
        ("foo", "get", "/api/v1", False),
        ("admin", "get", "/api/v1", False),
        ("prefixed", "get", "/api/v1", False),
        ("prefixed", "get", "/apis", False),
    ],
)
def test_non_resource_urls(who: str, verb: str, url: str, expected: bool) -> None:
    assert authorize(NON_RESOURCE, Attributes.for_path(user(who), verb, url)).allowed is expected


# rule_test.go TestAppliesTo: (subjects, user, namespace, applies).
APPLIES_TO = [
    (["User:foobar"], "foobar", "", True),
    (["User:barfoo", "User:foobar"], "foobar", "", True),
    (["User:barfoo", "User:foobar"], "zimzam", "", False),
    (["User:barfoo", "Group:foobar"], "zimzam|foobar", "", True),
    (["User:barfoo", "Group:foobar"], "zimzam|foobar", "namespace1", True),
    (
        ["User:barfoo", "Group:foobar", "ServiceAccount:kube-system/default"],
        "system:serviceaccount:kube-system:default",
        "default",
        True,
    ),
    (["User:*"], "foobar", "default", False),
    (["Group:system:authenticated", "Group:system:unauthenticated"], "foobar|system:authenticated", "default", True),
    (
        ["Group:system:authenticated", "Group:system:unauthenticated"],
        "system:anonymous|system:unauthenticated",
        "default",
        True,
    ),
    # A ServiceAccount subject without a namespace takes the RoleBinding's, and in a ClusterRoleBinding applies to none.
    (["ServiceAccount:op"], "system:serviceaccount:default:op", "default", True),
    (["ServiceAccount:op"], "system:serviceaccount:other:op", "default", False),
    (["ServiceAccount:op"], "system:serviceaccount::op", "", False),
    (["ServiceAccount:default/op"], "system:serviceaccount:default:op2", "default", False),
    (["ServiceAccount:default/op"], "system:serviceaccount:default:op:x", "default", False),
    (["Group:system:serviceaccounts:default"], "x|system:serviceaccounts,system:serviceaccounts:default", "", True),
    (["Robot:x"], "x", "", False),
]


@pytest.mark.parametrize(("subjects", "who", "namespace", "expected"), APPLIES_TO)
def test_applies_to(subjects: list[str], who: str, namespace: str, expected: bool) -> None:
    assert (applies_to(user(who), [subject(s) for s in subjects], namespace) is not None) is expected


def test_rules_for_as_default_rule_resolver() -> None:
    # rule_test.go TestDefaultRuleResolver.
    read_pods = rule("GET,WATCH", "v1", "pods")
    read_services = rule("GET,WATCH", "v1", "services")
    admin = rule("*", "*", "*")
    source = StaticRBAC(
        roles=[role("readthings", "namespace1", read_pods, read_services)],
        cluster_roles=[
            cluster_role("cluster-admin", admin),
            cluster_role("write-nodes", rule("PUT,CREATE,UPDATE", "v1", "nodes")),
        ],
        role_bindings=[role_binding("", "namespace1", "Role:readthings", "User:foobar", "Group:group1")],
        cluster_role_bindings=[cluster_role_binding("", "cluster-admin", "User:admin", "Group:admin")],
    )
    as_rules = PolicyRule.from_dict
    assert rules_for(source, user("foobar"), "namespace1") == ([as_rules(read_pods), as_rules(read_services)], [])
    assert rules_for(source, user("foobar"), "namespace2") == ([], [])
    assert rules_for(source, user("foobar|admin"), "") == ([as_rules(admin)], [])
    assert rules_for(source, user(""), "") == ([], [])


PODS_READER = rule("get,list,watch", "", "pods")


@pytest.mark.parametrize(
    ("source", "who", "ns", "reason"),
    [
        (
            StaticRBAC(
                cluster_roles=[cluster_role("view", PODS_READER)],
                cluster_role_bindings=[cluster_role_binding("viewers", "view", "Group:devs")],
            ),
            "alice|devs",
            "default",
            'RBAC: allowed by ClusterRoleBinding "viewers" of ClusterRole "view" to Group "devs"',
        ),
        (
            StaticRBAC(
                roles=[role("pods", "default", PODS_READER)],
                role_bindings=[role_binding("op", "default", "Role:pods", "ServiceAccount:op")],
            ),
            "system:serviceaccount:default:op",
            "default",
            'RBAC: allowed by RoleBinding "op/default" of Role "pods" to ServiceAccount "op/default"',
        ),
        (
            StaticRBAC(
                cluster_roles=[cluster_role("view", PODS_READER)],
                role_bindings=[role_binding("op", "default", "ClusterRole:view", "ServiceAccount:ops/op")],
            ),
            "system:serviceaccount:ops:op",
            "default",
            'RBAC: allowed by RoleBinding "op/default" of ClusterRole "view" to ServiceAccount "op/ops"',
        ),
        (
            StaticRBAC(
                cluster_roles=[cluster_role("view", PODS_READER)],
                cluster_role_bindings=[cluster_role_binding("b", "view", "User:x", "User:bob")],
            ),
            "bob",
            "",
            'RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "view" to User "bob"',
        ),
    ],
)
def test_the_allowing_binding_is_the_reason(source: StaticRBAC, who: str, ns: str, reason: str) -> None:
    decision = authorize(source, Attributes.for_resource(user(who), "list", "pods", namespace=ns))
    assert decision == Decision(True, reason)


def test_cluster_role_bindings_are_asked_before_role_bindings() -> None:
    source = StaticRBAC(
        cluster_roles=[cluster_role("view", PODS_READER)],
        role_bindings=[role_binding("local", "default", "ClusterRole:view", "User:bob")],
        cluster_role_bindings=[cluster_role_binding("global", "view", "User:bob")],
    )
    decision = authorize(source, Attributes.for_resource(user("bob"), "get", "pods", namespace="default"))
    assert decision.reason == 'RBAC: allowed by ClusterRoleBinding "global" of ClusterRole "view" to User "bob"'


def test_a_denial_without_errors_has_no_reason() -> None:
    assert authorize(ADMIN_IN_NS1, Attributes.for_resource(user("bob"), "get", "pods", namespace="ns1")) == Decision(
        False
    )


MISSING = StaticRBAC(
    cluster_roles=[cluster_role("view", PODS_READER)],
    role_bindings=[
        role_binding("a", "default", "Role:gone", "User:bob"),
        role_binding("b", "default", "ClusterRole:absent", "User:bob"),
        role_binding("c", "default", "Role:gone", "Group:devs"),
        role_binding("d", "default", "Robot:x", "User:bob"),
        role_binding("e", "default", "ClusterRole:view", "User:bob"),
    ],
)


def test_missing_roles_are_the_reason_of_a_denial() -> None:
    decision = authorize(MISSING, Attributes.for_resource(user("bob|devs"), "delete", "pods", namespace="default"))
    assert decision == Decision(
        False,
        'RBAC: [role.rbac.authorization.k8s.io "gone" not found, clusterrole.rbac.authorization.k8s.io "absent" not found,'
        ' unsupported role reference kind: "Robot"]',
    )


def test_one_missing_role_reads_without_brackets_and_repeats_once() -> None:
    source = StaticRBAC(
        role_bindings=[
            role_binding("a", "default", "Role:gone", "User:bob"),
            role_binding("c", "default", "Role:gone", "User:bob"),
        ]
    )
    decision = authorize(source, Attributes.for_resource(user("bob"), "get", "pods", namespace="default"))
    assert decision == Decision(False, 'RBAC: role.rbac.authorization.k8s.io "gone" not found')


def test_missing_roles_do_not_stop_other_grants() -> None:
    decision = authorize(MISSING, Attributes.for_resource(user("bob"), "get", "pods", namespace="default"))
    assert decision == Decision(True, 'RBAC: allowed by RoleBinding "e/default" of ClusterRole "view" to User "bob"')


def test_masters_are_allowed_everything_without_a_reason() -> None:
    empty = StaticRBAC()
    master = UserInfo("admin", ("system:masters", "system:authenticated"))
    assert authorize(
        empty, Attributes.for_resource(master, "escalate", "clusterroles", api_group="rbac.authorization.k8s.io")
    ) == Decision(True)
    assert authorize(empty, Attributes.for_path(master, "get", "/healthz")) == Decision(True)


def test_service_accounts_and_their_groups() -> None:
    operator = service_account_user("ops", "op")
    assert operator == UserInfo(
        "system:serviceaccount:ops:op", ("system:serviceaccounts", "system:serviceaccounts:ops", "system:authenticated")
    )
    source = StaticRBAC(
        cluster_roles=[cluster_role("view", PODS_READER), cluster_role("cm", rule("get", "", "configmaps"))],
        cluster_role_bindings=[cluster_role_binding("all-sa", "view", "Group:system:serviceaccounts")],
        role_bindings=[role_binding("ns-sa", "default", "ClusterRole:cm", "Group:system:serviceaccounts:ops")],
    )
    assert authorize(source, Attributes.for_resource(operator, "get", "pods", namespace="x")).allowed
    assert authorize(source, Attributes.for_resource(operator, "get", "configmaps", namespace="default")).allowed
    assert not authorize(source, Attributes.for_resource(operator, "get", "configmaps", namespace="ops")).allowed
    other = service_account_user("default", "op")
    assert not authorize(source, Attributes.for_resource(other, "get", "configmaps", namespace="default")).allowed


def test_a_cluster_scoped_request_never_reads_role_bindings() -> None:
    source = StaticRBAC(
        cluster_roles=[cluster_role("nodes", rule("get", "", "nodes"))],
        role_bindings=[role_binding("b", "default", "ClusterRole:nodes", "User:bob")],
    )
    assert not allowed(source, "bob", "get", "nodes")
    assert allowed(source, "bob", "get", "nodes", ns="default")
