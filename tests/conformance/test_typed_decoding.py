"""The typed-decoding family: fakeapi's decoding of built-in bodies against sigs.k8s.io/json's own.

Each record holds what the Go decoder said of a body (its error, or its strict errors and the
value as Go writes it back; see tools/goref/typed). fakeapi decodes the same bytes through the kind's
struct: the strict pre-decode's duplicate fields, then :func:`decode_typed`'s errors and unknown
fields must be Go's, and for ConfigMap (mirrored whole) the value must be Go's re-encoding.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fakeapi._patching.godecode import decode
from fakeapi._patching.predecode import predecode_merge_patch
from fakeapi._state.typed import go_structs
from fakeapi._state.typed.decoding import TypedError, decode_typed

CASES = Path(__file__).parent / "typed" / "typed-decoding.jsonl"
STRUCTS = {"ConfigMap": "core/v1.ConfigMap", "Pod": "core/v1.Pod"}
# The decoded JSON keeps a number's value, not its spelling: a literal in exponent form is named by
# its value where Go quotes the literal.
SPELLED_BY_VALUE = {"typed-pod-008": ("number 1e2", "number 100")}


def records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]


def body_bytes(line: str) -> bytes:
    """The body exactly as recorded (duplicate keys included), cut from the record's text."""
    start = line.index('"body":') + len('"body":')
    end = (
        line.rindex(',"error":')
        if '"error":' in line
        else line.rindex(',"strict":')
        if '"strict":' in line
        else line.rindex(',"encoded":')
    )
    return line[start:end].encode()


LINES = CASES.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("line", LINES, ids=[json.loads(line)["id"] for line in LINES])
def test_typed_decoding_matches_go(line: str) -> None:
    record = json.loads(line)
    raw = body_bytes(line)
    strict = list(predecode_merge_patch(raw).strict_errors)
    try:
        typed = decode_typed(go_structs(), STRUCTS[record["type"]], decode(raw))
    except TypedError as error:
        expected = record.get("error")
        if record["id"] in SPELLED_BY_VALUE:
            go_spelling, ours = SPELLED_BY_VALUE[record["id"]]
            expected = expected.replace(go_spelling, ours)
        assert str(error) == expected
        return
    assert "error" not in record, record["error"]
    assert strict + typed.unknown == record.get("strict", [])
    if record["type"] == "ConfigMap":
        assert typed.value == record["encoded"]


def test_the_family_covers_errors_strict_errors_and_clean_bodies() -> None:
    kinds = [("error" in r, "strict" in r) for r in records()]
    assert kinds.count((True, False)) >= 30
    assert kinds.count((False, True)) >= 3
    assert kinds.count((False, False)) >= 10
