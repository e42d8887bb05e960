"""Field errors spelled as the apiserver spells them for a custom resource.

kube-openapi's messages (``pkg/validation/errors``) carry the value with Go's ``fmt`` verbs, and
``kubeOpenAPIResultToFieldErrors`` (apiextensions-apiserver ``pkg/apiserver/validation/validation.go``) wraps
them in ``field.Error``s, whose text prints the bad value again: ``%q`` strings, ``%v`` floats (``1e+06``),
``%#v`` maps and slices (``map[string]interface {}{...}``).
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.gostrconv import quote
from fakeapi._patching.govalues import format_float as go_float
from fakeapi._state.validation.field import go_value
from fakeapi.errors import Cause

__all__ = ["field", "go_float", "go_value_text", "invalid", "too_many", "type_invalid"]


def _go_syntax(value: Any) -> str:
    """``%#v`` of a decoded JSON value."""
    if isinstance(value, dict):
        inner = ", ".join(f"{quote(key)}:{_go_syntax(value[key])}" for key in sorted(value))
        return "map[string]interface {}{" + inner + "}"
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(_go_syntax(item) for item in value) + "}"
    if value is None:
        return "interface {}(nil)"
    return go_value_text(value)


def go_value_text(value: Any) -> str:
    """How ``field.Error`` prints a bad value."""
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, (dict, list)):
        return _go_syntax(value)
    return go_value(value)


def field(name: str) -> str:
    """The field of a kube-openapi name: ``kubeOpenAPIResultToFieldErrors`` drops one leading dot."""
    return name[1:] if name.startswith(".") else name


def invalid(path: str, value: Any, detail: str) -> Cause:
    return Cause("FieldValueInvalid", f"Invalid value: {go_value_text(value)}: {detail}", path)


def type_invalid(path: str, type_name: str, observed: str) -> Cause:
    message = f"{path} in body must be of type {type_name}: {quote(observed)}"
    return Cause("FieldValueTypeInvalid", f"Invalid value: {quote(observed)}: {message}", field(path))


def too_many(path: str, actual: int, maximum: int) -> Cause:
    unit = "item" if maximum == 1 else "items"
    return Cause("FieldValueTooMany", f"Too many: {actual}: must have at most {maximum} {unit}", field(path))
