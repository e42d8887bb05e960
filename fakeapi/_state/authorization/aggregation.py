"""ClusterRole aggregation: the rules the clusterrole-aggregation controller writes (docs/rbac.md).

A ClusterRole with an ``aggregationRule`` owns no rules of its own: kube-controller-manager's
controller (kubernetes ``pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go``,
``syncClusterRole``) overwrites its ``rules`` with those of every other ClusterRole its selectors
match. For each selector in order, the matching ClusterRoles are taken by name, the role itself
skipped, and each rule appended unless an equal one is already there. An empty selector matches
every ClusterRole; a selector the controller cannot read (an unknown operator, In without values)
makes it leave the role as it is. The authorizer only ever reads ``rules``, so aggregation is
visible exactly when the controller has written it; the controller reacts to every ClusterRole
change, so a chain of aggregations settles. :func:`aggregation_updates` runs those syncs until
nothing changes, in name order where the controller's queue order is unspecified.

Selectors are read as stored: validation has already refused malformed keys and values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from fakeapi._state.authorization.rules import PolicyRule
from fakeapi._state.selectors import LabelRequirement, LabelSelector

__all__ = ["aggregated_rules", "aggregation_updates", "has_aggregation_rule"]

_OPERATORS = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}


class _UnreadableSelector(Exception):
    """``metav1.LabelSelectorAsSelector`` failed; the controller retries and changes nothing."""


def _metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _name(obj: Mapping[str, Any]) -> str:
    name = _metadata(obj).get("name", "")
    return name if isinstance(name, str) else ""


def _labels(obj: Mapping[str, Any]) -> Mapping[str, str]:
    labels = _metadata(obj).get("labels")
    return labels if isinstance(labels, dict) else {}


def _selectors(cluster_role: Mapping[str, Any]) -> list[Any] | None:
    rule = cluster_role.get("aggregationRule")
    if not isinstance(rule, dict):
        return None
    selectors = rule.get("clusterRoleSelectors")
    return selectors if isinstance(selectors, list) else []


def has_aggregation_rule(cluster_role: Mapping[str, Any]) -> bool:
    """``hasAggregationRule`` of the ClusterRole escalation check: at least one selector."""
    return bool(_selectors(cluster_role))


def _label_selector(selector: Any) -> LabelSelector:
    """``metav1.LabelSelectorAsSelector`` of one stored selector (empty: everything)."""
    if not isinstance(selector, dict):
        return LabelSelector()
    requirements: list[LabelRequirement] = []
    match_labels = selector.get("matchLabels")
    for key, value in (match_labels if isinstance(match_labels, dict) else {}).items():
        requirements.append(LabelRequirement(str(key), "=", (str(value),)))
    expressions = selector.get("matchExpressions")
    for expression in expressions if isinstance(expressions, list) else []:
        if not isinstance(expression, dict):
            raise _UnreadableSelector
        operator = _OPERATORS.get(str(expression.get("operator")))
        raw_values = expression.get("values")
        values = tuple(str(v) for v in raw_values) if isinstance(raw_values, list) else ()
        if operator is None or (operator in ("in", "notin")) != bool(values):
            raise _UnreadableSelector
        requirements.append(LabelRequirement(str(expression.get("key", "")), operator, values))
    return LabelSelector(tuple(requirements))


def _collect(
    selectors: list[Any], own_name: str, candidates: list[tuple[str, Mapping[str, str], tuple[PolicyRule, ...]]]
) -> tuple[PolicyRule, ...] | None:
    collected: list[PolicyRule] = []
    try:
        for selector in selectors:
            label_selector = _label_selector(selector)
            for name, labels, rules in candidates:
                if name == own_name or not label_selector.matches(labels):
                    continue
                collected.extend(rule for rule in rules if rule not in collected)
    except _UnreadableSelector:
        return None
    return tuple(collected)


def aggregated_rules(
    cluster_role: Mapping[str, Any], cluster_roles: Iterable[Mapping[str, Any]]
) -> tuple[PolicyRule, ...] | None:
    """The rules one sync of ``cluster_role`` writes, or None when it writes nothing.

    None: the role has no ``aggregationRule`` (an empty one still aggregates, into no rules), or a
    selector cannot be read.
    """
    selectors = _selectors(cluster_role)
    if selectors is None:
        return None
    candidates = [
        (_name(r), _labels(r), PolicyRule.list_from(r.get("rules"))) for r in sorted(cluster_roles, key=_name)
    ]
    return _collect(selectors, _name(cluster_role), candidates)


def aggregation_updates(cluster_roles: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The ``rules`` the controller leaves on each aggregated ClusterRole it changes, by name.

    Syncs every aggregated role against the others as they stand, again and again, until a pass
    changes nothing; a role absent from the answer keeps its rules.
    """
    roles = sorted(cluster_roles, key=_name)
    stored = {_name(role): PolicyRule.list_from(role.get("rules")) for role in roles}
    current = dict(stored)
    aggregated = [(_name(role), selectors) for role in roles if (selectors := _selectors(role)) is not None]
    for _ in range(len(aggregated) + 1):
        changed = False
        for name, selectors in aggregated:
            candidates = [(_name(role), _labels(role), current[_name(role)]) for role in roles]
            rules = _collect(selectors, name, candidates)
            if rules is not None and rules != current[name]:
                current[name] = rules
                changed = True
        if not changed:
            break
    return {name: [rule.to_dict() for rule in current[name]] for name, _ in aggregated if current[name] != stored[name]}
