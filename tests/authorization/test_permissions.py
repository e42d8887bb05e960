"""The permissions report: the rules an identity's requests needed, what they lacked, and what went unused."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fakeapi._state.authorization import Attributes, Observation, PolicyRule, permissions_report, service_account_user
from fakeapi._state.authorization.covering import breakdown_rule
from fakeapi._state.authorization.rules import rule_allows, rules_allow
from tests.authorization.objects import cluster_role, role, rule

OP = service_account_user("ops", "op")


def seen(
    verb: str, resource: str, *, group: str = "", ns: str = "ops", name: str = "", sub: str = "", allowed: bool = True
) -> Observation:
    return Observation(
        Attributes.for_resource(OP, verb, resource, api_group=group, namespace=ns, name=name, subresource=sub), allowed
    )


OPERATOR_RUN = [
    seen("list", "widgets", group="example.com"),
    seen("watch", "widgets", group="example.com"),
    seen("get", "widgets", group="example.com", name="w1"),
    seen("list", "widgets", group="example.com"),
    seen("patch", "widgets", group="example.com", name="w1", sub="status", allowed=False),
    seen("create", "events", group="events.k8s.io"),
    seen("list", "configmaps"),
    seen("watch", "configmaps"),
    seen("get", "leases", group="coordination.k8s.io", name="op-leader"),
    seen("update", "leases", group="coordination.k8s.io", name="op-leader"),
    seen("list", "customresourcedefinitions", group="apiextensions.k8s.io", ns="", allowed=False),
    Observation(Attributes.for_path(OP, "get", "/healthz"), True),
]


def test_required_rules_are_grouped_as_a_person_writes_them() -> None:
    report = permissions_report(OPERATOR_RUN)
    assert report.to_dict()["required"] == [
        {
            "namespace": "ops",
            "rules": [
                {"verbs": ["list", "watch"], "apiGroups": [""], "resources": ["configmaps"]},
                {"verbs": ["get", "update"], "apiGroups": ["coordination.k8s.io"], "resources": ["leases"]},
                {"verbs": ["create"], "apiGroups": ["events.k8s.io"], "resources": ["events"]},
                {"verbs": ["get", "list", "watch"], "apiGroups": ["example.com"], "resources": ["widgets"]},
                {"verbs": ["patch"], "apiGroups": ["example.com"], "resources": ["widgets/status"]},
            ],
        },
        {
            "namespace": "",
            "rules": [
                {"verbs": ["list"], "apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"]},
                {"verbs": ["get"], "nonResourceURLs": ["/healthz"]},
            ],
        },
    ]
    assert report.missing[0].manifest("op") == {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "op", "namespace": "ops"},
        "rules": [{"verbs": ["patch"], "apiGroups": ["example.com"], "resources": ["widgets/status"]}],
    }
    assert report.missing[1].manifest("op")["kind"] == "ClusterRole"


def test_resources_with_the_same_verbs_share_a_rule() -> None:
    report = permissions_report(
        [seen(v, r) for r in ("pods", "services", "secrets") for v in ("get", "list")] + [seen("watch", "secrets")]
    )
    assert [r.to_dict() for r in report.required[0].rules] == [
        {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods", "services"]},
        {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["secrets"]},
    ]


def test_resource_names_narrow_rules_where_every_request_named_one() -> None:
    report = permissions_report(OPERATOR_RUN, resource_names=True)
    rules = [r.to_dict() for r in report.required[0].rules]
    assert {
        "verbs": ["get", "update"],
        "apiGroups": ["coordination.k8s.io"],
        "resources": ["leases"],
        "resourceNames": ["op-leader"],
    } in rules
    # Lists and watches of widgets carry no name, so they stay unrestricted; every get named w1.
    assert {"verbs": ["list", "watch"], "apiGroups": ["example.com"], "resources": ["widgets"]} in rules
    assert {"verbs": ["get"], "apiGroups": ["example.com"], "resources": ["widgets"], "resourceNames": ["w1"]} in rules


def test_used_counts_each_permission() -> None:
    used = [p.to_dict() for p in permissions_report(OPERATOR_RUN).used]
    assert used[0] == {
        "verb": "list",
        "apiGroup": "",
        "resource": "configmaps",
        "namespace": "ops",
        "allowed": 1,
        "denied": 0,
    }
    assert {
        "verb": "list",
        "apiGroup": "example.com",
        "resource": "widgets",
        "namespace": "ops",
        "allowed": 2,
        "denied": 0,
    } in used
    assert {
        "verb": "patch",
        "apiGroup": "example.com",
        "resource": "widgets/status",
        "namespace": "ops",
        "name": "w1",
        "allowed": 0,
        "denied": 1,
    } in used
    assert used[-1] == {"verb": "get", "nonResourceURL": "/healthz", "allowed": 1, "denied": 0}


def test_unused_grants_of_the_manifests() -> None:
    manifests = [
        role("op", "ops", rule("get,list,watch,create,delete", "example.com", "widgets"), rule("*", "", "configmaps")),
        cluster_role("op-health", rule("get", urls="/healthz,/livez")),
        role("elsewhere", "other", rule("list", "", "configmaps")),
        {"kind": "ServiceAccount"},
    ]
    unused = permissions_report(OPERATOR_RUN, manifests).to_dict()["unused"]
    assert unused == [
        {
            "kind": "Role",
            "namespace": "ops",
            "name": "op",
            "rules": [{"verbs": ["create", "delete"], "apiGroups": ["example.com"], "resources": ["widgets"]}],
        },
        {
            "kind": "ClusterRole",
            "namespace": "",
            "name": "op-health",
            "rules": [{"verbs": ["get"], "nonResourceURLs": ["/livez"]}],
        },
        {
            "kind": "Role",
            "namespace": "other",
            "name": "elsewhere",
            "rules": [{"verbs": ["list"], "apiGroups": [""], "resources": ["configmaps"]}],
        },
    ]


VERBS = st.sampled_from(["get", "list", "watch", "create", "update", "patch", "delete", "escalate"])
REQUESTS = st.lists(
    st.one_of(
        st.builds(
            lambda verb, group, res, sub, ns, name: Attributes.for_resource(
                OP, verb, res, api_group=group, subresource=sub, namespace=ns, name=name
            ),
            VERBS,
            st.sampled_from(["", "apps", "example.com"]),
            st.sampled_from(["pods", "widgets", "deployments"]),
            st.sampled_from(["", "status", "scale"]),
            st.sampled_from(["", "ops", "other"]),
            st.sampled_from(["", "a", "b"]),
        ),
        st.builds(
            lambda verb, url: Attributes.for_path(OP, verb, url),
            VERBS,
            st.sampled_from(["/healthz", "/metrics", "/api"]),
        ),
    ),
    max_size=25,
)


@given(REQUESTS, st.booleans())
def test_required_rules_allow_exactly_the_requests(requests: list[Attributes], by_name: bool) -> None:
    report = permissions_report([Observation(a, True) for a in requests], resource_names=by_name)
    for attributes in requests:
        scope = attributes.namespace if attributes.resource_request else ""
        assert rules_allow(attributes, next(s.rules for s in report.required if s.namespace == scope))
    for scoped in report.required:
        in_scope = [a for a in requests if (a.namespace if a.resource_request else "") == scoped.namespace]
        for granted in scoped.rules:
            for atom in breakdown_rule(granted):
                # Every single grant is one some request in its scope used: nothing more is granted.
                assert any(rule_allows(a, atom) for a in in_scope), (atom, scoped.namespace)
                if atom.resource_names:
                    assert not any(
                        rule_allows(a, PolicyRule(atom.verbs, atom.api_groups, atom.resources)) and not a.name
                        for a in in_scope
                    )
