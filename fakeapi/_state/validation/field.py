"""Field errors as apimachinery's ``util/validation/field`` builds and prints them: every message in one place.

A validation returns a list of :class:`FieldError` (``field.ErrorList``); the strategy turns it into
the 422 Invalid Status (``NewInvalid``), where each error is a cause ``{reason, message, field}``
and the message joins ``<field>: <body>`` texts. The body is ``ErrorBody()``:

* ``Required value``, ``Forbidden``, ``Too long``, ``Internal error`` print no value;
* the others print it: strings with ``%q``, numbers and bools with ``%v``, ``null`` for nil;
  a list or a map with ``%#v`` and its Go type (``[]string{"a", "b"}``,
  ``map[string]string{"app":"web"}``) up to Kubernetes 1.33, as its JSON from 1.34 on
  (``field/errors.go`` then marshals complex values);
* then ``: <detail>`` when there is one. ``NotSupported`` lists ``supported values: "A", "B"``;
  ``TooLong`` says ``may not be more than N bytes`` and ``TooMany`` ``must have at most N items``
  (1.34 says ``byte`` and ``item`` for 1).

Paths are written as ``field.Path`` writes them: ``spec.containers[0].ports[1].name``, a map key as
``metadata.labels[app]`` (:func:`child`, :func:`index`, :func:`key`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fakeapi._patching.gostrconv import quote
from fakeapi._patching.govalues import format_float as go_float
from fakeapi._state.releases import DEFAULT_KUBE_VERSION
from fakeapi.errors import Cause

__all__ = [
    "OMIT",
    "FieldError",
    "GoText",
    "Printed",
    "causes",
    "child",
    "duplicate",
    "forbidden",
    "go_float",
    "go_syntax",
    "go_value",
    "index",
    "internal",
    "invalid",
    "key",
    "not_found",
    "not_supported",
    "required",
    "too_long",
    "too_many",
    "type_invalid",
]

DEFAULT_VERSION = DEFAULT_KUBE_VERSION

REQUIRED = "FieldValueRequired"
INVALID = "FieldValueInvalid"
NOT_SUPPORTED = "FieldValueNotSupported"
DUPLICATE = "FieldValueDuplicate"
FORBIDDEN = "FieldValueForbidden"
TOO_LONG = "FieldValueTooLong"
TOO_MANY = "FieldValueTooMany"
TYPE_INVALID = "FieldValueTypeInvalid"
NOT_FOUND = "FieldValueNotFound"
INTERNAL = "InternalError"

_WORDS = {
    REQUIRED: "Required value",
    INVALID: "Invalid value",
    NOT_SUPPORTED: "Unsupported value",
    DUPLICATE: "Duplicate value",
    FORBIDDEN: "Forbidden",
    TOO_LONG: "Too long",
    TOO_MANY: "Too many",
    TYPE_INVALID: "Invalid value",
    NOT_FOUND: "Not found",
    INTERNAL: "Internal error",
}
_NO_VALUE = frozenset((REQUIRED, FORBIDDEN, TOO_LONG, INTERNAL))


class _Omit:
    """``omitValue``: the error prints no value."""


OMIT: Any = _Omit()


class GoText(str):
    """A value already printed as Go prints it (a struct's ``%#v``, a Stringer's text)."""


@dataclass(frozen=True, slots=True)
class Printed:
    """A struct value printed both ways: ``%#v`` up to 1.33, its JSON from 1.34 on."""

    go_syntax: str
    json: str


@dataclass(frozen=True, slots=True)
class FieldError:
    """One ``field.Error``: its type, field path, bad value and detail."""

    type: str
    field: str
    value: Any = OMIT
    detail: str = ""
    # The Go type of a list or map value, which ``%#v`` names (``[]string``, ``map[string]string``).
    go_type: str = ""

    def body(self, kube_version: str = DEFAULT_VERSION) -> str:
        """``ErrorBody()``: the message without the field."""
        text = _WORDS[self.type]
        if self.type not in _NO_VALUE and self.value is not OMIT:
            text += ": " + _printed(self.value, self.go_type, kube_version)
        if self.detail:
            text += ": " + self.detail
        return text

    def text(self, kube_version: str = DEFAULT_VERSION) -> str:
        """``Error()``: ``<field>: <body>``."""
        return f"{self.field}: {self.body(kube_version)}"

    def cause(self, kube_version: str = DEFAULT_VERSION) -> Cause:
        """The ``StatusCause`` ``NewInvalid`` makes of it."""
        return Cause(self.type, self.body(kube_version), self.field)


def causes(errors: Iterable[FieldError], kube_version: str = DEFAULT_VERSION) -> list[Cause]:
    return [error.cause(kube_version) for error in errors]


# -- the constructors of field/errors.go -------------------------------------------------------


def required(path: str, detail: str = "") -> FieldError:
    return FieldError(REQUIRED, path, "", detail)


def invalid(path: str, value: Any, detail: str = "", go_type: str = "") -> FieldError:
    return FieldError(INVALID, path, value, detail, go_type)


def type_invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError(TYPE_INVALID, path, value, detail)


def not_supported(path: str, value: Any, supported: Iterable[str]) -> FieldError:
    shown = [quote(str(option)) for option in supported]
    return FieldError(NOT_SUPPORTED, path, value, "supported values: " + ", ".join(shown) if shown else "")


def duplicate(path: str, value: Any, go_type: str = "") -> FieldError:
    return FieldError(DUPLICATE, path, value, "", go_type)


def not_found(path: str, value: Any) -> FieldError:
    return FieldError(NOT_FOUND, path, value)


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError(FORBIDDEN, path, "", detail)


def too_long(path: str, max_length: int) -> FieldError:
    """``TooLong``: the value is never printed; the detail is version-dependent, so it is kept as a count."""
    return _Sized(TOO_LONG, path, "<value omitted>", "", "", max_length)


def too_many(path: str, actual: int, maximum: int) -> FieldError:
    return _Sized(TOO_MANY, path, actual if actual >= 0 else OMIT, "", "", maximum)


def internal(path: str, detail: str) -> FieldError:
    return FieldError(INTERNAL, path, None, detail)


@dataclass(frozen=True, slots=True)
class _Sized(FieldError):
    """TooLong and TooMany, whose unit is singular for a limit of 1 from Kubernetes 1.34 on."""

    limit: int = 0

    def body(self, kube_version: str = DEFAULT_VERSION) -> str:
        text = _WORDS[self.type]
        if self.type == TOO_MANY and self.value is not OMIT:
            text += ": " + _printed(self.value, "", kube_version)
        singular = self.limit == 1 and _version(kube_version) >= (1, 34)
        if self.limit < 0:
            detail = "value is too long" if self.type == TOO_LONG else "has too many items"
        elif self.type == TOO_LONG:
            detail = f"may not be more than {self.limit} {'byte' if singular else 'bytes'}"
        else:
            detail = f"must have at most {self.limit} {'item' if singular else 'items'}"
        return f"{text}: {detail}"


# -- paths ---------------------------------------------------------------------------------------


def child(path: str, *names: str) -> str:
    """``Path.Child``: ``spec.template``."""
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def index(path: str, position: int) -> str:
    """``Path.Index``: ``spec.containers[0]``."""
    return f"{path}[{position}]"


def key(path: str, name: str) -> str:
    """``Path.Key``: ``metadata.labels[app]``, the key as it is."""
    return f"{path}[{name}]"


# -- printing a bad value ----------------------------------------------------------------------


def _version(kube_version: str) -> tuple[int, int]:
    major, _, minor = kube_version.partition(".")
    return int(major), int(minor or 0)


def _printed(value: Any, go_type: str, kube_version: str) -> str:
    if isinstance(value, GoText):
        return str(value)
    if isinstance(value, Printed):
        return value.json if _version(kube_version) >= (1, 34) else value.go_syntax
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if _version(kube_version) >= (1, 34):
        from fakeapi._patching.godecode import normalize
        from fakeapi._patching.goencode import encode

        return encode(normalize(value)).decode()
    return go_syntax(value, go_type)


def go_value(value: Any) -> str:
    """How ``ErrorBody`` prints a bad value in a message built by hand (a list of strings as ``[]string``)."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return go_syntax(value, "[]string")
    return _printed(value, "", DEFAULT_VERSION)


def go_syntax(value: Any, go_type: str = "") -> str:
    """``%#v`` of a list or map of the Go type given (``interface {}`` elements when none is)."""
    if isinstance(value, dict):
        element = go_type[go_type.index("]") + 1 :] if go_type.startswith("map[") else "interface {}"
        shown = go_type or "map[string]interface {}"
        inner = ", ".join(f"{quote(str(name))}:{_element(value[name], element)}" for name in sorted(value))
        return shown + "{" + inner + "}"
    if isinstance(value, list):
        element = go_type[2:] if go_type.startswith("[]") else "interface {}"
        shown = go_type or "[]interface {}"
        return shown + "{" + ", ".join(_element(item, element) for item in value) + "}"
    if value is None:
        return f"{go_type}(nil)" if go_type else "interface {}(nil)"
    return _printed(value, "", DEFAULT_VERSION)


def _element(value: Any, go_type: str) -> str:
    if value is None:
        return f"{go_type}(nil)"
    if isinstance(value, (dict, list)):
        return go_syntax(value, go_type if go_type != "interface {}" else "")
    return _printed(value, "", DEFAULT_VERSION)
