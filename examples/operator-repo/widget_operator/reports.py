"""Reports, run as Jobs: the operator starts one per request and waits for it to finish.

The operator trusts only what the Job controller writes: it waits on a watch of the Job until a
``Complete`` or ``Failed`` condition is True, as ``kubectl wait --for=condition=complete`` does.
"""

from __future__ import annotations

from typing import Any

from kubernetes_asyncio import client, watch


async def start_report(api: client.ApiClient, namespace: str, name: str, *, image: str) -> None:
    job: dict[str, Any] = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": "widget-operator"}},
        "spec": {
            "backoffLimit": 0,
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "report", "image": image}]}},
        },
    }
    await client.BatchV1Api(api).create_namespaced_job(namespace, job)


async def wait_for_report(api: client.ApiClient, namespace: str, name: str) -> str:
    """``Complete`` or ``Failed``: the condition the Job finished with."""
    jobs = client.BatchV1Api(api)
    async with watch.Watch() as stream:
        async for event in stream.stream(
            jobs.list_namespaced_job, namespace, field_selector=f"metadata.name={name}", timeout_seconds=60
        ):
            for condition in event["object"].status.conditions or []:
                if condition.type in ("Complete", "Failed") and condition.status == "True":
                    return str(condition.type)
    raise TimeoutError(f"the report Job {namespace}/{name} did not finish")
