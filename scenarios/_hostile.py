"""Hostile values: re-run a scenario with the user-controlled strings and numbers of its objects
spelled the way that breaks byte-wise comparisons, and report every field whose value flips the verdict.

A claim can pass for months, until a user types ``>``. Here the baseline is the scenario
with every user-controlled value (spec and status leaves, annotation values) in a plain spelling;
then one field at a time takes each hostile spelling: ``<`` ``>`` ``&`` (Go escapes them),
non-ASCII (Python escapes it), U+2028 (Go escapes it), an emoji (Python writes a surrogate pair),
``1.0`` (Go writes ``1``), ``1e21`` and a 65-bit integer (float64 in Go). A verdict that changes
is reported as fragile, naming the field and the value. Derived values (kopf's copy of the spec in
an annotation) are recomputed by the scenario's ``derive`` hook after each mutation.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from scenarios._flags import spelling_sensitive

__all__ = [
    "NUMBER_SPELLINGS",
    "STRING_SPELLINGS",
    "Mutation",
    "ProbedField",
    "mutable_fields",
    "mutate",
    "parse_mutation",
    "plain_objects",
    "spellings_for",
]

STRING_SPELLINGS: dict[str, str] = {
    "lt": "a<b",
    "gt": "echo hi > /tmp/x",
    "amp": "scope=pull&service=registry",
    "e-acute": "café",
    "line-separator": "line\u2028separator",
    "emoji": "ship it \U0001f680",
}
NUMBER_SPELLINGS: dict[str, Any] = {"float-one": 1.0, "exponent": 1e21, "big-int": 2**64 + 1}
_DERIVED_ANNOTATIONS = ("kopf.zalando.org/last-handled-configuration",)
Derive = Callable[[dict[str, Any]], dict[str, Any]] | None


@dataclass(frozen=True)
class ProbedField:
    """A user-controlled leaf: the object's name and a JSON pointer inside it."""

    name: str
    pointer: str

    def __str__(self) -> str:
        return f"{self.name}{self.pointer}"


@dataclass(frozen=True)
class Mutation:
    field: ProbedField
    spelling: str

    @property
    def value(self) -> Any:
        return STRING_SPELLINGS.get(self.spelling, NUMBER_SPELLINGS.get(self.spelling))

    def __str__(self) -> str:
        return f"{self.field}={self.spelling}"


def parse_mutation(text: str) -> Mutation:
    """``job-1/spec/command=gt`` (the form the replay line uses)."""
    where, _, spelling = text.partition("=")
    name, slash, pointer = where.partition("/")
    if not slash or spelling not in {**STRING_SPELLINGS, **NUMBER_SPELLINGS}:
        known = ", ".join([*STRING_SPELLINGS, *NUMBER_SPELLINGS])
        raise ValueError(f"a mutation is OBJECT/POINTER=SPELLING with a spelling among {known}: {text!r}")
    return Mutation(ProbedField(name, "/" + pointer), spelling)


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _leaves(value: Any, pointer: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{pointer}/{_escape(str(key))}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{pointer}/{index}")
    elif isinstance(value, str) or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        yield pointer, value


def _user_leaves(obj: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    yield from _leaves(obj.get("spec"), "/spec")
    yield from _leaves(obj.get("status"), "/status")
    for key, value in (obj.get("metadata", {}).get("annotations") or {}).items():
        if key not in _DERIVED_ANNOTATIONS and isinstance(value, str):
            yield f"/metadata/annotations/{_escape(key)}", value


def _user_objects(objects: list[dict[str, Any]]) -> Iterator[tuple[int, dict[str, Any]]]:
    for index, obj in enumerate(objects):
        if obj.get("kind") != "CustomResourceDefinition":
            yield index, obj


def mutable_fields(objects: list[dict[str, Any]]) -> list[tuple[ProbedField, Any]]:
    return [
        (ProbedField(obj["metadata"]["name"], pointer), value)
        for _, obj in _user_objects(objects)
        for pointer, value in _user_leaves(obj)
    ]


def _set(obj: dict[str, Any], pointer: str, value: Any) -> None:
    tokens = [token.replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:]]
    target: Any = obj
    for token in tokens[:-1]:
        target = target[int(token)] if isinstance(target, list) else target[token]
    if isinstance(target, list):
        target[int(tokens[-1])] = value
    else:
        target[tokens[-1]] = value


def _plain(value: Any) -> Any:
    if isinstance(value, str):
        return re.sub(r"[^A-Za-z0-9 ._:/=-]", "-", value.encode("ascii", "replace").decode())
    if isinstance(value, float):
        return 2.5
    if isinstance(value, int) and abs(value) >= 2**53:
        return 7
    return value


def plain_objects(objects: list[dict[str, Any]], derive: Derive) -> list[dict[str, Any]]:
    """The objects with every spelling-sensitive user value replaced by a plain one."""
    result = copy.deepcopy(objects)
    for index, obj in _user_objects(result):
        for pointer, value in list(_user_leaves(obj)):
            if spelling_sensitive(value):
                _set(obj, pointer, _plain(value))
        if derive is not None:
            result[index] = derive(obj)
    return result


def mutate(objects: list[dict[str, Any]], mutation: Mutation, derive: Derive) -> list[dict[str, Any]]:
    """The plain objects with one field spelled hostile (derived values recomputed)."""
    result = plain_objects(objects, derive)
    for index, obj in _user_objects(result):
        if obj["metadata"]["name"] == mutation.field.name:
            _set(obj, mutation.field.pointer, mutation.value)
            if derive is not None:
                result[index] = derive(obj)
            return result
    raise ValueError(f"no object named {mutation.field.name!r} to mutate")


def spellings_for(value: Any) -> list[str]:
    return list(STRING_SPELLINGS if isinstance(value, str) else NUMBER_SPELLINGS)
