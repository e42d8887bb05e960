"""kopf handlers for Widgets: complete each one exactly once, report the phase, let it go when deleted.

Completion is a non-idempotent step (here, posting the ``Completed`` Event; in a real operator,
sending the invoice). Several replicas may handle the same Widget, so the step is guarded by a
claim: a JSON patch whose ``test`` ops require the uid and resourceVersion the replica read. The
apiserver applies at most one such patch per resourceVersion; every other replica gets 422.
"""

from __future__ import annotations

from typing import Any

import kopf
from kubernetes_asyncio import client, config
from kubernetes_asyncio.client.exceptions import ApiException

GROUP, VERSION, PLURAL = "example.com", "v1", "widgets"
JSON_PATCH = "application/json-patch+json"


@kopf.on.startup()
async def connect(memo: kopf.Memo, **_: Any) -> None:
    await config.load_kube_config()  # KUBECONFIG, or ~/.kube/config
    memo.api = client.ApiClient()


@kopf.on.cleanup()
async def disconnect(memo: kopf.Memo, **_: Any) -> None:
    await memo.api.close()


@kopf.on.create(GROUP, VERSION, PLURAL)
async def complete(name: str, namespace: str, body: kopf.Body, patch: kopf.Patch, memo: kopf.Memo, **_: Any) -> None:
    widget = await client.CustomObjectsApi(memo.api).get_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, name
    )
    if not (widget.get("status") or {}).get("completedBy"):
        if not await claim_completion(memo.api, widget, claimant="widget-operator"):
            raise kopf.TemporaryError("the widget changed while it was being claimed", delay=1)
        kopf.event(body, type="Normal", reason="Completed", message=f"{name} is complete")
    patch.status["phase"] = "Completed"


@kopf.on.delete(GROUP, VERSION, PLURAL)
async def release(name: str, logger: kopf.Logger, **_: Any) -> None:
    """Nothing to clean up outside the cluster; this handler is why kopf keeps a finalizer."""
    logger.info("released %s", name)


async def claim_completion(api: client.ApiClient, widget: dict[str, Any], *, claimant: str) -> bool:
    """Claim ``widget`` as read: True if this call claimed it, False if it changed since it was read."""
    metadata = widget["metadata"]
    status = widget.get("status")
    claim = [
        {"op": "test", "path": "/metadata/uid", "value": metadata["uid"]},
        {"op": "test", "path": "/metadata/resourceVersion", "value": metadata["resourceVersion"]},
        {"op": "add", "path": "/status/completedBy", "value": claimant}
        if status
        else {"op": "add", "path": "/status", "value": {"completedBy": claimant}},
    ]
    try:
        await client.CustomObjectsApi(api).patch_namespaced_custom_object_status(
            GROUP, VERSION, metadata["namespace"], PLURAL, metadata["name"], claim, _content_type=JSON_PATCH
        )
    except ApiException as error:
        if error.status == 422:
            return False
        raise
    return True
