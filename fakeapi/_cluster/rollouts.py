"""How a Deployment moves between its ReplicaSets: ``syncDeployment``'s dispatch and its three paths.

* ``sync.go`` ``sync`` (paused, or a scaling event: an active ReplicaSet's ``desired-replicas``
  differs from ``spec.replicas``) with ``scale``: the one active ReplicaSet (or the newest) takes
  the whole count; a saturated new one scales the old ones to zero; otherwise a rolling
  Deployment's surplus or shortfall is shared out in proportion to each ReplicaSet's
  ``max-replicas`` annotation (``GetProportion``), the remainder to the largest one;
  ``checkPausedConditions`` sets Progressing ``DeploymentPaused`` (``Deployment is paused``) and,
  once resumed, ``DeploymentResumed`` (``Deployment is resumed``), both status Unknown;
* ``rolling.go`` ``rolloutRolling``: the new ReplicaSet scaled up within ``replicas + maxSurge``
  (``NewRSNewReplicas``), else the old ones scaled down, unhealthy replicas first, as far as
  ``replicas - maxUnavailable`` available pods allow;
* ``recreate.go`` ``rolloutRecreate``: the old ReplicaSets scaled to zero, and once none of their
  pods is left running the new one is created and scaled to the whole count.

Each path ends with the status sync of :mod:`.deployments`, and once the Deployment is complete
with ``cleanupDeployment`` (a paused Deployment is cleaned up every sync).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.controller_refs import controller_of
from fakeapi._cluster.deployment_progress import DEPLOYMENTS, complete, condition_of
from fakeapi._cluster.deployment_specs import (
    DESIRED_REPLICAS,
    MAX_REPLICAS,
    by_creation,
    has_progress_deadline,
    is_rolling,
    max_surge,
    max_unavailable,
    replicas_of,
)
from fakeapi._cluster.deployments import DeploymentSync
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["sync_deployments"]

PODS = builtin_type("", "v1", "Pod")


def _int32_annotation(value: object) -> int | None:
    """``getIntFromAnnotation``: ``strconv.ParseInt(value, 10, 32)``, ``None`` where Go's parse fails."""
    if not isinstance(value, str):
        return None
    digits = value[1:] if value[:1] in ("+", "-") else value
    if not digits or not (digits.isascii() and digits.isdigit()) or len(digits.lstrip("0")) > 10:
        return None
    number = -int(digits) if value.startswith("-") else int(digits)
    return number if -(2**31) <= number < 2**31 else None


def sync_deployments(simulation: ControllerContext) -> None:
    for deployment in simulation.store.items(DEPLOYMENTS, None):
        _sync(DeploymentSync(simulation, deployment))


def _sync(sync: DeploymentSync) -> None:
    """``syncDeployment``."""
    spec = sync.d.get("spec") or {}
    selector = spec.get("selector") or {}
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        return
    if metadata_of(sync.d).get("deletionTimestamp") is not None:
        new, olds = sync.all_replicasets(create=False)
        sync.sync_status(_with_new(olds, new), new)
        return
    _check_paused_conditions(sync)
    if spec.get("paused"):
        _scale_sync(sync)
        return
    if _is_scaling_event(sync):
        _scale_sync(sync)
        return
    if ((spec.get("strategy") or {}).get("type") or "RollingUpdate") == "Recreate":
        _rollout_recreate(sync)
    else:
        _rollout_rolling(sync)


def _with_new(olds: list[dict[str, Any]], new: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [*olds, new] if new is not None else list(olds)


def _active(replicasets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``controller.FilterActiveReplicaSets``."""
    return [rs for rs in replicasets if replicas_of(rs) > 0]


def _check_paused_conditions(sync: DeploymentSync) -> None:
    if not has_progress_deadline(sync.d):
        return
    condition = condition_of(sync.status, "Progressing")
    if condition is not None and condition.get("reason") == "ProgressDeadlineExceeded":
        return
    paused_exists = condition is not None and condition.get("reason") == "DeploymentPaused"
    paused = bool((sync.d.get("spec") or {}).get("paused"))
    if paused and not paused_exists:
        sync.set_condition("Progressing", "Unknown", "DeploymentPaused", "Deployment is paused")
    elif not paused and paused_exists:
        sync.set_condition("Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed")
    else:
        return
    sync.write_status()


def _is_scaling_event(sync: DeploymentSync) -> bool:
    new, olds = sync.all_replicasets(create=False)
    desired = replicas_of(sync.d)
    for rs in _active(_with_new(olds, new)):
        value = _int32_annotation((metadata_of(rs).get("annotations") or {}).get(DESIRED_REPLICAS))
        if value is not None and value != desired:
            return True
    return False


def _scale_sync(sync: DeploymentSync) -> None:
    """``sync``: scale, clean up a paused Deployment, sync the status."""
    new, olds = sync.all_replicasets(create=False)
    _scale(sync, new, olds)
    if (sync.d.get("spec") or {}).get("paused"):
        sync.cleanup(olds)
    new = sync.current(new) if new is not None else None
    sync.sync_status([sync.current(rs) for rs in _with_new(olds, new)], new)


def _scale(sync: DeploymentSync, new: dict[str, Any] | None, olds: list[dict[str, Any]]) -> None:
    desired = replicas_of(sync.d)
    active_or_latest = _active_or_latest(new, olds)
    if active_or_latest is not None:
        if replicas_of(active_or_latest) != desired:
            sync.scale_and_record(active_or_latest, desired)
        return
    if _saturated(sync, new):
        for old in _active(olds):
            sync.scale_and_record(old, 0)
        return
    if not is_rolling(sync.d):
        return
    all_rs = _active(_with_new(olds, new))
    allowed = desired + max_surge(sync.d) if desired > 0 else 0
    to_add = allowed - sum(replicas_of(rs) for rs in all_rs)
    operation = ""
    if to_add > 0:
        all_rs = _by_size(all_rs, newer=True)
        operation = "up"
    elif to_add < 0:
        all_rs = _by_size(all_rs, newer=False)
        operation = "down"
    added = 0
    sizes: dict[str, int] = {}
    for rs in all_rs:
        name = str(metadata_of(rs).get("name"))
        if to_add != 0:
            proportion = _proportion(sync, rs, to_add, added)
            sizes[name] = replicas_of(rs) + proportion
            added += proportion
        else:
            sizes[name] = replicas_of(rs)
    for index, rs in enumerate(all_rs):
        name = str(metadata_of(rs).get("name"))
        if index == 0 and to_add != 0:
            sizes[name] = max(sizes[name] + to_add - added, 0)
        sync.scale_replicaset(rs, sizes[name], operation)


def _by_size(replicasets: list[dict[str, Any]], *, newer: bool) -> list[dict[str, Any]]:
    """``ReplicaSetsBySizeNewer`` / ``ReplicaSetsBySizeOlder``: larger first, ties by creation."""
    by_age = sorted(replicasets, key=by_creation, reverse=newer)
    return sorted(by_age, key=lambda rs: -replicas_of(rs))


def _active_or_latest(new: dict[str, Any] | None, olds: list[dict[str, Any]]) -> dict[str, Any] | None:
    """``FindActiveOrLatest``."""
    if new is None and not olds:
        return None
    newest_first = sorted(olds, key=by_creation, reverse=True)
    active = _active([*newest_first, *([new] if new is not None else [])])
    if not active:
        return new if new is not None else newest_first[0]
    return active[0] if len(active) == 1 else None


def _saturated(sync: DeploymentSync, new: dict[str, Any] | None) -> bool:
    """``IsSaturated``."""
    if new is None:
        return False
    desired = replicas_of(sync.d)
    return (
        _int32_annotation((metadata_of(new).get("annotations") or {}).get(DESIRED_REPLICAS)) == desired
        and replicas_of(new) == desired
        and int((new.get("status") or {}).get("availableReplicas") or 0) == desired
    )


def _proportion(sync: DeploymentSync, rs: dict[str, Any], to_add: int, added: int) -> int:
    """``GetReplicaSetProportion``."""
    if replicas_of(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = _fraction(sync, rs)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def _fraction(sync: DeploymentSync, rs: dict[str, Any]) -> int:
    """``getReplicaSetFraction``: the share of ``replicas + maxSurge`` the ``max-replicas`` annotation gives it."""
    desired = replicas_of(sync.d)
    if desired == 0:
        return -replicas_of(rs)
    total = desired + max_surge(sync.d)
    value = _int32_annotation((metadata_of(rs).get("annotations") or {}).get(MAX_REPLICAS))
    annotated = value if value is not None else int(sync.status.get("replicas") or 0)
    if annotated == 0:
        return 0
    size = replicas_of(rs) * total / annotated
    return _round_half_away(size) - replicas_of(rs)


def _round_half_away(value: float) -> int:
    """``integer.RoundToInt32``: ``math.Round``, halves away from zero."""
    return math.floor(value + 0.5) if value >= 0 else -math.floor(-value + 0.5)


def _rollout_rolling(sync: DeploymentSync) -> None:
    """``rolloutRolling``."""
    new, olds = sync.all_replicasets(create=True)
    if new is None:
        return
    if _reconcile_new(sync, new, olds):
        _finish(sync, olds, sync.current(new), cleanup=False)
        return
    new = sync.current(new)
    if _reconcile_olds(sync, new, olds):
        _finish(sync, olds, sync.current(new), cleanup=False)
        return
    _finish(sync, olds, new, cleanup=True)


def _finish(sync: DeploymentSync, olds: list[dict[str, Any]], new: dict[str, Any] | None, *, cleanup: bool) -> None:
    if cleanup and complete(sync.d, sync.status):
        sync.cleanup(olds)
    sync.sync_rollout_status([sync.current(rs) for rs in _with_new(olds, new)], new)


def _reconcile_new(sync: DeploymentSync, new: dict[str, Any], olds: list[dict[str, Any]]) -> bool:
    """``reconcileNewReplicaSet``."""
    desired = replicas_of(sync.d)
    if replicas_of(new) == desired:
        return False
    if replicas_of(new) > desired:
        return sync.scale_and_record(new, desired)
    return sync.scale_and_record(new, sync._new_replicas(olds, new))


def _reconcile_olds(sync: DeploymentSync, new: dict[str, Any], olds: list[dict[str, Any]]) -> bool:
    """``reconcileOldReplicaSets``: unhealthy old replicas first, then as availability allows."""
    active_olds = _active([sync.current(rs) for rs in olds])
    if sum(replicas_of(rs) for rs in active_olds) == 0:
        return False
    all_count = sum(replicas_of(rs) for rs in [*active_olds, new])
    min_available = replicas_of(sync.d) - max_unavailable(sync.d)
    new_unavailable = replicas_of(new) - int((new.get("status") or {}).get("availableReplicas") or 0)
    max_scaled_down = all_count - min_available - new_unavailable
    if max_scaled_down <= 0:
        return False
    cleaned = 0
    for rs in sorted(active_olds, key=by_creation):
        if cleaned >= max_scaled_down:
            break
        available = int((rs.get("status") or {}).get("availableReplicas") or 0)
        if replicas_of(rs) == 0 or replicas_of(rs) == available:
            continue
        count = min(max_scaled_down - cleaned, replicas_of(rs) - available)
        sync.scale_and_record(rs, replicas_of(rs) - count)
        cleaned += count
    active_olds = [sync.current(rs) for rs in active_olds]
    return cleaned + _scale_down_olds(sync, new, active_olds) > 0


def _scale_down_olds(sync: DeploymentSync, new: dict[str, Any], olds: list[dict[str, Any]]) -> int:
    """``scaleDownOldReplicaSetsForRollingUpdate``."""
    min_available = replicas_of(sync.d) - max_unavailable(sync.d)
    available = sum(int((rs.get("status") or {}).get("availableReplicas") or 0) for rs in [*olds, new])
    if available <= min_available:
        return 0
    total = available - min_available
    scaled = 0
    for rs in sorted(olds, key=by_creation):
        if scaled >= total:
            break
        if replicas_of(rs) == 0:
            continue
        count = min(replicas_of(rs), total - scaled)
        sync.scale_and_record(rs, replicas_of(rs) - count)
        scaled += count
    return scaled


def _rollout_recreate(sync: DeploymentSync) -> None:
    """``rolloutRecreate``."""
    new, olds = sync.all_replicasets(create=False)
    scaled_down = False
    for rs in _active(olds):
        scaled_down = sync.scale_and_record(rs, 0) or scaled_down
    if scaled_down or _old_pods_running(sync, new, olds):
        new = sync.current(new) if new is not None else None
        sync.sync_rollout_status([sync.current(rs) for rs in _with_new(olds, new)], new)
        return
    if new is None:
        new, olds = sync.all_replicasets(create=True)
        if new is None:
            return
    sync.scale_and_record(new, replicas_of(sync.d))
    _finish(sync, olds, sync.current(new), cleanup=True)


def _old_pods_running(sync: DeploymentSync, new: dict[str, Any] | None, olds: list[dict[str, Any]]) -> bool:
    """``oldPodsRunning``: an old ReplicaSet still counts a pod, or one of its pods is not terminal."""
    if sum(int((sync.current(rs).get("status") or {}).get("replicas") or 0) for rs in olds) > 0:
        return True
    new_uid = metadata_of(new).get("uid") if new is not None else None
    uids = {metadata_of(rs).get("uid") for rs in sync.replicasets} - {new_uid}
    for pod in sync.store.items(PODS, sync.namespace):
        owner = controller_of(pod)
        if owner is None or owner.get("uid") not in uids:
            continue
        if (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
            return True
    return False
