"""What the two candidate sources of built-in schemas cost: ``kubernetes-validate`` and ``lightkube-models``.

For each package installed in the Python given by ``--python`` (default: this one), the script
prints its size on disk, the wall time of importing it in a fresh interpreter (less a bare
interpreter's start), the time to load one Kubernetes version's data and the cost of one lookup
once loaded (the work a request would do), and what the data carries: definitions, descriptions,
``x-kubernetes-*`` extensions, resource tables (plural, verbs, scope, subresources, short names,
categories) and the Kubernetes versions one install holds.

``kubernetes-validate`` is measured the way fakeapi reads it: its data folder is found with
``importlib.util.find_spec`` (its own code, which imports jsonschema, is never imported) and one
version's ``_definitions.json`` is parsed with orjson. ``lightkube-models`` is measured by importing
its ``lightkube.resources`` modules (they need the ``lightkube`` client package). Run each venv in
turn: ``python benchmarks/schema_sources.py --python /path/to/venv/bin/python``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from _common import Stats, print_footer, print_header, print_table

_PROBE = r"""
import importlib.util, json, os, sys, time
which, version, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])

def size(path):
    total = 0
    for root, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total

out = {}
if which == "kubernetes-validate":
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None:
        print(json.dumps(None)); sys.exit()
    root = spec.submodule_search_locations[0]
    out["size"] = size(root)
    folder = os.path.join(root, "kubernetes-json-schema")
    out["versions"] = sorted(n[1:].split("-")[0] for n in os.listdir(folder) if n.endswith("-local"))
    import orjson
    path = os.path.join(folder, f"v{version}-local", "_definitions.json")
    started = time.perf_counter()
    with open(path, "rb") as f:
        defs = orjson.loads(f.read())["$defs"]
    out["load"] = time.perf_counter() - started
    out["definitions"] = len(defs)
    text = orjson.dumps(defs).decode()
    out["extensions"] = sorted({m for m in ("x-kubernetes-list-type", "x-kubernetes-list-map-keys",
        "x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key", "x-kubernetes-map-type",
        "x-kubernetes-group-version-kind") if m in text})
    out["descriptions"] = '"description"' in text
    out["resource_table"] = []
    started = time.perf_counter()
    for _ in range(repeats):
        defs["io.k8s.api.apps.v1.Deployment"]["properties"]["spec"]
    out["lookup"] = (time.perf_counter() - started) / repeats
else:
    spec = importlib.util.find_spec("lightkube")
    if spec is None or importlib.util.find_spec("lightkube.models") is None:
        print(json.dumps(None)); sys.exit()
    from importlib.metadata import version as installed
    out["size"] = size(spec.submodule_search_locations[0])
    out["versions"] = [installed("lightkube-models")]
    started = time.perf_counter()
    import lightkube.resources.apps_v1 as apps
    out["load"] = time.perf_counter() - started
    info = apps.Deployment._api_info
    out["definitions"] = None
    out["extensions"] = []
    out["descriptions"] = "ConfigMap holds" in (__import__("lightkube.models.core_v1", fromlist=["x"]).ConfigMap.__doc__ or "")
    out["resource_table"] = [f for f in ("plural", "verbs", "parent", "action") if hasattr(info, f)]
    started = time.perf_counter()
    for _ in range(repeats):
        apps.Deployment._api_info.plural
    out["lookup"] = (time.perf_counter() - started) / repeats
print(json.dumps(out))
"""


def _wall(python: str, code: str) -> float:
    import time

    started = time.perf_counter()
    subprocess.run([python, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - started


def _import_time(python: str, module: str, repeats: int) -> float:
    bare, loaded = [], []
    for _ in range(repeats):
        bare.append(_wall(python, "pass"))
        loaded.append(_wall(python, f"import {module}"))
    return Stats.of(loaded).median - Stats.of(bare).median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose packages are measured")
    parser.add_argument("--kube-version", default="1.32.0", help="the Kubernetes version whose data is loaded")
    parser.add_argument("--repeats", type=int, default=9, help="fresh interpreters per import figure")
    args = parser.parse_args()
    print_header("Sources of built-in schemas", args)
    rows = []
    for which, module in (
        ("kubernetes-validate", "kubernetes_validate"),
        ("lightkube-models", "lightkube.resources.apps_v1"),
    ):
        probe = subprocess.run(
            [args.python, "-c", _PROBE, which, args.kube_version, "100000"], check=True, capture_output=True, text=True
        )
        found = json.loads(probe.stdout)
        if found is None:
            rows.append([which, "not installed", "", "", "", "", "", "", ""])
            continue
        imported = _import_time(args.python, module, args.repeats)
        versions = found["versions"]
        rows.append(
            [
                which,
                f"{found['size'] / 1e6:.1f} MB",
                f"{imported * 1e3:.1f} ms",
                f"{found['load'] * 1e3:.1f} ms",
                f"{found['lookup'] * 1e9:.0f} ns",
                str(found["definitions"] or "-"),
                ", ".join(e.removeprefix("x-kubernetes-") for e in found["extensions"]) or "none",
                ", ".join(found["resource_table"]) or "none",
                f"{versions[0]}..{versions[-1]} ({len(versions)})" if len(versions) > 1 else versions[0],
            ]
        )
    print_table(
        [
            "package",
            "on disk",
            "import",
            "load one version",
            "lookup",
            "definitions",
            "x-kubernetes-*",
            "resource table",
            "versions",
        ],
        rows,
        right=(1, 2, 3, 4, 5),
    )
    print(
        "import: `import <package>` in a fresh interpreter, less a bare one (median); load: kubernetes-validate's\n"
        "_definitions.json of one version parsed with orjson, lightkube's apps_v1 resources imported; lookup: one\n"
        "field of Deployment's schema, or Deployment's plural, once loaded."
    )
    print_footer()


if __name__ == "__main__":
    main()
