"""Label and field selectors of list and watch requests, parsed and matched exactly as the apiserver does.

A bad ``labelSelector`` or ``fieldSelector`` query parameter is a 400 BadRequest whose message is the
parser's error text, so every :class:`SelectorError` carries that text verbatim. Reproduced from
k8s.io/apimachinery as of Kubernetes 1.32-1.34:

- ``pkg/labels/selector.go``: the ``Lexer``/``Parser`` behind ``labels.Parse``, ``NewRequirement``'s
  value checks, ``Requirement.Matches`` and ``String``;
- ``pkg/util/validation/validation.go``: ``IsQualifiedName`` for keys (1.35 renamed its texts) and
  ``IsValidLabelValue`` for values, from :mod:`fakeapi._state.validation.names`;
- ``pkg/util/validation/field`` and ``pkg/util/errors``: ``<path>: Invalid value: "<v>": <detail>``
  (:mod:`fakeapi._state.validation.field`), a nil path printed as ``<nil>``, several errors
  aggregated as ``[e1, e2]``;
- ``pkg/fields/selector.go``: ``ParseSelector`` (``splitTerms``, ``splitTerm``, ``UnescapeValue``),
  ``Matches``, ``RequiresExactMatch``, plus the ``field label not supported`` text of the
  ``ConvertFieldLabel`` functions the list handler applies afterwards.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from fakeapi._patching.gostrconv import atoi
from fakeapi._state.validation import field as field_errors
from fakeapi._state.validation.names import is_label_value, is_qualified_name


class SelectorError(ValueError):
    """str(error) is the exact message of the apiserver's 400 BadRequest."""


def _aggregate(messages: list[str]) -> str:
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


# --- labels/selector.go: lexer ---------------------------------------------------------------------------------


class _Tok(enum.Enum):
    """A token; the value of each operator and punctuation token is its spelling (Go's string2token)."""

    END = "end of string"
    IDENT = "identifier"
    CLOSE = ")"
    COMMA = ","
    NOT = "!"
    DOUBLE_EQ = "=="
    EQ = "="
    GT = ">"
    IN = "in"
    LT = "<"
    NEQ = "!="
    NOTIN = "notin"
    OPEN = "("


_SPECIAL = "=!(),><"
_SYMBOLS = {tok.value: tok for tok in _Tok if tok.value[0] in _SPECIAL}
_KEYWORDS = {"in": _Tok.IN, "notin": _Tok.NOTIN}
_WHITESPACE = " \t\r\n"
# Go's Lexer.read returns byte 0 at the end of input, so a NUL inside the selector also ends a token or the input.
_NUL = "\0"


class _Lexer:
    def __init__(self, text: str) -> None:
        self._text = text
        self._pos = 0

    def tokens(self) -> list[tuple[_Tok, str]]:
        items = []
        while True:
            items.append(self._lex())
            if items[-1][0] is _Tok.END:
                return items

    def _read(self) -> str:
        if self._pos < len(self._text):
            self._pos += 1
            return self._text[self._pos - 1]
        return _NUL

    def _lex(self) -> tuple[_Tok, str]:
        ch = self._read()
        while ch in _WHITESPACE:
            ch = self._read()
        if ch == _NUL:
            return _Tok.END, ""
        self._pos -= 1
        return self._scan_symbol() if ch in _SPECIAL else self._scan_word()

    def _scan_word(self) -> tuple[_Tok, str]:
        chars = []
        while (ch := self._read()) != _NUL:
            if ch in _SPECIAL or ch in _WHITESPACE:
                self._pos -= 1
                break
            chars.append(ch)
        word = "".join(chars)
        return _KEYWORDS.get(word, _Tok.IDENT), word

    def _scan_symbol(self) -> tuple[_Tok, str]:
        # Every special character is a token by itself, so Go's ErrorToken branch is unreachable.
        symbol = self._read()
        while (ch := self._read()) != _NUL:
            if ch not in _SPECIAL or symbol + ch not in _SYMBOLS:
                self._pos -= 1
                break
            symbol += ch
        return _SYMBOLS[symbol], symbol


# --- labels/selector.go: requirements and parser ---------------------------------------------------------------

_BINARY_OPERATORS = {
    _Tok.IN: "in",
    _Tok.NOTIN: "notin",
    _Tok.EQ: "=",
    _Tok.DOUBLE_EQ: "==",
    _Tok.NEQ: "!=",
    _Tok.GT: "gt",
    _Tok.LT: "lt",
}
_OPERATOR_SPELLING = {"=": "=", "==": "==", "!=": "!=", "in": " in ", "notin": " notin ", "gt": ">", "lt": "<"}


@dataclass(frozen=True)
class LabelRequirement:
    """One requirement; ``operator`` is Go's selection.Operator: exists ! = == != in notin gt lt."""

    key: str
    operator: str
    values: tuple[str, ...]

    def matches(self, labels: Mapping[str, str]) -> bool:
        value = labels.get(self.key)
        if self.operator == "exists":
            return value is not None
        if self.operator == "!":
            return value is None
        if self.operator in ("notin", "!="):
            return value is None or value not in self.values
        if value is None:
            return False
        if self.operator in ("in", "=", "=="):
            return value in self.values
        have, error = atoi(value)
        want, _ = atoi(self.values[0])
        return error is None and (have > want if self.operator == "gt" else have < want)

    def __str__(self) -> str:
        if self.operator in ("exists", "!"):
            return ("!" if self.operator == "!" else "") + self.key
        values = ",".join(self.values)
        if self.operator in ("in", "notin"):
            values = f"({values})"
        return self.key + _OPERATOR_SPELLING[self.operator] + values


@dataclass(frozen=True)
class LabelSelector:
    """A parsed label selector: requirements ANDed, sorted by key as ``labels.Parse`` leaves them."""

    requirements: tuple[LabelRequirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(requirement.matches(labels) for requirement in self.requirements)

    @property
    def empty(self) -> bool:
        """True when the selector selects everything."""
        return not self.requirements

    def __str__(self) -> str:
        return ",".join(str(requirement) for requirement in self.requirements)


class _RequirementError(Exception):
    """An error inside one requirement; the parser prefixes it with ``unable to parse requirement: ``."""


def _new_requirement(key: str, operator: str, values: tuple[str, ...]) -> LabelRequirement:
    # NewRequirement's arity checks cannot fail for what the parser builds; only the value checks can.
    errors: list[str] = []
    if operator in ("gt", "lt"):
        errors.extend(
            field_errors.invalid(
                f"values[{index}]", value, "for 'Gt', 'Lt' operators, the value must be an integer"
            ).text()
            for index, value in enumerate(values)
            if atoi(value)[1] is not None
        )
    for index, value in enumerate(values):
        if details := is_label_value(value):
            errors.append(field_errors.invalid(f"values[{index}][{key}]", value, "; ".join(details)).text())
    if errors:
        raise _RequirementError(_aggregate(errors))
    return LabelRequirement(key, operator, values)


class _Parser:
    def __init__(self, text: str) -> None:
        self._items = _Lexer(text).tokens()
        self._pos = 0

    def _peek(self, *, values: bool = True) -> tuple[_Tok, str]:
        # Where a value may stand, 'in' and 'notin' are plain identifiers.
        tok, literal = self._items[self._pos]
        if values and tok in (_Tok.IN, _Tok.NOTIN):
            tok = _Tok.IDENT
        return tok, literal

    def _next(self, *, values: bool = True) -> tuple[_Tok, str]:
        item = self._peek(values=values)
        self._pos += 1
        return item

    def parse(self) -> list[LabelRequirement]:
        requirements: list[LabelRequirement] = []
        tok, literal = self._peek()
        if tok is _Tok.END:
            return requirements
        if tok not in (_Tok.IDENT, _Tok.NOT):
            raise SelectorError(f"found '{literal}', expected: !, identifier, or 'end of string'")
        while True:
            try:
                requirements.append(self._requirement())
            except _RequirementError as error:
                raise SelectorError(f"unable to parse requirement: {error}") from None
            tok, literal = self._next()
            if tok is _Tok.END:
                return requirements
            if tok is not _Tok.COMMA:
                raise SelectorError(f"found '{literal}', expected: ',' or 'end of string'")
            tok, literal = self._peek()
            if tok not in (_Tok.IDENT, _Tok.NOT):
                raise SelectorError(f"found '{literal}', expected: identifier after ','")

    def _requirement(self) -> LabelRequirement:
        tok, key = self._next()
        negated = tok is _Tok.NOT
        if negated:
            tok, key = self._next()
        if tok is not _Tok.IDENT:
            raise _RequirementError(f"found '{key}', expected: identifier")
        if key_errors := is_qualified_name(key):
            # The parser validates keys against its own path, which labels.Parse leaves nil.
            raise _RequirementError(field_errors.invalid("<nil>", key, "; ".join(key_errors)).text())
        if negated:
            return _new_requirement(key, "!", ())
        if self._peek()[0] in (_Tok.END, _Tok.COMMA):
            return _new_requirement(key, "exists", ())
        tok, literal = self._next(values=False)
        operator = _BINARY_OPERATORS.get(tok)
        if operator is None:
            raise _RequirementError(f"found '{literal}', expected: in, notin, =, ==, !=, gt, lt")
        if operator in ("in", "notin"):
            return _new_requirement(key, operator, self._value_set())
        return _new_requirement(key, operator, (self._exact_value(),))

    def _value_set(self) -> tuple[str, ...]:
        tok, literal = self._next()
        if tok is not _Tok.OPEN:
            raise _RequirementError(f"found '{literal}' expected: '('")
        tok, literal = self._peek()
        if tok is _Tok.CLOSE:
            self._next()
            return ("",)
        if tok not in (_Tok.IDENT, _Tok.COMMA):
            raise _RequirementError(f"found '{literal}', expected: ',', ')' or identifier")
        values = self._identifiers()
        self._next()  # the ')' that _identifiers stopped at
        # Go collects the values in a sets.String and hands NewRequirement its sorted List().
        return tuple(sorted(values))

    def _identifiers(self) -> set[str]:
        values: set[str] = set()
        while True:
            tok, literal = self._next()
            if tok is _Tok.IDENT:
                values.add(literal)
                after, after_literal = self._peek()
                if after is _Tok.CLOSE:
                    return values
                if after is not _Tok.COMMA:
                    raise _RequirementError(f"found '{after_literal}', expected: ',' or ')'")
            elif tok is _Tok.COMMA:
                # An empty element at either end of a comma, as in "(,a)", "(a,)" or "(a,,b)", is the value "".
                if not values:
                    values.add("")
                after = self._peek()[0]
                if after is _Tok.CLOSE:
                    values.add("")
                    return values
                if after is _Tok.COMMA:
                    values.add("")
            else:
                raise _RequirementError(f"found '{literal}', expected: ',', or identifier")

    def _exact_value(self) -> str:
        if self._peek()[0] in (_Tok.END, _Tok.COMMA):
            return ""
        tok, literal = self._next()
        if tok is not _Tok.IDENT:
            raise _RequirementError(f"found '{literal}', expected: identifier")
        return literal


def parse_label_selector(text: str) -> LabelSelector:
    """``labels.Parse``: "" (or only whitespace) selects everything; raises :class:`SelectorError`."""
    # Go's sort.Sort is not stable, but for the dozen requirements a real selector has it runs an insertion
    # sort, which keeps requirements on the same key in input order just like Python's sort.
    return LabelSelector(tuple(sorted(_Parser(text).parse(), key=lambda requirement: requirement.key)))


# --- fields/selector.go ------------------------------------------------------------------------------------------


@dataclass
class FieldSelector:
    """A parsed field selector: ``(field, "=" | "!=", value)`` terms ANDed, in the apiserver's (sorted) order."""

    requirements: list[tuple[str, str, str]]

    def matches(self, fields: Mapping[str, str]) -> bool:
        # fields.Set.Get reads a missing field as "".
        return all(
            fields.get(field, "") == value if operator == "=" else fields.get(field, "") != value
            for field, operator, value in self.requirements
        )

    @property
    def empty(self) -> bool:
        """True when the selector selects everything."""
        return not self.requirements

    def check_supported(self, supported: Collection[str]) -> None:
        """The list handler's ``Transform(ConvertFieldLabel)``: the first unsupported label is a 400."""
        for field, _, _ in self.requirements:
            if field not in supported:
                raise SelectorError(f"field label not supported: {field}")

    def required_value(self, field: str) -> str | None:
        """``RequiresExactMatch``: the value of the first ``field=value`` term, if any."""
        return next((value for name, operator, value in self.requirements if name == field and operator == "="), None)

    def __str__(self) -> str:
        return ",".join(f"{field}{operator}{_escape_value(value)}" for field, operator, value in self.requirements)


def _escape_value(value: str) -> str:
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def _split_terms(text: str) -> list[str]:
    terms = []
    start = 0
    in_slash = False
    for index, ch in enumerate(text):
        if in_slash:
            in_slash = False
        elif ch == "\\":
            in_slash = True
        elif ch == ",":
            terms.append(text[start:index])
            start = index + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    # The field part cannot be escaped: the first operator anywhere splits the term, "!=" and "==" before "=".
    for index in range(len(term)):
        for operator in ("!=", "==", "="):
            if term.startswith(operator, index):
                return term[:index], operator, term[index + len(operator) :]
    return None


def _unescape_value(raw: str) -> str:
    chars = []
    in_slash = False
    for ch in raw:
        if in_slash:
            if ch not in "\\,=":
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{ch}")
            chars.append(ch)
            in_slash = False
        elif ch == "\\":
            in_slash = True
        elif ch in ",=":
            # Go prints the rune with %v, which is its decimal code point.
            raise SelectorError(f"invalid field selector: unescaped character in value: {ord(ch)}")
        else:
            chars.append(ch)
    if in_slash:
        raise SelectorError("invalid field selector: invalid escape sequence: \\")
    return "".join(chars)


def parse_field_selector(text: str) -> FieldSelector:
    """``fields.ParseSelector``; raises :class:`SelectorError` with the apiserver's texts."""
    requirements: list[tuple[str, str, str]] = []
    for term in sorted(_split_terms(text)):
        if not term:
            continue
        split = _split_term(term)
        if split is None:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{term}'")
        field, operator, raw = split
        value = _unescape_value(raw)
        # Transform drops a term whose field and value are both empty, so "=" alone selects everything.
        if field or value:
            requirements.append((field, "!=" if operator == "!=" else "=", value))
    return FieldSelector(requirements)
