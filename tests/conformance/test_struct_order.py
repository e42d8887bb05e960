"""Go's own writing of every GA kind, from k8s.io/api's round-trip fixtures, against fakeapi's typed layout.

``typed/k8s-api-fixtures-1.32.jsonl`` holds, per kind, the fuzzed object k8s.io/api v0.32.0 keeps
as ``encoding/json`` writes it (``tools/gostructs/record_fixtures.py``): every field set, in struct
order, maps sorted. Decoding it into the kind's struct and writing it again must give those bytes,
and so must laying out the same object given with every key in reverse order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fakeapi._patching.godecode import decode
from fakeapi._patching.goencode import encode_in_order
from fakeapi._state.typed import go_structs
from fakeapi._state.typed.decoding import decode_typed
from fakeapi._state.typed.ordering import in_go_order

FIXTURES = [
    json.loads(line)
    for line in (Path(__file__).parent / "typed" / "k8s-api-fixtures-1.32.jsonl").read_text().splitlines()
]
# A RawExtension is written as it came (its MarshalJSON returns the bytes received), so a reversed
# input stays reversed inside it.
RAW_EXTENSIONS = {"AdmissionReview", "ControllerRevision"}


def reversed_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: reversed_keys(value[key]) for key in sorted(value, reverse=True)}
    if isinstance(value, list):
        return [reversed_keys(item) for item in value]
    return value


def test_every_ga_kind_has_a_fixture() -> None:
    assert len(FIXTURES) == 72


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda fixture: f"{fixture['apiVersion']}.{fixture['kind']}")
def test_a_decoded_fixture_is_written_back_byte_for_byte(fixture: dict[str, Any]) -> None:
    structs = go_structs("1.32")
    struct = structs.kind_struct(fixture["apiVersion"], fixture["kind"])
    assert struct is not None
    typed = decode_typed(structs, struct, decode(fixture["json"].encode()))
    assert typed.unknown == []
    assert encode_in_order(typed.value).decode() == fixture["json"]
    assert in_go_order(structs, struct, typed.value) is typed.value, "an object in order is taken as it is"


@pytest.mark.parametrize(
    "fixture",
    [fixture for fixture in FIXTURES if fixture["kind"] not in RAW_EXTENSIONS],
    ids=lambda fixture: f"{fixture['apiVersion']}.{fixture['kind']}",
)
def test_an_object_with_its_keys_reversed_is_laid_out_in_struct_order(fixture: dict[str, Any]) -> None:
    structs = go_structs("1.32")
    struct = structs.kind_struct(fixture["apiVersion"], fixture["kind"])
    assert struct is not None
    scrambled = reversed_keys(decode(fixture["json"].encode()))
    assert encode_in_order(in_go_order(structs, struct, scrambled)).decode() == fixture["json"]
