"""A strategic merge patch against a merge patch of the same size, on the same 4 KB Deployment.

Both are timed as the PATCH handler computes them for the store: the strict decode of the body,
the merge (``StrategicMergeMapPatch`` with the Deployment's Go struct as schema, or RFC 7386), and
the typed round trip of the result into the Deployment's Go type (the converter for the strategic
merge patch, the JSON decoding of the patched text for the merge patch). The patch is what
``kubectl set image`` and ``kubectl apply`` send for a Deployment: a new image for one container
with ``$setElementOrder/containers``, an added env var and a label; the merge patch sets the same
fields (its list is replaced whole, as merge patch does).

Goal (issue 17): the strategic merge patch's median at most 3x the merge patch's. A floor is timed
in the same run, ``orjson.loads`` of the strategic body and of the stored document's bytes plus
``orjson.dumps`` of the result (the least any patch of this document costs in Python), so the
figures compare across machines as ratios. Calls alternate one by one, so machine load hits all
alike.
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from collections.abc import Callable
from typing import Any

import orjson
from _common import Stats, print_footer, print_header, print_table, seconds, verdict
from multidict import MultiDict

from fakeapi._http.negotiation import MERGE_PATCH, STRATEGIC_MERGE_PATCH
from fakeapi._http.options import parse_write_options
from fakeapi._http.patching import PatchContext, compute_patch
from fakeapi._patching import decode, encode
from fakeapi._state.kinds import builtin_type
from fakeapi._state.typed import go_structs

GOAL = 3.0


def deployment() -> dict[str, Any]:
    """A Deployment as stored: four containers with env, ports, probes and resources (about 4 KB)."""
    containers = []
    for index, name in enumerate(("app", "proxy", "metrics", "logs")):
        containers.append(
            {
                "name": name,
                "image": f"registry.example/{name}:1.{index}",
                "args": [f"--listen=:{8080 + index}", "--log-level=info"],
                "ports": [{"name": "http", "containerPort": 8080 + index, "protocol": "TCP"}],
                "env": [{"name": f"VAR_{k}", "value": f"value-{k}"} for k in range(4)],
                "resources": {
                    "limits": {"cpu": "500m", "memory": "256Mi"},
                    "requests": {"cpu": "100m", "memory": "64Mi"},
                },
                "readinessProbe": {
                    "httpGet": {"path": "/ready", "port": 8080 + index, "scheme": "HTTP"},
                    "periodSeconds": 10,
                },
                "volumeMounts": [{"name": "config", "mountPath": f"/etc/{name}"}],
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "imagePullPolicy": "IfNotPresent",
            }
        )
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "namespace": "default",
            "uid": "6f0bd8a5-7e6b-4f8e-9a51-6c3c1b3f2a10",
            "resourceVersion": "42",
            "generation": 3,
            "creationTimestamp": "2024-05-01T10:00:00Z",
            "labels": {"app": "web", "tier": "frontend"},
            "annotations": {"deployment.kubernetes.io/revision": "3"},
        },
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": containers,
                    "volumes": [{"name": "config", "configMap": {"name": "web-config", "defaultMode": 420}}],
                    "restartPolicy": "Always",
                    "terminationGracePeriodSeconds": 30,
                    "dnsPolicy": "ClusterFirst",
                    "schedulerName": "default-scheduler",
                },
            },
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
        },
        "status": {"observedGeneration": 3, "replicas": 3, "readyReplicas": 3},
    }


def patches(stored: dict[str, Any]) -> tuple[bytes, bytes]:
    """The strategic merge patch and a merge patch setting the same fields."""
    containers = stored["spec"]["template"]["spec"]["containers"]
    strategic = {
        "metadata": {"labels": {"version": "v2"}},
        "spec": {
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": c["name"]} for c in containers],
                    "containers": [
                        {
                            "name": "app",
                            "image": "registry.example/app:2.0",
                            "env": [{"name": "FEATURE", "value": "on"}],
                        }
                    ],
                }
            }
        },
    }
    merged = copy.deepcopy(containers)
    merged[0]["image"] = "registry.example/app:2.0"
    merged[0]["env"].insert(0, {"name": "FEATURE", "value": "on"})
    merge = {"metadata": {"labels": {"version": "v2"}}, "spec": {"template": {"spec": {"containers": merged}}}}
    return json.dumps(strategic).encode(), json.dumps(merge).encode()


def computation(media_type: str, body: bytes, stored: dict[str, Any]) -> Callable[[], Any]:
    rtype = builtin_type("apps", "v1", "Deployment")
    options = parse_write_options("PatchOptions", MultiDict(), "kubectl/v1.32.4")

    def run() -> Any:
        return compute_patch(rtype, media_type, body, options, PatchContext(go_structs()))(stored)

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2000, help="calls per patch type (default 2000)")
    parser.add_argument("--warmup", type=int, default=200, help="untimed calls first (default 200)")
    args = parser.parse_args(argv)
    print_header("Strategic merge patch vs merge patch on a 4 KB Deployment", args)
    stored = decode(encode(deployment()))
    strategic_body, merge_body = patches(stored)
    stored_bytes = encode(stored)
    runs = {
        "strategic merge patch": computation(STRATEGIC_MERGE_PATCH, strategic_body, stored),
        "merge patch": computation(MERGE_PATCH, merge_body, stored),
        "floor (orjson)": lambda: orjson.dumps((orjson.loads(strategic_body), orjson.loads(stored_bytes))),
    }
    results = {name: run() for name, run in list(runs.items())[:2]}
    same = encode(results["strategic merge patch"]) == encode(results["merge patch"])
    print(
        f"document: {len(encode(stored))} bytes; bodies: strategic {len(strategic_body)} B, merge {len(merge_body)} B"
    )
    print(f"both give the same object: {same}\n")
    for _ in range(args.warmup):
        for run in runs.values():
            run()
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            samples[name].append(time.perf_counter() - start)
    stats = {name: Stats.of(values) for name, values in samples.items()}
    ratio = stats["strategic merge patch"].median / stats["merge patch"].median
    floor = stats["floor (orjson)"].median
    print_table(
        ["patch", "median", "p99", "min", "median / floor"],
        [
            [name, seconds(s.median), seconds(s.p99), seconds(s.minimum), f"{s.median / floor:.1f}x"]
            for name, s in stats.items()
        ],
        right=(1, 2, 3, 4),
    )
    print(f"\nstrategic / merge (medians): {ratio:.2f}x; goal <= {GOAL:.0f}x: {verdict(ratio <= GOAL)}")
    print_footer()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
