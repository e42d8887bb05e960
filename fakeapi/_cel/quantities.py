"""Resource quantities for CEL (k8s.io/apiserver ``pkg/cel/library/quantity.go``), parsed as apimachinery parses them.

``resource.ParseQuantity`` (apimachinery ``pkg/api/resource/quantity.go``): an optional sign, digits with an
optional fraction, then a suffix: binary (``Ki`` .. ``Ei``), decimal SI (``n``, ``u``, ``m``, none, ``k`` ..
``E``) or an exponent (``e3``, ``E-2``). A value finer than a nano is rounded up to the next nano (away from
zero), a binary one above 2^63-1 is capped. Its errors: ``quantities must match the regular expression
'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'``, ``unable to parse quantity's suffix``, ``unable to parse
numeric part of quantity``. A quantity is held as an exact fraction: comparisons, sums and ``asInteger`` are
exact, as ``Cmp`` and ``AsInt64`` are; ``asApproximateFloat`` is the nearest double.
"""

from __future__ import annotations

from fractions import Fraction

from fakeapi._cel.opaque import opaque, text_of

__all__ = ["QUANTITY", "QuantityError", "parse_quantity", "quantity_value", "to_quantity"]

QUANTITY = "kubernetes.Quantity"
_SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
_FORMAT_WRONG = f"quantities must match the regular expression '{_SPLIT_RE}'"
_SUFFIX = "unable to parse quantity's suffix"
_NUMERIC = "unable to parse numeric part of quantity"
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_NANO = Fraction(1, 10**9)
_MAX_BINARY = Fraction((1 << 63) - 1)
_DIGITS = "0123456789"


class QuantityError(ValueError):
    """A text that is not a quantity, with apimachinery's message."""


def _split(text: str) -> tuple[bool, str, str]:
    """``parseQuantityString``: the sign, the numeric text, the suffix."""
    position, end = 0, len(text)
    positive = True
    if position < end and text[0] in "+-":
        positive = text[0] == "+"
        position += 1
    while position < end and text[position] == "0":
        position += 1
    if position >= end:
        return positive, "0", ""
    while position < end and text[position] in _DIGITS:
        position += 1
    if position < end and text[position] == ".":
        position += 1
        while position < end and text[position] in _DIGITS:
            position += 1
    value = text[:position]
    suffix_start = position
    while position < end and text[position] in "eEinumkKMGTP":
        position += 1
    if position < end and text[position] in "+-":
        position += 1
    while position < end and text[position] in _DIGITS:
        position += 1
    if position < end:
        raise QuantityError(_FORMAT_WRONG)
    return positive, value, text[suffix_start:]


def _exponent(suffix: str) -> tuple[int, int] | None:
    """``suffixHandler.interpret``: (base, exponent), or None for an unknown suffix."""
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix]
    if suffix in _BINARY:
        return 2, _BINARY[suffix]
    if len(suffix) > 1 and suffix[0] in "eE":
        digits = suffix[1:]
        body = digits[1:] if digits[:1] in "+-" else digits
        if body and all(char in _DIGITS for char in body):
            return 10, int(digits)
    return None


def parse_quantity(text: str) -> Fraction:
    """The exact value of a quantity text, or :class:`QuantityError`."""
    if not text:
        raise QuantityError(_FORMAT_WRONG)
    if text == "0":
        return Fraction(0)
    positive, value, suffix = _split(text)
    interpreted = _exponent(suffix)
    if interpreted is None:
        raise QuantityError(_SUFFIX)
    base, exponent = interpreted
    numeric = value.lstrip("+-")
    if numeric in ("", ".") or numeric.count(".") > 1:
        raise QuantityError(_NUMERIC)
    amount = Fraction(numeric if not numeric.endswith(".") else numeric[:-1] or "0")
    amount *= Fraction(base) ** exponent
    if amount.denominator != 1 and (amount / _NANO).denominator != 1:
        # Finer than a nano: round up (away from zero) to the next nano.
        nanos = -((-amount.numerator * 10**9) // amount.denominator)
        amount = Fraction(nanos, 10**9)
    if base == 2 and amount > _MAX_BINARY:
        amount = _MAX_BINARY
    return amount if positive else -amount


def _canonical(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def to_quantity(value: Fraction) -> object:
    """A CEL quantity holding ``value``."""
    return opaque(QUANTITY, _canonical(value))


def quantity_value(quantity: object) -> Fraction:
    """The exact value of a CEL quantity."""
    return Fraction(text_of(quantity))
