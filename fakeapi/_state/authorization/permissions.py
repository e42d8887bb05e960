"""The permissions report: what an identity's requests needed, what was missing, what was granted in vain.

Not an apiserver behaviour but built on its rules (docs/rbac.md). From the requests an identity
sent, each with the authorizer's decision, it gives:

- ``used``: each distinct permission the requests exercised (verb, group, resource or
  ``resource/subresource``, namespace, name; or verb and path), with how often it was allowed and
  denied;
- ``required``: the fewest rules that allow exactly those requests and nothing else, one Role per
  namespace and one ClusterRole for what has no namespace (cluster-scoped resources, requests
  across all namespaces, non-resource URLs). Rules are grouped as a person writes them: one API
  group per rule, the resources that need the same verbs together, verbs in the usual order
  (get, list, watch, create, update, patch, delete, deletecollection, then the rest). With
  ``resource_names`` a rule is narrowed to the names it was used on, where every such request
  named one;
- ``missing``: the same, for the requests that were refused;
- ``unused``: for each given Role or ClusterRole (an operator's manifests), what its rules grant
  that no request exercised, whether allowed or refused: a Role only counts requests in its
  namespace, a ClusterRole every request. Rules are broken into single grants and the unused
  ones grouped back.

Every rule is checked with the authorizer's own matching, so ``required`` allows each request.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fakeapi._state.authorization.attributes import Attributes
from fakeapi._state.authorization.covering import breakdown_rule
from fakeapi._state.authorization.resolving import RBAC_GROUP
from fakeapi._state.authorization.rules import PolicyRule, rule_allows

__all__ = ["Observation", "Permission", "PermissionsReport", "ScopedRules", "UnusedGrant", "permissions_report"]

_VERB_ORDER = ("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection")


@dataclass(frozen=True)
class Observation:
    """One request an identity sent, and whether it was allowed."""

    attributes: Attributes
    allowed: bool


@dataclass(frozen=True)
class Permission:
    """One distinct permission the requests exercised, and how often it was allowed and denied."""

    verb: str
    resource_request: bool
    api_group: str
    resource: str
    namespace: str
    name: str
    path: str
    allowed: int
    denied: int

    def to_dict(self) -> dict[str, Any]:
        where: dict[str, Any]
        if self.resource_request:
            where = {"apiGroup": self.api_group, "resource": self.resource}
            where.update({key: value for key, value in (("namespace", self.namespace), ("name", self.name)) if value})
        else:
            where = {"nonResourceURL": self.path}
        return {"verb": self.verb, **where, "allowed": self.allowed, "denied": self.denied}


@dataclass(frozen=True)
class ScopedRules:
    """Rules for one Role (``namespace`` set) or for the ClusterRole (``namespace`` empty)."""

    namespace: str
    rules: tuple[PolicyRule, ...]

    def manifest(self, name: str) -> dict[str, Any]:
        """The Role or ClusterRole named ``name`` that holds these rules."""
        metadata: dict[str, Any] = {"name": name}
        if self.namespace:
            metadata["namespace"] = self.namespace
        kind = "Role" if self.namespace else "ClusterRole"
        rules = [rule.to_dict() for rule in self.rules]
        return {"apiVersion": f"{RBAC_GROUP}/v1", "kind": kind, "metadata": metadata, "rules": rules}


@dataclass(frozen=True)
class UnusedGrant:
    """What one given role grants that no request used."""

    kind: str
    namespace: str
    name: str
    rules: tuple[PolicyRule, ...]


@dataclass(frozen=True)
class PermissionsReport:
    used: tuple[Permission, ...]
    required: tuple[ScopedRules, ...]
    missing: tuple[ScopedRules, ...]
    unused: tuple[UnusedGrant, ...]

    def to_dict(self) -> dict[str, Any]:
        def scoped(entries: tuple[ScopedRules, ...]) -> list[dict[str, Any]]:
            return [{"namespace": e.namespace, "rules": [r.to_dict() for r in e.rules]} for e in entries]

        return {
            "used": [permission.to_dict() for permission in self.used],
            "required": scoped(self.required),
            "missing": scoped(self.missing),
            "unused": [
                {"kind": u.kind, "namespace": u.namespace, "name": u.name, "rules": [r.to_dict() for r in u.rules]}
                for u in self.unused
            ],
        }


def _verb_key(verb: str) -> tuple[int, str]:
    return (_VERB_ORDER.index(verb), "") if verb in _VERB_ORDER else (len(_VERB_ORDER), verb)


def _ordered_verbs(verbs: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(verbs), key=_verb_key))


def _resource_rules(verbs_of: Mapping[tuple[str, str, str], set[str]]) -> list[PolicyRule]:
    """Rules from ``(group, resource, name) -> verbs``, a name "" standing for any name."""
    resources_of: dict[tuple[str, str, tuple[str, ...]], list[str]] = {}
    for (group, resource, name), verbs in sorted(verbs_of.items()):
        resources_of.setdefault((group, name, _ordered_verbs(verbs)), []).append(resource)
    names_of: dict[tuple[str, tuple[str, ...], tuple[str, ...]], list[str]] = {}
    for (group, name, ordered), resources in resources_of.items():
        names_of.setdefault((group, tuple(resources), ordered), []).append(name)
    rules = []
    for (group, grouped, ordered), names in sorted(names_of.items(), key=lambda item: item[0][:2]):
        rules.append(PolicyRule(ordered, (group,), grouped, tuple(sorted(n for n in names if n))))
    return rules


def group_atoms(atoms: Iterable[PolicyRule]) -> tuple[PolicyRule, ...]:
    """Single grants (one verb, group, resource and at most one name, or one verb and URL) as few rules.

    Each rule grants a subset of ``atoms`` and nothing else: resources share a rule only when they
    need the same verbs and names, names only when they go with the same resources and verbs. A
    grant on a name is dropped where the same grant on any name is there.
    """
    verbs_of: dict[tuple[str, str, str], set[str]] = {}
    url_verbs: dict[str, set[str]] = {}
    for atom in atoms:
        if atom.non_resource_urls:
            url_verbs.setdefault(atom.non_resource_urls[0], set()).update(atom.verbs)
        else:
            name = atom.resource_names[0] if atom.resource_names else ""
            verbs_of.setdefault((atom.api_groups[0], atom.resources[0], name), set()).update(atom.verbs)
    for (group, resource, name), verbs in verbs_of.items():
        if name and (group, resource, "") in verbs_of:
            verbs -= verbs_of[(group, resource, "")]
    rules = _resource_rules({key: verbs for key, verbs in verbs_of.items() if verbs})
    urls_of: dict[tuple[str, ...], list[str]] = {}
    for url, verbs in sorted(url_verbs.items()):
        urls_of.setdefault(_ordered_verbs(verbs), []).append(url)
    rules.extend(PolicyRule(ordered, non_resource_urls=tuple(urls)) for ordered, urls in urls_of.items())
    return tuple(rules)


def _atom_of(attributes: Attributes, name: str) -> PolicyRule:
    if not attributes.resource_request:
        return PolicyRule((attributes.verb,), non_resource_urls=(attributes.path,))
    names = (name,) if name else ()
    return PolicyRule((attributes.verb,), (attributes.api_group,), (attributes.combined_resource,), names)


def _scope(attributes: Attributes) -> str:
    return attributes.namespace if attributes.resource_request else ""


def _rules_for_requests(requests: Iterable[Attributes], resource_names: bool) -> tuple[ScopedRules, ...]:
    names: dict[tuple[str, PolicyRule], set[str]] = {}
    for attributes in requests:
        key = (_scope(attributes), _atom_of(attributes, ""))
        names.setdefault(key, set()).add(attributes.name if resource_names and attributes.resource_request else "")
    by_scope: dict[str, list[PolicyRule]] = {}
    for (scope, atom), used_names in names.items():
        atoms = by_scope.setdefault(scope, [])
        if "" in used_names:
            atoms.append(atom)
        else:
            atoms.extend(PolicyRule(atom.verbs, atom.api_groups, atom.resources, (n,)) for n in used_names)
    # The ClusterRole, for what has no namespace, comes after the Roles.
    ordered = sorted(by_scope.items(), key=lambda item: (item[0] == "", item[0]))
    return tuple(ScopedRules(scope, group_atoms(atoms)) for scope, atoms in ordered)


def _metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _unused(role: Mapping[str, Any], requests: list[Attributes]) -> UnusedGrant:
    kind = str(role.get("kind", ""))
    namespace = str(_metadata(role).get("namespace", "")) if kind == "Role" else ""
    relevant = [a for a in requests if kind != "Role" or (a.resource_request and a.namespace == namespace)]
    atoms = [atom for rule in PolicyRule.list_from(role.get("rules")) for atom in breakdown_rule(rule)]
    idle = [atom for atom in atoms if not any(rule_allows(attributes, atom) for attributes in relevant)]
    return UnusedGrant(kind, namespace, str(_metadata(role).get("name", "")), group_atoms(idle))


def _permission_key(attributes: Attributes) -> tuple[str, bool, str, str, str, str, str]:
    a = attributes
    return (a.verb, a.resource_request, a.api_group, a.combined_resource, a.namespace, a.name, a.path)


def _used(observed: list[Observation]) -> tuple[Permission, ...]:
    counts = Counter((_permission_key(o.attributes), o.allowed) for o in observed)
    keys = sorted(
        {key for key, _ in counts},
        key=lambda k: (not k[1], k[4] == "", k[4], k[2], k[3], _verb_key(k[0]), k[5], k[6]),
    )
    return tuple(Permission(*key, allowed=counts[(key, True)], denied=counts[(key, False)]) for key in keys)


def permissions_report(
    observations: Iterable[Observation],
    granted: Iterable[Mapping[str, Any]] = (),
    *,
    resource_names: bool = False,
) -> PermissionsReport:
    """The report for one identity's ``observations``, against the Roles and ClusterRoles ``granted``."""
    observed = list(observations)
    requests = [o.attributes for o in observed]
    unused = [_unused(role, requests) for role in granted if role.get("kind") in ("Role", "ClusterRole")]
    return PermissionsReport(
        _used(observed),
        _rules_for_requests(requests, resource_names),
        _rules_for_requests((o.attributes for o in observed if not o.allowed), resource_names),
        tuple(grant for grant in unused if grant.rules),
    )
