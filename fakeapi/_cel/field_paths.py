"""A rule's ``fieldPath`` checked against its schema and turned into a field path.

apiextensions-apiserver ``pkg/apiserver/schema/cel/validation.go`` (``ValidFieldPath``): a JSON path of
``.name`` and ``['quoted name']`` steps, each naming a property (a field path child) or, where the schema has
``additionalProperties``, a key (``[key]``). The CRD is refused when the path names nothing
(``fieldPath must be a valid path``); a failing rule's error is reported at the path, appended to the rule's
own as one child name (``Child(path.String())``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["valid_field_path"]

_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "'": "'", "\\": "\\"}


def _tokens(text: str) -> list[str]:
    tokens: list[str] = []
    position = 0
    while position < len(text):
        if text[position] == "'":
            end = position + 1
            while end < len(text) and not (text[end] == "'" and text[end - 1] != "\\"):
                end += 1
            tokens.append(text[position : end + 1])
            position = end + 1
        elif text[position] in ".[]":
            tokens.append(text[position])
            position += 1
        else:
            end = position
            while end < len(text) and text[end] not in ".[]":
                end += 1
            tokens.append(text[position:end])
            position = end
    return tokens


def _unescape(text: str) -> str | None:
    result: list[str] = []
    index = 0
    while index < len(text):
        if text[index] == "\\" and index + 1 < len(text):
            replacement = _ESCAPES.get(text[index + 1])
            if replacement is None:
                return None
            result.append(replacement)
            index += 2
        else:
            result.append(text[index])
            index += 1
    return "".join(result)


def valid_field_path(json_path: str, schema: Mapping[str, Any] | None) -> str | None:
    """The field path ``json_path`` names in ``schema`` (``spec.x``, ``m[key]``), or None when it names none."""
    path = ""
    tokens = _tokens(json_path)
    position = 0
    current: Any = schema
    while position < len(tokens):
        token = tokens[position]
        if token == "[":
            if position + 2 >= len(tokens):
                return None
            quoted, closing = tokens[position + 1], tokens[position + 2]
            if len(quoted) < 2 or quoted[0] != "'" or quoted[-1] != "'" or closing != "]":
                return None
            name = _unescape(quoted[1:-1])
            position += 3
        elif token == ".":
            if position + 1 >= len(tokens):
                return None
            name = tokens[position + 1]
            position += 2
        else:
            return None
        if name is None or not isinstance(current, Mapping):
            return None
        properties = current.get("properties")
        extra = current.get("additionalProperties")
        if isinstance(properties, Mapping) and properties:
            if name not in properties:
                return None
            current = properties[name]
            path = f"{path}.{name}" if path else name
        elif isinstance(extra, Mapping):
            current = extra
            path = f"{path}[{name}]"
        else:
            return None
    return path
