"""Where a pod may run: its affinity and topology spread constraints, as ``ValidatePodSpec`` checks them.

``validateAffinity`` (``pkg/apis/core/validation/validation.go``): node affinity's required
selector has at least one term (``must have at least one node selector term``), each requirement a
known operator with the values it needs (``In``/``NotIn`` some, ``Exists``/``DoesNotExist`` none,
``Gt``/``Lt`` one) and a qualified key, field requirements only on ``metadata.name``; preferred
terms weigh 1 to 100; pod (anti-)affinity terms have valid selectors, namespace names, label keys
and a ``topologyKey`` (``Required value: can not be empty``). ``validateTopologySpreadConstraints``:
``maxSkew`` above zero, a ``topologyKey``, ``whenUnsatisfiable`` ``DoNotSchedule`` or
``ScheduleAnyway``, no (key, action) pair twice, ``minDomains`` above zero and only with
``DoNotSchedule``, node inclusion policies ``Honor`` or ``Ignore``, matchLabelKeys beside a
selector, and the label selector.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError
from fakeapi._state.validation.names import is_dns1123_label, is_dns1123_subdomain, is_qualified_name
from fakeapi._state.validation.objectmeta import validate_label_selector

__all__ = ["validate_affinity", "validate_topology_spread_constraints"]

Obj = Mapping[str, Any]

_NOT_POSITIVE = "must be greater than zero"
_SCHEDULE_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")
_INCLUSION_POLICIES = ("Honor", "Ignore")


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _label_name(key: str, path: str) -> list[FieldError]:
    """``ValidateLabelName``."""
    return [field.invalid(path, key, problem) for problem in is_qualified_name(key)]


def _node_requirement(requirement: Obj, path: str) -> list[FieldError]:
    """``ValidateNodeSelectorRequirement``."""
    errors: list[FieldError] = []
    operator, values = requirement.get("operator") or "", _list(requirement.get("values"))
    if operator in ("In", "NotIn"):
        if not values:
            errors.append(field.required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
            errors.append(field.forbidden(f"{path}.values", detail))
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            detail = "must be specified single value when `operator` is 'Lt' or 'Gt'"
            errors.append(field.required(f"{path}.values", detail))
    else:
        errors.append(field.invalid(f"{path}.operator", operator, "not a valid selector operator"))
    return errors + _label_name(str(requirement.get("key") or ""), f"{path}.key")


def _node_field_requirement(requirement: Obj, path: str) -> list[FieldError]:
    """``ValidateNodeFieldSelectorRequirement``: only ``metadata.name``, with one value."""
    errors: list[FieldError] = []
    operator, values = requirement.get("operator") or "", _list(requirement.get("values"))
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            detail = "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
            errors.append(field.required(f"{path}.values", detail))
    else:
        errors.append(field.invalid(f"{path}.operator", operator, "not a valid selector operator"))
    key = str(requirement.get("key") or "")
    if key != "metadata.name":
        errors.append(field.invalid(f"{path}.key", key, "not a valid field selector key"))
    else:
        for position, value in enumerate(values):
            where = field.index(f"{path}.values", position)
            errors += [field.invalid(where, value, problem) for problem in is_dns1123_subdomain(str(value))]
    return errors


def _node_selector_term(term: Obj, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for position, requirement in enumerate(_list(term.get("matchExpressions"))):
        errors += _node_requirement(_dict(requirement), field.index(f"{path}.matchExpressions", position))
    for position, requirement in enumerate(_list(term.get("matchFields"))):
        errors += _node_field_requirement(_dict(requirement), field.index(f"{path}.matchFields", position))
    return errors


def _weight(weight: Any, path: str) -> list[FieldError]:
    value = weight if isinstance(weight, int) else 0
    return [] if 0 < value <= 100 else [field.invalid(path, value, "must be in the range 1-100")]


def _node_affinity(affinity: Obj, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, dict):
        where = f"{path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        terms = _list(required.get("nodeSelectorTerms"))
        if not terms:
            errors.append(field.required(where, "must have at least one node selector term"))
        for position, term in enumerate(terms):
            errors += _node_selector_term(_dict(term), field.index(where, position))
    for position, item in enumerate(_list(affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        term = _dict(item)
        where = field.index(f"{path}.preferredDuringSchedulingIgnoredDuringExecution", position)
        errors += _weight(term.get("weight"), f"{where}.weight")
        errors += _node_selector_term(_dict(term.get("preference")), f"{where}.preference")
    return errors


def _label_keys(keys: list[Any], selector: Any, path: str) -> list[FieldError]:
    """``validateLabelKeys`` for matchLabelKeys or mismatchLabelKeys."""
    if not keys:
        return []
    if not isinstance(selector, dict):
        return [field.forbidden(path, "must not be specified when labelSelector is not set")]
    errors: list[FieldError] = []
    for position, key in enumerate(keys):
        errors += _label_name(str(key), field.index(path, position))
    return errors


def _pod_affinity_term(term: Obj, path: str) -> list[FieldError]:
    """``validatePodAffinityTerm``."""
    errors = validate_label_selector(term.get("labelSelector"), f"{path}.labelSelector")
    errors += validate_label_selector(term.get("namespaceSelector"), f"{path}.namespaceSelector")
    for name in _list(term.get("namespaces")):
        errors += [field.invalid(f"{path}.namespace", name, problem) for problem in is_dns1123_label(str(name))]
    selector = term.get("labelSelector")
    match_keys, mismatch_keys = _list(term.get("matchLabelKeys")), _list(term.get("mismatchLabelKeys"))
    errors += _label_keys(match_keys, selector, f"{path}.matchLabelKeys")
    errors += _label_keys(mismatch_keys, selector, f"{path}.mismatchLabelKeys")
    if isinstance(selector, dict):
        selector_keys: set[Any] = set(_dict(selector.get("matchLabels")))
        positions = {key: position for position, key in enumerate(match_keys)}
        for requirement in _list(selector.get("matchExpressions")):
            key = _dict(requirement).get("key")
            if key in positions and key in selector_keys:
                where = field.index(path, positions[key])
                errors.append(field.invalid(where, key, "exists in both matchLabelKeys and labelSelector"))
            selector_keys.add(key)
    for position, key in enumerate(match_keys):
        if key in mismatch_keys:
            where = field.index(f"{path}.matchLabelKeys", position)
            errors.append(field.invalid(where, key, "exists in both matchLabelKeys and mismatchLabelKeys"))
    topology_key = str(term.get("topologyKey") or "")
    if not topology_key:
        errors.append(field.required(f"{path}.topologyKey", "can not be empty"))
    return errors + _label_name(topology_key, f"{path}.topologyKey")


def _pod_affinity(affinity: Obj, path: str) -> list[FieldError]:
    """``validatePodAffinity`` and ``validatePodAntiAffinity``."""
    errors: list[FieldError] = []
    for position, term in enumerate(_list(affinity.get("requiredDuringSchedulingIgnoredDuringExecution"))):
        where = field.index(f"{path}.requiredDuringSchedulingIgnoredDuringExecution", position)
        errors += _pod_affinity_term(_dict(term), where)
    for position, item in enumerate(_list(affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        weighted = _dict(item)
        where = field.index(f"{path}.preferredDuringSchedulingIgnoredDuringExecution", position)
        errors += _weight(weighted.get("weight"), f"{where}.weight")
        errors += _pod_affinity_term(_dict(weighted.get("podAffinityTerm")), f"{where}.podAffinityTerm")
    return errors


def validate_affinity(affinity: Any, path: str) -> list[FieldError]:
    """``validateAffinity``."""
    if not isinstance(affinity, dict):
        return []
    errors: list[FieldError] = []
    if isinstance(affinity.get("nodeAffinity"), dict):
        errors += _node_affinity(affinity["nodeAffinity"], f"{path}.nodeAffinity")
    for name in ("podAffinity", "podAntiAffinity"):
        if isinstance(affinity.get(name), dict):
            errors += _pod_affinity(affinity[name], f"{path}.{name}")
    return errors


def validate_topology_spread_constraints(constraints: list[Any], path: str) -> list[FieldError]:
    """``validateTopologySpreadConstraints``."""
    errors: list[FieldError] = []
    items = [_dict(item) for item in constraints]
    for position, constraint in enumerate(items):
        where = field.index(path, position)
        raw_skew = constraint.get("maxSkew")
        skew = raw_skew if isinstance(raw_skew, int) else 0
        if skew <= 0:
            errors.append(field.invalid(f"{where}.maxSkew", skew, _NOT_POSITIVE))
        key, action = str(constraint.get("topologyKey") or ""), str(constraint.get("whenUnsatisfiable") or "")
        if not key:
            errors.append(field.required(f"{where}.topologyKey", "can not be empty"))
        if action not in _SCHEDULE_ACTIONS:
            errors.append(field.not_supported(f"{where}.whenUnsatisfiable", action, _SCHEDULE_ACTIONS))
        for later in items[position + 1 :]:
            if (later.get("topologyKey") or "", later.get("whenUnsatisfiable") or "") == (key, action):
                errors.append(field.duplicate(f"{where}.{{topologyKey, whenUnsatisfiable}}", f"{{{key}, {action}}}"))
                break
        min_domains = constraint.get("minDomains")
        if isinstance(min_domains, int):
            if min_domains <= 0:
                errors.append(field.invalid(f"{where}.minDomains", min_domains, _NOT_POSITIVE))
            if action != "DoNotSchedule":
                detail = f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"
                errors.append(field.invalid(f"{where}.minDomains", min_domains, detail))
        for name in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = constraint.get(name)
            if policy is not None and policy not in _INCLUSION_POLICIES:
                errors.append(field.not_supported(f"{where}.{name}", policy, _INCLUSION_POLICIES))
        errors += _match_label_keys(constraint, f"{where}.matchLabelKeys")
        errors += validate_label_selector(constraint.get("labelSelector"), f"{where}.labelSelector")
    return errors


def _match_label_keys(constraint: Obj, path: str) -> list[FieldError]:
    """``validateMatchLabelKeysInTopologySpread``."""
    keys = _list(constraint.get("matchLabelKeys"))
    if not keys:
        return []
    selector = constraint.get("labelSelector")
    errors: list[FieldError] = []
    selector_keys: set[Any] = set()
    if isinstance(selector, dict):
        selector_keys = set(_dict(selector.get("matchLabels")))
        selector_keys |= {_dict(item).get("key") for item in _list(selector.get("matchExpressions"))}
    else:
        errors.append(field.forbidden(path, "must not be specified when labelSelector is not set"))
    for position, key in enumerate(keys):
        where = field.index(path, position)
        errors += _label_name(str(key), where)
        if key in selector_keys:
            errors.append(field.invalid(where, key, "exists in both matchLabelKeys and labelSelector"))
    return errors
