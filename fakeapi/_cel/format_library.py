"""The Kubernetes ``format`` library (k8s.io/apiserver ``pkg/cel/library/format.go``), which 1.31 added.

``format.dns1123Label()`` and the other named formats (:mod:`.name_formats`) give a ``kubernetes.NamedFormat``;
``format.named(name)`` gives ``optional(NamedFormat)``, none for an unknown name; ``<format>.validate(s)``
gives ``optional(list(string))``: none when ``s`` is valid, else the messages.

cel-expr-python cannot declare a function whose result is an optional: the type a compiled ``optional.of``
reports does not survive as a declared result, which the checker then takes as ``dyn`` (docs/cel.md says what
that changes). A Python function cannot return a CEL optional either, so the program that runs calls helpers
that return a map, ``{}`` or ``{'v': result}``, and reads it with ``[?'v']``, which is the optional:
:func:`runtime_source` rewrites ``format.named(...)`` and ``.validate(...)`` calls that way, in rules that
call them.
"""

from __future__ import annotations

from typing import Any

from cel_expr_python import cel

from fakeapi._cel.functions import Function
from fakeapi._cel.name_formats import FORMATS
from fakeapi._cel.opaque import opaque, text_of

__all__ = ["checked_format_functions", "runtime_format_functions", "runtime_source"]

T = cel.Type
_FORMAT = "kubernetes.NamedFormat"
_NAMED = "format.__fakeapi_named"
_VALIDATE = "__fakeapi_validate"


def _constant(name: str) -> Any:
    return lambda: opaque(_FORMAT, name)


def checked_format_functions() -> list[Function]:
    constants = [Function(f"format.{name}", False, ((f"format.{name}", T(_FORMAT), ()),), ()) for name in FORMATS]
    return [
        *constants,
        Function("format.named", False, (("format-named", T.DYN, (T.STRING,)),), ()),
        Function("validate", True, (("format-validate", T.DYN, (T(_FORMAT), T.STRING)),), ()),
    ]


def _named(name: str) -> dict[str, Any]:
    return {"v": opaque(_FORMAT, name)} if name in FORMATS else {}


def _validate(format_value: Any, value: str) -> dict[str, Any]:
    messages = FORMATS[text_of(format_value)](value)
    return {"v": messages} if messages else {}


def runtime_format_functions() -> list[Function]:
    constants = [
        Function(f"format.{name}", False, (), ((f"format.{name}", T(_FORMAT), (), _constant(name)),))
        for name in FORMATS
    ]
    map_type = T.Map(T.STRING, T.DYN)
    return [
        *constants,
        Function(_NAMED, False, (), ((_NAMED, map_type, (T.STRING,), _named),)),
        Function(_VALIDATE, True, (), ((_VALIDATE, map_type, (T(_FORMAT), T.STRING), _validate),)),
    ]


def _closing(source: str, opening: int) -> int:
    """The index of the parenthesis closing the one at ``opening``, string literals skipped; -1 if none."""
    depth = 0
    index = opening
    while index < len(source):
        char = source[index]
        if char in "'\"":
            quote = source[index : index + 3] if source[index : index + 3] in ("'''", '"""') else char
            index += len(quote)
            while index < len(source) and not source.startswith(quote, index):
                index += 2 if source[index] == "\\" else 1
            index += len(quote)
            continue
        depth += (char == "(") - (char == ")")
        if depth == 0:
            return index
        index += 1
    return -1


def runtime_source(source: str) -> str:
    """``source`` with its ``format.named(...)`` and ``.validate(...)`` calls reading their optional results."""
    for call, helper in (("format.named(", _NAMED + "("), (".validate(", "." + _VALIDATE + "(")):
        position = source.find(call)
        while position >= 0:
            opening = position + len(call) - 1
            closing = _closing(source, opening)
            if closing < 0:
                break
            source = source[:position] + helper + source[opening + 1 : closing + 1] + "[?'v']" + source[closing + 1 :]
            position = source.find(call, position + len(helper))
    return source
