"""The Kubernetes CEL functions (k8s.io/apiserver ``pkg/cel/library``) a CRD rule can call in 1.32.

Here: ``lists.go`` (isSorted, sum, min, max, indexOf, lastIndexOf), ``regex.go`` (find, findAll) and cel-go's
``ext.Sets()`` (sets.contains, sets.equivalent, sets.intersects); the functions of the library's own types
(quantity, ip, cidr, url) are in :mod:`.opaque_functions`. How each is declared: :mod:`.functions`. The
strings extension and optionals are cel-cpp's own (``ext_strings``, ``ext_optional``). See docs/cel.md for
what is not here.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import re2
from cel_expr_python import cel
from google.protobuf import duration_pb2, timestamp_pb2

from fakeapi._cel import functions
from fakeapi._cel.format_library import checked_format_functions, runtime_format_functions
from fakeapi._cel.functions import Function
from fakeapi._cel.opaque_functions import OPAQUE_FUNCTIONS

__all__ = ["checker_extension", "runtime_extension"]

T = cel.Type


_COMPARABLE = (
    ("int", T.INT),
    ("uint", T.UINT),
    ("double", T.DOUBLE),
    ("string", T.STRING),
    ("bool", T.BOOL),
    ("bytes", T.BYTES),
    ("duration", T.DURATION),
    ("timestamp", T.TIMESTAMP),
)
_SUMMABLE = (("int", T.INT), ("uint", T.UINT), ("double", T.DOUBLE), ("duration", T.DURATION))


def _is_sorted(values: Sequence[Any]) -> bool:
    return all(not values[i + 1] < values[i] for i in range(len(values) - 1))


def _extreme(values: Sequence[Any], pick: Callable[..., Any]) -> Any:
    if not values:
        raise ValueError("min called on empty list" if pick is min else "max called on empty list")
    return pick(values)


def _sum(values: Sequence[Any]) -> Any:
    if not values:
        return 0
    total: Any = values[0]
    for value in values[1:]:
        total = total + value
    return total


def _index_of(values: Sequence[Any], item: Any) -> int:
    for position, value in enumerate(values):
        if _cel_equal(value, item):
            return position
    return -1


def _last_index_of(values: Sequence[Any], item: Any) -> int:
    for position in range(len(values) - 1, -1, -1):
        if _cel_equal(values[position], item):
            return position
    return -1


def _as_cel(value: Any) -> Any:
    """A result the runtime takes: it hands durations and timestamps in as Python's, and wants them back as
    the well-known messages."""
    if isinstance(value, datetime.timedelta):
        duration = duration_pb2.Duration()
        duration.FromTimedelta(value)
        return duration
    if isinstance(value, datetime.datetime):
        stamp = timestamp_pb2.Timestamp()
        stamp.FromDatetime(value.astimezone(datetime.UTC).replace(tzinfo=None) if value.tzinfo else value)
        return stamp
    return value


_RE2_OPTIONS = re2.Options()
# RE2 would otherwise log each bad pattern to the server's stderr.
_RE2_OPTIONS.log_errors = False

# RE2's (C++) words for a bad pattern, and Go's regexp/syntax words for the same error.
_GO_CODES = {
    "missing )": "missing closing )",
    "missing ]": "missing closing ]",
    "unexpected )": "unexpected )",
    "bad repetition operator": "invalid nested repetition operator",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "trailing \\": "trailing backslash at end of expression",
    "invalid repetition size": "invalid repeat count",
    "invalid named capture group": "invalid named capture",
}


@lru_cache(maxsize=512)
def _regex(pattern: str) -> Any:
    """The compiled pattern, with RE2's linear-time matching (Go's regexp is RE2 too): no pattern can make a
    rule run away."""
    try:
        return re2.compile(pattern, _RE2_OPTIONS)
    except re2.error as error:
        raise ValueError(go_regexp_error(error)) from None


def go_regexp_error(error: Exception) -> str:
    """Go's ``regexp.Compile`` error text for RE2's: ``error parsing regexp: <code>: `<fragment>```."""
    raw = error.args[0] if error.args else b""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    code, _, fragment = text.partition(": ")
    return f"error parsing regexp: {_GO_CODES.get(code, code)}: `{fragment}`"


def _find(text: str, pattern: str) -> str:
    match = _regex(pattern).search(text)
    return match.group(0) if match else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    found = [match.group(0) for match in _regex(pattern).finditer(text)]
    return found if limit < 0 else found[:limit]


def _list_functions() -> list[Function]:
    typed_lists = tuple((name, T.List(kind)) for name, kind in _COMPARABLE)
    summable = tuple((name, T.List(kind), kind) for name, kind in _SUMMABLE)
    any_list = T.List(T.DYN)
    return [
        Function(
            "isSorted",
            True,
            tuple((f"list_{name}_is_sorted_bool", T.BOOL, (kind,)) for name, kind in typed_lists),
            (("list_is_sorted", T.BOOL, (any_list,), _is_sorted),),
        ),
        Function(
            "sum",
            True,
            tuple((f"list_{name}_sum_{name}", element, (kind,)) for name, kind, element in summable),
            (("list_sum", T.DYN, (any_list,), lambda values: _as_cel(_sum(values))),),
        ),
        Function(
            "min",
            True,
            tuple((f"list_{name}_min_{name}", element, (T.List(element),)) for name, element in _COMPARABLE),
            (("list_min", T.DYN, (any_list,), lambda values: _as_cel(_extreme(values, min))),),
        ),
        Function(
            "max",
            True,
            tuple((f"list_{name}_max_{name}", element, (T.List(element),)) for name, element in _COMPARABLE),
            (("list_max", T.DYN, (any_list,), lambda values: _as_cel(_extreme(values, max))),),
        ),
        # cel-go declares these on list(T) with T a type parameter: any element type.
        Function(
            "indexOf",
            True,
            (("list_a_index_of_int", T.INT, (any_list, T.DYN)),),
            (("list_index_of", T.INT, (any_list, T.DYN), _index_of),),
        ),
        Function(
            "lastIndexOf",
            True,
            (("list_a_last_index_of_int", T.INT, (any_list, T.DYN)),),
            (("list_last_index_of", T.INT, (any_list, T.DYN), _last_index_of),),
        ),
    ]


def _regex_functions() -> list[Function]:
    return [
        Function(
            "find",
            True,
            (("string_find_string", T.STRING, (T.STRING, T.STRING)),),
            (("string_find", T.STRING, (T.STRING, T.STRING), _find),),
        ),
        Function(
            "findAll",
            True,
            (
                ("string_find_all_string", T.List(T.STRING), (T.STRING, T.STRING)),
                ("string_find_all_string_int", T.List(T.STRING), (T.STRING, T.STRING, T.INT)),
            ),
            (
                ("string_find_all", T.List(T.STRING), (T.STRING, T.STRING), _find_all),
                ("string_find_all_limit", T.List(T.STRING), (T.STRING, T.STRING, T.INT), _find_all),
            ),
        ),
    ]


def _cel_equal(left: Any, right: Any) -> bool:
    """CEL's ``==`` on plain values: numbers across int and double, never a bool with a number."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return bool(left == right)
    if type(left) is not type(right):
        return False
    if isinstance(left, list):
        return len(left) == len(right) and all(_cel_equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_cel_equal(v, right[k]) for k, v in left.items())
    return bool(left == right)


def _contains_all(values: Sequence[Any], wanted: Sequence[Any]) -> bool:
    return all(any(_cel_equal(item, value) for value in values) for item in wanted)


def _set_functions() -> list[Function]:
    """cel-go's ``ext.Sets()``: ``sets.contains``, ``sets.equivalent``, ``sets.intersects``."""
    any_list = T.List(T.DYN)
    implementations = (
        ("sets.contains", "list_sets_contains_list", _contains_all),
        ("sets.equivalent", "list_sets_equivalent_list", lambda a, b: _contains_all(a, b) and _contains_all(b, a)),
        ("sets.intersects", "list_sets_intersects_list", lambda a, b: any(_contains_all(a, [item]) for item in b)),
    )
    return [
        Function(
            name, False, ((overload, T.BOOL, (any_list, any_list)),), ((overload, T.BOOL, (any_list, any_list), impl),)
        )
        for name, overload, impl in implementations
    ]


def _cross_type_comparisons() -> list[Function]:
    """``cel.CrossTypeNumericComparisons``: ``<``, ``<=``, ``>``, ``>=`` across int, uint and double.

    cel-cpp's runtime compares across numeric types already; its checker needs the overloads declared.
    """
    numbers = (("int64", T.INT), ("uint64", T.UINT), ("double", T.DOUBLE))
    functions_ = []
    for operator, word in (("_<_", "less"), ("_<=_", "less_equals"), ("_>_", "greater"), ("_>=_", "greater_equals")):
        typed = tuple(
            (f"{word}_{left}_{right}", T.BOOL, (left_type, right_type))
            for left, left_type in numbers
            for right, right_type in numbers
            if left != right
        )
        functions_.append(Function(operator, False, typed, ()))
    return functions_


def _functions() -> list[Function]:
    return [*_list_functions(), *_regex_functions(), *_set_functions(), *OPAQUE_FUNCTIONS]


def checker_extension() -> Any:
    """The typed declarations of the Kubernetes library, for compiling rules."""
    declared = [*_functions(), *_cross_type_comparisons(), *checked_format_functions()]
    return functions.checker_extension("kubernetes.checked", declared)


def runtime_extension() -> Any:
    """The implementations of the Kubernetes library, for evaluating rules."""
    return functions.runtime_extension("kubernetes.runtime", [*_functions(), *runtime_format_functions()])
