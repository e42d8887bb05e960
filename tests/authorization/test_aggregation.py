"""ClusterRole aggregation as the clusterrole-aggregation controller writes it.

The first cases are clusterroleaggregation_controller_test.go ``TestSyncClusterRole``, case by case.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi._state.authorization import (
    Attributes,
    PolicyRule,
    StaticRBAC,
    UserInfo,
    aggregated_rules,
    aggregation_updates,
    authorize,
)
from tests.authorization.objects import cluster_role, cluster_role_binding, role_binding

HAMMER = [{"verbs": ["hammer"], "resources": ["nails"]}, {"verbs": ["hammer"], "resources": ["wedges"]}]
CHISEL = [{"verbs": ["chisel"], "resources": ["mortises"]}]
SAW = [{"verbs": ["saw"], "resources": ["boards"]}]


def plain(name: str, labels: dict[str, str], rules: list[dict[str, Any]]) -> dict[str, Any]:
    return cluster_role(name, *rules, labels=labels)


def combined(selectors: list[dict[str, str]], *rules: list[dict[str, Any]]) -> dict[str, Any]:
    aggregation = {"clusterRoleSelectors": [{"matchLabels": s} for s in selectors]}
    return cluster_role("combined", *[r for group in rules for r in group], aggregationRule=aggregation)


def rules(*groups: list[dict[str, Any]]) -> tuple[PolicyRule, ...]:
    return tuple(PolicyRule.from_dict(r) for group in groups for r in group)


BAR = {"foo": "bar"}
NOT_BAR = {"foo": "not-bar"}

SYNC_CASES = [
    ("remove dead rules", [plain("hammer", BAR, HAMMER), combined([BAR], SAW)], rules(HAMMER)),
    ("strip rules", [plain("hammer", NOT_BAR, HAMMER), combined([BAR], HAMMER)], rules()),
    (
        "select properly and put in order",
        [plain("hammer", BAR, HAMMER), plain("chisel", BAR, CHISEL), plain("saw", NOT_BAR, SAW), combined([BAR])],
        rules(CHISEL, HAMMER),
    ),
    (
        "select properly with multiple selectors",
        [
            plain("hammer", BAR, HAMMER),
            plain("chisel", BAR, CHISEL),
            plain("saw", NOT_BAR, SAW),
            combined([BAR, NOT_BAR]),
        ],
        rules(CHISEL, HAMMER, SAW),
    ),
    (
        "select properly remove duplicates",
        [
            plain("hammer", BAR, HAMMER),
            plain("chisel", BAR, CHISEL),
            plain("saw", BAR, SAW),
            plain("other-saw", NOT_BAR, SAW),
            combined([BAR, NOT_BAR]),
        ],
        rules(CHISEL, HAMMER, SAW),
    ),
    ("no diff skip", [plain("hammer", BAR, HAMMER), combined([BAR], HAMMER)], rules(HAMMER)),
]


@pytest.mark.parametrize(("roles", "expected"), [c[1:] for c in SYNC_CASES], ids=[c[0] for c in SYNC_CASES])
def test_sync_cluster_role(roles: list[dict[str, Any]], expected: tuple[PolicyRule, ...]) -> None:
    assert aggregated_rules(roles[-1], roles) == expected
    updates = aggregation_updates(roles)
    stored = PolicyRule.list_from(roles[-1]["rules"])
    assert updates == ({} if stored == expected else {"combined": [r.to_dict() for r in expected]})


def test_a_role_without_aggregation_rule_is_left_alone() -> None:
    assert aggregated_rules(plain("hammer", BAR, HAMMER), []) is None
    assert aggregation_updates([plain("hammer", BAR, HAMMER)]) == {}


def test_an_empty_selector_gathers_every_other_role_and_no_selector_gathers_none() -> None:
    everything = cluster_role("all", aggregationRule={"clusterRoleSelectors": [{}]})
    nothing = cluster_role("none", {"verbs": ["x"], "resources": ["y"], "apiGroups": [""]}, aggregationRule={})
    roles = [plain("hammer", BAR, HAMMER), plain("saw", {}, SAW), everything, nothing]
    assert aggregated_rules(everything, roles) == rules(
        HAMMER, [{"verbs": ["x"], "resources": ["y"], "apiGroups": [""]}], SAW
    )
    assert aggregated_rules(nothing, roles) == ()


@pytest.mark.parametrize(
    ("expression", "matches"),
    [
        ({"key": "foo", "operator": "In", "values": ["bar", "baz"]}, {"hammer"}),
        ({"key": "foo", "operator": "NotIn", "values": ["bar"]}, {"saw", "plain"}),
        ({"key": "foo", "operator": "Exists"}, {"hammer", "saw"}),
        ({"key": "foo", "operator": "DoesNotExist"}, {"plain"}),
    ],
)
def test_match_expressions(expression: dict[str, Any], matches: set[str]) -> None:
    roles = [
        plain("hammer", BAR, HAMMER),
        plain("saw", NOT_BAR, SAW),
        plain("plain", {}, CHISEL),
    ]
    target = cluster_role("target", aggregationRule={"clusterRoleSelectors": [{"matchExpressions": [expression]}]})
    by_name = {"hammer": HAMMER, "saw": SAW, "plain": CHISEL}
    assert aggregated_rules(target, [*roles, target]) == rules(*[by_name[n] for n in sorted(matches)])


@pytest.mark.parametrize(
    "expression",
    [
        {"key": "foo", "operator": "Gt", "values": ["1"]},
        {"key": "foo", "operator": "In"},
        {"key": "foo", "operator": "Exists", "values": ["x"]},
    ],
)
def test_a_selector_the_controller_cannot_read_changes_nothing(expression: dict[str, Any]) -> None:
    target = cluster_role(
        "target",
        *SAW,
        aggregationRule={"clusterRoleSelectors": [{"matchLabels": BAR}, {"matchExpressions": [expression]}]},
    )
    roles = [plain("hammer", BAR, HAMMER), target]
    assert aggregated_rules(target, roles) is None
    assert aggregation_updates(roles) == {}


def test_a_chain_of_aggregations_settles() -> None:
    # "admin" aggregates "edit", which aggregates "view": admin ends with view's rules too, whatever the order.
    view = plain("view", {"to-edit": "true"}, SAW)
    edit = cluster_role(
        "edit",
        labels={"to-admin": "true"},
        aggregationRule={"clusterRoleSelectors": [{"matchLabels": {"to-edit": "true"}}]},
    )
    extra = plain("edit-extra", {"to-edit": "true", "to-admin": "true"}, HAMMER)
    admin = cluster_role("admin", aggregationRule={"clusterRoleSelectors": [{"matchLabels": {"to-admin": "true"}}]})
    assert aggregation_updates([admin, edit, extra, view]) == {
        "admin": [r.to_dict() for r in rules(HAMMER, SAW)],
        "edit": [r.to_dict() for r in rules(HAMMER, SAW)],
    }


def test_manifests_are_read_with_their_aggregation() -> None:
    edit = cluster_role("edit", aggregationRule={"clusterRoleSelectors": [{"matchLabels": BAR}]})
    widgets = plain("widgets-edit", BAR, [{"verbs": ["patch"], "apiGroups": ["example.com"], "resources": ["widgets"]}])
    source = StaticRBAC.from_objects(
        [edit, widgets, role_binding("b", "ns", "ClusterRole:edit", "User:bob"), {"kind": "ConfigMap"}]
    )
    request = Attributes.for_resource(UserInfo("bob"), "patch", "widgets", api_group="example.com", namespace="ns")
    assert authorize(source, request).allowed
    raw = StaticRBAC(
        cluster_roles=[edit, widgets], cluster_role_bindings=[cluster_role_binding("b", "edit", "User:bob")]
    )
    assert not authorize(raw, request).allowed
