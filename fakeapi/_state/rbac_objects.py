"""The store as the RBAC authorizer reads it: Roles, RoleBindings, ClusterRoles, ClusterRoleBindings.

kube-apiserver's RBAC authorizer reads these kinds from informer caches that follow storage (docs/rbac.md);
here the store is read at the moment of the decision, so a binding written by one request governs
the next. Objects are listed in the store's namespace/name order, which decides which binding an
allowed request's reason names when several allow it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.storeview import StoreView

__all__ = ["StoredRBAC"]

_GROUP = "rbac.authorization.k8s.io"


class StoredRBAC:
    """An ``RBACSource`` over the store's current objects."""

    def __init__(self, store: StoreView) -> None:
        self._store = store

    def _type(self, plural: str) -> ResourceType:
        rtype = self._store.registry.resolve(_GROUP, "v1", plural)
        assert rtype is not None, f"the built-in {plural} are always served"
        return rtype

    def role(self, namespace: str, name: str) -> Mapping[str, Any] | None:
        return self._store.find(self._type("roles"), namespace, name)

    def role_bindings(self, namespace: str) -> Iterable[Mapping[str, Any]]:
        return self._store.items(self._type("rolebindings"), namespace)

    def cluster_role(self, name: str) -> Mapping[str, Any] | None:
        return self._store.find(self._type("clusterroles"), "", name)

    def cluster_role_bindings(self) -> Iterable[Mapping[str, Any]]:
        return self._store.items(self._type("clusterrolebindings"), None)
