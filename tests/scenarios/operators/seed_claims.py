"""The seed operators' claim, shared by the async and the sync one: a JSON patch that adds the
completion annotation, after the precondition the operator's configuration names (``SEED_GUARD``:
``annotations``, the seed's bug; ``resource-version``, the fix; ``none``, no precondition)."""

from __future__ import annotations

import os
from typing import Any

GROUP, VERSION, PLURAL = "example.com", "v1", "jobs"
COMPLETED = "example.com/completed-by"
ATTEMPTS = 5


def claim_patch(job: dict[str, Any], claimant: str) -> list[dict[str, Any]]:
    """The precondition, then the op that records ``claimant`` as the one who completed ``job``."""
    return [*_guard(job), _claim(job, claimant)]


def _claim(job: dict[str, Any], claimant: str) -> dict[str, Any]:
    if job["metadata"].get("annotations"):
        return {"op": "add", "path": "/metadata/annotations/" + COMPLETED.replace("/", "~1"), "value": claimant}
    return {"op": "add", "path": "/metadata/annotations", "value": {COMPLETED: claimant}}


def _guard(job: dict[str, Any]) -> list[dict[str, Any]]:
    guard = os.environ.get("SEED_GUARD", "annotations")
    if guard == "annotations":
        return [{"op": "test", "path": "/metadata/annotations", "value": job["metadata"].get("annotations") or {}}]
    if guard == "resource-version":
        return [{"op": "test", "path": "/metadata/resourceVersion", "value": job["metadata"]["resourceVersion"]}]
    return []
