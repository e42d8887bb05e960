"""Whether a pod is Ready and available: ``podutil.IsPodReady`` and ``IsPodAvailable``
(``pkg/api/v1/pod/util.go``), as the workload controllers read them."""

from __future__ import annotations

from typing import Any

from fakeapi._state.clock import parse_timestamp

__all__ = ["available", "ready_since", "running_and_ready"]


def ready_since(pod: dict[str, Any]) -> float | None:
    """When the pod's Ready condition turned True (None: not ready)."""
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready" and condition.get("status") == "True":
            return parse_timestamp(condition.get("lastTransitionTime") or "") or 0.0
    return None


def running_and_ready(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running" and ready_since(pod) is not None


def available(pod: dict[str, Any], min_ready_seconds: int, now: float) -> bool:
    """``podutil.IsPodAvailable`` (taken as reached at the instant itself, not strictly after)."""
    since = ready_since(pod)
    return since is not None and (min_ready_seconds == 0 or since + min_ready_seconds <= now)
