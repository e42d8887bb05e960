"""fakeapi's JSON patch engine against the python ``jsonpatch`` package, on the same inputs; Go-encoding against orjson.

The engine is timed the way the PATCH handler runs it: the strict pre-decode of the body, the
patch decode, the apply on the stored object (decoded with fakeapi's Go decoder, floats as
GoFloat) with the apiserver's 3 MiB copy limit, and the decode of the result. ``jsonpatch`` is
timed as an operator test suite uses it: ``JsonPatch(json.loads(body)).apply(doc)``, which deep-copies.
The inputs are the seed operator's claim patch on a ~4 KB kopf-managed custom resource, a 100-op patch, and
a whole-map ``test`` of ``/metadata/annotations``: once as a Python client sends it (``json.dumps``;
the apiserver refuses it, jsonpatch accepts it) and once in Go's spelling (both accept it).

Goals (issue 2): engine median at most half of jsonpatch's; ``fakeapi._patching.encode`` of the
4 KB object within 3x of ``orjson.dumps(..., option=OPT_SORT_KEYS)``.

Each call is timed on its own; cases run interleaved in rounds so that a change in machine load
hits both sides alike. The garbage collector stays on, as in a server, so p99 includes its pauses.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jsonpatch
import orjson
from _common import (
    KOPF_LAST_HANDLED,
    Stats,
    custom_resource,
    print_footer,
    print_header,
    print_table,
    seconds,
    verdict,
)

from fakeapi._patching import (
    PatchOutcome,
    apply_patch,
    decode,
    decode_patch,
    diagnose_failed_test,
    encode,
    normalize,
    predecode_json_patch,
)

COPY_LIMIT = 3 * 1024 * 1024
PATCH_GOAL = 0.5
ENCODE_GOAL = 3.0


@dataclass(frozen=True)
class Case:
    name: str
    body: bytes


def claim_patch(stored: dict[str, Any]) -> Case:
    """The seed operator's claim: pin the snapshot by uid and resourceVersion, then record the completion."""
    meta = stored["metadata"]
    ops = [
        {"op": "test", "path": "/metadata/uid", "value": meta["uid"]},
        {"op": "test", "path": "/metadata/resourceVersion", "value": meta["resourceVersion"]},
        {
            "op": "add",
            "path": "/status/completion",
            "value": {"claimedBy": "replica-a", "phase": "Completed", "completedAt": "2025-01-15T11:00:00Z"},
        },
    ]
    return Case("claim (test uid, test rv, add /status/…)", json.dumps(ops).encode())


def hundred_op_patch(stored: dict[str, Any]) -> Case:
    """100 ops cycling through every kind: add, replace, test, append, copy, remove, move, test."""
    image = stored["spec"]["image"]
    ops: list[dict[str, Any]] = []
    k = 0
    while len(ops) < 100:
        cycle: list[dict[str, Any]] = [
            {"op": "add", "path": f"/metadata/labels/bench-{k}", "value": f"v{k}"},
            {"op": "replace", "path": "/spec/parallelism", "value": k},
            {"op": "test", "path": "/spec/image", "value": image},
            {
                "op": "add",
                "path": "/status/conditions/-",
                "value": {"type": f"Step{k}", "status": "True", "reason": "Bench", "message": f"step {k} < done & ok"},
            },
            {"op": "copy", "from": f"/metadata/labels/bench-{k}", "path": f"/metadata/labels/copy-{k}"},
            {"op": "remove", "path": f"/metadata/labels/bench-{k}"},
            {"op": "move", "from": f"/metadata/labels/copy-{k}", "path": f"/metadata/annotations/moved-{k}"},
            {"op": "test", "path": f"/metadata/annotations/moved-{k}", "value": f"v{k}"},
        ]
        ops.extend(cycle[: 100 - len(ops)])
        k += 1
    return Case("100 ops (all kinds)", json.dumps(ops).encode())


def whole_map_patches(stored: dict[str, Any]) -> list[Case]:
    """The fragile claim: test the annotations map as the client read it, then claim."""
    annotations = stored["metadata"]["annotations"]
    claim = {"op": "add", "path": "/status/claimedBy", "value": "replica-a"}
    python_spelling = json.dumps([{"op": "test", "path": "/metadata/annotations", "value": annotations}, claim])
    go_spelling = (
        b'[{"op":"test","path":"/metadata/annotations","value":'
        + encode(annotations)
        + b"},"
        + json.dumps(claim).encode()
        + b"]"
    )
    return [
        Case("whole-map test, json.dumps spelling", python_spelling.encode()),
        Case("whole-map test, Go spelling", go_spelling),
    ]


def fakeapi_engine(stored: dict[str, Any], body: bytes) -> Callable[[], Any]:
    def run() -> Any:
        pre = predecode_json_patch(body)
        patch = decode_patch(pre.text)
        outcome = apply_patch(stored, patch, copy_limit=COPY_LIMIT)
        return outcome.value() if outcome.ok else outcome

    return run


def jsonpatch_engine(document: dict[str, Any], body: bytes) -> Callable[[], Any]:
    def run() -> Any:
        try:
            return jsonpatch.JsonPatch(json.loads(body)).apply(document)
        except jsonpatch.JsonPatchException as error:
            return error

    return run


def time_interleaved(
    functions: dict[str, Callable[[], Any]], *, warmup: int, repeats: int, round_size: int
) -> dict[str, Stats]:
    """Per-call times of each function, ``repeats`` calls each, in alternating rounds of ``round_size``."""
    for function in functions.values():
        for _ in range(warmup):
            function()
    samples: dict[str, list[float]] = {name: [] for name in functions}
    clock = time.perf_counter
    done = 0
    while done < repeats:
        size = min(round_size, repeats - done)
        for name, function in functions.items():
            bucket = samples[name]
            for _ in range(size):
                start = clock()
                function()
                bucket.append(clock() - start)
        done += size
    return {name: Stats.of(times) for name, times in samples.items()}


PHASES = ("predecode_json_patch", "decode_patch", "apply_patch", "outcome.value()")


def phase_times(stored: dict[str, Any], body: bytes, *, warmup: int, repeats: int) -> list[Stats]:
    """Where the engine's time goes: each phase of one call timed on its own, ``repeats`` calls."""
    clock = time.perf_counter
    samples: list[list[float]] = [[] for _ in PHASES]
    for attempt in range(warmup + repeats):
        t0 = clock()
        pre = predecode_json_patch(body)
        t1 = clock()
        patch = decode_patch(pre.text)
        t2 = clock()
        outcome = apply_patch(stored, patch, copy_limit=COPY_LIMIT)
        t3 = clock()
        if outcome.ok:
            outcome.value()
        t4 = clock()
        if attempt >= warmup:
            for bucket, elapsed in zip(samples, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
                bucket.append(elapsed)
    return [Stats.of(bucket) for bucket in samples]


def describe_fakeapi(stored: dict[str, Any], body: bytes) -> str:
    outcome = apply_patch(stored, decode_patch(predecode_json_patch(body).text), copy_limit=COPY_LIMIT)
    if outcome.panic is not None:
        return "500 (panic)"
    if outcome.error is None:
        return "applied"
    spelling = [d for d in (diagnose_failed_test(*failed) for failed in outcome.failed_tests) if d is not None]
    return "422, spelling" if spelling else "422"


def describe_jsonpatch(result: Any) -> str:
    return f"failed: {type(result).__name__}" if isinstance(result, Exception) else "applied"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--repeats", type=int, default=2000, help="timed calls per case and engine (default: %(default)s)"
    )
    parser.add_argument(
        "--warmup", type=int, default=200, help="untimed calls per case and engine first (default: %(default)s)"
    )
    parser.add_argument(
        "--round",
        dest="round_size",
        type=int,
        default=50,
        help="calls of one engine before switching to the other (default: %(default)s)",
    )
    parser.add_argument(
        "--breakdown", action="store_true", help="also time each phase of fakeapi's engine (where the time goes)"
    )
    args = parser.parse_args(argv)
    print_header("JSON patch engine: fakeapi vs python jsonpatch; Go encoding vs orjson", args)

    plain = custom_resource()
    stored_bytes = encode(decode(orjson.dumps(plain)))
    stored = decode(stored_bytes)  # what the store holds: Go-decoded, floats as GoFloat
    document = json.loads(stored_bytes)  # what a Python client holds
    print(f"document: {stored['kind']} {stored['metadata']['name']}, {len(stored_bytes)} bytes in Go's encoding;")
    print(f"          {KOPF_LAST_HANDLED} holds json.dumps of its spec, which holds {stored['spec']['command']!r}\n")

    cases = [claim_patch(stored), hundred_op_patch(stored), *whole_map_patches(stored)]
    rows = []
    for case in cases:
        ours, theirs = fakeapi_engine(stored, case.body), jsonpatch_engine(document, case.body)
        ours_result, theirs_result = ours(), theirs()
        outcomes = f"{describe_fakeapi(stored, case.body)} / {describe_jsonpatch(theirs_result)}"
        both_applied = not isinstance(ours_result, PatchOutcome) and not isinstance(theirs_result, Exception)
        if both_applied and encode(ours_result) != encode(normalize(theirs_result)):
            outcomes += " (RESULTS DIFFER)"
        stats = time_interleaved(
            {"fakeapi": ours, "jsonpatch": theirs}, warmup=args.warmup, repeats=args.repeats, round_size=args.round_size
        )
        ratio = stats["fakeapi"].median / stats["jsonpatch"].median
        rows.append(
            [
                case.name,
                f"{len(case.body)} B",
                outcomes,
                seconds(stats["fakeapi"].median),
                seconds(stats["fakeapi"].p99),
                seconds(stats["jsonpatch"].median),
                seconds(stats["jsonpatch"].p99),
                f"{ratio:.2f}",
                f"≤ {PATCH_GOAL:.2f}",
                verdict(ratio <= PATCH_GOAL),
            ]
        )
    print(f"JSON patch, per call ({args.repeats} calls per engine and case; outcome is fakeapi / jsonpatch)")
    print_table(
        ["case", "body", "outcome", "fakeapi p50", "p99", "jsonpatch p50", "p99", "ratio", "goal", "verdict"],
        rows,
        right=(1, 3, 4, 5, 6, 7),
    )
    if args.breakdown:
        breakdown = []
        for case in cases:
            phases = phase_times(stored, case.body, warmup=args.warmup, repeats=args.repeats)
            breakdown.append([case.name, *(seconds(phase.median) for phase in phases)])
        print("fakeapi's engine by phase, median per call")
        print_table(["case", *PHASES], breakdown, right=(1, 2, 3, 4))

    encode_input = stored
    orjson_input = document
    same = encode(encode_input) == stored_bytes
    stats = time_interleaved(
        {
            "encode": lambda: encode(encode_input),
            "orjson": lambda: orjson.dumps(orjson_input, option=orjson.OPT_SORT_KEYS),
        },
        warmup=args.warmup,
        repeats=args.repeats,
        round_size=args.round_size,
    )
    ratio = stats["encode"].median / stats["orjson"].median
    print(f"Go encoding of the {len(stored_bytes)}-byte document, per call (round trip byte-identical: {same})")
    print_table(
        ["encoder", "p50", "p99", "ratio to orjson", "goal", "verdict"],
        [
            [
                "orjson.dumps(OPT_SORT_KEYS)",
                seconds(stats["orjson"].median),
                seconds(stats["orjson"].p99),
                "1.00",
                "",
                "",
            ],
            [
                "fakeapi._patching.encode",
                seconds(stats["encode"].median),
                seconds(stats["encode"].p99),
                f"{ratio:.2f}",
                f"≤ {ENCODE_GOAL:.1f}",
                verdict(ratio <= ENCODE_GOAL),
            ],
        ],
        right=(1, 2, 3),
    )
    print_footer()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
