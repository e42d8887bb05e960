"""What the built-in scenarios share: the Job custom resource of the seed operator, kopf's annotation, and
the two ways that operator talked to the apiserver (kubernetes_asyncio for claims, plain
aiohttp for kopf's own writes).
"""

from __future__ import annotations

import json
from typing import Any

from scenarios._actors import TickContext

__all__ = [
    "COMMAND",
    "GROUP",
    "INTERCHANGEABLE_REPLICAS",
    "KOPF_LAST_HANDLED",
    "PLURAL",
    "VERSION",
    "add_annotation",
    "job",
    "job_crd",
    "job_path",
    "kopf_essence",
    "kopf_writer",
    "read_job",
    "resource_version_test",
    "uid_test",
]

# Every built-in scenario races two replicas running one tick, which write their names and compare
# them only for equality: a schedule and its mirror (the two swapped) end alike, so exhaustive
# searches explore one of the two (docs/scenarios-reductions.md, "Interchangeable actors").
INTERCHANGEABLE_REPLICAS = (("replica-a", "replica-b"),)

GROUP = "example.com"
VERSION = "v1"
PLURAL = "jobs"
KOPF_LAST_HANDLED = "kopf.zalando.org/last-handled-configuration"
COMMAND = 'sh -c "echo hi > /tmp/x"'


def job_crd() -> dict[str, Any]:
    """The Job CRD the built-in claims share: schemaless (``x-kubernetes-preserve-unknown-fields``), with a status subresource."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{PLURAL}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": PLURAL, "singular": "job", "kind": "Job"},
            "versions": [
                {
                    "name": VERSION,
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                    "subresources": {"status": {}},
                }
            ],
        },
    }


def kopf_essence(spec: dict[str, Any]) -> str:
    """kopf's last-handled-configuration: ``json.dumps`` of the essence, no spaces, a newline (``diffbase.py``)."""
    return json.dumps({"spec": spec}, separators=(",", ":")) + "\n"


def job(
    name: str,
    spec: dict[str, Any],
    *,
    handled_spec: dict[str, Any] | None = None,
    finalizers: list[str] | None = None,
) -> dict[str, Any]:
    """A Job; ``handled_spec`` is the spec kopf last handled (its annotation), when there is one."""
    metadata: dict[str, Any] = {"name": name, "namespace": "default"}
    if handled_spec is not None:
        metadata["annotations"] = {KOPF_LAST_HANDLED: kopf_essence(handled_spec)}
    if finalizers:
        metadata["finalizers"] = list(finalizers)
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Job", "metadata": metadata, "spec": spec}


def job_path(name: str) -> str:
    return f"/apis/{GROUP}/{VERSION}/namespaces/default/{PLURAL}/{name}"


async def read_job(ctx: TickContext, name: str) -> dict[str, Any]:
    result: dict[str, Any] = await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, name)
    return result


def add_annotation(job: dict[str, Any], key: str, value: str) -> dict[str, Any]:
    """The JSON patch op that adds one annotation (creating the map when the object has none)."""
    if job["metadata"].get("annotations"):
        return {
            "op": "add",
            "path": "/metadata/annotations/" + key.replace("~", "~0").replace("/", "~1"),
            "value": value,
        }
    return {"op": "add", "path": "/metadata/annotations", "value": {key: value}}


def uid_test(job: dict[str, Any]) -> dict[str, Any]:
    return {"op": "test", "path": "/metadata/uid", "value": job["metadata"]["uid"]}


def resource_version_test(job: dict[str, Any]) -> dict[str, Any]:
    return {"op": "test", "path": "/metadata/resourceVersion", "value": job["metadata"]["resourceVersion"]}


def kopf_writer(name: str) -> Any:
    """kopf storing last-handled-configuration after handling a spec change: a merge patch over plain aiohttp."""

    async def tick(ctx: TickContext) -> None:
        async with ctx.session.get(job_path(name)) as response:
            response.raise_for_status()
            current = await response.json()
        essence = kopf_essence(current["spec"])
        if (current["metadata"].get("annotations") or {}).get(KOPF_LAST_HANDLED) == essence:
            return
        patch = {"metadata": {"annotations": {KOPF_LAST_HANDLED: essence}}}
        headers = {"Content-Type": "application/merge-patch+json"}
        async with ctx.session.patch(job_path(name), data=json.dumps(patch), headers=headers) as response:
            response.raise_for_status()

    return tick
