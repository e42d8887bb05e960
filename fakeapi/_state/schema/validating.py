"""A custom resource validated against its schema, with the apiserver's field errors.

kube-openapi's ``SchemaValidator`` (``k8s.io/kube-openapi/pkg/validation/validate``): per node the type,
string, format, number, slice, enum and object validators, in that order, every one of them run, mapped to
field errors by ``kubeOpenAPIResultToFieldErrors`` (apiextensions-apiserver
``pkg/apiserver/validation/validation.go``); then the checks of embedded resources (:mod:`.embedded_validation`).

Go iterates maps in random order, so the apiserver reports sibling properties in no fixed order; here
properties follow the schema's order and data keys the document's.
"""

from __future__ import annotations

import copy
import math
import re
from functools import lru_cache
from typing import Any

from fakeapi._patching.godecode import normalize
from fakeapi._patching.goencode import encode
from fakeapi._patching.slices import paused
from fakeapi._state.schema.embedded_validation import validate_embedded
from fakeapi._state.schema.formats import check_format, supported_format
from fakeapi._state.schema.messages import field, go_float, invalid, too_long, too_many, type_invalid
from fakeapi._state.schema.structural import Node, Schema, compiled, key_path
from fakeapi._state.validation import field as field_errors
from fakeapi.errors import Cause

__all__ = ["validate"]

_MAX_JSON_INTEGER = float((1 << 53) - 1)


# No old value to ratchet against: a create, a /status write, or a value with no correlated old one.
_NO_OLD: Any = object()


def validate(obj: dict[str, Any], schema: Schema | None, old: dict[str, Any] | None = None) -> list[Cause]:
    """The schema's field errors for a pruned, defaulted object, then those of its embedded resources.

    With ``old`` (an update through the main resource), validation ratchets as ``CRDValidationRatcheting``
    (on by default since 1.30) makes it (apiextensions-apiserver ``pkg/apiserver/validation/ratcheting.go``):
    a value equal to its correlated old value (the same property, the same map key, the item with the same
    keys of a ``x-kubernetes-list-type: map`` list; never the root's apiVersion and kind) is not validated, its
    errors being only warnings the apiserver does not return.
    """
    if schema is None:
        return []
    causes: list[Cause] = []
    node = compiled(schema)
    _validate_value(obj, node, "", causes, _NO_OLD if old is None else old)
    validate_embedded(obj, node, "", causes)
    return causes


# The Python types a JSON type accepts without a closer look (exact types: a bool is not an integer here, and
# GoFloat, a float subclass, takes the general path).
_PLAIN_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


class _Plan:
    """The keywords of one schema node that validation reads, looked up once per schema."""

    __slots__ = ("accepted", "enum", "format_name", "number", "string", "type_text", "types")

    def __init__(self, schema: Schema) -> None:
        if schema.get("x-kubernetes-int-or-string") is True:
            self.types = ["integer", "string"]
        else:
            kind = schema.get("type")
            self.types = [kind] if isinstance(kind, str) and kind else []
        self.type_text = ",".join(self.types)
        self.format_name = supported_format(schema)
        # With a format, kube-openapi's type check looks at the format first; only a plain type has a shortcut.
        plain = () if self.format_name else (kind for name in self.types for kind in _PLAIN_TYPES.get(name, ()))
        self.accepted = frozenset(plain)
        self.string = any(keyword in schema for keyword in ("maxLength", "minLength", "pattern"))
        self.number = any(keyword in schema for keyword in ("multipleOf", "minimum", "maximum"))
        self.enum = "enum" in schema


def _new_plan(node: Node) -> _Plan:
    plan = node.validation = _Plan(node.raw)
    return plan


def _validate_value(value: Any, node: Node, path: str, causes: list[Cause], old: Any = _NO_OLD) -> None:
    if old is not _NO_OLD and _go_equal(value, old):
        return
    plan: _Plan = node.validation or _new_plan(node)
    schema = node.raw
    if value is None:
        if plan.types and "null" not in plan.types and not node.nullable:
            causes.append(type_invalid(path, plan.type_text, "null"))
        if plan.enum:
            _check_enum(value, schema, path, causes)
        return
    if (plan.types or plan.format_name) and type(value) not in plan.accepted:
        _check_type(value, plan.types, plan.format_name, path, causes)
    if isinstance(value, str):
        if plan.string:
            _check_string(value, schema, path, causes)
        if plan.format_name:
            check_format(value, plan.format_name, path, causes)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if plan.number:
            _check_number(value, schema, path, causes)
    elif isinstance(value, list):
        _check_list(value, node, path, causes, old)
    if plan.enum:
        _check_enum(value, schema, path, causes)
    if isinstance(value, dict):
        _check_object(value, node, path, causes, old, root=not path)


def _json_type(value: Any) -> tuple[str, str]:
    """kube-openapi's ``schemaInfoForType``: the JSON type and format of a decoded Go value."""
    if isinstance(value, bool):
        return "boolean", ""
    if isinstance(value, int):
        return "integer", "int64"
    if isinstance(value, float):
        return "number", "float64"
    if isinstance(value, str):
        return "string", ""
    return ("array", "") if isinstance(value, list) else ("object", "")


def _is_json_integer(value: float) -> bool:
    """go-openapi/swag ``IsFloat64AJSONInteger`` as Kubernetes 1.32 vendors it (relative error below 1e-9).

    ``float64(uint64(f))`` truncates positive values, while negative ones land near 2^64, so only
    positive near-integers pass the relative check.
    """
    if not math.isfinite(value) or abs(value) > _MAX_JSON_INTEGER:
        return False
    if value.is_integer():
        return True
    if value < 1:
        return False
    truncated = float(math.trunc(value))
    return (value - truncated) / (value + truncated) < 1e-9


def _check_type(value: Any, types: list[str], format_name: str, path: str, causes: list[Cause]) -> None:
    observed, observed_format = _json_type(value)
    float_int = observed == "number" and "integer" in types and _is_json_integer(value)
    int_float = observed == "integer" and "number" in types
    scalar = not isinstance(value, (str, list))
    if scalar and format_name and not (observed in types or observed_format == format_name or float_int or int_float):
        causes.append(type_invalid(path, format_name, observed_format))
        return
    if format_name and not scalar and "number" not in types and "integer" not in types:
        return
    if not (observed in types or float_int or int_float):
        causes.append(type_invalid(path, ",".join(types), observed))


@lru_cache(maxsize=256)
def _compiled_pattern(pattern: str) -> re.Pattern[str]:
    # RE2 spells end-of-text \z; Python 3.11 spells it \Z.
    return re.compile(pattern.replace("\\z", "\\Z"))


def _check_string(value: str, schema: Schema, path: str, causes: list[Cause]) -> None:
    # Only the first failing keyword is reported (kube-openapi's stringValidator returns early).
    max_length = schema.get("maxLength")
    if isinstance(max_length, int) and len(value) > max_length:
        causes.append(too_long(path, max_length))
        return
    min_length = schema.get("minLength")
    if isinstance(min_length, int) and len(value) < min_length:
        causes.append(invalid(field(path), value, f"{path} in body should be at least {min_length} chars long"))
        return
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and pattern and not _compiled_pattern(pattern).search(value):
        causes.append(invalid(field(path), value, f"{path} in body should match '{pattern}'"))


def _go_int64(value: float) -> int:
    """Go's float64 -> int64 conversion: truncation, and amd64's minimum int64 when out of range."""
    if not math.isfinite(value) or not -(2.0**63) <= value < 2.0**63:
        return -(1 << 63)
    return math.trunc(value)


def _check_number(value: float, schema: Schema, path: str, causes: list[Cause]) -> None:
    # kube-openapi's numberValidator: multipleOf, minimum, maximum, in that order. Integers are checked
    # against the bound converted to int64 (truncated), floats against the float64 bound.
    integer = isinstance(value, int)
    field_path = field(path)
    factor = schema.get("multipleOf")
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        if integer:
            whole = _go_int64(float(factor))
            if whole != 0 and value % whole != 0:
                causes.append(invalid(field_path, value, f"{path} in body should be a multiple of {whole}"))
        elif not _is_multiple(float(value), float(factor)):
            shown = go_float(float(factor))
            causes.append(invalid(field_path, value, f"{path} in body should be a multiple of {shown}"))
    for keyword, exclusive_keyword, below in (
        ("minimum", "exclusiveMinimum", True),
        ("maximum", "exclusiveMaximum", False),
    ):
        bound = schema.get(keyword)
        if not isinstance(bound, (int, float)) or isinstance(bound, bool):
            continue
        exclusive = schema.get(exclusive_keyword) is True
        limit: float = _go_int64(float(bound)) if integer else float(bound)
        shown = str(limit) if integer else go_float(limit)
        if below and (value <= limit if exclusive else value < limit):
            relation = "greater than" if exclusive else "greater than or equal to"
        elif not below and (value >= limit if exclusive else value > limit):
            relation = "less than" if exclusive else "less than or equal to"
        else:
            continue
        causes.append(invalid(field_path, value, f"{path} in body should be {relation} {shown}"))


def _is_multiple(value: float, factor: float) -> bool:
    quotient = (1 / factor * value) if factor < 1 else (value / factor)
    return _is_json_integer(quotient)


def _go_equal(left: Any, right: Any) -> bool:
    """``reflect.DeepEqual`` of decoded JSON: an int64 never equals a float64, nor a bool a number."""
    if left is right:
        return True  # a subtree the write left alone (JSON holds no NaN, the one value unequal to itself)
    if type(left) is not type(right) and not (isinstance(left, float) and isinstance(right, float)):
        return False
    if isinstance(left, list):
        return len(left) == len(right) and all(_go_equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_go_equal(item, right[key]) for key, item in left.items())
    return bool(left == right)


def _correlated_item(schema: Schema, item: Any, old: Any) -> Any:
    """The old item with the same keys, in a ``x-kubernetes-list-type: map`` list only."""
    keys = schema.get("x-kubernetes-list-map-keys")
    if old is _NO_OLD or not isinstance(old, list) or schema.get("x-kubernetes-list-type") != "map":
        return _NO_OLD
    if not isinstance(keys, list) or not isinstance(item, dict):
        return _NO_OLD
    wanted = [item.get(key, _NO_OLD) for key in keys]
    for candidate in old:
        if isinstance(candidate, dict) and [candidate.get(key, _NO_OLD) for key in keys] == wanted:
            return candidate
    return _NO_OLD


def _check_list(value: list[Any], node: Node, path: str, causes: list[Cause], old: Any = _NO_OLD) -> None:
    schema = node.raw
    items = node.items
    if items is not None:
        for index, item in paused(enumerate(value), len(value)):
            _validate_value(item, items, f"{path}[{index}]", causes, _correlated_item(schema, item, old))
    size = len(value)
    min_items = schema.get("minItems")
    if isinstance(min_items, int) and size < min_items:
        causes.append(invalid(field(path), size, f"{path} in body should have at least {min_items} items"))
    max_items = schema.get("maxItems")
    if isinstance(max_items, int) and size > max_items:
        causes.append(too_many(path, size, max_items))
    if schema.get("uniqueItems") is True:
        seen: list[Any] = []
        for item in value:
            if any(_go_equal(item, earlier) for earlier in seen):
                causes.append(invalid(field(path), "", f"{path} in body shouldn't contain duplicates"))
                break
            seen.append(item)


def _enum_matches(value: Any, allowed: Any) -> bool:
    """``reflect.Value.Convert`` to the enum value's type, then ``DeepEqual``; Go converts int64 to a
    one-rune string and truncates float64 to int64."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(allowed, bool):
        return isinstance(value, bool) and value == allowed
    if isinstance(allowed, str):
        if isinstance(value, int) and number:
            valid = 0 <= value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF
            return (chr(value) if valid else "\ufffd") == allowed
        return isinstance(value, str) and value == allowed
    if isinstance(allowed, int):
        if isinstance(value, float):
            return _go_int64(value) == allowed
        return number and value == allowed
    if isinstance(allowed, float):
        return number and float(value) == allowed
    return _go_equal(value, allowed)


def _check_enum(value: Any, schema: Schema, path: str, causes: list[Cause]) -> None:
    allowed = schema.get("enum")
    if not isinstance(allowed, list) or not allowed:
        return
    if value is not None and any(option is not None and _enum_matches(value, option) for option in allowed):
        return
    # Non-string enum values are listed in their JSON spelling.
    texts = [
        option if isinstance(option, str) else encode(normalize(copy.deepcopy(option))).decode() for option in allowed
    ]
    causes.append(field_errors.not_supported(field(path), value, texts).cause())


def _old_key(old: Any, key: str, root: bool) -> Any:
    if old is _NO_OLD or not isinstance(old, dict) or (root and key in ("apiVersion", "kind")):
        return _NO_OLD
    return old.get(key, _NO_OLD)


def _check_object(
    value: dict[str, Any], node: Node, path: str, causes: list[Cause], old: Any = _NO_OLD, *, root: bool = False
) -> None:
    schema = node.raw
    count = len(value)
    min_properties = schema.get("minProperties")
    if isinstance(min_properties, int) and count < min_properties:
        detail = f"{path} in body should have at least {min_properties} properties"
        causes.append(invalid(field(path), count, detail))
        return
    max_properties = schema.get("maxProperties")
    if isinstance(max_properties, int) and count > max_properties:
        causes.append(too_many(path, count, max_properties))
        return
    properties = node.properties
    extra = node.extra
    if extra is not None:
        for key, item in paused(value.items(), count):
            if key not in properties:
                _validate_value(item, extra, f"{path}.{key}", causes, _old_key(old, key, root))
    for name, prop in properties.items():
        if prop is not None and name in value:
            _validate_value(value[name], prop, key_path(path, name), causes, _old_key(old, name, root))
    required = schema.get("required")
    for name in required if isinstance(required, list) else []:
        if name not in value:
            causes.append(field_errors.required(field(f"{path}.{name}")).cause())
