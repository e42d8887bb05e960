"""A policy's ``matchConstraints`` and a binding's ``matchResources`` as ``validateMatchResources`` checks them.

``pkg/apis/admissionregistration/validation/validation.go``: ``matchPolicy`` required (Equivalent, Exact), both
selectors required and valid, and each of ``resourceRules`` and ``excludeResourceRules`` as
``validateNamedRuleWithOperations``: ``resourceNames`` (path segments, no duplicate), ``operations``,
``apiGroups``, ``apiVersions``, ``resources`` (``validateResources``: the wildcard combinations) and ``scope``
(docs/admission-policies.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError
from fakeapi._state.validation.names import name_is_path_segment
from fakeapi._state.validation.objectmeta import validate_label_selector

__all__ = ["validate_match_resources"]

Obj = Mapping[str, Any]
_MATCH_POLICIES = ("Equivalent", "Exact")
_OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
_SCOPES = ("*", "Cluster", "Namespaced")


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _resources(resources: list[Any], path: str) -> list[FieldError]:
    """``validateResources``."""
    errors: list[FieldError] = []
    if not resources:
        errors.append(field.required(path))
    wildcard_sub: set[str] = set()
    wildcard_res: set[str] = set()
    double = single = plain = False
    for position, item in enumerate(resources):
        item = _text(item)
        if not item:
            errors.append(field.required(field.index(path, position)))
            continue
        double = double or item == "*/*"
        single = single or item == "*"
        if "/" not in item:
            plain = item != "*"
            continue
        resource, sub = item.split("/", 1)
        if resource in wildcard_sub:
            errors.append(
                field.invalid(
                    field.index(path, position), item, f"if '{resource}/*' is present, must not specify {item}"
                )
            )
        if sub in wildcard_res:
            errors.append(
                field.invalid(field.index(path, position), item, f"if '*/{sub}' is present, must not specify {item}")
            )
        if sub == "*":
            wildcard_sub.add(resource)
        if resource == "*":
            wildcard_res.add(sub)
    if len(resources) > 1 and double:
        errors.append(
            field.invalid(path, resources, "if '*/*' is present, must not specify other resources", "[]string")
        )
    if single and plain:
        detail = "if '*' is present, must not specify other resources without subresources"
        errors.append(field.invalid(path, resources, detail, "[]string"))
    return errors


def _listed(rule: Obj, key: str, path: str, what: str, go_type: str = "[]string") -> list[FieldError]:
    values = _list(rule.get(key))
    errors: list[FieldError] = []
    if not values:
        errors.append(field.required(field.child(path, key)))
    if len(values) > 1 and "*" in values:
        errors.append(
            field.invalid(field.child(path, key), values, f"if '*' is present, must not specify other {what}", go_type)
        )
    return errors


def _rule(rule: Obj, path: str) -> list[FieldError]:
    """``validateNamedRuleWithOperations``: resourceNames, then ``validateRuleWithOperations``."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for position, name in enumerate(_list(rule.get("resourceNames"))):
        name_path = field.index(field.child(path, "resourceNames"), position)
        errors.extend(field.invalid(name_path, name, problem) for problem in name_is_path_segment(_text(name), False))
        if name in seen:
            errors.append(field.duplicate(name_path, name))
        seen.add(_text(name))
    errors.extend(_listed(rule, "operations", path, "operations", "[]admissionregistration.OperationType"))
    for position, operation in enumerate(_list(rule.get("operations"))):
        if operation not in _OPERATIONS:
            errors.append(
                field.not_supported(field.index(field.child(path, "operations"), position), operation, _OPERATIONS)
            )
    errors.extend(_listed(rule, "apiGroups", path, "API groups"))
    errors.extend(_listed(rule, "apiVersions", path, "API versions"))
    for position, version in enumerate(_list(rule.get("apiVersions"))):
        if version == "":
            errors.append(field.required(field.index(field.child(path, "apiVersions"), position)))
    errors.extend(_resources(_list(rule.get("resources")), field.child(path, "resources")))
    scope = rule.get("scope")
    if scope is not None and scope not in _SCOPES:
        errors.append(field.not_supported(field.child(path, "scope"), scope, _SCOPES))
    return errors


def validate_match_resources(match: Any, path: str) -> list[FieldError]:
    """``validateMatchResources``."""
    if not isinstance(match, dict):
        return []
    errors: list[FieldError] = []
    policy = match.get("matchPolicy")
    if policy is None:
        errors.append(field.required(field.child(path, "matchPolicy")))
    elif policy not in _MATCH_POLICIES:
        errors.append(field.not_supported(field.child(path, "matchPolicy"), policy, _MATCH_POLICIES))
    for key in ("namespaceSelector", "objectSelector"):
        if match.get(key) is None:
            errors.append(field.required(field.child(path, key)))
        else:
            errors.extend(validate_label_selector(match.get(key), field.child(path, key)))
    for key in ("resourceRules", "excludeResourceRules"):
        for position, rule in enumerate(_list(match.get(key))):
            errors.extend(_rule(_dict(rule), field.index(field.child(path, key), position)))
    return errors
