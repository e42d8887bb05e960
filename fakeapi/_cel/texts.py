"""cel-go's texts for what cel-cpp (under cel-expr-python) reports in its own words.

Compile issues are printed as cel-go's ``Issues.String()`` prints them: ``ERROR: <input>:L:C: <message>``,
then `` | <source line>`` and `` | ...^`` under the column, one block per issue, joined by newlines. The
messages of both checkers come from the same specification and mostly agree; where cel-cpp words one
differently (``undefined field 'x' not found in struct ...``), the cel-go wording is put back. Runtime errors
are mapped to the texts of cel-go v0.22's ``common/types`` (``no such key: x``, ``division by zero``,
``index '3' out of range in list size '1'``). See docs/cel.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Issue", "issues_text", "parse_issues", "runtime_text"]

_ISSUE = re.compile(r"ERROR: <input>:(\d+):(\d+): (.*)")
_UNDEFINED_FIELD = re.compile(r"undefined field '([^']*)' not found in struct '[^']*'")
_STATUS_PREFIX = re.compile(r"^[A-Z_]+: ")
_STATUS_SUFFIX = re.compile(r" \[[A-Z_]+\]$")


@dataclass(frozen=True)
class Issue:
    """One compile issue: its line and column (both 1-based, as printed) and its message."""

    line: int
    column: int
    message: str


def parse_issues(text: str) -> list[Issue]:
    """The issues of a cel-cpp compile failure (``INVALID_ARGUMENT: ERROR: <input>:1:5: ...``)."""
    text = _STATUS_SUFFIX.sub("", _STATUS_PREFIX.sub("", text.strip()))
    issues = []
    for line in text.split("\n"):
        match = _ISSUE.match(line)
        if match:
            message = _UNDEFINED_FIELD.sub(r"undefined field '\1'", match.group(3))
            issues.append(Issue(int(match.group(1)), int(match.group(2)), message))
    return issues


def issues_text(source: str, issues: list[Issue]) -> str:
    """cel-go's ``Issues.String()`` for ``issues`` found in ``source``."""
    lines = source.split("\n")
    blocks = []
    for issue in issues:
        block = f"ERROR: <input>:{issue.line}:{issue.column}: {issue.message}"
        if 0 < issue.line <= len(lines):
            snippet = lines[issue.line - 1]
            block += f"\n | {snippet}\n | {'.' * (issue.column - 1)}^"
        blocks.append(block)
    return "\n".join(blocks)


_RUNTIME: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r'Key not found in map : "(.*)"$'), r"no such key: \1"),
    (re.compile(r"Key not found in map : (.*)$"), r"no such key: \1"),
    (re.compile(r"Index error: index=(-?\d+) size=(\d+)$"), r"index '\1' out of range in list size '\2'"),
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
