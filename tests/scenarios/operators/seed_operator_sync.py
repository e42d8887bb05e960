"""The seed-shaped operator written the way most kopf operators are: a synchronous handler, which
kopf runs in an executor thread, calling the API with the synchronous ``kubernetes`` client.

Same claim as ``seed_operator.py`` (the guard from ``SEED_GUARD``: ``annotations``,
``resource-version`` or ``none``); only the handler's kind and its client differ. ``SEED_PAUSE``
seconds, when set, the handler first waits with ``time.sleep`` (a blocking wait for something
outside, as sync handlers do).
"""

from __future__ import annotations

import os
import time
from typing import Any

import kopf
from kubernetes import client, config
from kubernetes.client.exceptions import ApiException
from seed_claims import ATTEMPTS, COMPLETED, GROUP, PLURAL, VERSION, claim_patch  # type: ignore[import-not-found]
from seed_notify import send_completion  # type: ignore[import-not-found]  # beside this file, as kopf runs it


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_: Any) -> None:
    """No Events posted, no CRD scanning (the CRD is there before the operator starts)."""
    settings.posting.enabled = False
    settings.scanning.disabled = True


@kopf.on.create(GROUP, VERSION, PLURAL)
@kopf.on.update(GROUP, VERSION, PLURAL)
def complete(spec: kopf.Spec, name: str, namespace: str | None, **_: Any) -> None:
    """Once the job is done, claim its completion; the winner sends it. A refused claim is tried
    again, a few times."""
    if not spec.get("done") or namespace is None:
        return
    time.sleep(float(os.environ.get("SEED_PAUSE", "0")))
    config.load_kube_config()
    with client.ApiClient() as api:
        jobs = client.CustomObjectsApi(api)
        for _attempt in range(ATTEMPTS):
            job = jobs.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name)
            if COMPLETED in (job["metadata"].get("annotations") or {}):
                return
            try:
                jobs.patch_namespaced_custom_object(
                    GROUP,
                    VERSION,
                    namespace,
                    PLURAL,
                    name,
                    claim_patch(job, os.environ["POD_ID"]),
                    _content_type="application/json-patch+json",  # else this client sends a merge patch: 400
                )
            except ApiException as error:
                if error.status not in (409, 422):
                    raise
                continue
            send_completion(namespace, name)
            return
    raise kopf.TemporaryError(f"the claim was refused {ATTEMPTS} times", delay=60)
