"""``resource.Quantity`` as the apiserver decodes and re-encodes it (docs/typed-decoding.md).

Reproduces ``k8s.io/apimachinery/pkg/api/resource`` (``quantity.go`` ``ParseQuantity``,
``CanonicalizeBytes``; ``amount.go`` ``AsCanonicalBytes``, ``AsCanonicalBase1024Bytes``;
``suffix.go``): a quantity is a number with a suffix (decimal SI ``n u m k M G T P E``, binary SI
``Ki Mi Gi Ti Pi Ei``, or an exponent ``e3``), kept as written when the fast path finds it already
canonical, otherwise written in canonical form: the largest suffix of its format that keeps the
number an integer (``1000m`` is ``1``, ``1.5`` is ``1500m``, ``1024Mi`` is ``1Gi``, ``0.5Gi`` is
``512Mi``), binary quantities under 1024 or not whole in decimal SI, anything finer than a nano
rounded up to one.
"""

from __future__ import annotations

from decimal import MAX_EMAX, MIN_EMIN, ROUND_UP, Decimal, localcontext

__all__ = ["QuantityError", "canonical_quantity", "format_quantity", "quantity_amount", "quantity_format"]

SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
FORMAT_WRONG = f"quantities must match the regular expression '{SPLIT_RE}'"
SUFFIX_WRONG = "unable to parse quantity's suffix"
_MAX_INT64 = (1 << 63) - 1
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIX = {exponent: suffix for suffix, exponent in _DECIMAL.items()}
_BINARY_SUFFIX = {0: "", **{exponent: suffix for suffix, exponent in _BINARY.items()}}


class QuantityError(ValueError):
    """``ParseQuantity``'s error; ``str()`` is its text."""


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """``parseQuantityString``: sign, the number as written, its integer and fraction digits, the suffix."""
    positive, pos, end = True, 0, len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] == "+"
        pos += 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos].isdigit() and text[pos].isascii():
        pos += 1
    num = text[start:pos] or "0"
    if pos >= end:
        return positive, text, num, "", ""
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos].isdigit() and text[pos].isascii():
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    value, suffix_start = text[:pos], pos
    while pos < end and text[pos] in "eEinumkKMGTP":
        pos += 1
    if pos >= end:
        return positive, value, num, denom, text[suffix_start:]
    if text[pos] in "+-":
        pos += 1
    while pos < end and text[pos].isdigit() and text[pos].isascii():
        pos += 1
    if pos < end:
        raise QuantityError(FORMAT_WRONG)
    return positive, value, num, denom, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, str]:
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix], "DecimalSI"
    if suffix in _BINARY:
        return 2, _BINARY[suffix], "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        # strconv.ParseInt(suffix[1:], 10, 64), then int32(parsed): Go keeps the low 32 bits.
        digits = suffix[2:] if suffix[1] in "+-" else suffix[1:]
        if not digits or not (digits.isascii() and digits.isdigit()) or len(digits.lstrip("0")) > 19:
            raise QuantityError(SUFFIX_WRONG)
        parsed = -int(digits) if suffix[1] == "-" else int(digits)
        if not -(2**63) <= parsed < 2**63:
            raise QuantityError(SUFFIX_WRONG)
        return 10, (parsed + 2**31) % 2**32 - 2**31, "DecimalExponent"
    raise QuantityError(SUFFIX_WRONG)


def canonical_quantity(text: str) -> str:
    """The quantity's JSON text as the apiserver writes it after decoding ``text``."""
    if not text:
        raise QuantityError(FORMAT_WRONG)
    if text == "0":
        return "0"
    positive, value, num, denom, suffix = _split(text)
    base, exponent, form = _interpret(suffix)
    with localcontext() as context:
        context.prec, context.Emax, context.Emin = _precision_for(value), MAX_EMAX, MIN_EMIN
        return _canonical_of(text, positive, value, num, denom, base, exponent, form)


def _canonical_of(
    text: str, positive: bool, value: str, num: str, denom: str, base: int, exponent: int, form: str
) -> str:
    """``ParseQuantity`` past the suffix, in a decimal context wide enough for any quantity Go parses."""
    scale, mantissa, precision = 0, 1, 0
    if form != "BinarySI":
        scale, precision = exponent, 18 - (len(num) + len(denom))
    elif exponent >= 0 and not denom:
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
    else:
        precision = -1
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = num + denom
            result = int(shifted) * mantissa
            if result <= _MAX_INT64:
                kept = (
                    exponent % 10 == 0 and int(shifted) & 7 != 0
                    if form == "BinarySI"
                    else scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
                )
                if kept:
                    return text
                return _canonical(Decimal(result if positive else -result).scaleb(scale), form)
    amount = Decimal(value)
    amount = amount.scaleb(exponent) if base == 10 else amount * (Decimal(2) ** exponent)
    exponent_of_amount = amount.as_tuple().exponent
    if amount != 0 and isinstance(exponent_of_amount, int) and exponent_of_amount < -9:
        # Round(amount, 9, RoundUp); a value with no digits past nano keeps its value as it is.
        amount = amount.quantize(Decimal("1e-9"), rounding=ROUND_UP)
    if form == "BinarySI" and abs(amount) > _MAX_INT64:  # "The max is just a simple cap."
        amount = Decimal(_MAX_INT64).copy_sign(amount)
    if form == "BinarySI" and 0 < abs(amount) < 1:
        form = "DecimalSI"
    return _canonical(amount, form)


def _precision_for(value: str) -> int:
    """Decimal digits enough to hold ``value`` exactly, nine places after its point, and a binary suffix's factor."""
    return max(4096, len(value) + 64)


def _canonical(amount: Decimal, form: str) -> str:
    """``CanonicalizeBytes``: the number and the suffix of its format that keep it an integer."""
    with localcontext() as context:
        context.prec = max(4096, len(amount.as_tuple().digits) + 64)
        context.Emax, context.Emin = MAX_EMAX, MIN_EMIN
        if amount == 0:
            return "0"
        if form == "BinarySI" and (-1024 < amount < 1024 or amount != amount.to_integral_value()):
            form = "DecimalSI"
        if form == "BinarySI":
            whole, power = int(amount), 0
            while whole % 1024 == 0 and power < 6:
                whole //= 1024
                power += 1
            return f"{whole}{_BINARY_SUFFIX[power * 10]}"
        sign, digits, exponent = amount.normalize().as_tuple()
        assert isinstance(exponent, int)
        # Digits as text: a quantity may have more of them than int() converts in bounded time.
        shown = "".join(map(str, digits))
        if exponent % 3 == 1:
            shown, exponent = shown + "0", exponent - 1
        elif exponent % 3 == 2:
            shown, exponent = shown + "00", exponent - 2
        number = f"-{shown}" if sign else shown
        if form == "DecimalExponent":
            return number if exponent == 0 else f"{number}e{exponent}"
        return number + _DECIMAL_SUFFIX.get(exponent, "")


def quantity_amount(text: str) -> Decimal:
    """The number a quantity stands for (``Quantity.Cmp`` compares these), exactly."""
    _, value, _, _, suffix = _split(text)
    base, exponent, _ = _interpret(suffix)
    with localcontext() as context:
        context.prec = _precision_for(value)
        amount = Decimal(value)
        return amount.scaleb(exponent) if base == 10 else amount * (Decimal(2) ** exponent)


def quantity_format(text: str) -> str:
    """The format a parsed quantity keeps (``DecimalSI``, ``BinarySI``, ``DecimalExponent``): its suffix's."""
    _, _, _, _, suffix = _split(text)
    return _interpret(suffix)[2]


def format_quantity(amount: Decimal, form: str) -> str:
    """``Quantity.String`` of a computed quantity (a sum): ``amount`` written canonically in ``form``."""
    return _canonical(amount, form)
