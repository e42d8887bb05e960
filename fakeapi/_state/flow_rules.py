"""Whether a request matches one rule of a FlowSchema: k8s.io/apiserver ``pkg/util/flowcontrol/rule.go``.

A rule (``PolicyRulesWithSubjects``) matches when one of its subjects does (``User`` by name or
``*``; ``Group`` by one of the user's groups or ``*``; ``ServiceAccount`` by
``system:serviceaccount:NAMESPACE:NAME``, a name ``*`` meaning every account of the namespace) and
then, for a resource request, one of its resource rules (the verb, the resource joined with its
subresource as ``pods/status``, the API group, and the namespaces, or ``clusterScope`` for a
request without a namespace), for any other one of its non-resource rules (the verb and a URL:
``*``, the path itself, or a path below it, ``rule.go`` dropping one trailing ``*`` and adding a
``/`` before it compares prefixes, so ``/livez`` covers ``/livez/ping``). In the lists of verbs,
groups, resources and namespaces a ``*`` is a wildcard only as the list's one member
(``containsString``). Rules are compiled once into sets, as a request is matched against many
(docs/priority-and-fairness.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = ["PolicyRule", "RequestDigest", "compile_rule"]

_SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"


class RequestDigest(NamedTuple):
    """What classification reads of a request: ``RequestDigest`` (its ``RequestInfo`` and ``user.Info``).

    A named tuple: one is made for every request, and a tuple is the cheapest to make."""

    user: str
    groups: tuple[str, ...]
    is_resource_request: bool
    verb: str
    path: str = ""
    api_group: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""


Members = frozenset[str] | None
"""A compiled list: None for the lone wildcard ``*`` (anything), else its members."""


def _members(value: Any) -> Members:
    listed = _strings(value)
    return None if listed == ["*"] else frozenset(listed)


def _has(members: Members, value: str) -> bool:
    return members is None or value in members


@dataclass(frozen=True)
class _ResourceRule:
    verbs: Members
    api_groups: Members
    resources: Members
    namespaces: Members
    cluster_scope: bool

    def matches(self, digest: RequestDigest) -> bool:
        resource = f"{digest.resource}/{digest.subresource}" if digest.subresource else digest.resource
        if not (
            _has(self.verbs, digest.verb) and _has(self.resources, resource) and _has(self.api_groups, digest.api_group)
        ):
            return False
        if not digest.namespace:
            return self.cluster_scope
        return _has(self.namespaces, digest.namespace)


@dataclass(frozen=True)
class _NonResourceRule:
    verbs: Members
    any_url: bool
    urls: frozenset[str]
    prefixes: tuple[str, ...]

    def matches(self, digest: RequestDigest) -> bool:
        if not _has(self.verbs, digest.verb):
            return False
        path = digest.path
        return self.any_url or path in self.urls or any(path.startswith(prefix) for prefix in self.prefixes)


@dataclass(frozen=True)
class PolicyRule:
    """One ``PolicyRulesWithSubjects``, compiled."""

    any_user: bool
    users: frozenset[str]
    any_group: bool
    groups: frozenset[str]
    accounts: frozenset[str]
    account_namespaces: tuple[str, ...]
    resource_rules: tuple[_ResourceRule, ...]
    non_resource_rules: tuple[_NonResourceRule, ...]

    def matches(self, digest: RequestDigest) -> bool:
        """``matchesPolicyRule``."""
        if not self._matches_subject(digest):
            return False
        if digest.is_resource_request:
            return any(rule.matches(digest) for rule in self.resource_rules)
        return any(rule.matches(digest) for rule in self.non_resource_rules)

    def _matches_subject(self, digest: RequestDigest) -> bool:
        user = digest.user
        return (
            self.any_user
            or self.any_group
            or user in self.users
            or user in self.accounts
            or not self.groups.isdisjoint(digest.groups)
            or any(user.startswith(prefix) for prefix in self.account_namespaces)
        )


def compile_rule(rule: dict[str, Any]) -> PolicyRule:
    """A rule as stored (its fields unchecked: a subject missing its member matches nobody, as upstream)."""
    users: set[str] = set()
    groups: set[str] = set()
    accounts: set[str] = set()
    namespaces: list[str] = []
    for subject in _dicts(rule.get("subjects")):
        kind = subject.get("kind")
        member = subject.get({"User": "user", "Group": "group", "ServiceAccount": "serviceAccount"}.get(str(kind), ""))
        if not isinstance(member, dict):
            continue
        name = member.get("name")
        if not isinstance(name, str):
            continue
        if kind == "User":
            users.add(name)
        elif kind == "Group":
            groups.add(name)
        else:
            namespace = str(member.get("namespace", ""))
            # ``serviceAccountMatchesNamespace`` for ``*``; ``MatchesUsername`` for a name.
            if name == "*":
                namespaces.append(f"{_SERVICE_ACCOUNT_PREFIX}{namespace}:")
            else:
                accounts.add(f"{_SERVICE_ACCOUNT_PREFIX}{namespace}:{name}")
    return PolicyRule(
        any_user="*" in users,
        users=frozenset(users),
        any_group="*" in groups,
        groups=frozenset(groups),
        accounts=frozenset(accounts),
        account_namespaces=tuple(namespaces),
        resource_rules=tuple(_resource_rule(each) for each in _dicts(rule.get("resourceRules"))),
        non_resource_rules=tuple(_non_resource_rule(each) for each in _dicts(rule.get("nonResourceRules"))),
    )


def _resource_rule(rule: dict[str, Any]) -> _ResourceRule:
    return _ResourceRule(
        verbs=_members(rule.get("verbs")),
        api_groups=_members(rule.get("apiGroups")),
        resources=_members(rule.get("resources")),
        namespaces=_members(rule.get("namespaces")),
        cluster_scope=rule.get("clusterScope") is True,
    )


def _non_resource_rule(rule: dict[str, Any]) -> _NonResourceRule:
    urls = _strings(rule.get("nonResourceURLs"))
    prefixes = []
    for url in urls:
        prefix = url.removesuffix("*")
        prefixes.append(prefix if prefix.endswith("/") else prefix + "/")
    return _NonResourceRule(
        verbs=_members(rule.get("verbs")),
        any_url="*" in urls,
        urls=frozenset(urls),
        prefixes=tuple(prefixes),
    )


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
