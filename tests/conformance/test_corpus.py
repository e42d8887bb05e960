"""Every recorded case of the Go reference harness, replayed through fakeapi's engine.

The cases under ``cases/`` were computed by kube-apiserver's own libraries (see README.md beside
this file). Each layer is compared on its own, byte for byte: how the stored object is encoded,
the strict pre-decode (400 texts and strict warnings), the library's result (output bytes, error
text or panic) and what the apiserver stores after decoding that result.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from fakeapi._patching import (
    GoNumberRangeError,
    GoSyntaxError,
    PreDecodeError,
    apply_patch,
    decode,
    decode_patch,
    encode,
    merge_patch,
    predecode_json_patch,
    predecode_merge_patch,
)

CASES_DIR = Path(__file__).parent / "cases"
APISERVER_COPY_LIMIT = 3 * 1024 * 1024
MAX_OPERATIONS = 10000


def _load() -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for path in sorted(CASES_DIR.glob("*.jsonl")):
        with path.open(encoding="utf-8") as lines:
            records.extend(json.loads(line) for line in lines if line.strip())
    return records


CASES = _load()


def _bytes(field: Any) -> bytes:
    if isinstance(field, dict):
        return base64.b64decode(field["base64"])
    return str(field).encode("utf-8")


def _stored(value: Any) -> bytes:
    return encode(value) + b"\n"


def _check_decode_error(doc: bytes, expected: str) -> None:
    with pytest.raises((GoSyntaxError, GoNumberRangeError)) as caught:
        decode(doc)
    assert str(caught.value) == expected


def _check_stored(case: dict[str, Any], outcome: Any) -> None:
    if "stored" in case:
        assert _stored(outcome.value()) == _bytes(case["stored"])
    elif "stored_error" in case:
        try:
            value = outcome.value()
        except (GoNumberRangeError, GoSyntaxError):
            return
        assert not isinstance(value, dict), f"the result decodes to an object, Go says {case['stored_error']}"


def _check_apply(case: dict[str, Any], outcome: Any) -> None:
    expected = case["apply"]
    if expected.get("nondeterministic"):
        assert outcome.error == expected["error"] or outcome.panic == expected["panic"]
        return
    if "ok" in expected:
        assert outcome.error is None and outcome.panic is None, outcome.error or outcome.panic
        assert outcome.marshal() == _bytes(expected["ok"])
        _check_stored(case, outcome)
    elif "error" in expected:
        assert outcome.error == expected["error"]
    else:
        assert outcome.panic == expected["panic"]


def _run_encode(case: dict[str, Any]) -> None:
    doc = _bytes(case["doc"])
    if "decode_error" in case:
        _check_decode_error(doc, case["decode_error"])
        return
    assert _stored(decode(doc)) == _bytes(case["stored"])


def _run_json_patch(case: dict[str, Any]) -> None:
    doc, body = _bytes(case["doc"]), _bytes(case["patch"])
    if case["kind"] == "json-patch-raw":
        _check_apply(case, apply_patch(doc, decode_patch(body), copy_limit=APISERVER_COPY_LIMIT))
        return
    if "decode_error" in case:
        _check_decode_error(doc, case["decode_error"])
        return
    stored = decode(doc)
    assert _stored(stored) == _bytes(case["current"])
    if "predecode_error" in case:
        with pytest.raises(PreDecodeError) as caught:
            predecode_json_patch(body)
        assert str(caught.value) == case["predecode_error"]
        return
    predecoded = predecode_json_patch(body)
    assert predecoded.strict_errors == case.get("strict_errors", [])
    patch = decode_patch(predecoded.text)
    assert len(patch) == case["op_count"]
    if len(patch) > MAX_OPERATIONS:
        return
    _check_apply(case, apply_patch(stored, patch, copy_limit=APISERVER_COPY_LIMIT))


def _run_merge_patch(case: dict[str, Any]) -> None:
    doc, body = _bytes(case["doc"]), _bytes(case["patch"])
    stored = decode(doc)
    assert _stored(stored) == _bytes(case["current"])
    if "predecode_error" in case:
        with pytest.raises(PreDecodeError) as caught:
            predecode_merge_patch(body)
        assert str(caught.value) == case["predecode_error"]
        return
    predecoded = predecode_merge_patch(body)
    assert predecoded.strict_errors == case.get("strict_errors", [])
    _check_apply(case, merge_patch(stored, predecoded.text))


RUNNERS = {
    "encode": _run_encode,
    "json-patch": _run_json_patch,
    "json-patch-raw": _run_json_patch,
    "merge-patch": _run_merge_patch,
}


def test_the_corpus_is_large_enough() -> None:
    kinds = [case["kind"] for case in CASES]
    assert kinds.count("json-patch") >= 5000
    assert kinds.count("merge-patch") >= 1500
    assert kinds.count("encode") >= 1500


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_case_agrees_with_the_apiserver_libraries(case: dict[str, Any]) -> None:
    RUNNERS[case["kind"]](case)
