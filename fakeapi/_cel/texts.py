"""cel-go's texts for what cel-cpp (under cel-expr-python) reports in its own words.

Compile issues are printed as cel-go's ``Issues.String()`` prints them: ``ERROR: <input>:L:C: <message>``,
then `` | <source line>`` and `` | ...^`` under the column, one block per issue, joined by newlines. The
messages of both checkers come from the same specification and mostly agree; where cel-cpp words one
differently (``undefined field 'x' not found in struct ...``), the cel-go wording is put back. Runtime errors
are mapped to the texts cel-go v0.22 and the Kubernetes values give (``no such key: x``, ``division by zero``,
``index out of bounds: 3``). See docs/cel.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Issue", "issues_text", "parse_issues", "runtime_text"]

_ISSUE = re.compile(r"ERROR: <input>:(\d+):(\d+): (.*)")
_UNDEFINED_FIELD = re.compile(r"undefined field '([^']*)' not found in struct '[^']*'")
# The authorizer library's types are unknown to cel-go's type provider: nothing can be selected from them.
_UNRESOLVED_STRUCT = re.compile(r"undefined field '[^']*' not found in struct '(kubernetes\.authorization\.\w+)'")
_UNDECLARED_SELECT = re.compile(r"undeclared reference to '(\w+)((?:\.\w+)+)' (\(in container '[^']*'\))$")
_STATUS_PREFIX = re.compile(r"^[A-Z_]+: ")
_STATUS_SUFFIX = re.compile(r" \[[A-Z_]+\]$")


@dataclass(frozen=True)
class Issue:
    """One compile issue: its line and column (both 1-based, as printed) and its message."""

    line: int
    column: int
    message: str


_NO_OVERLOAD = re.compile(r"found no matching overload for '([^']*)' applied to '\((.*)\)'$")


def _split_types(text: str) -> list[str]:
    """A comma-separated list of type names, commas inside ``(...)`` kept."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        depth += (char == "(") - (char == ")")
        current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def _is_member_call(source: str, line: int, column: int) -> bool:
    """Whether the call whose ``(`` is at (line, column) is written ``target.function(...)``."""
    lines = source.split("\n")
    if not 0 < line <= len(lines):
        return False
    text = lines[line - 1]
    position = column - 2
    while position >= 0 and (text[position].isalnum() or text[position] == "_"):
        position -= 1
    return position >= 0 and text[position] == "."


def _cel_go_message(message: str, source: str, line: int, column: int) -> str:
    message = _UNRESOLVED_STRUCT.sub(r"unexpected failed resolution of '\1'", message)
    message = _UNDEFINED_FIELD.sub(r"undefined field '\1'", message).replace("null_type", "null")
    overload = _NO_OVERLOAD.match(message)
    if overload and _is_member_call(source, line, column):
        # cel-go prints a member call's signature as ``target.(args)``.
        types = _split_types(overload.group(2))
        if types:
            signature = f"{types[0]}.({', '.join(types[1:])})"
            message = f"found no matching overload for '{overload.group(1)}' applied to '{signature}'"
    return message


_SELECT_ON_ERROR = "expression of type '*error*' cannot be the operand of a select operation"


def parse_issues(text: str, source: str = "", shift: int = 0) -> list[Issue]:
    """The issues of a cel-cpp compile failure (``INVALID_ARGUMENT: ERROR: <input>:1:5: ...``) in ``source``,
    compiled ``shift`` lines below where the rule starts."""
    text = _STATUS_SUFFIX.sub("", _STATUS_PREFIX.sub("", text.strip()))
    issues = []
    for line in text.split("\n"):
        match = _ISSUE.match(line)
        if match:
            row, column = int(match.group(1)) - shift, int(match.group(2))
            if match.group(3) == _SELECT_ON_ERROR:
                # cel-go's checker takes a field of an erroneous operand as dyn, silently (``checkSelect``).
                continue
            undeclared = _UNDECLARED_SELECT.match(match.group(3))
            if undeclared:
                # cel-cpp names the whole ``a.b.c`` at its last dot; cel-go the identifier ``a``, where it starts.
                root, selected, container = undeclared.groups()
                column -= len(root) + len(selected) - len(selected.rsplit(".", 1)[1]) - 1
                issues.append(Issue(row, column, f"undeclared reference to '{root}' {container}"))
                continue
            issues.append(Issue(row, column, _cel_go_message(match.group(3), source, row, column)))
    return issues


_MAX_REPORTED = 100


def issues_text(source: str, issues: list[Issue]) -> str:
    """cel-go's ``Issues.String()`` for ``issues`` found in ``source``: sorted by line and column, at most 100,
    then ``<n> more errors were truncated`` (``Errors.ToDisplayString``)."""
    lines = source.split("\n")
    blocks = []
    ordered = sorted(issues, key=lambda issue: (issue.line, issue.column))
    for issue in ordered[:_MAX_REPORTED]:
        block = f"ERROR: <input>:{issue.line}:{issue.column}: {issue.message}"
        if 0 < issue.line <= len(lines):
            snippet = lines[issue.line - 1]
            block += f"\n | {snippet}\n | {'.' * (issue.column - 1)}^"
        blocks.append(block)
    if len(ordered) > _MAX_REPORTED:
        blocks.append(f"{len(ordered) - _MAX_REPORTED} more errors were truncated")
    return "\n".join(blocks)


_RUNTIME: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r'Key not found in map : "(.*)"$'), r"no such key: \1"),
    (re.compile(r"Key not found in map : (.*)$"), r"no such key: \1"),
    # A list of the object's data (k8s.io/apiserver ``pkg/cel/common/values.go``); rules index those far more
    # often than list literals, whose text in cel-go is ``index 'N' out of range in list size 'M'``.
    (re.compile(r"Index error: index=(-?\d+) size=(\d+)$"), r"index out of bounds: \1"),
    (re.compile(r"divide by zero$"), "division by zero"),
    (re.compile(r"modulus by zero$"), "modulus by zero"),
    (re.compile(r"No matching overloads found.*"), "no such overload"),
)


def runtime_text(text: str) -> str:
    """cel-go's text for a cel-cpp evaluation error."""
    text = _STATUS_PREFIX.sub("", text.strip())
    for pattern, replacement in _RUNTIME:
        if pattern.match(text):
            return pattern.sub(replacement, text)
    return text
