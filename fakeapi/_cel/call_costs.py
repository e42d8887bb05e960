"""The actual cost of one function call, as cel-go v0.22's cost tracker charges it.

cel-go ``interpreter/runtimecost.go`` (``CostTracker.costCall``) asks, in this order: the overload's own
tracker (``ext.Sets()`` binds one to ``sets.contains``, ``sets.intersects`` and ``sets.equivalent``: 1 plus
the product of the two lists' sizes, times 2 for ``equivalent``); the Kubernetes library's ``CallCost``
(k8s.io/apiserver ``pkg/cel/library/cost.go``, v0.32), chosen by the function's name; and else cel-go's own
table, chosen by the overload id: a tenth of the string's size for ``startsWith``, ``endsWith``, ``bytes()``,
``string()`` of bytes, ``strings.quote`` and ``format``; the list's size for ``in``; a tenth of the smaller
size for the comparisons of strings and bytes and for ``==``/``!=``; a tenth of both sizes for string and
bytes concatenation; ``matches`` and ``contains`` as products; 1 for everything else.

A value's size is its length in runes (a string), bytes, items or entries; any other value has size 1
(``actualSize``). The library's ``traversalCost`` is coarser: a string counts a tenth of its UTF-8 bytes,
rounded down, a list or a map the sum of its elements' (and keys') costs, anything else 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from fakeapi._cel.library_costs import CONSTANT_COST_FUNCTIONS
from fakeapi._cel.opaque import text_of

__all__ = ["call_cost", "cost_function", "size_of"]

_TRAVERSAL = 0.1
_REGEX = 0.25
_MAX = (1 << 64) - 1


def size_of(value: Any) -> int:
    """``actualSize``: the value's size if it has one (``traits.Sizer``), else 1."""
    if isinstance(value, (str, bytes, bytearray, list, dict)):
        return len(value)
    return 1


def _ceil(value: float) -> int:
    return min(math.ceil(value), _MAX)


def _traversal(value: Any) -> int:
    """The library's ``traversalCost``."""
    if isinstance(value, str):
        return int(len(value.encode()) * _TRAVERSAL)
    if isinstance(value, (bytes, bytearray)):
        return int(len(value) * _TRAVERSAL)
    if isinstance(value, list):
        return sum(_traversal(item) for item in value)
    if isinstance(value, dict):
        return sum(_traversal(key) + _traversal(item) for key, item in value.items())
    return 1


_NOMINAL = CONSTANT_COST_FUNCTIONS  # the library functions whose call costs a constant 1
# The Kubernetes types whose equality the library charges 1 (``_==_`` on a Quantity, IP, CIDR, Format or URL).
_UNIT_EQUALITY = frozenset(("kubernetes.Quantity", "net.IP", "net.CIDR", "kubernetes.NamedFormat", "kubernetes.URL"))
# Each named format's ``MaxRegexSize`` (``library/format.go``). Those of ``uri``, ``uuid``, ``byte``, ``date``
# and ``datetime`` are the lengths of other libraries' patterns, at the versions Kubernetes pins, not known here:
# they are counted as 512, more than any of them (the longest, govalidator's URL pattern, has about 300
# characters), so the count is then at least the actual cost, never less.
_UNKNOWN_FORMAT_REGEX_SIZE = 512
_FORMAT_REGEX_SIZES = {
    "dns1123Label": 30,
    "dns1123Subdomain": 60,
    "dns1035Label": 30,
    "qualifiedName": 60,
    "dns1123LabelPrefix": 30,
    "dns1123SubdomainPrefix": 60,
    "dns1035LabelPrefix": 30,
    "labelValue": 40,
}


def _library(function: str, overload: str, args: list[Any], result: Any) -> int | None:
    """``CostEstimator.CallCost``: None where the library has no figure."""
    if function in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"):
        return _traversal(args[0]) if args else 0
    if function in ("url", "lowerAscii", "upperAscii", "substring", "trim", "cidr", "isIP", "isCIDR"):
        return _ceil(size_of(args[0]) * _TRAVERSAL) if args else None
    if function in ("quantity", "isQuantity"):
        return _ceil(size_of(args[0]) * _TRAVERSAL) if args else None
    if function in ("replace", "split", "ip.isCanonical"):
        return _ceil(size_of(args[0]) * 2 * _TRAVERSAL) if args else None
    if function == "join":
        return _ceil(size_of(result) * 2 * _TRAVERSAL) if args else None
    if function in ("find", "findAll"):
        if len(args) < 2:
            return None
        return _ceil((1 + size_of(args[0])) * _TRAVERSAL) * _ceil(size_of(args[1]) * _REGEX)
    if function == "ip":
        if not args:
            return None
        return 1 if overload == "cidr_ip" else _ceil(size_of(args[0]) * _TRAVERSAL)
    if function in ("containsIP", "containsCIDR"):
        if len(args) < 2:
            return None
        cidr, other = size_of(args[0]), size_of(args[1])
        cost = _ceil((cidr + cidr) * _TRAVERSAL)
        if function == "containsCIDR":
            cost += _ceil(cidr * _TRAVERSAL) + 1
        if overload in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
            cost += _ceil(other * _TRAVERSAL)
        return cost
    if function == "validate":
        if len(args) < 2 or _type_name(args[0]) != "kubernetes.NamedFormat":
            return None
        regex_size = _FORMAT_REGEX_SIZES.get(text_of(args[0]), _UNKNOWN_FORMAT_REGEX_SIZE)
        return _ceil((1 + size_of(args[1])) * _TRAVERSAL) * _ceil(regex_size * _REGEX)
    if function in _NOMINAL:
        return 1
    if function == "_==_" and len(args) == 2 and _type_name(args[0]) in _UNIT_EQUALITY:
        return 1
    return None


def _type_name(value: Any) -> str:
    """The CEL type name of a library value (a protobuf message named as cel-go names the type)."""
    descriptor = getattr(value, "DESCRIPTOR", None)
    return descriptor.full_name if descriptor is not None else ""


_SETS = {"list_sets_contains_list": 1.0, "list_sets_intersects_list": 1.0, "list_sets_equivalent_list": 2.0}
_STRING_TRAVERSALS = frozenset(
    ("starts_with_string", "ends_with_string", "string_to_bytes", "bytes_to_string", "strings_quote", "string_format")
)
_SMALLER_SIZE = frozenset(
    (
        "less_string",
        "greater_string",
        "less_equals_string",
        "greater_equals_string",
        "less_bytes",
        "greater_bytes",
        "less_equals_bytes",
        "greater_equals_bytes",
        "equals",
        "not_equals",
    )
)


_LIBRARY_FUNCTIONS = frozenset(
    (
        "isSorted",
        "sum",
        "max",
        "min",
        "indexOf",
        "lastIndexOf",
        "url",
        "lowerAscii",
        "upperAscii",
        "substring",
        "trim",
        "cidr",
        "isIP",
        "isCIDR",
        "quantity",
        "isQuantity",
        "replace",
        "split",
        "ip.isCanonical",
        "join",
        "find",
        "findAll",
        "ip",
        "containsIP",
        "containsCIDR",
        "validate",
        "_==_",
        *_NOMINAL,
    )
)


def cost_function(function: str, overload: str) -> int | Callable[[list[Any], Any], int]:
    """The cost of a call of ``function`` resolved to ``overload``: a number when it does not depend on the
    values, else the function of the arguments and the result that gives it (chosen once, when planned)."""
    if overload in _SETS or function in _LIBRARY_FUNCTIONS:
        return lambda args, result: call_cost(function, overload, args, result)
    if overload in _SMALLER_SIZE:
        return _smaller_size
    if overload in _STRING_TRAVERSALS or overload in ("in_list", "add_string", "add_bytes"):
        return lambda args, result: call_cost(function, overload, args, result)
    if overload in ("matches_string", "contains_string"):
        return lambda args, result: call_cost(function, overload, args, result)
    return 1


def _smaller_size(args: list[Any], result: Any) -> int:
    left, right = args
    smaller = min(len(left) if isinstance(left, _SIZED) else 1, len(right) if isinstance(right, _SIZED) else 1)
    return _ceil(smaller * _TRAVERSAL)


_SIZED = (str, bytes, bytearray, list, dict)


def call_cost(function: str, overload: str, args: list[Any], result: Any) -> int:
    """The cost of calling ``function`` (resolved to ``overload``) on ``args`` (the target first)."""
    factor = _SETS.get(overload)
    if factor is not None and len(args) == 2:
        return 1 + int(size_of(args[0]) * size_of(args[1]) * factor)
    library = _library(function, overload, args, result)
    if library is not None:
        return library
    if overload in _STRING_TRAVERSALS:
        return _ceil(size_of(args[0]) * _TRAVERSAL)
    if overload == "in_list":
        return size_of(args[1])
    if overload in _SMALLER_SIZE:
        return _ceil(min(size_of(args[0]), size_of(args[1])) * _TRAVERSAL)
    if overload in ("add_string", "add_bytes"):
        return _ceil((size_of(args[0]) + size_of(args[1])) * _TRAVERSAL)
    if overload == "matches_string":
        return _ceil((1 + size_of(args[0])) * _TRAVERSAL) * _ceil(size_of(args[1]) * _REGEX)
    if overload == "contains_string":
        return _ceil(size_of(args[0]) * _TRAVERSAL) * _ceil(size_of(args[1]) * _TRAVERSAL)
    return 1
