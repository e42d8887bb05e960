"""Cost and size estimates as cel-go's checker keeps them (``checker/cost.go``): (min, max) pairs of unsigned
64-bit integers whose sums and products saturate at 2^64-1, and a factor applied by rounding up."""

from __future__ import annotations

import math
from dataclasses import dataclass

from fakeapi._cel.syntax_tree import Node, TypeInfo

__all__ = ["MAX", "ONE", "ZERO", "AstNode", "Estimate", "add", "multiply"]

MAX = (1 << 64) - 1


def add(x: int, y: int) -> int:
    return MAX if y > 0 and x > MAX - y else x + y


def multiply(x: int, y: int) -> int:
    return MAX if y != 0 and x > MAX // y else x * y


def _factor(x: int, y: float) -> int:
    value = float(x)
    if value > 0 and y > 0 and value > MAX / y:
        return MAX
    ceiling = math.ceil(value * y)
    return MAX if ceiling >= 2.0**64 else int(ceiling)


@dataclass(frozen=True)
class Estimate:
    """A (min, max) cost or size."""

    min: int
    max: int

    def add(self, other: Estimate) -> Estimate:
        return Estimate(add(self.min, other.min), add(self.max, other.max))

    def multiply(self, other: Estimate) -> Estimate:
        return Estimate(multiply(self.min, other.min), multiply(self.max, other.max))

    def factor(self, per_unit: float) -> Estimate:
        return Estimate(_factor(self.min, per_unit), _factor(self.max, per_unit))

    def union(self, other: Estimate) -> Estimate:
        return Estimate(min(self.min, other.min), max(self.max, other.max))


ZERO = Estimate(0, 0)
ONE = Estimate(1, 1)


@dataclass
class AstNode:
    """``checker.AstNode``: what an estimator knows of an argument."""

    path: list[str] | None
    type: TypeInfo
    node: Node | None
    derived: Estimate | None

    def computed_size(self) -> Estimate | None:
        if self.derived is not None:
            return self.derived
        node = self.node
        if node is None:
            return None
        if node.kind == "literal":
            kind, value = node.value
            if kind == "string_value":
                return Estimate(len(value), len(value))
            if kind == "bytes_value":
                return Estimate(len(value), len(value))
            return ONE
        if node.kind == "list":
            return Estimate(len(node.children), len(node.children))
        if node.kind == "map":
            return Estimate(len(node.children) // 2, len(node.children) // 2)
        return None
