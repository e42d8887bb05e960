"""Where the authorizer reads RBAC objects from: a small interface, and one over plain lists (docs/rbac.md).

The apiserver's RBAC authorizer reads Roles, RoleBindings, ClusterRoles and ClusterRoleBindings
from informer caches (kubernetes ``pkg/registry/rbac/validation/rule.go``: ``RoleGetter``,
``RoleBindingLister``, ``ClusterRoleGetter``, ``ClusterRoleBindingLister``); its escalation checks
read the same objects from storage. :class:`RBACSource` is that interface over plain dicts, so the
store can serve it and so can a handful of manifests. Objects are read as stored (validated): a
ClusterRole's ``rules`` are those the aggregation controller last wrote (see ``aggregation``).

Order: an informer lists in map order, which Go leaves unspecified; a source lists in its own
stable order (the store's is namespace/name), and that order decides which binding an allowed
request's reason names when several would allow it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from fakeapi._state.authorization.aggregation import aggregation_updates

__all__ = ["RBACSource", "StaticRBAC"]

_RBAC_GROUP = "rbac.authorization.k8s.io"


class RBACSource(Protocol):
    """Read access to the RBAC objects of a cluster, each a dict as the API writes it."""

    def role(self, namespace: str, name: str) -> Mapping[str, Any] | None:
        """The Role ``name`` in ``namespace``, or None."""
        ...

    def role_bindings(self, namespace: str) -> Iterable[Mapping[str, Any]]:
        """Every RoleBinding in ``namespace``."""
        ...

    def cluster_role(self, name: str) -> Mapping[str, Any] | None:
        """The ClusterRole ``name``, or None."""
        ...

    def cluster_role_bindings(self) -> Iterable[Mapping[str, Any]]:
        """Every ClusterRoleBinding."""
        ...


def _metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _name(obj: Mapping[str, Any]) -> str:
    return str(_metadata(obj).get("name", ""))


class StaticRBAC:
    """An :class:`RBACSource` over lists of objects: manifests, or the cases of a test.

    ``from_objects`` reads a mixed list (a folder of YAML documents) as a cluster would hold it:
    sorted by ``kind``, anything not in ``rbac.authorization.k8s.io`` left out, and aggregated
    ClusterRoles carrying the rules the aggregation controller gives them.
    """

    def __init__(
        self,
        *,
        roles: Iterable[Mapping[str, Any]] = (),
        role_bindings: Iterable[Mapping[str, Any]] = (),
        cluster_roles: Iterable[Mapping[str, Any]] = (),
        cluster_role_bindings: Iterable[Mapping[str, Any]] = (),
    ) -> None:
        self._roles = {(_metadata(r).get("namespace", ""), _metadata(r).get("name", "")): r for r in roles}
        self._role_bindings = list(role_bindings)
        self._cluster_roles = {_metadata(r).get("name", ""): r for r in cluster_roles}
        self._cluster_role_bindings = list(cluster_role_bindings)

    @classmethod
    def from_objects(cls, objects: Iterable[Mapping[str, Any]]) -> StaticRBAC:
        by_kind: dict[str, list[Mapping[str, Any]]] = {}
        for obj in objects:
            api_version = obj.get("apiVersion")
            if isinstance(api_version, str) and api_version.split("/")[0] == _RBAC_GROUP:
                by_kind.setdefault(str(obj.get("kind")), []).append(obj)
        cluster_roles = by_kind.get("ClusterRole", [])
        updates = aggregation_updates(cluster_roles)
        return cls(
            roles=by_kind.get("Role", ()),
            role_bindings=by_kind.get("RoleBinding", ()),
            cluster_roles=[{**r, "rules": updates[n]} if (n := _name(r)) in updates else r for r in cluster_roles],
            cluster_role_bindings=by_kind.get("ClusterRoleBinding", ()),
        )

    @property
    def cluster_roles(self) -> list[Mapping[str, Any]]:
        return list(self._cluster_roles.values())

    @property
    def roles(self) -> list[Mapping[str, Any]]:
        return list(self._roles.values())

    def role(self, namespace: str, name: str) -> Mapping[str, Any] | None:
        return self._roles.get((namespace, name))

    def role_bindings(self, namespace: str) -> Iterable[Mapping[str, Any]]:
        return [b for b in self._role_bindings if _metadata(b).get("namespace", "") == namespace]

    def cluster_role(self, name: str) -> Mapping[str, Any] | None:
        return self._cluster_roles.get(name)

    def cluster_role_bindings(self) -> Iterable[Mapping[str, Any]]:
        return list(self._cluster_role_bindings)
