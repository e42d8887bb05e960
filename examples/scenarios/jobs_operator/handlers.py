"""The operator's completion handler: it loads kubeconfig the usual way and claims with a JSON patch.

Nothing here knows about scenarios or fakeapi: under exploration, the kubeconfig it loads is the
running actor's, so the fake apiserver can hold its requests at the gate.
"""

from __future__ import annotations

from typing import Any

from kubernetes_asyncio import client, config
from kubernetes_asyncio.client import ApiException

GROUP, VERSION, PLURAL = "example.com", "v1", "jobs"
COMPLETED = "example.com/completed-by"


def claim_preconditions(job: dict[str, Any], *, whole_annotations: bool = False) -> list[dict[str, Any]]:
    """The precondition of the claim: the fixed one pins uid and resourceVersion."""
    uid = {"op": "test", "path": "/metadata/uid", "value": job["metadata"]["uid"]}
    if whole_annotations:
        return [uid, {"op": "test", "path": "/metadata/annotations", "value": job["metadata"].get("annotations", {})}]
    return [uid, {"op": "test", "path": "/metadata/resourceVersion", "value": job["metadata"]["resourceVersion"]}]


async def complete_job(name: str, me: str, *, namespace: str = "default", whole_annotations: bool = False) -> bool:
    """Claim the job's completion; True when this replica won the claim and must finish the job."""
    await config.load_kube_config()
    async with client.ApiClient() as api:
        jobs = client.CustomObjectsApi(api)
        job = await jobs.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name)
        annotations = job["metadata"].get("annotations") or {}
        if COMPLETED in annotations:
            return False
        claim = {"op": "add", "path": "/metadata/annotations/" + COMPLETED.replace("/", "~1"), "value": me}
        operations = [*claim_preconditions(job, whole_annotations=whole_annotations), claim]
        try:
            await jobs.patch_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name, operations)
        except ApiException as error:
            if error.status in (409, 422):
                return False
            raise
        return True


def record_heartbeat(name: str, beat: str, *, namespace: str = "default") -> None:
    """A synchronous controller (the ``kubernetes`` package) that stamps a heartbeat annotation."""
    from kubernetes import client as sync_client
    from kubernetes import config as sync_config

    sync_config.load_kube_config()
    with sync_client.ApiClient() as api:
        sync_client.CustomObjectsApi(api).patch_namespaced_custom_object(
            GROUP,
            VERSION,
            namespace,
            PLURAL,
            name,
            {"metadata": {"annotations": {"example.com/heartbeat": beat}}},
            _content_type="application/merge-patch+json",
        )
