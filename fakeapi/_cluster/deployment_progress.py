"""A Deployment's conditions and progress checks (``progress.go``, ``util/deployment_util.go``).

``SetDeploymentCondition`` replaces a condition only when its status or reason changes, keeps its
``lastTransitionTime`` while the status stays, and puts the new one last. ``DeploymentComplete``,
``DeploymentProgressing`` and ``DeploymentTimedOut`` compare the status the controller calculates
with the one it read; the deadline is ``progressDeadlineSeconds`` after the Progressing condition's
``lastUpdateTime`` on the server's clock, and the controller looks again a second after it
(``requeueStuckDeployment``), which is when ``advance`` stops for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.deployment_specs import has_progress_deadline, replicas_of
from fakeapi._state.clock import parse_timestamp
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = [
    "DEPLOYMENTS",
    "complete",
    "condition_of",
    "deployment_due",
    "go_status",
    "progressing",
    "remove_condition",
    "replica_failure",
    "set_condition",
    "timed_out",
]

DEPLOYMENTS = builtin_type("apps", "v1", "Deployment")


def deployment_due(simulation: ControllerContext) -> float | None:
    """When a rolling-out Deployment's progress deadline passes (a second after it)."""
    now = simulation.store.clock.now()
    times = []
    for deployment in simulation.store.items(DEPLOYMENTS, None):
        deadline = _progress_deadline(deployment)
        if deadline is not None and deadline + 1 > now:
            times.append(deadline + 1)
    return min(times, default=None)


def _progress_deadline(deployment: dict[str, Any]) -> float | None:
    spec = deployment.get("spec") or {}
    condition = condition_of(deployment.get("status") or {}, "Progressing")
    if not has_progress_deadline(deployment) or condition is None or spec.get("paused"):
        return None
    if condition.get("reason") in ("NewReplicaSetAvailable", "ProgressDeadlineExceeded"):
        return None
    updated = parse_timestamp(condition.get("lastUpdateTime") or "")
    return None if updated is None else updated + int(spec["progressDeadlineSeconds"])


def condition_of(status: dict[str, Any], kind: str) -> dict[str, Any] | None:
    return next((c for c in status.get("conditions") or [] if c.get("type") == kind), None)


def set_condition(
    status: dict[str, Any],
    kind: str,
    value: str,
    reason: str,
    message: str,
    now: str,
    *,
    transition: str | None = None,
) -> None:
    """``SetDeploymentCondition`` of ``NewDeploymentCondition`` (both times now, or the transition given)."""
    conditions = list(status.get("conditions") or [])
    current = next((c for c in conditions if c.get("type") == kind), None)
    if current is not None and current.get("status") == value and current.get("reason") == reason:
        return
    if current is not None and current.get("status") == value:
        transition = current["lastTransitionTime"]
    condition = {
        "type": kind,
        "status": value,
        "lastUpdateTime": now,
        "lastTransitionTime": transition or now,
        "reason": reason,
        "message": message,
    }
    status["conditions"] = [c for c in conditions if c.get("type") != kind] + [condition]


def remove_condition(status: dict[str, Any], kind: str) -> None:
    conditions = [c for c in status.get("conditions") or [] if c.get("type") != kind]
    if conditions:
        status["conditions"] = conditions
    else:
        status.pop("conditions", None)


def complete(deployment: dict[str, Any], status: dict[str, Any]) -> bool:
    """``DeploymentComplete``: every replica updated and available, the generation observed."""
    desired = replicas_of(deployment)
    return (
        int(status.get("updatedReplicas") or 0) == desired
        and int(status.get("replicas") or 0) == desired
        and int(status.get("availableReplicas") or 0) == desired
        and int(status.get("observedGeneration") or 0) >= int(metadata_of(deployment).get("generation") or 0)
    )


def progressing(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """``DeploymentProgressing``: more updated, ready or available replicas, or fewer old ones."""

    def count(status: dict[str, Any], key: str) -> int:
        return int(status.get(key) or 0)

    old_olds = count(old, "replicas") - count(old, "updatedReplicas")
    new_olds = count(new, "replicas") - count(new, "updatedReplicas")
    return (
        count(new, "updatedReplicas") > count(old, "updatedReplicas")
        or new_olds < old_olds
        or count(new, "readyReplicas") > count(old, "readyReplicas")
        or count(new, "availableReplicas") > count(old, "availableReplicas")
    )


def timed_out(deployment: dict[str, Any], status: dict[str, Any], now: float) -> bool:
    """``DeploymentTimedOut``: the last progress is older than the deadline (strictly, as ``Before``)."""
    condition = condition_of(status, "Progressing")
    if condition is None or condition.get("reason") == "NewReplicaSetAvailable":
        return False
    if condition.get("reason") == "ProgressDeadlineExceeded":
        return True
    updated = parse_timestamp(condition.get("lastUpdateTime") or "") or 0.0
    return updated + int((deployment.get("spec") or {}).get("progressDeadlineSeconds") or 0) < now


def replica_failure(all_rs: list[dict[str, Any]], new: dict[str, Any] | None) -> dict[str, Any] | None:
    """``getReplicaFailures``: the new ReplicaSet's ``ReplicaFailure`` condition, else the first old one's."""
    for replicaset in ([new] if new is not None else []) + all_rs:
        found = condition_of(replicaset.get("status") or {}, "ReplicaFailure")
        if found is not None:
            return found
    return None


def go_status(status: dict[str, Any]) -> dict[str, Any]:
    """A ``DeploymentStatus`` as Go writes it: every count but the conditions is ``omitempty``."""
    return {key: value for key, value in status.items() if value not in (0, None, [])}
