#!/usr/bin/env python3
"""Generate the conformance inputs, split the harness's records into case files, check deltas.

The inputs probe exactly the behaviours fakeapi must copy from kube-apiserver (docs/json-encoding.md,
docs/json-patch.md, docs/merge-patch.md): Go's spelling of stored values, the byte-wise `test` of evanphx/json-patch
v4.12.0, its pointer and index quirks and panics, merge patch null handling, and the decode errors
of malformed bodies. Every family is hand-written templates plus a seeded random mix; the output
depends only on the seed (stdlib only, no hash-order dependence).

    generate_cases.py generate --seed N          input lines on stdout
    generate_cases.py split --out DIR            harness records on stdin -> DIR/<family>.jsonl
    generate_cases.py check EXPECTED ACTUAL      hand-written expectations vs harness records
"""

from __future__ import annotations

import argparse
import base64
import itertools
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from casegen import encode_cases, jsonpatch_scenarios, jsonpatch_shapes, jsonpatch_values, merge_cases
from casegen.jsontext import STYLES, dump
from casegen.patches import TEMPLATES_END, Case, Family

# (family, kind, generator, random cases after the templates)
FAMILIES: list[tuple[str, str, Family, int]] = [
    ("jp-escapes", "json-patch", jsonpatch_values.escapes, 150),
    ("jp-unicode", "json-patch", jsonpatch_values.unicode, 150),
    ("jp-numbers", "json-patch", jsonpatch_values.numbers, 200),
    ("jp-nulls", "json-patch", jsonpatch_values.nulls, 250),
    ("jp-pointers", "json-patch", jsonpatch_shapes.pointers, 150),
    ("jp-indices", "json-patch", jsonpatch_shapes.indices, 150),
    ("jp-op-shapes", "json-patch", jsonpatch_shapes.op_shapes, 200),
    ("jp-malformed", "json-patch", jsonpatch_shapes.malformed, 60),
    ("jp-claims", "json-patch", jsonpatch_scenarios.claims, 600),
    ("jp-move-copy", "json-patch", jsonpatch_scenarios.move_copy, 250),
    ("jp-long", "json-patch", jsonpatch_scenarios.long, 2),
    ("jp-random", "json-patch", jsonpatch_scenarios.random_mix, 1200),
    ("mp-nulls", "merge-patch", merge_cases.nulls, 270),
    ("mp-arrays", "merge-patch", merge_cases.arrays, 200),
    ("mp-spellings", "merge-patch", merge_cases.spellings, 200),
    ("mp-shapes", "merge-patch", merge_cases.shapes, 150),
    ("mp-metadata", "merge-patch", merge_cases.metadata, 250),
    ("mp-random", "merge-patch", merge_cases.random_mix, 400),
    ("enc-strings", "encode", encode_cases.strings, 150),
    ("enc-numbers", "encode", encode_cases.numbers, 150),
    ("enc-structure", "encode", encode_cases.structure, 250),
    ("enc-invalid", "encode", encode_cases.invalid, 150),
]
GENERATED_PREFIXES = ("jp-", "mp-", "enc-")
# Client spellings of request bodies; Python's json.dumps defaults are the most common in practice.
PATCH_STYLES = {"py": 4, "pyc": 2, "utf8": 2, "go": 2, "pretty": 1, "spaced": 1}
RESULT_FIELDS = (
    "decode_error",
    "current",
    "predecode_error",
    "strict_errors",
    "op_count",
    "decode_patch_error",
    "apply",
    "stored",
    "stored_error",
)


def byte_field(data: bytes) -> Any:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def family_cases(gen: Family, rng: random.Random, extra: int) -> Iterator[Case]:
    cases = gen(rng)
    for case in cases:
        if case is TEMPLATES_END:
            break
        yield case
    yield from itertools.islice(cases, extra)


def generate(seed: int, out: Any) -> None:
    for family, kind, gen, extra in FAMILIES:
        rng = random.Random(f"{seed}/{family}")
        for i, case in enumerate(family_cases(gen, rng, extra)):
            doc = case.doc if isinstance(case.doc, bytes) else dump(case.doc, rng.choice(STYLES))
            line: dict[str, Any] = {
                "id": f"{family}-{i:05d}",
                "family": family,
                "kind": kind,
                "doc": byte_field(doc),
            }
            if kind != "encode":
                style = rng.choices(list(PATCH_STYLES), list(PATCH_STYLES.values()))[0]
                patch = case.patch if isinstance(case.patch, bytes) else dump(case.patch, style)
                line["patch"] = byte_field(patch)
            out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")


def split(out_dir: Path, records: Any) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in out_dir.glob("*.jsonl"):
        if stale.name.startswith(GENERATED_PREFIXES):
            stale.unlink()
    by_family: dict[str, list[bytes]] = {}
    for line in records:
        by_family.setdefault(json.loads(line)["family"], []).append(line)
    for family, lines in by_family.items():
        with open(out_dir / f"{family}.jsonl", "wb") as f:
            f.writelines(lines)
    for family in by_family:
        size = (out_dir / f"{family}.jsonl").stat().st_size
        if size > 5 * 1024 * 1024:
            print(f"split: {family}.jsonl is {size} bytes, over 5 MB", file=sys.stderr)


def check(expected_path: Path, actual_path: Path) -> int:
    """Every hand-written record's results must equal the harness's, field for field."""
    actual = {r["id"]: r for r in map(json.loads, actual_path.read_text(encoding="utf-8").splitlines())}
    failures = 0
    for line in expected_path.read_text(encoding="utf-8").splitlines():
        want = json.loads(line)
        got = actual.get(want["id"], {})
        for field in RESULT_FIELDS:
            if want.get(field) != got.get(field):
                failures += 1
                print(f"{want['id']}: {field}: expected {want.get(field)!r}, harness {got.get(field)!r}")
    print(f"check: {len(actual)} cases, {failures} mismatches", file=sys.stderr)
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate")
    gen.add_argument("--seed", type=int, required=True)
    spl = sub.add_parser("split")
    spl.add_argument("--out", type=Path, required=True)
    chk = sub.add_parser("check")
    chk.add_argument("expected", type=Path)
    chk.add_argument("actual", type=Path)
    args = parser.parse_args()
    if args.command == "generate":
        generate(args.seed, sys.stdout.buffer)
    elif args.command == "split":
        split(args.out, sys.stdin.buffer)
    else:
        return check(args.expected, args.actual)
    return 0


if __name__ == "__main__":
    sys.exit(main())
