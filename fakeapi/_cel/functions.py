"""How a library function is declared: typed overloads for the checker, overloads by kind for the runtime.

Each function is declared twice. The type checker sees cel-go's typed overloads (``isSorted`` on
``list(int)``, ``list(string)``, ...), so a call on the wrong type is a compile error worded as cel-go words
it. The evaluator sees one overload per runtime kind (a list is a list, whatever its elements), because
rules run on plain values (:mod:`.values`) and cel-cpp dispatches by kind. An implementation raises
:class:`ValueError` with cel-go's text, which becomes the rule's evaluation error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cel_expr_python import cel

__all__ = ["Function", "checker_extension", "runtime_extension"]


@dataclass(frozen=True)
class Function:
    name: str
    member: bool
    # (overload id, result, parameters) as cel-go declares them
    typed: tuple[tuple[str, Any, tuple[Any, ...]], ...]
    # (overload id, result, parameters by runtime kind, implementation)
    runtime: tuple[tuple[str, Any, tuple[Any, ...], Callable[..., Any]], ...]


def _grouped(overloads: list[tuple[str, Any]]) -> list[Any]:
    """One declaration per function name (cel-cpp refuses two declarations of a name)."""
    by_name: dict[str, list[Any]] = {}
    for name, overload in overloads:
        by_name.setdefault(name, []).append(overload)
    return [cel.FunctionDecl(name, group) for name, group in by_name.items()]


def checker_extension(name: str, functions: Sequence[Function]) -> Any:
    """The typed declarations, for compiling a rule against its schema's types."""
    overloads = [
        (function.name, cel.Overload(overload, result, list(parameters), is_member=function.member))
        for function in functions
        for overload, result, parameters in function.typed
    ]
    return cel.CelExtension(name, _grouped(overloads))


def runtime_extension(name: str, functions: Sequence[Function]) -> Any:
    """The implementations, by runtime kind, for evaluating a rule on plain values."""
    overloads = [
        (function.name, cel.Overload(overload, result, list(parameters), is_member=function.member, impl=impl))
        for function in functions
        for overload, result, parameters, impl in function.runtime
    ]
    return cel.CelExtension(name, _grouped(overloads))
