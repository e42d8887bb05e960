"""Rule matching, case by case as kubernetes' rbac_test.go ``TestRuleMatches`` and ``TestAuthorizer`` check it."""

from __future__ import annotations

import pytest

from fakeapi._state.authorization import Attributes, PolicyRule, UserInfo
from fakeapi._state.authorization.rules import rule_allows
from tests.authorization.objects import rule

NOBODY = UserInfo("")


def resource(verb: str, group: str, res: str, sub: str = "", name: str = "") -> Attributes:
    return Attributes.for_resource(NOBODY, verb, res, api_group=group, subresource=sub, name=name)


def path(verb: str, url: str) -> Attributes:
    return Attributes.for_path(NOBODY, verb, url)


def check(policy: dict[str, object], request: Attributes, expected: bool) -> None:
    assert rule_allows(request, PolicyRule.from_dict(policy)) is expected


# plugin/pkg/auth/authorizer/rbac/rbac_test.go, TestRuleMatches: (rule, request, expected).
RULE_MATCHES = [
    # star verb, exact match other
    *[
        (rule("*", "group1", "resource1"), resource(v, g, r), g == "group1" and r == "resource1")
        for v in ("verb1", "verb2")
        for g in ("group1", "group2")
        for r in ("resource1", "resource2")
    ],
    # star group, exact match other
    *[
        (rule("verb1", "*", "resource1"), resource(v, g, r), v == "verb1" and r == "resource1")
        for v in ("verb1", "verb2")
        for g in ("group1", "group2")
        for r in ("resource1", "resource2")
    ],
    # star resource, exact match other
    *[
        (rule("verb1", "group1", "*"), resource(v, g, r), v == "verb1" and g == "group1")
        for v in ("verb1", "verb2")
        for g in ("group1", "group2")
        for r in ("resource1", "resource2")
    ],
    # tuple expansion
    *[
        (rule("verb1,verb2", "group1,group2", "resource1,resource2"), resource(v, g, r), True)
        for v in ("verb1", "verb2")
        for g in ("group1", "group2")
        for r in ("resource1", "resource2")
    ],
    # subresource expansion
    (rule("*", "*", "resource1/subresource1"), resource("verb1", "group1", "resource1", "subresource1"), True),
    (rule("*", "*", "resource1/subresource1"), resource("verb1", "group2", "resource1", "subresource2"), False),
    (rule("*", "*", "resource1/subresource1"), resource("verb1", "group1", "resource2", "subresource1"), False),
    (rule("*", "*", "resource1/subresource1"), resource("verb2", "group1", "resource1", "subresource1"), True),
    # star nonresource, exact match other
    *[
        (rule("verb1", urls="*"), path(v, u), v == "verb1")
        for v in ("verb1", "verb2")
        for u in ("/foo", "/foo/bar", "/foo/baz", "/foo/bar/one", "/foo/baz/one")
    ],
    # star nonresource subpath
    (rule("verb1", urls="/foo/*"), path("verb1", "/foo"), False),
    (rule("verb1", urls="/foo/*"), path("verb1", "/foo/bar"), True),
    (rule("verb1", urls="/foo/*"), path("verb1", "/foo/bar/one"), True),
    (rule("verb1", urls="/foo/*"), path("verb1", "/notfoo"), False),
    (rule("verb1", urls="/foo/*"), path("verb1", "/notfoo/bar"), False),
    # star verb, exact nonresource
    *[
        (rule("*", urls="/foo,/foo/bar/one"), path(v, u), u in ("/foo", "/foo/bar/one"))
        for v in ("verb1", "verb2")
        for u in ("/foo", "/foo/bar", "/foo/baz", "/foo/bar/one", "/foo/baz/one")
    ],
]


@pytest.mark.parametrize(("policy", "request_", "expected"), RULE_MATCHES)
def test_rule_matches_as_upstream(policy: dict[str, object], request_: Attributes, expected: bool) -> None:
    check(policy, request_, expected)


# TestAuthorizer's subresource cases: "pods" is not "pods/status"; "*/scale" is scale of anything.
SUBRESOURCES = [
    (rule("*", "*", "pods"), resource("get", "", "pods"), True),
    (rule("*", "*", "pods"), resource("get", "", "pods", "status"), False),
    (rule("*", "*", "pods/status"), resource("get", "", "pods", "status"), True),
    (rule("*", "*", "*/scale"), resource("get", "", "pods", "scale"), True),
    (rule("*", "*", "*/scale"), resource("get", "", "deployments", "scale"), True),
    (rule("*", "*", "*/scale"), resource("get", "", "anything", "scale"), True),
    (rule("*", "*", "pods/status,*/scale"), resource("get", "", "pods"), False),
    (rule("*", "*", "*/scale"), resource("get", "", "deployments", "status"), False),
    (rule("*", "*", "*/scale"), resource("get", "", "scale"), False),
    (rule("*", "*", "*"), resource("patch", "example.com", "widgets", "status"), True),
]


@pytest.mark.parametrize(("policy", "request_", "expected"), SUBRESOURCES)
def test_subresources(policy: dict[str, object], request_: Attributes, expected: bool) -> None:
    check(policy, request_, expected)


NAMED = rule("get,list,watch,create,update,delete,deletecollection", "", "configmaps", names="leader")


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        (resource("get", "", "configmaps", name="leader"), True),
        (resource("update", "", "configmaps", name="leader"), True),
        (resource("get", "", "configmaps", name="other"), False),
        # A list, a watch, a create and a deletecollection carry no name, so resourceNames never match them
        # (the RequestInfo gives a list or watch a name only when fieldSelector pins metadata.name).
        (resource("list", "", "configmaps"), False),
        (resource("watch", "", "configmaps"), False),
        (resource("create", "", "configmaps"), False),
        (resource("deletecollection", "", "configmaps"), False),
        (resource("watch", "", "configmaps", name="leader"), True),
        (resource("list", "", "configmaps", name="leader"), True),
    ],
)
def test_resource_names_need_a_name(request_: Attributes, expected: bool) -> None:
    check(NAMED, request_, expected)


def test_an_unrestricted_rule_allows_the_empty_name() -> None:
    check(rule("create", "", "pods"), resource("create", "", "pods"), True)


def test_verbs_and_groups_are_exact_and_case_sensitive() -> None:
    check(rule("get", "", "pods"), resource("GET", "", "pods"), False)
    check(rule("get", "apps", "deployments"), resource("get", "", "deployments"), False)
    check(rule("get", "", "Pods"), resource("get", "", "pods"), False)


def test_a_rule_reads_back_in_the_types_field_order() -> None:
    data = {"resourceNames": ["a"], "resources": ["pods"], "apiGroups": [""], "verbs": ["get"], "extra": 1}
    assert list(PolicyRule.from_dict(data).to_dict()) == ["verbs", "apiGroups", "resources", "resourceNames"]
    assert PolicyRule.from_dict({"verbs": ["get"], "nonResourceURLs": ["/healthz"]}).to_dict() == {
        "verbs": ["get"],
        "nonResourceURLs": ["/healthz"],
    }


def test_compact_string_as_escalation_messages_print_rules() -> None:
    full = PolicyRule(("get", "list"), ("apps",), ("deployments",), ("web",), ("/x",))
    assert full.compact_string() == (
        '{APIGroups:["apps"], Resources:["deployments"], NonResourceURLs:["/x"], ResourceNames:["web"], Verbs:["get" "list"]}'
    )
    assert (
        PolicyRule(("get",), ("",), ("pods",)).compact_string() == '{APIGroups:[""], Resources:["pods"], Verbs:["get"]}'
    )
