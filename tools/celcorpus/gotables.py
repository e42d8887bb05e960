"""Reads the Go test tables of the Kubernetes CEL code into Python values.

Upstream keeps its CEL cases as Go composite literals: ``{name: "x", obj: objs(int64(1)), schema:
schemas(integerType), valid: []string{...}, errors: map[string]string{...}}``. This module parses the subset
of Go those tables use (literals, composite literals, ``&``, conversions, ``fmt.Sprintf``, ``math``
constants, the tests' helper functions) and evaluates it: values become JSON values, ``schema.Structural``
becomes the JSON schema it stands for. What it does not know raises :class:`Unsupported`, and the extractor
leaves that case out and says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gohelpers import CONSTANTS, HELPERS, Schema, Struct, Unsupported, structural

__all__ = ["Schema", "Struct", "Unsupported", "evaluate", "parse_table"]


_TOKEN = re.compile(
    r"""
    (?P<space>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<raw>`[^`]*`)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<char>'(?:[^'\\]|\\.)')
  | (?P<number>\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|0[xX][0-9a-fA-F]+|\d+)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[{}()\[\],:&*.+\-/%=<>!])
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str


def tokens(source: str) -> list[Token]:
    result = []
    position = 0
    while position < len(source):
        match = _TOKEN.match(source, position)
        if match is None:
            raise Unsupported(f"cannot read Go at {source[position : position + 20]!r}")
        position = match.end()
        kind = match.lastgroup or ""
        if kind != "space":
            result.append(Token(kind, match.group()))
    return result


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"'}


def _go_string(text: str) -> str:
    """A Go string literal's value (``strconv.Unquote``)."""
    if text.startswith("`"):
        return text[1:-1]
    body = text[1:-1]
    out = bytearray()
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\":
            out += char.encode()
            index += 1
            continue
        kind = body[index + 1]
        if kind in _ESCAPES:
            out += _ESCAPES[kind].encode()
            index += 2
        elif kind == "x":
            out.append(int(body[index + 2 : index + 4], 16))
            index += 4
        elif kind in "uU":
            width = 4 if kind == "u" else 8
            out += chr(int(body[index + 2 : index + 2 + width], 16)).encode()
            index += 2 + width
        elif kind in "01234567":
            out.append(int(body[index + 1 : index + 4], 8))
            index += 4
        else:
            raise Unsupported(f"escape \\{kind}")
    return out.decode("utf-8", "replace")


# -- parsing -------------------------------------------------------------------------------------


class Reader:
    def __init__(self, items: list[Token], variables: dict[str, Any] | None = None) -> None:
        self.items = items
        self.position = 0
        self.variables = variables or {}

    def peek(self, offset: int = 0) -> Token:
        index = self.position + offset
        return self.items[index] if index < len(self.items) else Token("eof", "")

    def take(self, text: str | None = None) -> Token:
        token = self.peek()
        if text is not None and token.text != text:
            raise Unsupported(f"expected {text!r}, found {token.text!r}")
        self.position += 1
        return token

    def type_name(self) -> str:
        token = self.peek()
        if token.text == "[":
            self.take("[")
            self.take("]")
            return "[]" + self.type_name()
        if token.text == "map":
            self.take("map")
            self.take("[")
            key = self.type_name()
            self.take("]")
            return f"map[{key}]" + self.type_name()
        if token.text == "*":
            self.take("*")
            return "*" + self.type_name()
        if token.text == "interface":
            self.take("interface")
            self.take("{")
            self.take("}")
            return "interface{}"
        if token.text == "struct":
            raise Unsupported("anonymous struct type")
        name = self.take().text
        while self.peek().text == ".":
            self.take(".")
            name += "." + self.take().text
        return name

    def expression(self) -> Any:
        left = self.unary()
        while self.peek().text in ("+", "-", "*") and self.peek().kind == "punct":
            operator = self.take().text
            right = self.unary()
            if operator == "+":
                left = left + right
            elif operator == "-":
                left = left - right
            else:
                left = left * right
        return left

    def unary(self) -> Any:
        token = self.peek()
        if token.text == "&":
            self.take("&")
            return self.unary()
        if token.text == "-":
            self.take("-")
            return -self.unary()
        if token.text == "(":
            self.take("(")
            value = self.expression()
            self.take(")")
            return value
        return self.primary()

    def primary(self) -> Any:
        token = self.peek()
        if token.kind in ("string", "raw"):
            self.take()
            return _go_string(token.text)
        if token.kind == "number":
            self.take()
            text = token.text
            if text.lower().startswith("0x"):
                return int(text, 16)
            return float(text) if any(c in text for c in ".eE") else int(text)
        if token.text in ("[", "map"):
            type_name = self.type_name()
            return self.composite(type_name)
        if token.kind != "ident":
            raise Unsupported(f"unexpected {token.text!r}")
        name = self.take().text
        while self.peek().text == "." and self.peek(1).kind == "ident":
            self.take(".")
            name += "." + self.take().text
        if self.peek().text == "[" and name in ("ptr.To",):
            self.take("[")
            self.type_name()
            self.take("]")
        if self.peek().text == "(":
            return self.call(name)
        if self.peek().text == "{" and name.startswith(("schema.", "checker.")):
            return self.composite(name)
        if name in self.variables:
            return self.variables[name]
        if name in CONSTANTS:
            return CONSTANTS[name]
        raise Unsupported(f"name {name}")

    def call(self, name: str) -> Any:
        self.take("(")
        arguments = []
        while self.peek().text != ")":
            arguments.append(self.expression())
            if self.peek().text == ",":
                self.take(",")
        self.take(")")
        helper = HELPERS.get(name) or self.variables.get(name)
        if helper is None:
            raise Unsupported(f"function {name}")
        return helper(*arguments)

    def composite(self, type_name: str) -> Any:
        self.take("{")
        keyed: dict[Any, Any] = {}
        items: list[Any] = []
        element = type_name[2:] if type_name.startswith("[]") else type_name.split("]", 1)[-1]
        while self.peek().text != "}":
            if (
                type_name.startswith(("schema.", "checker."))
                and self.peek().kind == "ident"
                and self.peek(1).text == ":"
            ):
                field_name = self.take().text
                self.take(":")
                keyed[field_name] = self.expression()
                if self.peek().text == ",":
                    self.take(",")
                continue
            value = self.composite(element) if self.peek().text == "{" else self.expression()
            if self.peek().text == ":":
                self.take(":")
                key = value
                value = self.composite(element) if self.peek().text == "{" else self.expression()
                keyed[key] = value
            else:
                items.append(value)
            if self.peek().text == ",":
                self.take(",")
        self.take("}")
        if type_name.startswith("[]"):
            return items
        if type_name.startswith("map["):
            return keyed
        if type_name == "checker.CostEstimate":
            return {"min": keyed.get("Min", 0), "max": keyed.get("Max", 0)}
        if type_name.startswith("schema."):
            return structural(type_name, keyed)
        raise Unsupported(f"composite {type_name}")


def parse_table(source: str, variables: dict[str, Any] | None = None) -> list[tuple[dict[str, Any] | None, str]]:
    """Each element of a table (``{field: value, ...}``) as a dict of field values, or None and the reason."""
    reader = Reader(tokens(source), variables)
    reader.take("{")
    cases: list[tuple[dict[str, Any] | None, str]] = []
    while reader.peek().text == "{":
        start = reader.position
        depth = 0
        end = start
        for index in range(start, len(reader.items)):
            text = reader.items[index].text
            depth += text == "{"
            depth -= text == "}"
            if depth == 0:
                end = index
                break
        element = Reader(reader.items[start : end + 1], variables)
        try:
            cases.append((element.case(), ""))
        except (Unsupported, ValueError, TypeError, KeyError, AttributeError) as error:
            cases.append((None, str(error)))
        reader.position = end + 1
        if reader.peek().text == ",":
            reader.take(",")
    return cases


def _case(self: Reader) -> dict[str, Any]:
    self.take("{")
    fields: dict[str, Any] = {}
    while self.peek().text != "}":
        name = self.take().text
        self.take(":")
        fields[name] = self.expression()
        if self.peek().text == ",":
            self.take(",")
    self.take("}")
    return fields


Reader.case = _case  # type: ignore[attr-defined]


def evaluate(source: str, variables: dict[str, Any] | None = None) -> Any:
    """One Go expression's value."""
    return Reader(tokens(source), variables).expression()
