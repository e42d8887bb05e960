"""Documents to patch: custom resources shaped like real ones, and small synthetic objects.

A custom resource carries what the apiserver stores and `test` ops see (reference 1.2): apiVersion,
kind, metadata with uid, resourceVersion, generation, labels, annotations (including kopf's
`kopf.zalando.org/last-handled-configuration`, a serialized spec), managedFields and finalizers,
then spec and status. Values are drawn from the adversarial pools so the stored Go spelling differs
from the spellings clients send.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from . import values
from .jsontext import pointer

KOPF_LAST_HANDLED = "kopf.zalando.org/last-handled-configuration"
# Unescaped pointer tokens of a node: keys and array indices.
Tokens = tuple[str | int, ...]
GROUPS = ["example.com", "batch.example.com", "kopf.dev", "apps.example.org"]
KINDS = ["Job", "Widget", "KopfExample", "Database", "Pipeline"]


def uid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def scalar(rng: random.Random) -> Any:
    pick = rng.random()
    if pick < 0.45:
        return rng.choice(values.STRINGS)
    if pick < 0.65:
        return rng.choice(values.WORDS)
    if pick < 0.9:
        return rng.choice(values.NUMBERS)
    return rng.choice([True, False, None])


def value(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value, mostly scalars, sometimes small containers (with nulls in arrays)."""
    pick = rng.random()
    if depth >= 3 or pick < 0.6:
        return scalar(rng)
    if pick < 0.8:
        return [value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(values.KEYS + values.WORDS): value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def spec(rng: random.Random) -> dict[str, Any]:
    out: dict[str, Any] = {
        "command": rng.choice(['sh -c "echo hi > /tmp/x"', "run --if a<b&&c", "echo done", "printf 'é\\n'"]),
        "replicas": rng.choice([1, 3, 1.0, 2.5]),
    }
    for _ in range(rng.randint(0, 5)):
        out[rng.choice(values.KEYS + values.WORDS)] = value(rng, 1)
    if rng.random() < 0.4:
        out["items"] = [value(rng, 2) for _ in range(rng.randint(0, 5))]
    if rng.random() < 0.3:
        out["ports"] = [{"name": rng.choice(values.WORDS), "port": rng.choice([80, 443, 8080.0])} for _ in range(2)]
    return out


def custom_resource(rng: random.Random, size: str = "small") -> dict[str, Any]:
    group, kind = rng.choice(GROUPS), rng.choice(KINDS)
    the_spec = spec(rng)
    meta: dict[str, Any] = {
        "name": rng.choice(["job-1", "widget-a", "x", "kopf-example-1", "db"]),
        "namespace": rng.choice(["default", "team-a", "kube-system"]),
        "uid": uid(rng),
        "resourceVersion": str(rng.randint(1, 10**7)),
        "generation": rng.randint(1, 9),
        "creationTimestamp": f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T10:2{rng.randint(0, 9)}:00Z",
    }
    if rng.random() < 0.7:
        meta["labels"] = {"app": rng.choice(values.WORDS), "tier": rng.choice(["a", "b&c", "é"])}
    annotations: dict[str, Any] = {}
    if rng.random() < 0.6:
        annotations[KOPF_LAST_HANDLED] = json.dumps({"spec": the_spec}, ensure_ascii=rng.random() < 0.5)
    if rng.random() < 0.5:
        annotations["note"] = rng.choice(values.STRINGS)
    if annotations or rng.random() < 0.3:
        meta["annotations"] = annotations
    if rng.random() < 0.5:
        meta["finalizers"] = rng.sample(
            ["kopf.zalando.org/KopfFinalizerMarker", "example.com/cleanup", "orphan"], rng.randint(1, 2)
        )
    if size != "small" or rng.random() < 0.3:
        meta["managedFields"] = [
            {
                "apiVersion": f"{group}/v1",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {".": {}, "f:command": {}, "f:replicas": {}}},
                "manager": rng.choice(["kubectl-client-side-apply", "kopf", "Go-http-client"]),
                "operation": "Update",
                "time": "2024-05-01T10:20:00Z",
            }
            for _ in range(1 if size != "large" else 3)
        ]
    doc: dict[str, Any] = {"apiVersion": f"{group}/v1", "kind": kind, "metadata": meta, "spec": the_spec}
    if rng.random() < 0.6:
        doc["status"] = {
            "phase": rng.choice(["Pending", "Running", "Succeeded"]),
            "conditions": [
                {
                    "type": "Ready",
                    "status": rng.choice(["True", "False"]),
                    "message": rng.choice(values.STRINGS),
                }
            ],
        }
        if rng.random() < 0.3:
            doc["status"]["kopf"] = {"progress": {}}
    if size == "large":
        doc["spec"]["data"] = {f"k{i}": value(rng, 1) for i in range(20)}
    return doc


def synthetic(rng: random.Random) -> dict[str, Any]:
    """A small object with a mix of every interesting shape."""
    doc: dict[str, Any] = {}
    for _ in range(rng.randint(1, 5)):
        doc[rng.choice(values.KEYS + values.WORDS)] = value(rng)
    if rng.random() < 0.5:
        doc["a"] = [rng.choice([1, None, "x", 1.0, {}]) for _ in range(rng.randint(0, 4))]
    if rng.random() < 0.3:
        doc["n"] = None
    return doc


def any_doc(rng: random.Random) -> dict[str, Any]:
    pick = rng.random()
    if pick < 0.45:
        return synthetic(rng)
    if pick < 0.97:
        return custom_resource(rng)
    return custom_resource(rng, "large")


def nodes(doc: Any, prefix: Tokens = ()) -> Iterator[tuple[Tokens, Any]]:
    """Every (token path, value) below the root, in document order."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield (*prefix, k), v
            yield from nodes(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield (*prefix, i), v
            yield from nodes(v, (*prefix, i))


def pick_node(rng: random.Random, doc: Any) -> tuple[str, Any]:
    """A random existing (pointer, value)."""
    all_nodes = list(nodes(doc))
    tokens, v = rng.choice(all_nodes)
    return pointer(*tokens), v


def containers(doc: Any, prefix: Tokens = ()) -> Iterator[tuple[Tokens, Any]]:
    if isinstance(doc, (dict, list)):
        yield prefix, doc
    for tokens, v in nodes(doc, prefix):
        if isinstance(v, (dict, list)):
            yield tokens, v
