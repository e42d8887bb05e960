"""``rbac.authorization.k8s.io/v1``: Roles, ClusterRoles and their bindings, stored and served.

Nothing is authorized by them yet: every request is allowed.
"""

from __future__ import annotations

from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType

__all__ = ["TYPES"]

_GROUP = "rbac.authorization.k8s.io"

TYPES: tuple[ResourceType, ...] = (
    builtin(_GROUP, "v1", "clusterrolebindings", "ClusterRoleBinding", False),
    builtin(_GROUP, "v1", "clusterroles", "ClusterRole", False),
    builtin(_GROUP, "v1", "rolebindings", "RoleBinding"),
    builtin(_GROUP, "v1", "roles", "Role"),
)
