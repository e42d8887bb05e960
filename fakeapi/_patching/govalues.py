"""Decoded JSON values as Go sees them in an ``interface{}``: dynamic type, ``==``, map keys, ``%v``.

The strategic merge patch library (k8s.io/apimachinery ``pkg/util/strategicpatch/patch.go``) and the
printers of custom resource columns (client-go ``util/jsonpath``, which ends in ``fmt.Fprint``) work
on the ``map[string]interface{}`` that ``json.Unmarshal`` returns. Their results depend on Go
details Python does not share:

- an integer is an int64 and any other number a float64, and the two never compare equal;
- ``==`` between two maps or two slices, or a map or slice used as a map key, is a runtime panic
  (``runtime/alg.go``), raised here as :class:`~fakeapi._patching.lazynode.GoPanic`;
- ``fmt`` prints maps as ``map[k:v]`` with sorted keys, slices as ``[a b]``, nil as ``<nil>``,
  floats as ``strconv.FormatFloat(f, 'g', -1, 64)``, and a mismatched verb as ``%!s(int64=1)``
  (``fmt/print.go``).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from fakeapi._patching.lazynode import GoPanic

__all__ = ["MAP", "SLICE", "format_float", "format_value", "go_equal", "go_key", "go_type", "is_string", "type_name"]

MAP = "map[string]interface {}"
SLICE = "[]interface {}"


def go_type(value: Any) -> str | None:
    """The dynamic type's name, ``None`` for a nil interface."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return MAP
    if isinstance(value, list):
        return SLICE
    raise TypeError(f"not a decoded JSON value: {value!r}")


def go_equal(left: Any, right: Any) -> bool:
    """``left == right`` on two ``interface{}`` values."""
    kind = go_type(left)
    if kind != go_type(right):
        return False
    if kind in (MAP, SLICE):
        raise GoPanic(f"runtime error: comparing uncomparable type {kind}")
    return kind is None or bool(left == right)


def go_key(value: Any) -> tuple[str | None, Any]:
    """The value as a key of a ``map[interface{}]...``."""
    kind = go_type(value)
    if kind in (MAP, SLICE):
        raise GoPanic(f"runtime error: hash of unhashable type {kind}")
    return kind, value


def is_string(value: Any, text: str) -> bool:
    """``value == text`` where ``value`` is an ``interface{}``: only a string can match."""
    return isinstance(value, str) and value == text


def format_float(value: float) -> str:
    """``%v`` of a float64: ``strconv.FormatFloat(f, 'g', -1, 64)``, exponent form from 1e+06 and below 1e-04."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    decimal = Decimal(repr(abs(value))).normalize()
    _, digit_tuple, exponent = decimal.as_tuple()
    digits = "".join(map(str, digit_tuple))
    point = len(digits) + int(exponent)
    if point - 1 < -4 or point - 1 >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        power = point - 1
        return f"{sign}{mantissa}e{'+' if power >= 0 else '-'}{abs(power):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def format_value(value: Any, verb: str = "v", nested: bool = False) -> str:
    """``fmt.Sprintf("%v")`` (or ``%s``) of a decoded JSON value: ``map[k:v]`` with sorted keys, ``[a b]``."""
    if value is None:
        return "<nil>" if verb == "v" or nested else f"%!{verb}(<nil>)"
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        members = (f"{format_value(key, verb, True)}:{format_value(value[key], verb, True)}" for key in sorted(value))
        return "map[" + " ".join(members) + "]"
    if isinstance(value, list):
        return "[" + " ".join(format_value(item, verb, True) for item in value) + "]"
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int):
        text = str(value)
    else:
        text = format_float(value)
    return text if verb == "v" else f"%!{verb}({go_type(value)}={text})"


def type_name(value: Any) -> str:
    """``%s`` of ``reflect.TypeOf(value)``."""
    kind = go_type(value)
    return "%!s(<nil>)" if kind is None else kind
