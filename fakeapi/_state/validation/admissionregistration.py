"""The ``matchConditions`` of webhook configurations, as ``pkg/apis/admissionregistration/validation`` checks them.

The part of ``ValidateValidatingWebhookConfiguration`` and its mutating twin that needs CEL
(:mod:`.webhook_configurations` checks the rest and calls this per webhook, docs/admission.md):
``validateMatchConditions``: at most 64 conditions (``Too many``), each
with a non-empty name that is a qualified name and unique in the webhook (``Duplicate value``), and a
non-empty expression (trimmed) that compiles in the admission composition environment and gives a bool
(``validateMatchConditionsExpression``; the compile error is ``Invalid value: "<expression>": <detail>``).
On an update whose webhooks all keep the conditions they had (the same number of webhooks, each one's
conditions deeply equal), the conditions are not validated again (``ignoreMatchConditions``), so a stored
configuration stays writable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError
from fakeapi._state.validation.names import is_qualified_name

__all__ = ["conditions_unchanged", "validate_match_conditions"]

Obj = Mapping[str, Any]
_MAX_CONDITIONS = 64


def _webhooks(obj: Obj | None) -> list[Any]:
    webhooks = obj.get("webhooks") if obj is not None else None
    return webhooks if isinstance(webhooks, list) else []


def conditions_unchanged(new: Obj, old: Obj) -> bool:
    """``ignoreValidatingWebhookMatchConditions``/``ignoreMutatingWebhookMatchConditions``."""
    new_hooks, old_hooks = _webhooks(new), _webhooks(old)
    if len(new_hooks) != len(old_hooks):
        return False
    return all(
        (hook.get("matchConditions") if isinstance(hook, dict) else None)
        == (previous.get("matchConditions") if isinstance(previous, dict) else None)
        for hook, previous in zip(new_hooks, old_hooks, strict=True)
    )


def _condition_errors(condition: Any, path: str) -> list[FieldError]:
    # Imported here: configurations without conditions never load the CEL runtime.
    from fakeapi._cel.admission_conditions import compile_condition

    condition = condition if isinstance(condition, dict) else {}
    errors: list[FieldError] = []
    expression = condition.get("expression")
    trimmed = expression.strip() if isinstance(expression, str) else ""
    if not trimmed:
        errors.append(field.required(field.child(path, "expression")))
    else:
        compiled = compile_condition(trimmed)
        if compiled.error:
            errors.append(field.invalid(field.child(path, "expression"), trimmed, compiled.error))
    name = condition.get("name")
    if not isinstance(name, str) or not name:
        errors.append(field.required(field.child(path, "name")))
    else:
        errors.extend(field.invalid(field.child(path, "name"), name, problem) for problem in is_qualified_name(name))
    return errors


def validate_match_conditions(conditions: Any, path: str) -> list[FieldError]:
    """``validateMatchConditions`` of one webhook's conditions, at ``webhooks[i].matchConditions``."""
    if not isinstance(conditions, list):
        return []
    errors: list[FieldError] = []
    if len(conditions) > _MAX_CONDITIONS:
        errors.append(field.too_many(path, len(conditions), _MAX_CONDITIONS))
    names: set[str] = set()
    for number, condition in enumerate(conditions):
        condition_path = field.index(path, number)
        errors.extend(_condition_errors(condition, condition_path))
        name = condition.get("name") if isinstance(condition, dict) else None
        if isinstance(name, str) and name:
            if name in names:
                errors.append(field.duplicate(field.child(condition_path, "name"), name))
            names.add(name)
    return errors
