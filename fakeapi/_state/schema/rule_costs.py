"""The cost limits on a CRD's rules (apiextensions-apiserver ``pkg/apis/apiextensions/validation/validation.go``
and ``cel_validation.go``, v0.32).

A rule's cost is its estimated cost (:mod:`fakeapi._cel.costs`) times how many times it can run: the
product of ``maxItems``/``maxProperties`` of the lists and maps above it (``CELSchemaContext.MaxCardinality``),
or, under one without a limit, as many values of the rule's type as a 3 MiB request holds
(``maxCardinality``: ``3 MiB / (smallest size + 1)``). Over 10,000,000 it is refused (``estimated rule cost
exceeds budget by factor of ...``); a messageExpression's own cost (not multiplied) likewise. All of a
schema's costs add up, and over 100,000,000 the schema is refused at ``openAPIV3Schema``, the four most
expensive rules (those above 1% of the limit) each named as having ``contributed``. A schema that an update
leaves unchanged is spared the per-rule limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeapi._cel.sizes import MAX_REQUEST_SIZE
from fakeapi._state.validation import field as field_errors
from fakeapi._state.validation.field import FieldError

__all__ = ["EXPRESSION_LIMIT", "TotalCost", "child_cardinality", "cost_message", "expression_cost"]

EXPRESSION_LIMIT = 10_000_000
SCHEMA_LIMIT = 100_000_000
_MAX = (1 << 64) - 1


def _multiply(x: int, y: int) -> int:
    """``multiplyWithOverflowGuard``."""
    if x == 0:
        return 0
    return _MAX if _MAX // x < y else x * y


def expression_cost(max_cost: int, cardinality: int | None, min_size: int) -> int:
    """``getExpressionCost``."""
    if cardinality is not None:
        return _multiply(max_cost, cardinality)
    return _multiply(max_cost, MAX_REQUEST_SIZE // (min_size + 1))


def _max_elements(schema: Mapping[str, Any]) -> int | None:
    """``extractMaxElements``: None for unbounded."""
    kind = schema.get("type")
    if kind == "object":
        if schema.get("additionalProperties") is not None:
            limit = schema.get("maxProperties")
            return max(limit, 0) if isinstance(limit, int) else None
        return 1
    if kind == "array":
        limit = schema.get("maxItems")
        return max(limit, 0) if isinstance(limit, int) else None
    return 1


def child_cardinality(parent: Mapping[str, Any], cardinality: int | None) -> int | None:
    """``childContext``: how many times a child of ``parent`` can occur."""
    if cardinality is None:
        return None
    elements = _max_elements(parent)
    return None if elements is None else _multiply(cardinality, elements)


def cost_message(name: str, cost: int, limit: int) -> str:
    """``getCostErrorMessage``."""
    factor = cost / limit
    if factor > 100.0:
        shown = "more than 100x"
    elif factor < 1.5:
        shown = f"{factor:f}x"
    else:
        shown = f"{factor:.1f}x"
    return (
        f"{name} exceeds budget by factor of {shown} (try simplifying the rule, or adding maxItems, maxProperties, "
        "and maxLength where arrays, maps, and strings are declared)"
    )


@dataclass
class TotalCost:
    """``TotalCost``: the sum of a schema's costs and its four most expensive rules."""

    total: int = 0
    most_expensive: list[tuple[str, int]] = field(default_factory=list)

    def observe(self, path: str, cost: int) -> None:
        self.total = _MAX if _MAX - self.total < cost else self.total + cost
        if cost < SCHEMA_LIMIT // 100:
            return
        self.most_expensive.append((path, cost))
        self.most_expensive.sort(key=lambda item: -item[1])
        del self.most_expensive[4:]

    def errors(self, schema_path: str) -> list[FieldError]:
        if self.total <= SCHEMA_LIMIT:
            return []
        detail = "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
        errors = [field_errors.forbidden(path, detail) for path, _ in self.most_expensive]
        name = "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema"
        errors.append(field_errors.forbidden(schema_path, cost_message(name, self.total, SCHEMA_LIMIT)))
        return errors
