"""Resource lists as quota computes with them: sums, differences, masks and comparisons of quantities.

Reproduces the helpers of ``k8s.io/apiserver/pkg/quota/v1/resources.go`` (``Add``, ``Subtract``,
``Mask``, ``LessThanOrEqual``, ``IsZero``, ``IsNegative``, ``Equals``) over
``resource.Quantity``: a quantity keeps the format of its first operand unless that one is zero,
then it takes the other's (``Quantity.Add``/``Sub``), and is written canonically in its format
(``Quantity.String``), so ``100Mi`` plus ``100Mi`` is ``200Mi`` and ``500m`` plus ``500m`` is ``1``.
docs/quota-disruption-autoscaling.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from fakeapi._state.typed.quantities import QuantityError, format_quantity, quantity_amount, quantity_format

__all__ = [
    "Quantity",
    "ResourceList",
    "add",
    "equal",
    "exceeding",
    "from_object",
    "is_zero",
    "mask",
    "negative",
    "pretty",
    "subtract",
    "to_object",
]


@dataclass(frozen=True)
class Quantity:
    """A number and the format it is written in."""

    amount: Decimal
    form: str = "DecimalSI"

    @classmethod
    def parse(cls, value: Any) -> Quantity | None:
        """A stored quantity (None when unreadable: validation keeps those out of stored objects)."""
        text = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
        if text is None:
            return None
        try:
            return cls(quantity_amount(text), quantity_format(text))
        except (QuantityError, ArithmeticError):
            return None

    def plus(self, other: Quantity) -> Quantity:
        return Quantity(self.amount + other.amount, other.form if self.amount == 0 else self.form)

    def minus(self, other: Quantity) -> Quantity:
        return Quantity(self.amount - other.amount, other.form if self.amount == 0 else self.form)

    def __str__(self) -> str:
        return format_quantity(self.amount, self.form)


ONE = Quantity(Decimal(1))
ZERO = Quantity(Decimal(0))
ResourceList = dict[str, Quantity]


def from_object(value: Any) -> ResourceList:
    """A ``ResourceList`` field of a stored object."""
    if not isinstance(value, Mapping):
        return {}
    parsed = {str(name): Quantity.parse(quantity) for name, quantity in value.items()}
    return {name: quantity for name, quantity in parsed.items() if quantity is not None}


def to_object(resources: ResourceList) -> dict[str, str]:
    """As JSON writes a ``ResourceList``: keys sorted, quantities as strings."""
    return {name: str(resources[name]) for name in sorted(resources)}


def add(a: ResourceList, b: ResourceList) -> ResourceList:
    result = {name: quantity.plus(b[name]) if name in b else quantity for name, quantity in a.items()}
    for name, quantity in b.items():
        result.setdefault(name, quantity)
    return result


def subtract(a: ResourceList, b: ResourceList, *, non_negative: bool = False) -> ResourceList:
    """``Subtract`` (``SubtractWithNonNegativeResult`` when ``non_negative``): names only in ``b`` count from zero."""
    result: ResourceList = {}
    for name in {*a, *b}:
        difference = a.get(name, ZERO).minus(b[name]) if name in b else a[name]
        if non_negative and difference.amount < 0:
            difference = Quantity(Decimal(0), difference.form)
        result[name] = difference
    return result


def mask(resources: ResourceList, names: Iterable[str]) -> ResourceList:
    kept = set(names)
    return {name: quantity for name, quantity in resources.items() if name in kept}


def exceeding(used: ResourceList, hard: ResourceList) -> list[str]:
    """``LessThanOrEqual``'s exceeded names: those of ``used`` above their ``hard`` value (none for a name ``hard`` lacks)."""
    return [name for name, quantity in used.items() if name in hard and quantity.amount > hard[name].amount]


def is_zero(resources: ResourceList) -> bool:
    return all(quantity.amount == 0 for quantity in resources.values())


def negative(resources: ResourceList) -> list[str]:
    return [name for name, quantity in resources.items() if quantity.amount < 0]


def equal(a: ResourceList, b: ResourceList) -> bool:
    return a.keys() == b.keys() and all(a[name].amount == b[name].amount for name in a)


def pretty(resources: ResourceList) -> str:
    """``prettyPrint``: ``name=quantity`` pairs in name order, joined by commas."""
    return ",".join(f"{name}={resources[name]}" for name in sorted(resources))
