"""cel-go's checks of literal arguments after type checking (``cel/validator.go``), which Kubernetes turns on.

``ValidateDurationLiterals``, ``ValidateTimestampLiterals`` and ``ValidateRegexLiterals``: a call of
``duration``, ``timestamp`` or ``matches`` whose (first) argument is a literal is evaluated (the pattern
compiled) at compile time, and a failure is the compile issue ``invalid <function> argument`` at the literal.
The Kubernetes regex library (``regex.go``) compiles a literal pattern of ``find``/``findAll`` when the
program is built: ``program instantiation failed: error parsing regexp: ...`` (:func:`program_error`).
cel-cpp has no such pass and the rule's syntax tree is not exposed, so the calls are found in the source by
their tokens: a literal directly inside the parentheses.
"""

from __future__ import annotations

import re
from typing import Any

from fakeapi._cel.texts import Issue

__all__ = ["literal_issues", "program_error"]

_LITERAL = r"""(?:[rR]?'(?:[^'\\\n]|\\.)*'|[rR]?"(?:[^"\\\n]|\\.)*"|-?\d+)"""
_CALL = re.compile(
    rf"""(?P<prefix>(?<![\w.])(?P<function>duration|timestamp)|\.(?P<member>matches|find|findAll))\(\s*(?P<literal>{_LITERAL})\s*[,)]"""
)
_STRING = re.compile(r"""[rR]?(['"])""")


def program_error(source: str, evaluate: Any) -> str:
    """``program instantiation failed: <error>``'s error, for a ``find``/``findAll`` pattern literal that does not
    compile: the Kubernetes regex library compiles constant patterns when the program is built."""
    for match in _CALL.finditer(source):
        if match.group("member") in ("find", "findAll") and _STRING.match(match.group("literal")):
            try:
                evaluate(f"''.find({match.group('literal')})")
            except ValueError as error:
                return str(error)
    return ""


def literal_issues(source: str, evaluate: Any) -> list[Issue]:
    """The issues of the literal arguments in ``source``; ``evaluate(expression)`` raises on failure."""
    issues = []
    for match in _CALL.finditer(source):
        function = match.group("function") or match.group("member")
        literal = match.group("literal")
        if function in ("find", "findAll"):
            continue
        try:
            if function == "matches":
                if not _STRING.match(literal):
                    continue
                evaluate(f"''.matches({literal})")
            else:
                evaluate(f"{function}({literal})")
        except ValueError:
            start = match.start("literal")
            line = source.count("\n", 0, start) + 1
            column = start - (source.rfind("\n", 0, start) + 1) + 1
            issues.append(Issue(line, column, f"invalid {function} argument"))
    return issues
