"""The values a cost walk (:mod:`.runtime_costs`) computes: plain Python values as :mod:`.values` gives the
rules, error values, and each function's result, which cel-expr-python computes.

Each function is run by one small program per function and arity (``a0.f(a1)``, ``f(a0)``, ``a0 + a1``),
compiled once, unchecked, in the environment the rules run in. Equality, ordering, ``size``, ``!`` and
string concatenation of plain strings, numbers and booleans are computed directly: they are the inner
steps of the comprehensions that make a rule expensive, and a program's call costs several microseconds.
A result a plain Python value cannot carry back (an optional, an unsigned integer, a type) raises
:class:`UnknownCost`.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from google.protobuf import duration_pb2, timestamp_pb2

from fakeapi._cel.name_formats import FORMATS
from fakeapi._cel.opaque import opaque, text_of
from fakeapi._cel.syntax_tree import Node

__all__ = [
    "DELEGATE",
    "TYPE_NAMES",
    "CelError",
    "CelType",
    "UnknownCost",
    "delegated",
    "direct",
    "first_error",
    "index",
    "literal",
    "select",
]


class UnknownCost(Exception):
    """The rule uses something whose actual cost the walk cannot count exactly."""


@dataclass(frozen=True)
class CelError:
    """An error value (its text is the program's to give, not the walk's)."""

    text: str


@dataclass(frozen=True)
class CelType:
    """A type value (``type(x)``, ``string``), by its CEL name."""

    name: str


class CelUint(int):
    """An unsigned integer (a Python int would come back from cel-expr-python as a signed one)."""


@dataclass(frozen=True)
class CelOptional:
    """An optional value: ``present`` and, if so, its ``value``."""

    present: bool
    value: Any = None


NONE = CelOptional(False)

# The type names a rule can write as identifiers, which the planner makes constants.
TYPE_NAMES = frozenset(("bool", "bytes", "double", "int", "list", "map", "null_type", "string", "type", "uint"))

DELEGATE: Any = object()
_FORMAT = "kubernetes.NamedFormat"
_PLAIN = (str, int, float, bool)
_OPERATORS = {
    "_+_": "a0 + a1",
    "_-_": "a0 - a1",
    "_*_": "a0 * a1",
    "_/_": "a0 / a1",
    "_%_": "a0 % a1",
    "_<_": "a0 < a1",
    "_<=_": "a0 <= a1",
    "_>_": "a0 > a1",
    "_>=_": "a0 >= a1",
    "_==_": "a0 == a1",
    "_!=_": "a0 != a1",
    "!_": "!a0",
    "-_": "-a0",
    "@in": "a0 in a1",
    "_[_]": "a0[a1]",
}


def literal(node: Node) -> Any:
    kind, value = node.value
    if kind == "uint64_value":
        return CelUint(value)
    if kind == "null_value":
        return None
    return value


def first_error(values: list[Any]) -> CelError | None:
    for item in values:
        if isinstance(item, CelError):
            return item
    return None


def select(base: Any, name: str) -> Any:
    if isinstance(base, dict):
        return base[name] if name in base else CelError(f"no such key: {name}")
    return CelError("no such overload")


def index(base: Any, key: Any) -> Any:
    if isinstance(base, list) and type(key) is int:
        return base[key] if 0 <= key < len(base) else CelError(f"index out of bounds: {key}")
    if isinstance(base, dict) and type(key) is str:
        return base[key] if key in base else CelError(f"no such key: {key}")
    return delegated("_[_]", False, [base, key])


def direct(function: str, args: list[Any]) -> Any:
    """The value of the simplest functions on plain values, else ``DELEGATE``."""
    if function == "size" and len(args) == 1 and isinstance(args[0], (str, list, dict)):
        return len(args[0])
    if function == "!_" and len(args) == 1 and isinstance(args[0], bool):
        return not args[0]
    optional = _optional(function, args)
    if optional is not DELEGATE:
        return optional
    if function == "format.named" and len(args) == 1 and isinstance(args[0], str):
        return CelOptional(True, opaque(_FORMAT, args[0])) if args[0] in FORMATS else NONE
    if function == "validate" and len(args) == 2 and isinstance(args[1], str):
        messages = FORMATS[text_of(args[0])](args[1])
        return CelOptional(True, messages) if messages else NONE
    if function == "type" and len(args) == 1:
        return CelType(_type_name(args[0]))
    if function in ("_==_", "_!=_") and len(args) == 2 and isinstance(args[0], CelType):
        equal = args[0] == args[1]
        return equal if function == "_==_" else not equal
    if len(args) != 2 or type(args[0]) is not type(args[1]) or not isinstance(args[0], _PLAIN):
        return DELEGATE
    left, right = args
    if function == "_==_":
        return left == right
    if function == "_!=_":
        return left != right
    if isinstance(left, bool):
        return DELEGATE
    if function == "_<_":
        return left < right
    if function == "_<=_":
        return left <= right
    if function == "_>_":
        return left > right
    if function == "_>=_":
        return left >= right
    if function == "_+_" and isinstance(left, str):
        return left + right
    return DELEGATE


_ZERO_DURATION = duration_pb2.Duration()
_ZERO_TIMESTAMP = timestamp_pb2.Timestamp()


def _optional(function: str, args: list[Any]) -> Any:
    """The optional library's functions (cel-go ``OptionalTypes``)."""
    if function == "optional.of" and len(args) == 1:
        return CelOptional(True, args[0])
    if function == "optional.none" and not args:
        return NONE
    if function == "optional.ofNonZeroValue" and len(args) == 1:
        value = args[0]
        zero = value in (None, 0, "", b"", [], {}) or value in (_ZERO_DURATION, _ZERO_TIMESTAMP)
        return NONE if zero and not isinstance(value, CelType) else CelOptional(True, value)
    if not args or not isinstance(args[0], CelOptional):
        return DELEGATE
    if function == "hasValue" and len(args) == 1:
        return args[0].present
    if function == "value" and len(args) == 1:
        return args[0].value if args[0].present else CelError("optional.none() dereference")
    if function in ("_==_", "_!=_") and len(args) == 2:
        equal = args[0] == args[1]
        return equal if function == "_==_" else not equal
    return DELEGATE


def _type_name(value: Any) -> str:
    if value is None:
        return "null_type"
    for kind, name in (
        (bool, "bool"),
        (CelUint, "uint"),
        (int, "int"),
        (float, "double"),
        (str, "string"),
        (bytes, "bytes"),
    ):
        if isinstance(value, kind):
            return name
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, CelType):
        return "type"
    descriptor = getattr(value, "DESCRIPTOR", None)
    if descriptor is None:
        raise UnknownCost("type of a value")
    return str(descriptor.full_name)


def delegated(function: str, member: bool, args: list[Any]) -> Any:
    """The function's value as cel-expr-python computes it."""
    if any(isinstance(arg, (CelOptional, CelType, CelUint)) for arg in args):
        raise UnknownCost(f"{function} of an optional, a type or an unsigned integer")
    program, env = _program(function, member, len(args))
    try:
        result = program.eval(env.Activation({f"a{i}": arg for i, arg in enumerate(args)}))
    except Exception as error:  # a value the runtime refuses is an error value of the call
        return CelError(str(error))
    type_name = result.type().name()
    if type_name == "ERROR":
        return CelError(str(result.value()))
    if type_name == "UINT":
        return CelUint(result.plain_value())
    if type_name == "TYPE" or type_name.startswith("optional"):
        raise UnknownCost(type_name)
    try:
        return _from_result(result.plain_value())
    except Exception:
        raise UnknownCost(type_name) from None


@lru_cache(maxsize=512)
def _program(function: str, member: bool, count: int) -> tuple[Any, Any]:
    from cel_expr_python import cel

    from fakeapi._cel.compiling import runtime_extensions
    from fakeapi._cel.opaque import runtime_pool

    names = [f"a{i}" for i in range(count)]
    env = cel.NewEnv(runtime_pool(), variables=dict.fromkeys(names, cel.Type.DYN), extensions=runtime_extensions())
    source = _OPERATORS.get(function)
    if source is None:
        source = f"a0.{function}({', '.join(names[1:])})" if member else f"{function}({', '.join(names)})"
    return env.compile(source, disable_check=True), env


def _from_result(value: Any) -> Any:
    """A result as the values the rules are given (timestamps and durations as protobuf messages)."""
    if isinstance(value, list):
        return [_from_result(item) for item in value]
    if isinstance(value, dict):
        return {key: _from_result(item) for key, item in value.items()}
    if isinstance(value, bytearray):
        return bytes(value)
    if isinstance(value, datetime.datetime):
        stamp = timestamp_pb2.Timestamp()
        stamp.FromDatetime(value)
        return stamp
    if isinstance(value, datetime.timedelta):
        duration = duration_pb2.Duration()
        duration.FromTimedelta(value)
        return duration
    return value
