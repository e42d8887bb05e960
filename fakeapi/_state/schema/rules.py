"""A custom resource's ``x-kubernetes-validations`` rules run on a write, their errors as field errors.

``customresource/strategy.go`` (``Validate``, ``ValidateUpdate``) and ``status_strategy.go``: the rules run
after the schema's own validation, unless it found an error that makes them meaningless (``hasBlockingErr``:
an unsupported, required, too long, too many or wrongly typed value), which adds the single error
``<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid;
correct the existing errors to complete validation``. An update through the main resource ratchets (a rule's
error on an unchanged value is a warning); a create and a ``/status`` write do not. A rule at the root of the
resource reports at the nil path, printed ``<nil>``. The rules themselves: :mod:`fakeapi._cel`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fakeapi._state.validation import field
from fakeapi.errors import Cause

if TYPE_CHECKING:
    from fakeapi._cel import RuleError

__all__ = ["rule_causes"]

_BLOCKING = frozenset(
    ("FieldValueNotSupported", "FieldValueRequired", "FieldValueTooLong", "FieldValueTooMany", "FieldValueTypeInvalid")
)
_BLOCKED = field.invalid(
    "<nil>",
    # field.Error prints a nil value as the string "null", quoted.
    "null",
    "some validation rules were not checked because the object was invalid; correct the existing errors to "
    "complete validation",
)


def rule_causes(
    schema: Mapping[str, Any] | None,
    obj: dict[str, Any],
    old: dict[str, Any] | None,
    causes: list[Cause],
    *,
    ratcheting: bool,
) -> tuple[list[Cause], list[str]]:
    """The causes the rules add to ``causes`` (the errors found so far), and the ratcheted errors' warnings."""
    if schema is None or not _has_rules(schema):
        return [], []
    if any(cause.reason in _BLOCKING for cause in causes):
        return [_BLOCKED.cause()], []
    compiled = _compiled_rules(schema)
    outcome = compiled.validate(obj, old, ratcheting=ratcheting) if old is not None else compiled.validate(obj)
    return [_cause(error) for error in outcome.errors], outcome.warnings


def _compiled_rules(schema: Mapping[str, Any]) -> Any:
    """``fakeapi._cel.rules_of``, imported on the first schema with rules (the CEL runtime loads then)."""
    global _rules_of
    if _rules_of is None:
        from fakeapi._cel.validating import rules_of

        _rules_of = rules_of
    return _rules_of(schema)


_rules_of: Any = None


def _cause(error: RuleError) -> Cause:
    path = error.path or "<nil>"
    if error.kind == "Forbidden":
        return field.forbidden(path, error.detail).cause()
    if error.kind == "Required":
        return field.required(path, error.detail).cause()
    if error.kind == "Duplicate":
        return field.duplicate(path, error.value).cause()
    return field.invalid(path, error.value, error.detail).cause()


def _has_rules(schema: Mapping[str, Any]) -> bool:
    """Whether any node of the schema carries rules (``hasXValidations``), cached with the compiled schema."""
    cached = _with_rules.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    found = _search(schema)
    if len(_with_rules) > 256:
        _with_rules.clear()
    _with_rules[id(schema)] = (schema, found)
    return found


_with_rules: dict[int, tuple[Mapping[str, Any], bool]] = {}


def _search(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return False
    if schema.get("x-kubernetes-validations"):
        return True
    properties = schema.get("properties")
    children = list(properties.values()) if isinstance(properties, Mapping) else []
    children += [schema.get("items"), schema.get("additionalProperties")]
    children += list(schema.get("allOf") or []) if isinstance(schema.get("allOf"), list) else []
    return any(_search(child) for child in children)
