"""What the Go test tables call: the tests' helper functions and constants, evaluated to JSON values and
JSON schemas (``schema.Structural`` written as the JSON schema it stands for)."""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["CONSTANTS", "HELPERS", "Schema", "Struct", "Unsupported", "structural"]


class Unsupported(Exception):
    """A construct this reader does not evaluate."""


# -- values --------------------------------------------------------------------------------------


@dataclass
class Schema:
    """A ``schema.Structural`` being built, as a JSON schema."""

    body: dict[str, Any]


@dataclass
class Struct:
    """A struct literal of a type the reader does not build (kept as its fields)."""

    type_name: str
    fields: dict[str, Any]


def _float32(value: float) -> float:
    return float(struct.unpack("f", struct.pack("f", value))[0])


def _sprintf(pattern: str, *args: Any) -> str:
    def render(match: re.Match[str]) -> str:
        verb = match.group(0)
        if verb == "%%":
            return "%"
        value = next(values)
        if verb in ("%d", "%v", "%s") and isinstance(value, (int, str)):
            return str(value)
        if verb == "%f":
            return f"{value:f}"
        if verb == "%q":
            return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
        raise Unsupported(f"fmt verb {verb} of {value!r}")

    values = iter(args)
    return re.sub(r"%[-+#0-9.]*[a-zA-Z%]", render, pattern)


def _primitive(kind: str, fmt: str = "") -> Schema:
    body: dict[str, Any] = {"type": kind}
    if fmt:
        body["format"] = fmt
    return Schema(body)


def _array(list_type: str, keys: list[str] | None, items: Schema | None) -> Schema:
    body: dict[str, Any] = {"type": "array", "x-kubernetes-list-type": list_type}
    if items is not None:
        body["items"] = items.body
    if keys and list_type == "map":
        body["x-kubernetes-list-map-keys"] = keys
    return Schema(body)


def _object(props: dict[str, Schema] | None) -> Schema:
    body: dict[str, Any] = {"type": "object"}
    if props is not None:
        body["properties"] = {name: prop.body for name, prop in props.items()}
    return Schema(body)


def _with(schema: Schema, **changes: Any) -> Schema:
    body = dict(schema.body)
    for key, value in changes.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return Schema(body)


def _rules(*rules: dict[str, Any]) -> list[dict[str, Any]]:
    return [{key: value for key, value in rule.items() if value not in (None, "")} for rule in rules]


HELPERS: dict[str, Callable[..., Any]] = {
    "primitiveType": _primitive,
    "listType": lambda items: _array("atomic", None, items),
    "listTypePtr": lambda items: _array("atomic", None, items),
    "listSetType": lambda items: _array("set", None, items),
    "listMapType": lambda keys, items: _array("map", keys, items),
    "listMapTypePtr": lambda keys, items: _array("map", keys, items),
    "objectType": _object,
    "objectTypePtr": _object,
    "mapType": lambda value: Schema({"type": "object", "additionalProperties": value.body if value else True}),
    "mapTypePtr": lambda value: Schema({"type": "object", "additionalProperties": value.body if value else True}),
    "intOrStringType": lambda: Schema({"x-kubernetes-int-or-string": True}),
    "objs": lambda *values: {f"val{index + 1}": value for index, value in enumerate(values)},
    "schemas": lambda *props: _object({f"val{index + 1}": prop for index, prop in enumerate(props)}),
    "withRule": lambda s, rule: _with(s, **{"x-kubernetes-validations": _rules({"rule": rule})}),
    "withRulePtr": lambda s, rule: _with(s, **{"x-kubernetes-validations": _rules({"rule": rule})}),
    "cloneWithRule": lambda s, rule: _with(s, **{"x-kubernetes-validations": _rules({"rule": rule})}),
    "withRuleMessageAndMessageExpression": lambda s, rule, message, expression: _with(
        s, **{"x-kubernetes-validations": _rules({"rule": rule, "message": message, "messageExpression": expression})}
    ),
    "withRuleAndMessageExpression": lambda s, rule, expression: _with(
        s, **{"x-kubernetes-validations": _rules({"rule": rule, "messageExpression": expression})}
    ),
    "withMaxLength": lambda s, n: _with(s, maxLength=n),
    "withMaxItems": lambda s, n: _with(s, maxItems=n),
    "withMaxProperties": lambda s, n: _with(s, maxProperties=n),
    "withDefault": lambda value, s: _with(s, default=value),
    "withNullable": lambda nullable, s: _with(s, nullable=nullable or None),
    "withNullablePtr": lambda nullable, s: _with(s, nullable=nullable or None),
    "nilInterfaceOfStringSlice": lambda: None,
    "ValsEqualThemselvesAndDataLiteral": lambda a, b, literal: f"{a} == {literal} && {literal} == {a} && {a} == {b}",
    "fmt.Sprintf": _sprintf,
    "strings.Repeat": lambda text, count: text * count,
    "int64": int,
    "int32": int,
    "int": int,
    "uint64": int,
    "float64": float,
    "float32": lambda value: _float32(float(value)),
    "string": str,
    "ptr.To": lambda value: value,
    "types.Bool": bool,
    "types.Int": int,
    "types.String": str,
    "types.Double": float,
    "pointer.Int64": lambda value: value,
}

CONSTANTS: dict[str, Any] = {
    "math.MaxInt64": (1 << 63) - 1,
    "math.MinInt64": -(1 << 63),
    "math.MaxInt32": (1 << 31) - 1,
    "math.MinInt32": -(1 << 31),
    "math.MaxFloat64": 1.7976931348623157e308,
    "math.MaxFloat32": _float32(3.4028234663852886e38),
    "math.MaxUint32": (1 << 32) - 1,
    "true": True,
    "false": False,
    "nil": None,
    "integerType": _primitive("integer"),
    "int32Type": _primitive("integer", "int32"),
    "int64Type": _primitive("integer", "int64"),
    "numberType": _primitive("number"),
    "floatType": _primitive("number", "float"),
    "doubleType": _primitive("number", "double"),
    "stringType": _primitive("string"),
    "byteType": _primitive("string", "byte"),
    "booleanType": _primitive("boolean"),
    "durationFormat": _primitive("string", "duration"),
    "dateFormat": _primitive("string", "date"),
    "dateTimeFormat": _primitive("string", "date-time"),
}

_STRUCT_FIELDS = {
    "Type": "type",
    "Format": "format",
    "Nullable": "nullable",
    "Default": "default",
    "XPreserveUnknownFields": "x-kubernetes-preserve-unknown-fields",
    "XEmbeddedResource": "x-kubernetes-embedded-resource",
    "XIntOrString": "x-kubernetes-int-or-string",
    "XListType": "x-kubernetes-list-type",
    "XListMapKeys": "x-kubernetes-list-map-keys",
    "XMapType": "x-kubernetes-map-type",
    "MaxLength": "maxLength",
    "MaxItems": "maxItems",
    "MaxProperties": "maxProperties",
    "MinLength": "minLength",
    "Enum": "enum",
}


def structural(type_name: str, fields: dict[str, Any]) -> Any:
    """``schema.Structural`` and its parts as JSON schema pieces."""
    if type_name in ("schema.Generic", "schema.Extensions", "schema.ValueValidation", "schema.ValidationExtensions"):
        body: dict[str, Any] = {}
        for name, value in fields.items():
            if name not in _STRUCT_FIELDS:
                raise Unsupported(f"{type_name}.{name}")
            if value not in (None, False, ""):
                body[_STRUCT_FIELDS[name]] = value
        return Struct(type_name, body)
    if type_name == "schema.StructuralOrBool":
        inner = fields.get("Structural")
        return Struct(type_name, {"schema": inner.body if isinstance(inner, Schema) else fields.get("Bool", False)})
    if type_name == "schema.Structural":
        body = {}
        for name, value in fields.items():
            if name in ("Generic", "Extensions", "ValueValidation", "ValidationExtensions"):
                body.update(value.fields)
            elif name == "Properties":
                body["properties"] = {key: prop.body for key, prop in value.items()}
            elif name == "Items":
                body["items"] = value.body
            elif name == "AdditionalProperties":
                body["additionalProperties"] = value.fields["schema"]
            else:
                raise Unsupported(f"schema.Structural.{name}")
        return Schema(body)
    raise Unsupported(f"struct {type_name}")
