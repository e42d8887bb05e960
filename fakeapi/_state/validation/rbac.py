"""The RBAC kinds as ``pkg/apis/rbac/validation/validation.go`` validates them.

* Role and ClusterRole (``ValidateRole``, ``ValidateClusterRole``): each rule needs verbs; a rule
  with nonResourceURLs is cluster-scoped only and names no API groups, resources or resource
  names; any other rule needs an API group and a resource, and resource names apply to one
  resource only.
* RoleBinding and ClusterRoleBinding (``ValidateRoleBinding``, ``ValidateClusterRoleBinding``):
  the roleRef's apiGroup is ``rbac.authorization.k8s.io``, its kind Role or ClusterRole
  (ClusterRole only for a ClusterRoleBinding), its name a path segment; each subject is a
  ServiceAccount (a valid name, no apiGroup, a namespace in a cluster binding), a User or a Group
  (of the RBAC group); and the roleRef never changes (``cannot change roleRef``).

Their names are only checked to be usable as one URL path segment (``minimalNameRequirements``),
so ``system:controller:foo`` is a valid ClusterRole name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._patching.gostrconv import quote
from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError, Printed
from fakeapi._state.validation.names import name_is_dns_subdomain, name_is_path_segment
from fakeapi._state.validation.rules import KindRules

__all__ = ["CLUSTER_ROLE", "CLUSTER_ROLE_BINDING", "ROLE", "ROLE_BINDING"]

Obj = Mapping[str, Any]
GROUP = "rbac.authorization.k8s.io"


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _policy_rule(rule: Obj, namespaced: bool, path: str) -> list[FieldError]:
    """``validatePolicyRule``."""
    errors: list[FieldError] = []
    if not _list(rule.get("verbs")):
        errors.append(field.required(f"{path}.verbs", "verbs must contain at least one value"))
    urls = _list(rule.get("nonResourceURLs"))
    if urls:
        if namespaced:
            errors.append(
                field.invalid(
                    f"{path}.nonResourceURLs", urls, "namespaced rules cannot apply to non-resource URLs", "[]string"
                )
            )
        if _list(rule.get("apiGroups")) or _list(rule.get("resources")) or _list(rule.get("resourceNames")):
            errors.append(
                field.invalid(
                    f"{path}.nonResourceURLs",
                    urls,
                    "rules cannot apply to both regular resources and non-resource URLs",
                    "[]string",
                )
            )
        return errors
    if not _list(rule.get("apiGroups")):
        errors.append(field.required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
    resources = _list(rule.get("resources"))
    if not resources:
        errors.append(field.required(f"{path}.resources", "resource rules must supply at least one resource"))
    if _list(rule.get("resourceNames")) and len(resources) > 1:
        errors.append(field.required(f"{path}.resourceNames", "resource names cannot apply to multiple resources"))
    return errors


def _minimal_name(name: str, prefix: bool) -> list[str]:
    """``minimalNameRequirements``: ``IsValidPathSegmentName``, for a generateName too."""
    return name_is_path_segment(name, False)


def _role(namespaced: bool) -> KindRules:
    def validate(role: Obj) -> list[FieldError]:
        errors: list[FieldError] = []
        for position, rule in enumerate(_list(role.get("rules"))):
            errors += _policy_rule(_dict(rule), namespaced, f"rules[{position}]")
        return errors

    return KindRules(names=_minimal_name, create=validate)


def _subject(subject: Obj, namespaced: bool, path: str) -> list[FieldError]:
    """``validateRoleBindingSubject``."""
    errors: list[FieldError] = []
    name = str(subject.get("name") or "")
    api_group = str(subject.get("apiGroup") or "")
    if not name:
        errors.append(field.required(f"{path}.name"))
    kind = str(subject.get("kind") or "")
    if kind == "ServiceAccount":
        if name:
            errors += [field.invalid(f"{path}.name", name, problem) for problem in name_is_dns_subdomain(name, False)]
        if api_group:
            errors.append(field.not_supported(f"{path}.apiGroup", api_group, ("",)))
        if not namespaced and not subject.get("namespace"):
            errors.append(field.required(f"{path}.namespace"))
    elif kind in ("User", "Group"):
        if not name:
            errors.append(field.invalid(f"{path}.name", name, f"{kind.lower()} name cannot be empty"))
        if api_group != GROUP:
            errors.append(field.not_supported(f"{path}.apiGroup", api_group, (GROUP,)))
    else:
        errors.append(field.not_supported(f"{path}.kind", kind, ("ServiceAccount", "User", "Group")))
    return errors


def _role_ref(binding: Obj) -> Obj:
    return _dict(binding.get("roleRef"))


def _printed_role_ref(ref: Obj) -> Printed:
    """``rbac.RoleRef`` as ``%#v`` prints it, and as JSON writes the internal type (Go's field names)."""
    api_group, kind, name = (str(ref.get(key) or "") for key in ("apiGroup", "kind", "name"))
    go = f"rbac.RoleRef{{APIGroup:{quote(api_group)}, Kind:{quote(kind)}, Name:{quote(name)}}}"
    return Printed(go, f'{{"APIGroup":{quote(api_group)},"Kind":{quote(kind)},"Name":{quote(name)}}}')


def _binding(namespaced: bool) -> KindRules:
    kinds = ("Role", "ClusterRole") if namespaced else ("ClusterRole",)

    def validate(binding: Obj) -> list[FieldError]:
        errors: list[FieldError] = []
        ref = _role_ref(binding)
        api_group = str(ref.get("apiGroup") or "")
        if api_group != GROUP:
            errors.append(field.not_supported("roleRef.apiGroup", api_group, (GROUP,)))
        kind = str(ref.get("kind") or "")
        if kind not in kinds:
            errors.append(field.not_supported("roleRef.kind", kind, kinds))
        name = str(ref.get("name") or "")
        if not name:
            errors.append(field.required("roleRef.name"))
        else:
            errors += [field.invalid("roleRef.name", name, problem) for problem in _minimal_name(name, False)]
        for position, subject in enumerate(_list(binding.get("subjects"))):
            errors += _subject(_dict(subject), namespaced, f"subjects[{position}]")
        return errors

    def validate_update(new: Obj, old: Obj) -> list[FieldError]:
        errors = validate(new)
        new_ref, old_ref = _role_ref(new), _role_ref(old)
        if any((new_ref.get(key) or "") != (old_ref.get(key) or "") for key in ("apiGroup", "kind", "name")):
            errors.append(field.invalid("roleRef", _printed_role_ref(new_ref), "cannot change roleRef"))
        return errors

    return KindRules(names=_minimal_name, create=validate, update=validate_update)


ROLE = _role(namespaced=True)
CLUSTER_ROLE = _role(namespaced=False)
ROLE_BINDING = _binding(namespaced=True)
CLUSTER_ROLE_BINDING = _binding(namespaced=False)
