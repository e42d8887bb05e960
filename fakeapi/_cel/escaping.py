"""Property names as CEL rules spell them (k8s.io/apiserver ``pkg/cel/escaping.go``, ``Escape``).

A schema property is a field of ``self`` only under a name CEL can parse: a reserved word is wrapped in
double underscores (``namespace`` -> ``__namespace__``), ``__``, ``.``, ``-`` and ``/`` are spelled out
(``__underscores__``, ``__dot__``, ``__dash__``, ``__slash__``), and a name that starts with a digit or holds
any other character is not exposed at all. See docs/cel.md.
"""

from __future__ import annotations

import re

__all__ = ["RESERVED", "SELECTABLE_RESERVED", "escape"]

SELECTABLE_RESERVED = frozenset(
    [
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ]
)
"""The reserved words the parser still takes as a field name after a dot (not the literals true, false,
null and the operator in)."""
RESERVED = SELECTABLE_RESERVED | {"true", "false", "null", "in"}
"""CEL's reserved symbols (cel-go ``parser``), which no identifier may be."""
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EXPAND = re.compile(r"__|[-./]|[^a-zA-Z0-9\-./_]")
_SPELLED = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}


def escape(name: str) -> str | None:
    """The CEL field name of a property, or None when the property is not exposed to rules."""
    if not name or name[0] in "0123456789":
        return None
    if name in RESERVED:
        return f"__{name}__"
    if _PLAIN.fullmatch(name) and "__" not in name:
        return name
    pieces: list[str] = []
    position = 0
    for match in _EXPAND.finditer(name):
        spelled = _SPELLED.get(match.group())
        if spelled is None:
            return None
        pieces.append(name[position : match.start()])
        pieces.append(spelled)
        position = match.end()
    pieces.append(name[position:])
    return "".join(pieces)
