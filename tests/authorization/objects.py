"""RBAC objects for the authorization tests, written as a user writes them in YAML."""

from __future__ import annotations

from typing import Any

RBAC = "rbac.authorization.k8s.io"


def rule(verbs: str, groups: str = "", resources: str = "", urls: str = "", names: str = "") -> dict[str, Any]:
    """A PolicyRule from comma-separated lists (an empty ``groups`` is the core group when resources are given)."""
    out: dict[str, Any] = {"verbs": verbs.split(",")}
    if resources:
        out["apiGroups"] = groups.split(",")
        out["resources"] = resources.split(",")
    if names:
        out["resourceNames"] = names.split(",")
    if urls:
        out["nonResourceURLs"] = urls.split(",")
    return out


def role(name: str, namespace: str, *rules: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": f"{RBAC}/v1",
        "kind": "Role",
        "metadata": {"name": name, "namespace": namespace},
        "rules": list(rules),
    }


def cluster_role(
    name: str, *rules: dict[str, Any], labels: dict[str, str] | None = None, **extra: Any
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": f"{RBAC}/v1", "kind": "ClusterRole", "metadata": metadata, "rules": list(rules), **extra}


def subject(spec: str) -> dict[str, Any]:
    """``User:alice``, ``Group:devs``, ``ServiceAccount:ns/name`` or ``ServiceAccount:name`` (no namespace)."""
    kind, _, name = spec.partition(":")
    if kind == "ServiceAccount":
        namespace, _, sa_name = name.rpartition("/")
        out: dict[str, Any] = {"kind": kind, "name": sa_name}
        if namespace:
            out["namespace"] = namespace
        return out
    return {"kind": kind, "apiGroup": RBAC, "name": name}


def role_binding(name: str, namespace: str, ref: str, *subjects: str) -> dict[str, Any]:
    """``ref`` is ``Role:name`` or ``ClusterRole:name``."""
    kind, _, ref_name = ref.partition(":")
    return {
        "apiVersion": f"{RBAC}/v1",
        "kind": "RoleBinding",
        "metadata": {"name": name, "namespace": namespace},
        "subjects": [subject(s) for s in subjects],
        "roleRef": {"apiGroup": RBAC, "kind": kind, "name": ref_name},
    }


def cluster_role_binding(name: str, role_name: str, *subjects: str) -> dict[str, Any]:
    return {
        "apiVersion": f"{RBAC}/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": name},
        "subjects": [subject(s) for s in subjects],
        "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": role_name},
    }
