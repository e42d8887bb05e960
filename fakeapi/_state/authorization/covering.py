"""Whether one set of rules covers another, and the rules it lacks (docs/rbac.md).

Reproduces k8s.io/component-helpers ``auth/rbac/validation/policy_comparator.go`` (``Covers``,
``BreakdownRule``, ``ruleCovers``) and kubernetes ``pkg/registry/rbac/validation/policy_compact.go``
(``CompactRules``), which the escalation checks use to decide and to word their refusal:

- each rule to cover is broken into atoms of one API group, one resource, one verb and at most one
  name (or one non-resource URL and one verb); a rule that names resources but no API group breaks
  into nothing, so it is covered by anything;
- an atom is covered by one owner rule whose verbs hold it or ``*``, whose groups hold it or ``*``,
  whose resources hold it, ``*``, or ``*/<subresource>`` for it, whose URLs hold it or a ``*``-ended
  prefix of it, and which has no ``resourceNames`` or lists the atom's name. An atom without a name
  needs an owner rule without ``resourceNames``: a grant on named objects never covers all of them;
- the atoms left uncovered are compacted back, per group, resource and name, into one rule with
  all their verbs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fakeapi._state.authorization.rules import ALL, PolicyRule

__all__ = ["breakdown_rule", "compact_rules", "covers", "uncovered_rules"]


def breakdown_rule(rule: PolicyRule) -> list[PolicyRule]:
    """``BreakdownRule``: atoms of at most one verb, group, resource and name, or one URL and verb."""
    atoms: list[PolicyRule] = []
    for group in rule.api_groups:
        for resource in rule.resources:
            for verb in rule.verbs:
                if rule.resource_names:
                    atoms.extend(PolicyRule((verb,), (group,), (resource,), (name,)) for name in rule.resource_names)
                else:
                    atoms.append(PolicyRule((verb,), (group,), (resource,)))
    for url in rule.non_resource_urls:
        atoms.extend(PolicyRule((verb,), non_resource_urls=(url,)) for verb in rule.verbs)
    return atoms


def _resources_cover(owned: Sequence[str], wanted: Sequence[str]) -> bool:
    if ALL in owned or set(wanted) <= set(owned):
        return True
    for path in wanted:
        if path in owned:
            continue
        if "/" not in path or "*/" + path.split("/", 1)[1] not in owned:
            return False
    return True


def _url_covers(owner: str, path: str) -> bool:
    return owner == path or (owner.endswith("*") and path.startswith(owner.rstrip("*")))


def _rule_covers(owner: PolicyRule, atom: PolicyRule) -> bool:
    if not (ALL in owner.verbs or set(atom.verbs) <= set(owner.verbs)):
        return False
    if not (ALL in owner.api_groups or set(atom.api_groups) <= set(owner.api_groups)):
        return False
    if not _resources_cover(owner.resources, atom.resources):
        return False
    if not all(any(_url_covers(o, path) for o in owner.non_resource_urls) for path in atom.non_resource_urls):
        return False
    if not atom.resource_names:
        return not owner.resource_names
    return not owner.resource_names or set(atom.resource_names) <= set(owner.resource_names)


def uncovered_rules(owner_rules: Sequence[PolicyRule], rules: Iterable[PolicyRule]) -> list[PolicyRule]:
    """``Covers``' second answer: the atoms of ``rules`` that no owner rule covers, in order."""
    return [
        atom
        for rule in rules
        for atom in breakdown_rule(rule)
        if not any(_rule_covers(owner, atom) for owner in owner_rules)
    ]


def covers(owner_rules: Sequence[PolicyRule], rules: Iterable[PolicyRule]) -> bool:
    """``Covers``: does every atom of ``rules`` fall under one of ``owner_rules``?"""
    return not uncovered_rules(owner_rules, rules)


def _simple_key(rule: PolicyRule) -> tuple[str, str, str | None] | None:
    """``isSimpleResourceRule``: one group, one resource, at most one name, nothing else."""
    if len(rule.resource_names) > 1 or rule.non_resource_urls:
        return None
    if len(rule.api_groups) != 1 or len(rule.resources) != 1:
        return None
    return rule.api_groups[0], rule.resources[0], rule.resource_names[0] if rule.resource_names else None


def compact_rules(rules: Iterable[PolicyRule]) -> list[PolicyRule]:
    """``CompactRules``: simple rules that differ only by verb merged into one, the rest as they were."""
    compacted: list[PolicyRule] = []
    simple: dict[tuple[str, str, str | None], PolicyRule] = {}
    for rule in rules:
        key = _simple_key(rule)
        if key is None:
            compacted.append(rule)
        elif key in simple:
            existing = simple[key]
            simple[key] = PolicyRule(
                existing.verbs + rule.verbs, existing.api_groups, existing.resources, existing.resource_names
            )
        else:
            simple[key] = rule
    return compacted + list(simple.values())
