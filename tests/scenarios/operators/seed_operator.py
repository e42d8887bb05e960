"""A seed-shaped kopf operator: it completes a job when its spec says done, claiming the completion
with a JSON patch whose precondition is either the whole annotations (the seed's bug: kopf's own
``last-handled-configuration`` is among them) or the resourceVersion (the fix).

The guard comes from the environment (``SEED_GUARD``: ``annotations``, ``resource-version`` or ``none``), as
an operator reads its configuration from its Deployment.
"""

from __future__ import annotations

import os
from typing import Any

import kopf
from kubernetes_asyncio import client, config
from kubernetes_asyncio.client import ApiException
from seed_claims import ATTEMPTS, COMPLETED, GROUP, PLURAL, VERSION, claim_patch  # type: ignore[import-not-found]
from seed_notify import send_completion  # type: ignore[import-not-found]  # beside this file, as kopf runs it


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_: Any) -> None:
    """No Events posted, no CRD scanning (the CRD is there before the operator starts)."""
    settings.posting.enabled = False
    settings.scanning.disabled = True


@kopf.on.create(GROUP, VERSION, PLURAL)
@kopf.on.update(GROUP, VERSION, PLURAL)
async def complete(spec: kopf.Spec, name: str, namespace: str | None, **_: Any) -> None:
    """Once the job is done, claim its completion; the winner sends it. A claim refused while nobody
    holds it (another write came between the read and the claim) is tried again, a few times."""
    if not spec.get("done") or namespace is None:
        return
    await config.load_kube_config()
    async with client.ApiClient() as api:
        jobs = client.CustomObjectsApi(api)
        for _attempt in range(ATTEMPTS):
            job = await jobs.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name)
            if COMPLETED in (job["metadata"].get("annotations") or {}):
                return
            try:
                await jobs.patch_namespaced_custom_object(
                    GROUP, VERSION, namespace, PLURAL, name, claim_patch(job, os.environ["POD_ID"])
                )
            except ApiException as error:
                if error.status not in (409, 422):
                    raise
                continue
            send_completion(namespace, name)
            return
    raise kopf.TemporaryError(f"the claim was refused {ATTEMPTS} times", delay=60)
