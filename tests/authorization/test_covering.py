"""Covers and CompactRules: k8s.io/component-helpers policy_comparator_test.go, case by case."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi._state.authorization import PolicyRule
from fakeapi._state.authorization.covering import compact_rules, covers, uncovered_rules


def r(**fields: list[str]) -> PolicyRule:
    names = {
        "groups": "apiGroups",
        "verbs": "verbs",
        "resources": "resources",
        "names": "resourceNames",
        "urls": "nonResourceURLs",
    }
    data: dict[str, Any] = {names[key]: value for key, value in fields.items()}
    return PolicyRule.from_dict(data)


CASES = [
    (
        "ExactMatch",
        [r(groups=["v1"], verbs=["get"], resources=["builds"])],
        [r(groups=["v1"], verbs=["get"], resources=["builds"])],
        [],
    ),
    (
        "SubresourceWildcard",
        [r(groups=["v1"], verbs=["get"], resources=["*/scale"])],
        [r(groups=["v1"], verbs=["get"], resources=["foo/scale"])],
        [],
    ),
    (
        "MultipleRulesCoveringSingleRule",
        [
            r(groups=["v1"], verbs=["delete"], resources=["deployments"]),
            r(groups=["v1"], verbs=["delete"], resources=["builds"]),
            r(groups=["v1"], verbs=["update"], resources=["builds", "deployments"]),
        ],
        [r(groups=["v1"], verbs=["delete", "update"], resources=["builds", "deployments"])],
        [],
    ),
    (
        "MultipleAPIGroupsCoveringSingleRule",
        [
            r(groups=["group1"], verbs=["delete"], resources=["deployments"]),
            r(groups=["group1"], verbs=["delete"], resources=["builds"]),
            r(groups=["group1"], verbs=["update"], resources=["builds", "deployments"]),
            r(groups=["group2"], verbs=["delete"], resources=["deployments"]),
            r(groups=["group2"], verbs=["delete"], resources=["builds"]),
            r(groups=["group2"], verbs=["update"], resources=["builds", "deployments"]),
        ],
        [r(groups=["group1", "group2"], verbs=["delete", "update"], resources=["builds", "deployments"])],
        [],
    ),
    (
        "MultipleRulesMissingSingleVerbResourceCombination",
        [
            r(groups=["v1"], verbs=["delete", "update"], resources=["builds", "deployments"]),
            r(groups=["v1"], verbs=["delete"], resources=["pods"]),
        ],
        [r(groups=["v1"], verbs=["delete", "update"], resources=["builds", "deployments", "pods"])],
        [r(groups=["v1"], verbs=["update"], resources=["pods"])],
    ),
    (
        "APIGroupStarCoveringMultiple",
        [r(groups=["*"], verbs=["get"], resources=["roles"])],
        [r(groups=["group1", "group2"], verbs=["get"], resources=["roles"])],
        [],
    ),
    (
        "EnumerationNotCoveringAPIGroupStar",
        [r(groups=["dummy-group"], verbs=["get"], resources=["roles"])],
        [r(groups=["*"], verbs=["get"], resources=["roles"])],
        [r(groups=["*"], verbs=["get"], resources=["roles"])],
    ),
    (
        "VerbStarCoveringMultiple",
        [r(groups=["v1"], verbs=["*"], resources=["roles"])],
        [r(groups=["v1"], verbs=["watch", "list"], resources=["roles"])],
        [],
    ),
    (
        "EnumerationNotCoveringVerbStar",
        [r(groups=["v1"], verbs=["get", "list", "watch", "create", "update", "delete", "exec"], resources=["roles"])],
        [r(groups=["v1"], verbs=["*"], resources=["roles"])],
        [r(groups=["v1"], verbs=["*"], resources=["roles"])],
    ),
    (
        "ResourceStarCoveringMultiple",
        [r(groups=["v1"], verbs=["get"], resources=["*"])],
        [r(groups=["v1"], verbs=["get"], resources=["resourcegroup:deployments"])],
        [],
    ),
    (
        "ResourceNameEmptyCoveringMultiple",
        [r(groups=["v1"], verbs=["get"], resources=["pods"])],
        [r(groups=["v1"], verbs=["get"], resources=["pods"], names=["foo", "bar"])],
        [],
    ),
    (
        "EnumerationNotCoveringResourceNameEmpty",
        [r(groups=["v1"], verbs=["get"], resources=["pods"], names=["foo", "bar"])],
        [r(groups=["v1"], verbs=["get"], resources=["pods"], names=[])],
        [r(groups=["v1"], verbs=["get"], resources=["pods"])],
    ),
    ("NonResourceURLs", [r(urls=["/apis"], verbs=["*"])], [r(urls=["/apis"], verbs=["*"])], []),
    ("NonResourceURLsStar", [r(urls=["*"], verbs=["*"])], [r(urls=["/apis", "/apis/v1", "/"], verbs=["*"])], []),
    (
        "NonResourceURLsStarAfterPrefixDoesntCover",
        [r(urls=["/apis/*"], verbs=["*"])],
        [r(urls=["/apis", "/apis/v1"], verbs=["get"])],
        [r(urls=["/apis"], verbs=["get"])],
    ),
    (
        "NonResourceURLsStarAfterPrefix",
        [r(urls=["/apis/*"], verbs=["*"])],
        [r(urls=["/apis/v1/foo", "/apis/v1"], verbs=["get"])],
        [],
    ),
    (
        "NonResourceURLsWithOtherFields",
        [r(groups=["v1"], verbs=["get"], resources=["builds"], urls=["/apis"])],
        [r(groups=["v1"], verbs=["get"], resources=["builds"], urls=["/apis"])],
        [],
    ),
    (
        "NonResourceURLsWithOtherFieldsFailure",
        [r(groups=["v1"], verbs=["get"], resources=["builds"])],
        [r(groups=["v1"], verbs=["get"], resources=["builds"], urls=["/apis"])],
        [r(urls=["/apis"], verbs=["get"])],
    ),
    (
        "SingleAPIGroupsCoveringMultiple",
        [r(groups=["group1", "group2"], verbs=["delete", "update"], resources=["builds", "deployments"])],
        [
            r(groups=[g], verbs=[v], resources=res)
            for g in ("group1", "group2")
            for v, res in (("delete", ["deployments"]), ("delete", ["builds"]), ("update", ["builds", "deployments"]))
        ],
        [],
    ),
    (
        "APIGroupStarCoveringStar",
        [r(groups=["*"], verbs=["get"], resources=["roles"])],
        [r(groups=["*"], verbs=["get"], resources=["roles"])],
        [],
    ),
    (
        "VerbStarCoveringStar",
        [r(groups=["v1"], verbs=["*"], resources=["roles"])],
        [r(groups=["v1"], verbs=["*"], resources=["roles"])],
        [],
    ),
    (
        "EnumerationNotCoveringResourceStar",
        [r(groups=["v1"], verbs=["get"], resources=["roles", "resourcegroup:deployments"])],
        [r(groups=["v1"], verbs=["get"], resources=["*"])],
        [r(groups=["v1"], verbs=["get"], resources=["*"])],
    ),
    (
        "ResourceStarCoveringStar",
        [r(groups=["v1"], verbs=["get"], resources=["*"])],
        [r(groups=["v1"], verbs=["get"], resources=["*"])],
        [],
    ),
    # Not upstream cases: a rule naming resources without a group breaks into nothing, so it is covered.
    ("ResourcesWithoutGroups", [], [r(verbs=["get"], resources=["pods"])], []),
]


@pytest.mark.parametrize(("owner", "servant", "uncovered"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_covers(owner: list[PolicyRule], servant: list[PolicyRule], uncovered: list[PolicyRule]) -> None:
    assert uncovered_rules(owner, servant) == uncovered
    assert covers(owner, servant) is (not uncovered)


# TestNonResourceURLCovers, as one owner rule covering one URL.
@pytest.mark.parametrize(
    ("owner", "requested", "want"),
    [
        ("*", "", True),
        ("*", "/", True),
        ("*", "/api", True),
        ("/*", "", False),
        ("/*", "/", True),
        ("/*", "/foo", True),
        ("/api", "/api", True),
        ("/apis", "/api", False),
        ("/api/v1", "/api", False),
        ("/api/v1", "/api/v1", True),
        ("/api/*", "/api/v1", True),
        ("/api/*", "/api", False),
        ("/api/*/*", "/api/v1", False),
        ("/*/v1/*", "/api/v1", False),
    ],
)
def test_non_resource_url_covers(owner: str, requested: str, want: bool) -> None:
    assert covers([r(urls=[owner], verbs=["get"])], [r(urls=[requested], verbs=["get"])]) is want


def test_compact_rules_merges_simple_rules_by_verb() -> None:
    # policy_compact.go: one group, one resource, at most one name, nothing else; verbs kept in order, repeats too.
    rules = [
        r(groups=[""], resources=["pods"], verbs=["get"]),
        r(groups=[""], resources=["pods"], verbs=["list"]),
        r(groups=[""], resources=["pods"], verbs=["get"], names=["a"]),
        r(groups=[""], resources=["pods"], verbs=["get"]),
        r(urls=["/x"], verbs=["get"]),
        r(groups=["", "apps"], resources=["pods"], verbs=["get"]),
    ]
    assert compact_rules(rules) == [
        r(urls=["/x"], verbs=["get"]),
        r(groups=["", "apps"], resources=["pods"], verbs=["get"]),
        r(groups=[""], resources=["pods"], verbs=["get", "list", "get"]),
        r(groups=[""], resources=["pods"], verbs=["get"], names=["a"]),
    ]
