"""CPU time of a custom-resource create that passes two CEL rules, against the same create with no rules.

One ServerState holds two CRDs with the same schema, except that one carries two ``x-kubernetes-validations``
rules on ``spec`` (``self.minReplicas <= self.maxReplicas`` and ``self.name.size() < 64``). Each round
creates one object of each kind, alternately, through ``Store.create`` (no HTTP), after ``--warmup``
unmeasured rounds. Prints the CPU time per create of each and their ratio (goal: at most 1.5x).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from _common import print_footer, print_header, print_table, verdict

from fakeapi._http.context import ServerState

GROUP = "bench.example.com"
RULES = [{"rule": "self.minReplicas <= self.maxReplicas"}, {"rule": "self.name.size() < 64"}]


def crd(plural: str, kind: str, rules: list[dict[str, Any]]) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "type": "object",
        "properties": {
            "minReplicas": {"type": "integer"},
            "maxReplicas": {"type": "integer"},
            "name": {"type": "string"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    }
    if rules:
        spec["x-kubernetes-validations"] = rules
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}},
                }
            ],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--creates", type=int, default=3000, help="measured creates of each (default: %(default)s)")
    parser.add_argument("--warmup", type=int, default=300, help="unmeasured rounds first (default: %(default)s)")
    args = parser.parse_args()
    print_header("Custom resource create: two CEL rules against none", args)
    store = ServerState().store
    registry = store.registry
    crds = registry.resolve("apiextensions.k8s.io", "v1", "customresourcedefinitions")
    namespaces = registry.resolve("", "v1", "namespaces")
    assert crds is not None and namespaces is not None
    if store.find(namespaces, "", "default") is None:
        store.create(namespaces, "", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}})
    store.create(crds, "", crd("plains", "Plain", []), manager="bench")
    store.create(crds, "", crd("ruleds", "Ruled", RULES), manager="bench")
    plain = registry.resolve(GROUP, "v1", "plains")
    ruled = registry.resolve(GROUP, "v1", "ruleds")
    assert plain is not None and ruled is not None
    spent = {"plain": 0.0, "ruled": 0.0}

    def create(kind: str, rtype: Any, index: int, measured: bool) -> None:
        body = {
            "apiVersion": f"{GROUP}/v1",
            "kind": "Plain" if kind == "plain" else "Ruled",
            "metadata": {"name": f"o-{index}"},
            "spec": {"minReplicas": 1, "maxReplicas": 3, "name": f"object-{index}", "labels": {"a": "b"}},
        }
        started = time.process_time()
        store.create(rtype, "default", body, manager="bench")
        if measured:
            spent[kind] += time.process_time() - started

    for index in range(args.warmup + args.creates):
        measured = index >= args.warmup
        create("plain", plain, index, measured)
        create("ruled", ruled, index, measured)
    plain_us = spent["plain"] / args.creates * 1e6
    ruled_us = spent["ruled"] / args.creates * 1e6
    ratio = ruled_us / plain_us
    print_table(
        ("create", "CPU per create"),
        [("no rules", f"{plain_us:.1f} µs"), ("two CEL rules", f"{ruled_us:.1f} µs")],
        right=(1,),
    )
    print(f"\nratio {ratio:.2f}x (goal at most 1.5x): {verdict(ratio <= 1.5)}")
    print_footer()


if __name__ == "__main__":
    main()
