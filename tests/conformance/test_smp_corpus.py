"""Every strategic merge patch kubectl 1.32 recorded, replayed through fakeapi's PATCH computation.

The cases under ``smp/`` were recorded by ``tools/smpcorpus/record.py`` (see ``smp/README.md``):
kubectl's own ``strategicpatch`` gives the merged map or the library's error, and a typed kubectl
command gives the typed round trip or says the result does not decode. Two layers are compared:
the engine's merged map, byte for byte in Go's spelling, and what the PATCH handler makes of it for
the store: the typed object, or the apiserver's status for the error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from multidict import MultiDict

from fakeapi._http.negotiation import STRATEGIC_MERGE_PATCH
from fakeapi._http.options import parse_write_options
from fakeapi._http.patching import ApiserverPanic, PatchContext, compute_patch
from fakeapi._patching import encode
from fakeapi._patching.smp import StrategicMergeError, StrategicMergePanic, strategic_merge_patch
from fakeapi._state.kinds import builtin_type
from fakeapi._state.typed import go_structs
from fakeapi._state.typed.patchmeta import kind_patch_meta
from fakeapi.errors import APIError

CORPUS = Path(__file__).parent / "smp"
OBJECTS: dict[str, Any] = json.loads((CORPUS / "objects.json").read_text())["objects"]
CASES = [json.loads(line) for path in sorted(CORPUS.glob("*.jsonl")) for line in path.read_text().splitlines()]

# apiserver handlers/patch.go interpretStrategicMergePatchError: these sentinels are 400, these 422,
# and every other library error passes through as a 500 with its own text.
BAD_REQUEST = {
    "invalid JSON document\n",
    "invalid patch format of primitive list\n",
    "invalid patch format of retainKeys\n",
    "invalid patch format of setElementOrder list\n",
    "strategic merge patch format is not supported\n",
}
UNPROCESSABLE = {"lists of lists are not supported\n", "patch content doesn't match retainKeys list\n"}


def _printed(error: str) -> str:
    """An error as kubectl prints it (``cmdutil.fatal``): a newline added unless it ends in one."""
    return error if error.endswith("\n") else error + "\n"


def _type_of(kind: str) -> Any:
    api_version = OBJECTS[kind]["apiVersion"]
    group, _, version = api_version.rpartition("/")
    return builtin_type(group, version, kind)


def _compute(case: dict[str, Any]) -> Any:
    rtype = _type_of(case["kind"])
    options = parse_write_options("PatchOptions", MultiDict(), "kubectl/v1.32.4")
    compute = compute_patch(rtype, STRATEGIC_MERGE_PATCH, case["patch"].encode(), options, PatchContext(go_structs()))
    return compute(OBJECTS[case["kind"]])


def _sorted(value: Any) -> Any:
    """Keys sorted, as Go writes a map, and integral floats as Go writes a float64 (``8080.0`` is ``8080``)."""
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


_WRAPPED = re.compile(r"cannot unmarshal number (-?\d+) into Go struct field \S+ of type u?int(8|16|32|64)$")


def _known_difference(case: dict[str, Any]) -> bool:
    """Where kubectl's recipe is not the apiserver (smp/README.md): the apiserver converts the merged map
    without JSON, so an integer out of range wraps instead of failing, and a map without ``kind`` (which
    kubectl cannot print) converts into the resource's own type."""
    wrapped = _WRAPPED.search(case.get("undecodable", ""))
    missing_kind = case.get("error", "").startswith("Object 'Kind' is missing in")
    return wrapped is not None or missing_kind


def _spelled(value: Any) -> bytes:
    """Go's encoding of the value as a map: keys sorted."""
    return encode(_sorted(value))


def test_the_corpus_is_large_and_covers_every_kind() -> None:
    assert len(CASES) >= 3000
    kinds = {case["kind"] for case in CASES}
    workloads = {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "ReplicationController"}
    assert kinds >= workloads | {"Pod", "Service", "ConfigMap", "Secret"}
    assert sum("error" in case for case in CASES) >= 100
    assert sum("undecodable" in case for case in CASES) >= 100
    assert sum("typed" in case for case in CASES) >= 1200


def _variant_of(case: dict[str, Any], merged: Any) -> dict[str, Any] | None:
    """The recorded variant of a nondeterministic case that the engine's merged map is."""
    for variant in case["variants"]:
        if _spelled(merged) == _spelled(variant["patched"]):
            return dict(variant)
    return None


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_the_merged_map_is_kubectls(case: dict[str, Any]) -> None:
    meta = kind_patch_meta(go_structs(), OBJECTS[case["kind"]]["apiVersion"], case["kind"])
    assert meta is not None
    patch = json.loads(case["patch"])
    if "panic" in case:
        with pytest.raises(StrategicMergePanic):
            strategic_merge_patch(OBJECTS[case["kind"]], patch, meta)
    elif "nondeterministic" in case:
        try:
            merged = strategic_merge_patch(OBJECTS[case["kind"]], patch, meta)
        except StrategicMergePanic:
            assert case.get("panics_too"), "Go does not panic in any map order kubectl tried"
        except StrategicMergeError as error:
            assert _printed(error.go_error) in case["errors"]
        else:
            assert _variant_of(case, merged) is not None, "no map order kubectl tried merges to this"
    elif "error" in case and not _known_difference(case):
        with pytest.raises(StrategicMergeError) as caught:
            strategic_merge_patch(OBJECTS[case["kind"]], patch, meta)
        assert _printed(caught.value.go_error) == case["error"]
    elif "patched" in case:
        merged = strategic_merge_patch(OBJECTS[case["kind"]], patch, meta)
        assert _spelled(merged) == _spelled(case["patched"])


def _expect_status(case: dict[str, Any], status: dict[str, Any]) -> None:
    """The apiserver's answer to the library error, or to a result that does not decode, kubectl saw."""
    if "undecodable" in case:
        assert (status["code"], status["reason"]) == (422, "Invalid")
        assert [cause["field"] for cause in status["details"]["causes"]] == ["patch"]
    elif case["error"] in BAD_REQUEST:
        assert (status["code"], status["reason"], _printed(status["message"])) == (400, "BadRequest", case["error"])
    elif case["error"] in UNPROCESSABLE:
        assert (status["code"], status["reason"]) == (422, "Invalid")
    else:
        assert (status["code"], status.get("reason", ""), _printed(status["message"])) == (500, "", case["error"])


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_the_patch_ends_as_the_apiserver_ends_it(case: dict[str, Any]) -> None:
    if "panic" in case:
        with pytest.raises(ApiserverPanic):
            _compute(case)
        return
    if "nondeterministic" in case:
        _ends_as_one_of_the_outcomes(case)
        return
    if _known_difference(case):
        _ends_despite_the_known_difference(case)
        return
    if "error" in case or "undecodable" in case:
        with pytest.raises(APIError) as caught:
            _compute(case)
        _expect_status(case, caught.value.status())
        return
    result = _compute(case)
    if "typed" in case:
        assert _spelled(result) == _spelled(case["typed"])


def _ends_as_one_of_the_outcomes(case: dict[str, Any]) -> None:
    rtype = _type_of(case["kind"])
    meta = kind_patch_meta(go_structs(), rtype.api_version, case["kind"])
    assert meta is not None
    try:
        merged = strategic_merge_patch(OBJECTS[case["kind"]], json.loads(case["patch"]), meta)
    except StrategicMergeError as error:
        with pytest.raises(APIError) as caught:
            _compute(case)
        _expect_status({"error": _printed(error.go_error)}, caught.value.status())
        return
    except StrategicMergePanic:
        with pytest.raises(ApiserverPanic):
            _compute(case)
        return
    variant = _variant_of(case, merged)
    assert variant is not None
    if "undecodable" in variant:
        with pytest.raises(APIError) as caught:
            _compute(case)
        _expect_status(variant, caught.value.status())
    elif "typed" in variant:
        assert _spelled(_compute(case)) == _spelled(variant["typed"])
    else:
        _compute(case)


def _ends_despite_the_known_difference(case: dict[str, Any]) -> None:
    """An integer out of range wraps and a map without ``kind`` converts: whatever else the result
    meets, it is never refused for those."""
    try:
        _compute(case)
    except APIError as error:
        message = error.status()["message"]
        assert "Kind' is missing" not in message and "cannot unmarshal number" not in message
        assert error.status()["code"] == 422
