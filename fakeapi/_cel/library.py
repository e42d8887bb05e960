"""The Kubernetes CEL functions (k8s.io/apiserver ``pkg/cel/library``) a CRD rule can call in 1.32.

Each function is declared twice. The type checker sees cel-go's typed overloads (``isSorted`` on
``list(int)``, ``list(string)``, ...), so a call on the wrong type is a compile error worded as cel-go words
it. The evaluator sees one overload per runtime kind (a list is a list, whatever its elements), because
rules run on plain values (:mod:`.values`) and cel-cpp dispatches by kind. Errors are raised with cel-go's
texts and reach the field error unchanged (``texts.runtime_text``).

Here: ``lists.go`` (isSorted, sum, min, max, indexOf, lastIndexOf) and ``regex.go`` (find, findAll). See
docs/cel.md for what is not yet here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cel_expr_python import cel

__all__ = ["checker_extension", "runtime_extension"]

T = cel.Type


@dataclass(frozen=True)
class _Function:
    name: str
    member: bool
    # (overload id, result, parameters) as cel-go declares them
    typed: tuple[tuple[str, Any, tuple[Any, ...]], ...]
    # (overload id, result, parameters by runtime kind, implementation)
    runtime: tuple[tuple[str, Any, tuple[Any, ...], Callable[..., Any]], ...]


_COMPARABLE = (("int", T.INT), ("double", T.DOUBLE), ("string", T.STRING), ("bool", T.BOOL), ("bytes", T.BYTES))
_SUMMABLE = (("int", T.INT), ("double", T.DOUBLE))


def _is_sorted(values: Sequence[Any]) -> bool:
    return all(not values[i + 1] < values[i] for i in range(len(values) - 1))


def _extreme(values: Sequence[Any], pick: Callable[..., Any]) -> Any:
    if not values:
        raise ValueError("min called on empty list" if pick is min else "max called on empty list")
    return pick(values)


def _sum(values: Sequence[Any]) -> Any:
    total: Any = 0
    for value in values:
        total = total + value
    return total


def _index_of(values: Sequence[Any], item: Any) -> int:
    for position, value in enumerate(values):
        if type(value) is type(item) and value == item:
            return position
    return -1


def _last_index_of(values: Sequence[Any], item: Any) -> int:
    for position in range(len(values) - 1, -1, -1):
        if type(values[position]) is type(item) and values[position] == item:
            return position
    return -1


@lru_cache(maxsize=512)
def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as error:
        raise ValueError(f"error parsing regexp: {error}") from None


def _find(text: str, pattern: str) -> str:
    match = _regex(pattern).search(text)
    return match.group(0) if match else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    found = [match.group(0) for match in _regex(pattern).finditer(text)]
    return found if limit < 0 else found[:limit]


def _list_functions() -> list[_Function]:
    typed_lists = tuple((name, T.List(kind)) for name, kind in _COMPARABLE)
    summable = tuple((name, T.List(kind), kind) for name, kind in _SUMMABLE)
    any_list = T.List(T.DYN)
    return [
        _Function(
            "isSorted",
            True,
            tuple((f"list_{name}_is_sorted_bool", T.BOOL, (kind,)) for name, kind in typed_lists),
            (("list_is_sorted", T.BOOL, (any_list,), _is_sorted),),
        ),
        _Function(
            "sum",
            True,
            tuple((f"list_{name}_sum_{name}", element, (kind,)) for name, kind, element in summable),
            (("list_sum", T.DYN, (any_list,), _sum),),
        ),
        _Function(
            "min",
            True,
            tuple((f"list_{name}_min_{name}", element, (T.List(element),)) for name, element in _COMPARABLE),
            (("list_min", T.DYN, (any_list,), lambda values: _extreme(values, min)),),
        ),
        _Function(
            "max",
            True,
            tuple((f"list_{name}_max_{name}", element, (T.List(element),)) for name, element in _COMPARABLE),
            (("list_max", T.DYN, (any_list,), lambda values: _extreme(values, max)),),
        ),
        _Function(
            "indexOf",
            True,
            tuple((f"list_{name}_index_of_int", T.INT, (T.List(element), element)) for name, element in _COMPARABLE),
            (("list_index_of", T.INT, (any_list, T.DYN), _index_of),),
        ),
        _Function(
            "lastIndexOf",
            True,
            tuple(
                (f"list_{name}_last_index_of_int", T.INT, (T.List(element), element)) for name, element in _COMPARABLE
            ),
            (("list_last_index_of", T.INT, (any_list, T.DYN), _last_index_of),),
        ),
    ]


def _regex_functions() -> list[_Function]:
    return [
        _Function(
            "find",
            True,
            (("string_find_string", T.STRING, (T.STRING, T.STRING)),),
            (("string_find", T.STRING, (T.STRING, T.STRING), _find),),
        ),
        _Function(
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


def _functions() -> list[_Function]:
    return [*_list_functions(), *_regex_functions()]


def checker_extension() -> Any:
    """The typed declarations, for compiling a rule against its schema's types."""
    declarations = [
        cel.FunctionDecl(
            function.name,
            [
                cel.Overload(overload, result, list(parameters), is_member=function.member)
                for overload, result, parameters in function.typed
            ],
        )
        for function in _functions()
    ]
    return cel.CelExtension("kubernetes.checked", declarations)


def runtime_extension() -> Any:
    """The implementations, by runtime kind, for evaluating a rule on plain values."""
    declarations = [
        cel.FunctionDecl(
            function.name,
            [
                cel.Overload(overload, result, list(parameters), is_member=function.member, impl=impl)
                for overload, result, parameters, impl in function.runtime
            ],
        )
        for function in _functions()
    ]
    return cel.CelExtension("kubernetes.runtime", declarations)
