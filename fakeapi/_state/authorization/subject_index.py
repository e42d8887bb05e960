"""Which bindings can apply to a user, found without reading every binding's subjects each time.

The RBAC authorizer (``VisitRulesFor``) reads every ClusterRoleBinding, then every RoleBinding of
the namespace, and keeps those with a subject that is the user. Reading each binding's subjects on
every request costs as much as the rest of a request once a cluster holds the bootstrap policy's
sixty-odd bindings, so the subjects of a list of bindings are indexed once (by user name, group and
ServiceAccount user name) and the index is kept while the list holds the same bindings. The
candidates it gives are a superset of the bindings that apply, in the list's order; the caller still
runs ``appliesTo`` on each, so the rules visited, their order and the binding a reason names are
exactly those of reading every binding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fakeapi._state.authorization.attributes import UserInfo, service_account_username

__all__ = ["candidate_bindings"]

_KEPT = 64  # namespaces whose index is kept; a list seen again after eviction is indexed again


class _SubjectIndex:
    def __init__(self, bindings: Sequence[Mapping[str, Any]], namespace: str) -> None:
        self.bindings = list(bindings)
        self.by_user: dict[str, list[int]] = {}
        self.by_group: dict[str, list[int]] = {}
        for position, binding in enumerate(self.bindings):
            subjects = binding.get("subjects")
            for subject in subjects if isinstance(subjects, list) else []:
                if not isinstance(subject, dict):
                    continue
                kind, name = subject.get("kind"), subject.get("name")
                name = name if isinstance(name, str) else ""
                if kind == "User":
                    self.by_user.setdefault(name, []).append(position)
                elif kind == "Group":
                    self.by_group.setdefault(name, []).append(position)
                elif kind == "ServiceAccount":
                    account_namespace = subject.get("namespace")
                    account_namespace = account_namespace if isinstance(account_namespace, str) else ""
                    account_namespace = account_namespace or namespace
                    if account_namespace:
                        self.by_user.setdefault(service_account_username(account_namespace, name), []).append(position)

    def candidates(self, user: UserInfo) -> list[Mapping[str, Any]]:
        positions = set(self.by_user.get(user.name, ()))
        for group in user.groups:
            positions.update(self.by_group.get(group, ()))
        return [self.bindings[position] for position in sorted(positions)]


_indexes: dict[str, _SubjectIndex] = {}


def candidate_bindings(
    bindings: Sequence[Mapping[str, Any]], namespace: str, user: UserInfo
) -> list[Mapping[str, Any]]:
    """The bindings of ``bindings`` (those of ``namespace``, or the cluster's for "") that may apply
    to ``user``, in order."""
    index = _indexes.get(namespace)
    # A list of the same binding objects compares equal without reading them (identity first).
    if index is None or index.bindings != bindings:
        index = _SubjectIndex(bindings, namespace)
        if namespace not in _indexes and len(_indexes) >= _KEPT:
            _indexes.pop(next(iter(_indexes)))
        _indexes[namespace] = index
    return index.candidates(user)
