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
from fakeapi._state.validation import field as field_errors
from fakeapi.errors import Cause

__all__ = ["field", "go_float", "go_value_text", "invalid", "too_long", "too_many", "type_invalid"]


def go_value_text(value: Any) -> str:
    """How ``field.Error`` prints a bad value of a decoded JSON document (``%#v`` for maps and lists)."""
    if isinstance(value, (dict, list)):
        return field_errors.go_syntax(value)
    return field_errors.go_value(value)


def field(name: str) -> str:
    """The field of a kube-openapi name: ``kubeOpenAPIResultToFieldErrors`` drops one leading dot."""
    return name[1:] if name.startswith(".") else name


def invalid(path: str, value: Any, detail: str) -> Cause:
    """``field.Invalid``'s cause."""
    return field_errors.invalid(path, value, detail).cause()


def type_invalid(path: str, type_name: str, observed: str) -> Cause:
    """kube-openapi's type error as ``field.TypeInvalid``'s cause: the value is the observed type's name."""
    message = f"{path} in body must be of type {type_name}: {quote(observed)}"
    return field_errors.type_invalid(field(path), observed, message).cause()


# The two size errors of a custom resource's schema name their unit in the singular for a limit of 1,
# where field.TooLong and field.TooMany of this Kubernetes version do not.


def too_long(path: str, maximum: int) -> Cause:
    unit = "byte" if maximum == 1 else "bytes"
    return Cause("FieldValueTooLong", f"Too long: may not be more than {maximum} {unit}", field(path))


def too_many(path: str, actual: int, maximum: int) -> Cause:
    unit = "item" if maximum == 1 else "items"
    return Cause("FieldValueTooMany", f"Too many: {actual}: must have at most {maximum} {unit}", field(path))
