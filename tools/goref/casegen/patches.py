"""Building blocks for JSON patch cases: operations, value spellings, and the family driver types.

A family is a function `(rng) -> Iterator[Case]` that yields its hand-written template cases, then
TEMPLATES_END, then random combinations forever; the driver keeps every template and takes as many
random cases as the family's count asks for.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .jsontext import STYLES, Obj, Raw, dump, go_dump, go_number, spell_string

MISSING = object()
STRING_MODES = ("go", "gohtml", "ascii", "raw", "upper", "allu", "slash")


@dataclass
class Case:
    """One input case. `doc` and `patch` are bytes, or values the driver writes in a random style."""

    doc: Any
    patch: Any = None


Family = Callable[[random.Random], Iterator[Case]]


def op(kind: Any, path: Any = MISSING, value: Any = MISSING, from_: Any = MISSING) -> dict[str, Any]:
    """A patch operation with members in the usual client order; MISSING leaves a member out."""
    out: dict[str, Any] = {"op": kind}
    if path is not MISSING:
        out["path"] = path
    if from_ is not MISSING:
        out["from"] = from_
    if value is not MISSING:
        out["value"] = value
    return out


def members(*pairs: tuple[str | Raw, Any]) -> Obj:
    """An operation written with exactly these members (duplicates, odd names, odd order)."""
    return Obj(pairs)


def spellings(v: Any) -> list[Raw]:
    """Distinct spellings a client might send for the stored value `v` (Go's first)."""
    if isinstance(v, str):
        texts = [spell_string(v, mode) for mode in STRING_MODES]
    elif isinstance(v, bool) or v is None:
        texts = [json.dumps(v).encode(), b" " + json.dumps(v).encode() + b" "]
    elif isinstance(v, (int, float)):
        texts = [go_number(v).encode(), json.dumps(v).encode(), repr(float(v)).encode()]
    else:
        texts = [go_dump(v)] + [dump(v, style) for style in STYLES[1:]]
    unique: list[bytes] = []
    for text in texts:
        if text not in unique:
            unique.append(text)
    return [Raw(t) for t in unique]


def spelled(rng: random.Random, v: Any, go_bias: float = 0.4) -> Raw:
    """One spelling of `v`: Go's (which usually matches the stored bytes) with probability go_bias."""
    options = spellings(v)
    return options[0] if rng.random() < go_bias else rng.choice(options)


def patch_bytes(ops: list[Any], style: str) -> bytes:
    return dump(ops, style)


# Yielded by a family between its hand-written templates and its endless random cases.
TEMPLATES_END = Case(None)
