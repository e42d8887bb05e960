"""One RBAC ``PolicyRule`` and whether it allows a request, exactly as the RBAC authorizer matches (docs/rbac.md).

Reproduces kubernetes ``plugin/pkg/auth/authorizer/rbac/rbac.go`` (``RuleAllows``) and
``pkg/apis/rbac/v1/evaluation_helpers.go`` (``VerbMatches``, ``APIGroupMatches``,
``ResourceMatches``, ``ResourceNameMatches``, ``NonResourceURLMatches``, ``CompactString``):

- a verb matches itself or ``*``; an API group matches itself or ``*``;
- a resource request names ``resource`` or ``resource/subresource``; a rule's entry matches it when
  it is ``*``, the same text, or ``*/<subresource>`` for that subresource. ``pods`` does not allow
  ``pods/status``, and ``*`` allows every subresource;
- an empty ``resourceNames`` allows any name, the empty one included; otherwise the request's name
  must be listed, so a request without a name (list, watch, create, deletecollection) never
  matches a rule with ``resourceNames``;
- a non-resource URL matches ``*``, itself, or an entry ending in ``*`` that prefixes it once the
  trailing stars are cut (``/apis/*`` allows ``/apis/v1`` but not ``/apis``).

A rule read from a stored object keeps only its string entries: stored objects have passed
validation, so that is every entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fakeapi._state.authorization.attributes import Attributes
from fakeapi._state.authorization.goformat import quote_list

__all__ = ["ALL", "PolicyRule", "rule_allows", "rules_allow"]

ALL = "*"


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else ()


@dataclass(frozen=True)
class PolicyRule:
    """``rbacv1.PolicyRule``, immutable; ``to_dict`` writes it in the type's field order."""

    verbs: tuple[str, ...] = ()
    api_groups: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PolicyRule:
        return cls(
            _strings(data.get("verbs")),
            _strings(data.get("apiGroups")),
            _strings(data.get("resources")),
            _strings(data.get("resourceNames")),
            _strings(data.get("nonResourceURLs")),
        )

    @classmethod
    def list_from(cls, rules: Any) -> tuple[PolicyRule, ...]:
        """The rules of a Role's ``rules`` field (or anything else: none)."""
        if not isinstance(rules, list):
            return ()
        return tuple(cls.from_dict(rule) for rule in rules if isinstance(rule, dict))

    def to_dict(self) -> dict[str, Any]:
        """The rule as JSON writes it: ``verbs`` always, the other lists only when not empty."""
        out: dict[str, Any] = {"verbs": list(self.verbs)}
        for key, values in (
            ("apiGroups", self.api_groups),
            ("resources", self.resources),
            ("resourceNames", self.resource_names),
            ("nonResourceURLs", self.non_resource_urls),
        ):
            if values:
                out[key] = list(values)
        return out

    def compact_string(self) -> str:
        """``rbacv1helpers.CompactString``: ``{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}``."""
        parts = [
            f"{label}:{quote_list(values)}"
            for label, values in (
                ("APIGroups", self.api_groups),
                ("Resources", self.resources),
                ("NonResourceURLs", self.non_resource_urls),
                ("ResourceNames", self.resource_names),
                ("Verbs", self.verbs),
            )
            if values
        ]
        return "{" + ", ".join(parts) + "}"


def _verb_matches(rule: PolicyRule, verb: str) -> bool:
    return ALL in rule.verbs or verb in rule.verbs


def _api_group_matches(rule: PolicyRule, group: str) -> bool:
    return ALL in rule.api_groups or group in rule.api_groups


def _resource_matches(rule: PolicyRule, combined: str, subresource: str) -> bool:
    for entry in rule.resources:
        if entry in (ALL, combined):
            return True
        if subresource and entry == "*/" + subresource:
            return True
    return False


def _resource_name_matches(rule: PolicyRule, name: str) -> bool:
    return not rule.resource_names or name in rule.resource_names


def _non_resource_url_matches(rule: PolicyRule, path: str) -> bool:
    for entry in rule.non_resource_urls:
        if entry in (ALL, path):
            return True
        if entry.endswith("*") and path.startswith(entry.rstrip("*")):
            return True
    return False


def rule_allows(attributes: Attributes, rule: PolicyRule) -> bool:
    """``RuleAllows``: does this one rule allow the request?"""
    if not _verb_matches(rule, attributes.verb):
        return False
    if not attributes.resource_request:
        return _non_resource_url_matches(rule, attributes.path)
    return (
        _api_group_matches(rule, attributes.api_group)
        and _resource_matches(rule, attributes.combined_resource, attributes.subresource)
        and _resource_name_matches(rule, attributes.name)
    )


def rules_allow(attributes: Attributes, rules: Iterable[PolicyRule]) -> bool:
    """``RulesAllow``: does any of the rules allow the request?"""
    return any(rule_allows(attributes, rule) for rule in rules)
