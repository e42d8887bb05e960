"""Record k8s.io/api's round-trip fixtures of every GA kind as test data: Go's own writing of each struct.

k8s.io/api keeps, for every kind, a fuzzed object as Go's ``encoding/json`` writes it
(``testdata/HEAD/<group>.<version>.<Kind>.json``, indented, every field set, written by the
package's round-trip test). Compacted, each is the exact bytes the apiserver writes for that object:
fields in struct order, maps sorted. This writes one JSON line per GA kind the structs data file
knows, ``{"apiVersion", "kind", "json"}`` with ``json`` the compact text, for
``tests/conformance/typed/test_struct_order.py``:

    python tools/gostructs/record_fixtures.py --api ~/src/api --tag v0.32.0 \\
        --structs fakeapi/_state/typed/data/structs-1.32.json \\
        --out tests/conformance/typed/k8s-api-fixtures-1.32.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

_FIXTURE = re.compile(r"^testdata/HEAD/(?P<group>[\w.-]+?)\.(?P<version>v\d+)\.(?P<kind>[A-Z]\w*)\.json$")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def _compact(text: str) -> str:
    """``json.Compact``: whitespace outside strings dropped, every other byte kept."""
    return re.sub(r'("(?:[^"\\]|\\.)*")|\s+', lambda match: match.group(1) or "", text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", type=Path, required=True, help="a clone of kubernetes/api")
    parser.add_argument("--tag", required=True, help="the tag, e.g. v0.32.0")
    parser.add_argument("--structs", type=Path, required=True, help="the structs data file of that version")
    parser.add_argument("--out", type=Path, required=True, help="the JSON lines file to write")
    args = parser.parse_args()
    kinds = json.loads(args.structs.read_text())["kinds"]
    lines = []
    for path in _git(args.api, "ls-tree", "-r", "--name-only", args.tag, "testdata/HEAD").split():
        match = _FIXTURE.match(path)
        if match is None:
            continue
        group = "" if match["group"] == "core" else match["group"]
        api_version = f"{group}/{match['version']}" if group else match["version"]
        if f"{api_version} {match['kind']}" not in kinds:
            continue
        text = _compact(_git(args.api, "show", f"{args.tag}:{path}"))
        lines.append(json.dumps({"apiVersion": api_version, "kind": match["kind"], "json": text}, ensure_ascii=False))
    args.out.write_text("".join(line + "\n" for line in sorted(lines)), encoding="utf-8")
    print(f"{len(lines)} fixtures written to {args.out}")


if __name__ == "__main__":
    main()
