"""client-go's JSONPath, the subset ``additionalPrinterColumns`` use, as the CRD table convertor runs it.

Reproduced from client-go 1.32 ``util/jsonpath`` (``parser.go``, ``jsonpath.go`` with
``AllowMissingKeys(true)``) and the comparisons of ``text/template``'s ``basicKind``: fields and
``['key']``, indices and slices, ``*``, ``..`` and ``[?()]`` filters. A union (``[a,b]``) is not
supported and leaves its column's cells null, as any other path error does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["JSONPathError", "compile_jsonpath"]


class JSONPathError(Exception):
    """A path client-go would not parse, or an evaluation error (both leave the cell null)."""


Node = tuple[Any, ...]
_TERMINATORS = set(" \t\r\n.,[]$@{}")
_SLICE = re.compile(r"^(-?\d*)(:-?\d*)?(:-?\d*)?$")
_FILTER = re.compile(r"^([^!<>=]+)([!<>=]+)(.+?)$")
_NUMBER = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")


def compile_jsonpath(text: str) -> Callable[[Any], list[Any]]:
    """``jsonpath.Parse("{" + text + "}")`` with ``AllowMissingKeys(true)``; the result's first list."""
    nodes = _parse_path(text)

    def find(data: Any) -> list[Any]:
        return _walk([data], nodes)

    return find


def _parse_path(text: str) -> list[Node]:
    nodes: list[Node] = []
    pos = 0
    while pos < len(text):
        char = text[pos]
        if char in " @$":
            pos += 1
        elif char == ".":
            if text.startswith("..", pos):
                nodes.append(("recursive",))
                pos += 1
            name, pos = _read_field(text, pos + 1)
            nodes.append(("wildcard",) if name == "*" else ("field", name))
        elif text.startswith("[?(", pos):
            end = _closing(text, pos + 3, ")]")
            nodes.append(_parse_filter(text[pos + 3 : end]))
            pos = end + 2
        elif char == "[":
            end = _closing(text, pos + 1, "]")
            nodes.append(_parse_brackets(text[pos + 1 : end]))
            pos = end + 1
        else:
            raise JSONPathError(f"unrecognized character in action: {char!r}")
    return nodes


def _read_field(text: str, pos: int) -> tuple[str, int]:
    name = []
    while pos < len(text) and text[pos] not in _TERMINATORS:
        if text[pos] == "\\" and pos + 1 < len(text):
            pos += 1
        name.append(text[pos])
        pos += 1
    return "".join(name), pos


def _closing(text: str, pos: int, closer: str) -> int:
    quote = ""
    while pos < len(text):
        char = text[pos]
        if quote:
            if char == "\\":
                pos += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif text.startswith(closer, pos):
            return pos
        pos += 1
    raise JSONPathError("unterminated array")


def _parse_brackets(content: str) -> Node:
    content = ":" if content == "*" else content
    if "," in content:
        raise JSONPathError("unions are not supported")
    if (key := re.match(r"^'([^']*)'$", content)) is not None:
        return ("field", key.group(1))
    match = _SLICE.match(content)
    if match is None:
        raise JSONPathError(f"invalid array index {content}")
    start, end, step = match.groups()
    if end is None:
        end_value = int(start) + 1 if start else None
        return ("array", int(start) if start else None, end_value, None, end_value is not None)
    return (
        "array",
        int(start) if start else None,
        int(end[1:]) if end[1:] else None,
        int(step[1:]) if step and step[1:] else None,
        False,
    )


def _parse_filter(content: str) -> Node:
    match = _FILTER.match(content)
    if match is None:
        return ("filter", _parse_operand(content), "exists", None)
    return ("filter", _parse_operand(match.group(1)), match.group(2), _parse_operand(match.group(3)))


def _parse_operand(text: str) -> Node:
    text = text.strip()
    if len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0]:
        return ("literal", re.sub(r"\\(.)", r"\1", text[1:-1]))
    if text in ("true", "false"):
        return ("literal", text == "true")
    if _NUMBER.match(text):
        is_float = any(char in text for char in ".eE")
        return ("literal", float(text) if is_float else int(text))
    if text.startswith("@"):
        return ("path", _parse_path(text))
    raise JSONPathError(f"unrecognized operand {text}")


def _walk(values: list[Any], nodes: list[Node]) -> list[Any]:
    for node in nodes:
        values = _STEPS[node[0]](values, node)
    return values


def _field(values: list[Any], node: Node) -> list[Any]:
    return [value[node[1]] for value in values if isinstance(value, dict) and node[1] in value]


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [value[key] for key in sorted(value)]
    return list(value) if isinstance(value, list) else []


def _wildcard(values: list[Any], node: Node) -> list[Any]:
    return [child for value in values for child in _children(value)]


def _recursive(values: list[Any], node: Node) -> list[Any]:
    found = []
    for value in values:
        if children := _children(value):
            found.append(value)
            found.extend(_recursive(children, node))
    return found


def _array(values: list[Any], node: Node) -> list[Any]:
    _, start, end, step, derived = node
    found: list[Any] = []
    for value in values:
        if value is None:
            continue
        if not isinstance(value, list):
            raise JSONPathError("not array or slice")
        length = len(value)
        first = 0 if start is None else start
        first = first + length if first < 0 else first
        last = length if end is None else end
        last = last + length if last < 0 or (last == 0 and derived) else last
        if first == last:
            return found
        if not 0 <= first < length or not 0 <= last <= length or first > last:
            raise JSONPathError("array index out of bounds")
        if step is not None and step <= 0:
            raise JSONPathError("step must be > 0")
        found.extend(value[first : last : step or 1])
    return found


def _filter(values: list[Any], node: Node) -> list[Any]:
    _, left, operator, right = node
    found = []
    for value in values:
        if not isinstance(value, list):
            raise JSONPathError("not array or slice and cannot be filtered")
        for item in value:
            lefts = _operand(left, item)
            if operator == "exists":
                if lefts:
                    found.append(item)
                continue
            rights = _operand(right, item)
            if not lefts or not rights:
                continue
            if len(lefts) > 1 or len(rights) > 1:
                raise JSONPathError("can only compare one element at a time")
            if _compare(operator, lefts[0], rights[0]):
                found.append(item)
    return found


def _operand(operand: Node, item: Any) -> list[Any]:
    return [operand[1]] if operand[0] == "literal" else _walk([item], operand[1])


def _basic_kind(value: Any) -> str:
    """text/template's ``basicKind``: only scalars compare."""
    for kind, types in (("bool", bool), ("int", int), ("float", float), ("string", str)):
        if isinstance(value, types):
            return kind
    raise JSONPathError("invalid type for comparison")


def _compare(operator: str, left: Any, right: Any) -> bool:
    def equal() -> bool:
        if _basic_kind(left) != _basic_kind(right):
            raise JSONPathError("incompatible types for comparison")
        return bool(left == right)

    def less() -> bool:
        kind = _basic_kind(left)
        if kind != _basic_kind(right):
            raise JSONPathError("incompatible types for comparison")
        if kind == "bool":
            raise JSONPathError("invalid type for comparison")
        return bool(left < right)

    outcomes: dict[str, Callable[[], bool]] = {
        "==": equal,
        "!=": lambda: not equal(),
        "<": less,
        "<=": lambda: less() or equal(),
        ">": lambda: not (less() or equal()),
        ">=": lambda: not less(),
    }
    if operator not in outcomes:
        raise JSONPathError(f"unrecognized filter operator {operator}")
    return outcomes[operator]()


_STEPS: dict[str, Callable[[list[Any], Node], list[Any]]] = {
    "field": _field,
    "wildcard": _wildcard,
    "recursive": _recursive,
    "array": _array,
    "filter": _filter,
}
