"""The permissions report as a person reads it, and the roles an identity's bindings grant it.

An operator's manifests bind Roles and ClusterRoles to its ServiceAccount; its code sends requests.
The report (``fakeapi._state.authorization.permissions``, docs/rbac.md) says which permissions the
requests used, the fewest rules that allow exactly those, which were refused (the rules missing
from the manifests) and what the bound roles grant that no request used. ``granted_roles`` finds
the bound roles in the store, as the authorizer would: a ClusterRole bound cluster-wide; a Role,
or a ClusterRole a RoleBinding refers to, within the binding's namespace. The bindings of the
cluster's bootstrap policy (labelled ``kubernetes.io/bootstrapping: rbac-defaults``: discovery,
``system:basic-user`` and the like, which every authenticated user has) are no manifest's, so the
roles only they grant are not compared.
"""

from __future__ import annotations

from typing import Any

import yaml

from fakeapi._state.authorization import PermissionsReport, RBACSource, UserInfo
from fakeapi._state.authorization.resolving import applies_to

__all__ = ["granted_roles", "render_report"]

_BOOTSTRAPPING = "kubernetes.io/bootstrapping"


def granted_roles(source: RBACSource, user: UserInfo, namespaces: list[str]) -> list[dict[str, Any]]:
    """Every Role and ClusterRole the user's bindings grant, as roles scoped where they apply."""
    roles: list[dict[str, Any]] = []
    for binding in source.cluster_role_bindings():
        if _bootstrap_policy(binding):
            continue
        role = _referred(source, binding, "")
        if role is not None and applies_to(user, binding.get("subjects"), ""):
            roles.append(role)
    for namespace in namespaces:
        for binding in source.role_bindings(namespace):
            if _bootstrap_policy(binding):
                continue
            role = _referred(source, binding, namespace)
            if role is not None and applies_to(user, binding.get("subjects"), namespace):
                # Within the binding's namespace only, whichever kind of role it refers to.
                roles.append({**role, "kind": "Role", "metadata": {**role["metadata"], "namespace": namespace}})
    return roles


def _bootstrap_policy(binding: Any) -> bool:
    metadata = binding.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    return isinstance(labels, dict) and labels.get(_BOOTSTRAPPING) == "rbac-defaults"


def _referred(source: RBACSource, binding: Any, namespace: str) -> dict[str, Any] | None:
    ref = binding.get("roleRef") if isinstance(binding.get("roleRef"), dict) else {}
    name = str(ref.get("name") or "")
    if ref.get("kind") == "ClusterRole":
        found = source.cluster_role(name)
    elif ref.get("kind") == "Role" and namespace:
        found = source.role(namespace, name)
    else:
        found = None
    return dict(found) if found is not None else None


def render_report(report: PermissionsReport, who: str) -> str:
    """Markdown: what was used, the rules that allow exactly that, what was refused, what is unused."""
    lines = [f"# Permissions of {who}", "", "## Requests"]
    for permission in report.used:
        if permission.resource_request:
            where = f"{permission.resource}" + (f" in {permission.api_group}" if permission.api_group else "")
            scope = f"namespace {permission.namespace}" if permission.namespace else "cluster scope"
            named = f' "{permission.name}"' if permission.name else ""
            what = f"{permission.verb} {where}{named}, {scope}"
        else:
            what = f"{permission.verb} {permission.path}"
        lines.append(f"- {what}: {permission.allowed} allowed, {permission.denied} refused")
    if not report.used:
        lines.append("(none)")
    lines += ["", "## Rules that allow exactly these requests", *_manifests(report.required, "required")]
    lines += ["", "## Missing: rules the refused requests needed", *_manifests(report.missing, "missing")]
    lines += ["", "## Unused: what the bound roles grant that no request used"]
    for grant in report.unused:
        where = f"{grant.kind} {grant.namespace}/{grant.name}" if grant.namespace else f"{grant.kind} {grant.name}"
        lines.append(f"- {where}:")
        lines += [f"  - {_rule_text(rule.to_dict())}" for rule in grant.rules]
    if not report.unused:
        lines.append("(none)")
    return "\n".join(lines) + "\n"


def _manifests(scoped: Any, purpose: str) -> list[str]:
    if not scoped:
        return ["(none)"]
    documents = [entry.manifest(f"{purpose}-{entry.namespace or 'cluster'}") for entry in scoped]
    return ["```yaml", yaml.safe_dump_all(documents, sort_keys=False).rstrip(), "```"]


def _rule_text(rule: dict[str, Any]) -> str:
    parts = [f"verbs {','.join(rule['verbs'])}"]
    for key in ("apiGroups", "resources", "resourceNames", "nonResourceURLs"):
        if key in rule:
            values = [value or '""' for value in rule[key]]
            parts.append(f"{key} {','.join(values)}")
    return "; ".join(parts)
