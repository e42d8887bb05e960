"""Defaults of the RBAC bindings (``pkg/apis/rbac/v1/defaults.go``).

``SetDefaults_RoleBinding`` and ``SetDefaults_ClusterRoleBinding`` give a roleRef without an
apiGroup ``rbac.authorization.k8s.io``; ``SetDefaults_Subject`` gives a User or Group subject without
one the same group (a ServiceAccount keeps the core group, ``""``). So ``kubectl create rolebinding
--user`` and a manifest that leaves the subject's apiGroup out pass validation.
"""

from __future__ import annotations

from fakeapi._state.defaults.fields import Obj, default, items, sub

__all__ = ["binding_defaults"]

GROUP = "rbac.authorization.k8s.io"


def binding_defaults(binding: Obj, creating: bool | None) -> None:
    if (role_ref := sub(binding, "roleRef")) is not None:
        default(role_ref, "apiGroup", GROUP)
    for subject in items(binding, "subjects"):
        if not subject.get("apiGroup") and subject.get("kind") in ("User", "Group"):
            subject["apiGroup"] = GROUP
