"""PriorityClasses as ``pkg/apis/scheduling/validation/validation.go`` validates them.

``ValidatePriorityClass``: a name with the reserved ``system-`` prefix must be one of the system
classes; any other class's value is at most 1000000000 (``value: Forbidden: maximum allowed value
of a user defined priority is 1000000000``); the preemption policy is known.
``ValidatePriorityClassUpdate``: the value (``value: Forbidden: may not be changed in an update.``)
and the preemption policy are immutable. That at most one class is the global default is the
Priority admission plugin's rule (:mod:`fakeapi._state.admission.priority`), a 403.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError
from fakeapi._state.validation.objectmeta import validate_immutable
from fakeapi._state.validation.rules import KindRules

__all__ = ["HIGHEST_USER_DEFINABLE_PRIORITY", "PRIORITY_CLASS"]

Obj = Mapping[str, Any]

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def validate_priority_class(priority_class: Obj) -> list[FieldError]:
    """``ValidatePriorityClass`` past the metadata (the system classes are the server's own, never refused here)."""
    errors: list[FieldError] = []
    name = str(_meta(priority_class).get("name") or "")
    value = priority_class.get("value")
    if not name.startswith("system-") and isinstance(value, int) and value > HIGHEST_USER_DEFINABLE_PRIORITY:
        detail = f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
        errors.append(field.forbidden("value", detail))
    policy = priority_class.get("preemptionPolicy")
    if policy is not None and policy not in _PREEMPTION_POLICIES:
        errors.append(field.not_supported("preemptionPolicy", policy, _PREEMPTION_POLICIES))
    return errors


def validate_priority_class_update(new: Obj, old: Obj) -> list[FieldError]:
    """``ValidatePriorityClassUpdate`` past the metadata."""
    errors: list[FieldError] = []
    if new.get("value") != old.get("value"):
        errors.append(field.forbidden("value", "may not be changed in an update."))
    return errors + validate_immutable(new.get("preemptionPolicy"), old.get("preemptionPolicy"), "preemptionPolicy")


def _meta(obj: Obj) -> Obj:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


PRIORITY_CLASS = KindRules(create=validate_priority_class, update=validate_priority_class_update)
