"""kube-controller-manager's StatefulSet controller (``pkg/controller/statefulset``).

Each sync is ``defaultStatefulSetControl.UpdateStatefulSet`` of ``stateful_set_control.go``:

* **revisions** (``getStatefulSetRevisions``): the template's patch is compared with the set's
  ControllerRevisions; a new one is created as ``<set>-<hash>`` (:mod:`.revisions`), with the
  template's labels plus ``controller.kubernetes.io/hash``, the set's annotations, a controller
  reference and the next revision number; a rollback to an older template renumbers that
  revision instead. A name taken by a different revision bumps the collision count.
* **pods** (``updateStatefulSet``, ``processReplica``, ``processCondemned``): ordinals
  ``[start, start + replicas)`` (``spec.ordinals.start``); a missing pod is created, with its
  claims first (:mod:`.stateful_pods`), from the current or the update revision's template
  (``newVersionedStatefulSetPod``). Under ``OrderedReady`` one pod is created at a time and the
  next waits until every lower one is Running and Ready (and available after
  ``minReadySeconds``); surplus pods are deleted from the highest ordinal down, one at a time,
  once the rest are healthy. ``Parallel`` creates and deletes them all at once. A Failed or
  Succeeded pod is deleted and created again.
* **rolling update**: with ``RollingUpdate`` the highest ordinal not at the update revision is
  deleted (so recreated at the update revision), down to ``partition``, each waiting for the
  ones above it to be healthy again; ``OnDelete`` leaves pods alone.
* **status**: ``replicas``, ``readyReplicas``, ``currentReplicas``, ``updatedReplicas``,
  ``availableReplicas``, ``currentRevision``, ``updateRevision``, ``observedGeneration``,
  ``collisionCount``, written only when one of the compared fields changed
  (``inconsistentStatus``), with ``completeRollingUpdate`` first.
* **history** (``truncateHistory``): revisions no pod uses, past ``revisionHistoryLimit``.

Writes are by ``kube-controller-manager``; Events come from ``statefulset-controller``. Each
Event follows its own write (upstream sets a new pod's claim owners before the pod's Event).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.availability import available, ready_since, running_and_ready
from fakeapi._cluster.controller_refs import controller_reference, owned_by
from fakeapi._cluster.revisions import (
    CONTROLLER_REVISIONS,
    owned_revisions,
    revision_data,
    stateful_set_hash,
    template_of,
)
from fakeapi._cluster.stateful_pods import (
    ORDINAL,
    PODS,
    REVISION_LABEL,
    claim_is_stale,
    claims_match_policy,
    create_claims,
    create_pod,
    delete_pod,
    fix_claims,
    new_pod,
    ordinal_of,
    phase,
    record_pod_event,
    terminating,
    update_claim_owners,
)
from fakeapi._cluster.status_writes import CONTROLLER_MANAGER, write_status
from fakeapi._patching.goencode import encode
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["stateful_set_due", "sync_stateful_sets"]

STATEFUL_SETS = builtin_type("apps", "v1", "StatefulSet")
HASH_LABEL = "controller.kubernetes.io/hash"


def sync_stateful_sets(simulation: ControllerContext) -> None:
    for stateful_set in simulation.store.items(STATEFUL_SETS, None):
        _sync(simulation, stateful_set)


def stateful_set_due(simulation: ControllerContext) -> float | None:
    """When a Ready pod of a set with ``minReadySeconds`` becomes available."""
    now = simulation.store.clock.now()
    times = []
    for stateful_set in simulation.store.items(STATEFUL_SETS, None):
        wait = int((stateful_set.get("spec") or {}).get("minReadySeconds") or 0)
        if wait <= 0:
            continue
        for pod in _owned_pods(simulation, stateful_set):
            since = ready_since(pod)
            if since is not None and since + wait > now:
                times.append(since + wait)
    return min(times, default=None)


def _healthy(pod: dict[str, Any]) -> bool:
    return running_and_ready(pod) and not terminating(pod)


def _revision_of(pod: dict[str, Any]) -> str:
    return str((metadata_of(pod).get("labels") or {}).get(REVISION_LABEL) or "")


# -- one sync ---------------------------------------------------------------------------------------


def _owned_pods(simulation: ControllerContext, stateful_set: dict[str, Any]) -> list[dict[str, Any]]:
    """The set's pods: controlled by it and named as its members (``isMemberOf``)."""
    namespace = metadata_of(stateful_set).get("namespace", "")
    name = metadata_of(stateful_set).get("name")
    owned = []
    for pod in simulation.store.items(PODS, namespace):
        match = ORDINAL.match(str(metadata_of(pod).get("name") or ""))
        if match is not None and match.group(1) == name and owned_by(pod, stateful_set):
            owned.append(pod)
    return owned


def _sync(simulation: ControllerContext, stateful_set: dict[str, Any]) -> None:
    pods = _owned_pods(simulation, stateful_set)
    revisions = owned_revisions(simulation, stateful_set)
    current, update, collisions = _revisions(simulation, stateful_set, revisions)
    status = _update(simulation, stateful_set, current, update, collisions, pods)
    _write_status(simulation, stateful_set, status)
    _truncate_history(simulation, stateful_set, pods, revisions, current, update)


def _revisions(
    simulation: ControllerContext, stateful_set: dict[str, Any], revisions: list[dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, Any], int]:
    """``getStatefulSetRevisions``: the current and the update revision, creating or renumbering one."""
    store = simulation.store
    meta = metadata_of(stateful_set)
    namespace, name = meta.get("namespace", ""), str(meta.get("name") or "")
    status = stateful_set.get("status") or {}
    collisions = int(status.get("collisionCount") or 0)
    template = (stateful_set.get("spec") or {}).get("template") or {}
    data = revision_data(template)
    next_number = int(revisions[-1].get("revision") or 0) + 1 if revisions else 1
    raw = encode(data)
    equal = [r for r in revisions if encode(r.get("data")) == raw]
    if equal and equal[-1] is revisions[-1]:
        update = revisions[-1]
    elif equal:
        renumbered = equal[-1]

        def renumber(current: dict[str, Any]) -> dict[str, Any]:
            return {**current, "revision": next_number}

        update = store.update(
            CONTROLLER_REVISIONS, namespace, metadata_of(renumbered)["name"], renumber, manager=CONTROLLER_MANAGER
        ).object
    else:
        while True:
            digest = stateful_set_hash(data, collisions)
            revision_name = f"{name[:223]}-{digest}"
            revision: dict[str, Any] = {
                "apiVersion": "apps/v1",
                "kind": "ControllerRevision",
                "metadata": {
                    "name": revision_name,
                    "namespace": namespace,
                    "labels": {**((template.get("metadata") or {}).get("labels") or {}), HASH_LABEL: digest},
                    **({"annotations": dict(meta["annotations"])} if meta.get("annotations") else {}),
                    "ownerReferences": [controller_reference(stateful_set, "apps/v1", "StatefulSet")],
                },
                "data": data,
                "revision": next_number,
            }
            try:
                update = store.create(CONTROLLER_REVISIONS, namespace, revision, manager=CONTROLLER_MANAGER).object
                break
            except APIError as error:
                if error.reason != "AlreadyExists":
                    raise
                existing = store.get(CONTROLLER_REVISIONS, namespace, revision_name)
                if encode(existing.get("data")) == raw:
                    update = existing
                    break
                collisions += 1
    current = next((r for r in revisions if metadata_of(r).get("name") == status.get("currentRevision")), update)
    return current, update, collisions


def _replica_status(
    pods: list[dict[str, Any]], min_ready: int, now: float, current: str, update: str
) -> dict[str, int]:
    counts = {"replicas": 0, "readyReplicas": 0, "availableReplicas": 0, "currentReplicas": 0, "updatedReplicas": 0}
    for pod in pods:
        created = phase(pod) != ""
        counts["replicas"] += created
        if running_and_ready(pod):
            counts["readyReplicas"] += 1
            counts["availableReplicas"] += available(pod, min_ready, now)
        if created and not terminating(pod):
            counts["currentReplicas"] += _revision_of(pod) == current
            counts["updatedReplicas"] += _revision_of(pod) == update
    return counts


def _update(
    simulation: ControllerContext,
    stateful_set: dict[str, Any],
    current: dict[str, Any],
    update: dict[str, Any],
    collisions: int,
    pods: list[dict[str, Any]],
) -> dict[str, Any]:
    """``updateStatefulSet``: create, delete and replace pods; the status to record."""
    spec = stateful_set.get("spec") or {}
    now = simulation.store.clock.now()
    min_ready = int(spec.get("minReadySeconds") or 0)
    current_name, update_name = metadata_of(current)["name"], metadata_of(update)["name"]
    status: dict[str, Any] = {
        "observedGeneration": metadata_of(stateful_set).get("generation"),
        **_replica_status(pods, min_ready, now, current_name, update_name),
        "currentRevision": current_name,
        "updateRevision": update_name,
        "collisionCount": collisions,
    }
    start = int((spec.get("ordinals") or {}).get("start") or 0)
    count = int(spec.get("replicas", 1))
    replicas: list[dict[str, Any] | None] = [None] * count
    condemned = []
    for pod in pods:
        ordinal = ordinal_of(pod)
        if start <= ordinal < start + count:
            replicas[ordinal - start] = pod
        elif ordinal >= 0:
            condemned.append(pod)
    condemned.sort(key=ordinal_of, reverse=True)
    first_unhealthy: dict[str, Any] | None = next((p for p in replicas if p is not None and not _healthy(p)), None)
    if first_unhealthy is None:
        first_unhealthy = next((p for p in reversed(condemned) if not _healthy(p)), None)
    if metadata_of(stateful_set).get("deletionTimestamp") is not None:
        return status
    monotonic = spec.get("podManagementPolicy") != "Parallel"
    for index, slot in enumerate(replicas):
        blocked = _process_replica(simulation, stateful_set, current, update, slot, start + index, monotonic)
        if blocked and monotonic:
            return status
    for pod in condemned:
        fix_claims(simulation, stateful_set, pod)
    for pod in condemned:
        if terminating(pod):
            if monotonic:
                return status
            continue
        if monotonic and not running_and_ready(pod) and pod is not first_unhealthy:
            return status
        if monotonic and not available(pod, min_ready, now) and pod is not first_unhealthy:
            return status
        delete_pod(simulation, stateful_set, pod)
        if monotonic:
            return status
    strategy = spec.get("updateStrategy") or {}
    if strategy.get("type") == "OnDelete":
        return status
    partition = int((strategy.get("rollingUpdate") or {}).get("partition") or 0)
    for target in range(count - 1, partition - 1, -1):
        replica = replicas[target]
        if replica is None:
            return status
        if _revision_of(replica) != update_name and not terminating(replica):
            delete_pod(simulation, stateful_set, replica)
            status["currentReplicas"] -= 1
            return status
        if not _healthy(replica):
            return status
    return status


def _process_replica(
    simulation: ControllerContext,
    stateful_set: dict[str, Any],
    current: dict[str, Any],
    update: dict[str, Any],
    pod: dict[str, Any] | None,
    ordinal: int,
    monotonic: bool,
) -> bool:
    """``processReplica``: True when the monotonic walk has to stop here."""
    if pod is None:
        desired = _versioned_pod(stateful_set, current, update, ordinal)
        if claim_is_stale(simulation, stateful_set, desired):
            return True
        create_pod(simulation, stateful_set, desired)
        return monotonic
    if phase(pod) in ("Failed", "Succeeded"):
        if not terminating(pod):
            delete_pod(simulation, stateful_set, pod)
        return True
    if phase(pod) == "Pending":
        create_claims(simulation, stateful_set, pod)
        update_claim_owners(simulation, stateful_set, pod)
    if monotonic and (terminating(pod) or not running_and_ready(pod)):
        return True
    min_ready = int((stateful_set.get("spec") or {}).get("minReadySeconds") or 0)
    if monotonic and not available(pod, min_ready, simulation.store.clock.now()):
        return True
    if not claims_match_policy(simulation, stateful_set, pod):
        update_claim_owners(simulation, stateful_set, pod)
        record_pod_event(simulation, stateful_set, "update", pod)
    return False


def _versioned_pod(
    stateful_set: dict[str, Any], current: dict[str, Any], update: dict[str, Any], ordinal: int
) -> dict[str, Any]:
    """``newVersionedStatefulSetPod``, its operator precedence kept as upstream writes it."""
    spec = stateful_set.get("spec") or {}
    strategy = spec.get("updateStrategy") or {}
    start = int((spec.get("ordinals") or {}).get("start") or 0)
    rolling = strategy.get("rollingUpdate")
    current_replicas = int((stateful_set.get("status") or {}).get("currentReplicas") or 0)
    at_current = (
        strategy.get("type") == "RollingUpdate" and rolling is None and ordinal < start + current_replicas
    ) or (rolling is not None and ordinal < start + int(rolling.get("partition") or 0))
    revision = current if at_current else update
    return new_pod(stateful_set, template_of(revision), ordinal, metadata_of(revision)["name"])


# -- status and history -----------------------------------------------------------------------------

_COMPARED = (
    "replicas",
    "currentReplicas",
    "readyReplicas",
    "updatedReplicas",
    "currentRevision",
    "availableReplicas",
    "updateRevision",
)


def _write_status(simulation: ControllerContext, stateful_set: dict[str, Any], status: dict[str, Any]) -> None:
    """``updateStatefulSetStatus``: ``completeRollingUpdate``, then a write only if ``inconsistentStatus``."""
    spec = stateful_set.get("spec") or {}
    wanted = int(spec.get("replicas", 1))
    if (spec.get("updateStrategy") or {}).get("type") == "RollingUpdate" and (
        status["updatedReplicas"] == status["readyReplicas"] == status["replicas"] == wanted
    ):
        status["currentReplicas"] = status["updatedReplicas"]
        status["currentRevision"] = status["updateRevision"]
    old = stateful_set.get("status") or {}
    empty: dict[str, Any] = {"currentRevision": "", "updateRevision": ""}
    changed = int(status["observedGeneration"] or 0) > int(old.get("observedGeneration") or 0) or any(
        status[key] != old.get(key, empty.get(key, 0)) for key in _COMPARED
    )
    if not changed:
        return
    write_status(simulation, STATEFUL_SETS, stateful_set, dict(status))


def _truncate_history(
    simulation: ControllerContext,
    stateful_set: dict[str, Any],
    pods: list[dict[str, Any]],
    revisions: list[dict[str, Any]],
    current: dict[str, Any],
    update: dict[str, Any],
) -> None:
    """``truncateHistory``: non-live revisions beyond ``revisionHistoryLimit``, oldest first."""
    live = {metadata_of(current)["name"], metadata_of(update)["name"], *(_revision_of(p) for p in pods)}
    history = [r for r in revisions if metadata_of(r)["name"] not in live]
    limit = int((stateful_set.get("spec") or {}).get("revisionHistoryLimit", 10))
    if limit < 0 or len(history) <= limit:
        return
    for revision in history[: len(history) - limit]:
        meta = metadata_of(revision)
        simulation.store.delete(CONTROLLER_REVISIONS, meta.get("namespace", ""), meta["name"])
