"""The schema generators of apiextensions-apiserver ``pkg/apiserver/schema/cel/compilation_test.go``
(``TestCostEstimation``), as functions of the max-elements value (None for unset) to a JSON schema with the
rule at its root."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gotables import Schema

Generator = Callable[[int | None], Schema]


def _rule(body: dict[str, Any], rule: str) -> Schema:
    return Schema({**body, "x-kubernetes-validations": [{"rule": rule}]})


def _limit(body: dict[str, Any], key: str, value: int | None) -> dict[str, Any]:
    return {**body, key: value} if value is not None else body


def _typed(kind: str) -> dict[str, Any]:
    """``parseRuleType``."""
    if kind in ("duration", "date", "date-time"):
        return {"type": "string", "format": kind}
    if kind == "int-or-string":
        return {"x-kubernetes-int-or-string": True}
    return {"type": kind}


_OBJECT = {
    "type": "object",
    "properties": {"required": {"type": "string"}, "optional": {"type": "string"}},
    "required": ["required"],
}


def gen_array(kind: str, rule: str) -> Generator:
    return lambda n: _rule(_limit({"type": "array", "items": _typed(kind)}, "maxItems", n), rule)


def gen_array_of_arrays(kind: str, rule: str) -> Generator:
    items = {"type": "array", "items": {"type": kind}}
    return lambda n: _rule(_limit({"type": "array", "items": items}, "maxItems", n), rule)


def gen_object_array(rule: str) -> Generator:
    return lambda n: _rule(_limit({"type": "array", "items": _OBJECT}, "maxItems", n), rule)


def get_map_array(kind: str, rule: str) -> Generator:
    items = {"type": "object", "additionalProperties": {"type": kind}}
    return lambda n: _rule(_limit({"type": "array", "items": items}, "maxItems", n), rule)


def gen_map(kind: str, rule: str) -> Generator:
    return lambda n: _rule(_limit({"type": "object", "additionalProperties": _typed(kind)}, "maxProperties", n), rule)


def gen_string(rule: str) -> Generator:
    return lambda n: _rule(_limit({"type": "string"}, "maxLength", n), rule)


def gen_enum(rule: str, *values: str) -> Generator:
    return lambda n: _rule(_limit({"type": "string", "enum": list(values)}, "maxLength", n), rule)


def gen_bytes(rule: str) -> Generator:
    return lambda n: _rule(_limit({"type": "string", "format": "byte"}, "maxLength", n), rule)


def gen_nested_spec(rule: str) -> Generator:
    return lambda n: _rule(
        _limit(
            {"type": "object", "additionalProperties": _limit({"type": "string"}, "maxLength", n)},
            "maxProperties",
            n,
        ),
        rule,
    )


def gen_all_max_nested_spec(rule: str) -> Generator:
    def make(n: int | None) -> Schema:
        inner = _limit(dict(_OBJECT), "maxProperties", n)
        items = _limit({"type": "object", "additionalProperties": inner}, "maxProperties", n)
        return _rule(_limit({"type": "array", "items": items}, "maxItems", n), rule)

    return make


def gen_one_max_nested_spec(rule: str) -> Generator:
    def make(n: int | None) -> Schema:
        items = _limit({"type": "object", "additionalProperties": dict(_OBJECT)}, "maxProperties", n)
        return _rule({"type": "array", "items": items}, rule)

    return make


def gen_map_with_custom_item(item: Schema, rule: str) -> Generator:
    return lambda n: _rule(_limit({"type": "object", "additionalProperties": item.body}, "maxProperties", n), rule)


GENERATORS: dict[str, Callable[..., Any]] = {
    "genArrayWithRule": gen_array,
    "genArrayOfArraysWithRule": gen_array_of_arrays,
    "genObjectArrayWithRule": gen_object_array,
    "getMapArrayWithRule": get_map_array,
    "genMapWithRule": gen_map,
    "genStringWithRule": gen_string,
    "genEnumWithRuleAndValues": gen_enum,
    "genBytesWithRule": gen_bytes,
    "genNestedSpecWithRule": gen_nested_spec,
    "genAllMaxNestedSpecWithRootRule": gen_all_max_nested_spec,
    "genOneMaxNestedSpecWithRootRule": gen_one_max_nested_spec,
    "genMapWithCustomItemRule": gen_map_with_custom_item,
    "genObjectForMap": lambda: Schema(dict(_OBJECT)),
    "genArrayForMap": lambda: Schema({"type": "array", "items": {"type": "number"}}),
    "genMapForMap": lambda: Schema({"type": "object", "additionalProperties": {"type": "number"}}),
}
