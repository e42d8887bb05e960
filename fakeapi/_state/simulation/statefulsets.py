"""kube-controller-manager's StatefulSet controller (``pkg/controller/statefulset``).

Each sync is ``defaultStatefulSetControl.UpdateStatefulSet`` of ``stateful_set_control.go``:

* **revisions** (``getStatefulSetRevisions``): the template's patch is compared with the set's
  ControllerRevisions; a new one is created as ``<set>-<hash>`` (:mod:`.revisions`), with the
  template's labels plus ``controller.kubernetes.io/hash``, the set's annotations, a controller
  reference and the next revision number; a rollback to an older template renumbers that
  revision instead. A name taken by a different revision bumps the collision count.
* **pods** (``updateStatefulSet``, ``processReplica``, ``processCondemned``): ordinals
  ``[start, start + replicas)`` (``spec.ordinals.start``); a missing pod is created from the
  current or the update revision's template (``newVersionedStatefulSetPod``), named
  ``<set>-<ordinal>`` with ``generateName`` ``<set>-``, the labels ``controller-revision-hash``,
  ``statefulset.kubernetes.io/pod-name`` and ``apps.kubernetes.io/pod-index``, ``hostname`` and
  ``subdomain`` (``serviceName``) and one volume per ``volumeClaimTemplate``. Its claims
  ``<template>-<set>-<ordinal>`` are created first, labelled with the template's and the set
  selector's labels. Under ``OrderedReady`` one pod is created at a time and the next waits until
  every lower one is Running and Ready (and available after ``minReadySeconds``); surplus pods
  are deleted from the highest ordinal down, one at a time, once the rest are healthy.
  ``Parallel`` creates and deletes them all at once. A Failed or Succeeded pod is deleted and
  created again.
* **rolling update**: with ``RollingUpdate`` the highest ordinal not at the update revision is
  deleted (so recreated at the update revision), down to ``partition``, each waiting for the
  ones above it to be healthy again; ``OnDelete`` leaves pods alone.
* **claims' owners** (``persistentVolumeClaimRetentionPolicy``, ``stateful_set_utils.go``
  ``isClaimOwnerUpToDate``/``updateClaimOwnerRefForSetAndPod``): ``whenDeleted: Delete`` makes
  the set the claim's controller, ``whenScaled: Delete`` makes a condemned pod its controller, so
  the garbage collector removes the claim with its owner.
* **status**: ``replicas``, ``readyReplicas``, ``currentReplicas``, ``updatedReplicas``,
  ``availableReplicas``, ``currentRevision``, ``updateRevision``, ``observedGeneration``,
  ``collisionCount``, written only when one of the compared fields changed
  (``inconsistentStatus``), with ``completeRollingUpdate`` first.
* **Events** (``stateful_pod_control.go`` ``recordPodEvent``/``recordClaimEvent``):
  ``SuccessfulCreate`` ``create Pod <pod> in StatefulSet <set> successful``, ``SuccessfulDelete``
  ``delete Pod ...``, ``SuccessfulUpdate`` ``update Pod ...``, and for a claim
  ``SuccessfulCreate`` ``create Claim <claim> Pod <pod> in StatefulSet <set> success``.

Writes are by ``kube-controller-manager``; Events come from ``statefulset-controller``. Each
Event follows its own write (upstream sets a new pod's claim owners before the pod's Event).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from fakeapi._patching.goencode import encode
from fakeapi._state.clock import parse_timestamp
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of
from fakeapi._state.simulation.revisions import (
    CONTROLLER_REVISIONS,
    controller_reference,
    owned_by,
    owned_revisions,
    revision_data,
    stateful_set_hash,
    template_of,
)
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._state.simulation.manager import Simulation

__all__ = ["stateful_set_due", "sync_stateful_sets"]

STATEFUL_SETS = builtin_type("apps", "v1", "StatefulSet")
PODS = builtin_type("", "v1", "Pod")
CLAIMS = builtin_type("", "v1", "PersistentVolumeClaim")
MANAGER = "kube-controller-manager"
COMPONENT = "statefulset-controller"
REVISION_LABEL = "controller-revision-hash"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
HASH_LABEL = "controller.kubernetes.io/hash"
_ORDINAL = re.compile(r"(.*)-([0-9]+)$")


def sync_stateful_sets(simulation: Simulation) -> None:
    for stateful_set in simulation.store.items(STATEFUL_SETS, None):
        _sync(simulation, stateful_set)


def stateful_set_due(simulation: Simulation) -> float | None:
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


# -- pod predicates (stateful_set_utils.go) ---------------------------------------------------------


def ordinal_of(pod: dict[str, Any]) -> int:
    match = _ORDINAL.match(str(metadata_of(pod).get("name") or ""))
    return int(match.group(2)) if match and int(match.group(2)) < 2**31 else -1


def _phase(pod: dict[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def _terminating(pod: dict[str, Any]) -> bool:
    return metadata_of(pod).get("deletionTimestamp") is not None


def ready_since(pod: dict[str, Any]) -> float | None:
    """When the pod's Ready condition turned True (None: not ready)."""
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready" and condition.get("status") == "True":
            return parse_timestamp(condition.get("lastTransitionTime") or "") or 0.0
    return None


def running_and_ready(pod: dict[str, Any]) -> bool:
    return _phase(pod) == "Running" and ready_since(pod) is not None


def available(pod: dict[str, Any], min_ready_seconds: int, now: float) -> bool:
    """``podutil.IsPodAvailable`` (taken as reached at the instant itself, not strictly after)."""
    since = ready_since(pod)
    return since is not None and (min_ready_seconds == 0 or since + min_ready_seconds <= now)


def _healthy(pod: dict[str, Any]) -> bool:
    return running_and_ready(pod) and not _terminating(pod)


def _revision_of(pod: dict[str, Any]) -> str:
    return str((metadata_of(pod).get("labels") or {}).get(REVISION_LABEL) or "")


# -- one sync ---------------------------------------------------------------------------------------


def _owned_pods(simulation: Simulation, stateful_set: dict[str, Any]) -> list[dict[str, Any]]:
    """The set's pods: controlled by it and named as its members (``isMemberOf``)."""
    namespace = metadata_of(stateful_set).get("namespace", "")
    name = metadata_of(stateful_set).get("name")
    owned = []
    for pod in simulation.store.items(PODS, namespace):
        match = _ORDINAL.match(str(metadata_of(pod).get("name") or ""))
        if match is not None and match.group(1) == name and owned_by(pod, stateful_set):
            owned.append(pod)
    return owned


def _sync(simulation: Simulation, stateful_set: dict[str, Any]) -> None:
    pods = _owned_pods(simulation, stateful_set)
    revisions = owned_revisions(simulation, stateful_set)
    current, update, collisions = _revisions(simulation, stateful_set, revisions)
    status = _update(simulation, stateful_set, current, update, collisions, pods)
    _write_status(simulation, stateful_set, status)
    _truncate_history(simulation, stateful_set, pods, revisions, current, update)


def _revisions(
    simulation: Simulation, stateful_set: dict[str, Any], revisions: list[dict[str, Any]]
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
            CONTROLLER_REVISIONS, namespace, metadata_of(renumbered)["name"], renumber, manager=MANAGER
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
                update = store.create(CONTROLLER_REVISIONS, namespace, revision, manager=MANAGER).object
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
        created = _phase(pod) != ""
        counts["replicas"] += created
        if running_and_ready(pod):
            counts["readyReplicas"] += 1
            counts["availableReplicas"] += available(pod, min_ready, now)
        if created and not _terminating(pod):
            counts["currentReplicas"] += _revision_of(pod) == current
            counts["updatedReplicas"] += _revision_of(pod) == update
    return counts


def _update(
    simulation: Simulation,
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
        _fix_claims(simulation, stateful_set, pod)
    for pod in condemned:
        if _terminating(pod):
            if monotonic:
                return status
            continue
        if monotonic and not running_and_ready(pod) and pod is not first_unhealthy:
            return status
        if monotonic and not available(pod, min_ready, now) and pod is not first_unhealthy:
            return status
        _delete_pod(simulation, stateful_set, pod)
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
        if _revision_of(replica) != update_name and not _terminating(replica):
            _delete_pod(simulation, stateful_set, replica)
            status["currentReplicas"] -= 1
            return status
        if not _healthy(replica):
            return status
    return status


def _process_replica(
    simulation: Simulation,
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
        if _claim_is_stale(simulation, stateful_set, desired):
            return True
        _create_pod(simulation, stateful_set, desired)
        return monotonic
    if _phase(pod) in ("Failed", "Succeeded"):
        if not _terminating(pod):
            _delete_pod(simulation, stateful_set, pod)
        return True
    if _phase(pod) == "Pending":
        _create_claims(simulation, stateful_set, pod)
        _update_claim_owners(simulation, stateful_set, pod)
    if monotonic and (_terminating(pod) or not running_and_ready(pod)):
        return True
    min_ready = int((stateful_set.get("spec") or {}).get("minReadySeconds") or 0)
    if monotonic and not available(pod, min_ready, simulation.store.clock.now()):
        return True
    if not _claims_match_policy(simulation, stateful_set, pod):
        _update_claim_owners(simulation, stateful_set, pod)
        _record_pod_event(simulation, stateful_set, "update", pod)
    return False


# -- pods and claims (stateful_pod_control.go) ------------------------------------------------------


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
    return _new_pod(stateful_set, template_of(revision), ordinal, metadata_of(revision)["name"])


def _new_pod(stateful_set: dict[str, Any], template: dict[str, Any], ordinal: int, revision: str) -> dict[str, Any]:
    meta = metadata_of(stateful_set)
    set_name = str(meta.get("name") or "")
    name = f"{set_name}-{ordinal}"
    template_meta = template.get("metadata") or {}
    spec = dict(template.get("spec") or {})
    claims = _claim_names(stateful_set, ordinal)
    volumes = [{"name": volume, "persistentVolumeClaim": {"claimName": claim}} for volume, claim in claims.items()]
    volumes += [v for v in spec.get("volumes") or [] if v.get("name") not in claims]
    spec["volumes"] = volumes or None
    spec["hostname"] = name
    spec["subdomain"] = (stateful_set.get("spec") or {}).get("serviceName") or None
    labels = {
        **(template_meta.get("labels") or {}),
        POD_NAME_LABEL: name,
        POD_INDEX_LABEL: str(ordinal),
        REVISION_LABEL: revision,
    }
    metadata: dict[str, Any] = {"name": name, "generateName": f"{set_name}-", "namespace": meta.get("namespace")}
    metadata["labels"] = labels
    if template_meta.get("annotations"):
        metadata["annotations"] = dict(template_meta["annotations"])
    if template_meta.get("finalizers"):
        metadata["finalizers"] = list(template_meta["finalizers"])
    metadata["ownerReferences"] = [controller_reference(stateful_set, "apps/v1", "StatefulSet")]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {key: value for key, value in spec.items() if value is not None},
    }


def _claim_names(stateful_set: dict[str, Any], ordinal: int) -> dict[str, str]:
    """Template name -> claim name (``getPersistentVolumeClaimName``)."""
    set_name = metadata_of(stateful_set).get("name")
    templates = (stateful_set.get("spec") or {}).get("volumeClaimTemplates") or []
    return {str(metadata_of(t).get("name")): f"{metadata_of(t).get('name')}-{set_name}-{ordinal}" for t in templates}


def _create_pod(simulation: Simulation, stateful_set: dict[str, Any], pod: dict[str, Any]) -> None:
    """``CreateStatefulPod``: the claims first, then the pod, then the claims' owners."""
    _create_claims(simulation, stateful_set, pod)
    namespace = metadata_of(pod)["namespace"]
    try:
        stored = simulation.store.create(PODS, namespace, pod, manager=MANAGER).object
    except APIError as error:
        if error.reason == "AlreadyExists":
            return
        raise
    _record_pod_event(simulation, stateful_set, "create", stored)
    _update_claim_owners(simulation, stateful_set, stored)


def _delete_pod(simulation: Simulation, stateful_set: dict[str, Any], pod: dict[str, Any]) -> None:
    meta = metadata_of(pod)
    try:
        simulation.store.delete(PODS, meta.get("namespace", ""), meta["name"])
    except APIError as error:
        if error.reason != "NotFound":
            raise
        return
    _record_pod_event(simulation, stateful_set, "delete", pod)


def _record_pod_event(simulation: Simulation, stateful_set: dict[str, Any], verb: str, pod: dict[str, Any]) -> None:
    message = f"{verb} Pod {metadata_of(pod)['name']} in StatefulSet {metadata_of(stateful_set)['name']} successful"
    reason = f"Successful{verb.title()}"
    simulation.recorder.record(stateful_set, "Normal", reason, message, component=COMPONENT, manager=MANAGER)


def _create_claims(simulation: Simulation, stateful_set: dict[str, Any], pod: dict[str, Any]) -> None:
    """``createPersistentVolumeClaims``: each missing claim, with its Event."""
    store = simulation.store
    meta = metadata_of(stateful_set)
    namespace = meta.get("namespace", "")
    selector_labels = ((stateful_set.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    claim_names = _claim_names(stateful_set, ordinal_of(pod))
    for template in (stateful_set.get("spec") or {}).get("volumeClaimTemplates") or []:
        claim_name = claim_names[str(metadata_of(template).get("name"))]
        if store.find(CLAIMS, namespace, claim_name) is not None:
            continue
        template_meta = {k: v for k, v in metadata_of(template).items() if k != "creationTimestamp"}
        claim = {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                **template_meta,
                "name": claim_name,
                "namespace": namespace,
                "labels": {**(template_meta.get("labels") or {}), **selector_labels},
            },
            "spec": template.get("spec") or {},
        }
        try:
            store.create(CLAIMS, namespace, claim, manager=MANAGER)
        except APIError as error:
            if error.reason == "AlreadyExists":
                continue
            raise
        message = f"create Claim {claim_name} Pod {metadata_of(pod)['name']} in StatefulSet {meta['name']} success"
        simulation.recorder.record(
            stateful_set, "Normal", "SuccessfulCreate", message, component=COMPONENT, manager=MANAGER
        )


# -- claim retention (stateful_set_utils.go) --------------------------------------------------------


def _policy(stateful_set: dict[str, Any]) -> tuple[str, str]:
    policy = (stateful_set.get("spec") or {}).get("persistentVolumeClaimRetentionPolicy") or {}
    return str(policy.get("whenScaled") or "Retain"), str(policy.get("whenDeleted") or "Retain")


def _matches_ref(ref: dict[str, Any], obj: dict[str, Any], api_version: str, kind: str) -> bool:
    return bool(
        ref.get("apiVersion") == api_version
        and ref.get("kind") == kind
        and ref.get("name") == metadata_of(obj).get("name")
    )


def _refs(claim: dict[str, Any]) -> list[dict[str, Any]]:
    return list(metadata_of(claim).get("ownerReferences") or [])


def _has_owner(claim: dict[str, Any], owner: dict[str, Any]) -> bool:
    return any(ref.get("uid") == metadata_of(owner).get("uid") for ref in _refs(claim))


def _has_stale(claim: dict[str, Any], obj: dict[str, Any], api_version: str, kind: str) -> bool:
    for ref in _refs(claim):
        if _matches_ref(ref, obj, api_version, kind):
            return bool(ref.get("uid") != metadata_of(obj).get("uid"))
    return False


def _unexpected_controller(claim: dict[str, Any], stateful_set: dict[str, Any], pod: dict[str, Any]) -> bool:
    if _policy(stateful_set) == ("Retain", "Retain"):
        return False
    for ref in _refs(claim):
        for owner, api_version, kind in ((stateful_set, "apps/v1", "StatefulSet"), (pod, "v1", "Pod")):
            if _matches_ref(ref, owner, api_version, kind):
                if ref.get("uid") != metadata_of(owner).get("uid"):
                    return True
                break
        else:
            if ref.get("controller") is True:
                return True
    return False


def _in_range(stateful_set: dict[str, Any], pod: dict[str, Any]) -> bool:
    spec = stateful_set.get("spec") or {}
    start = int((spec.get("ordinals") or {}).get("start") or 0)
    return start <= ordinal_of(pod) < start + int(spec.get("replicas", 1))


def _claim_up_to_date(claim: dict[str, Any], stateful_set: dict[str, Any], pod: dict[str, Any]) -> bool:
    """``isClaimOwnerUpToDate``."""
    if _has_stale(claim, stateful_set, "apps/v1", "StatefulSet") or _has_stale(claim, pod, "v1", "Pod"):
        return True
    if _unexpected_controller(claim, stateful_set, pod):
        return not (_has_owner(claim, stateful_set) or _has_owner(claim, pod))
    uids = {metadata_of(stateful_set).get("uid"), metadata_of(pod).get("uid")}
    if any(ref.get("uid") in uids and ref.get("controller") is not True for ref in _refs(claim)):
        return False
    scaled, deleted = _policy(stateful_set)
    scaled_down = not _in_range(stateful_set, pod)
    want_set = (deleted == "Delete" and scaled == "Retain") or (scaled == deleted == "Delete" and not scaled_down)
    want_pod = scaled == "Delete" and scaled_down
    return _has_owner(claim, stateful_set) == want_set and _has_owner(claim, pod) == want_pod


def _claim_owners(claim: dict[str, Any], stateful_set: dict[str, Any], pod: dict[str, Any]) -> list[dict[str, Any]]:
    """``updateClaimOwnerRefForSetAndPod``: the owner references the claim should have."""
    unexpected = _unexpected_controller(claim, stateful_set, pod)
    refs = [
        ref
        for ref in _refs(claim)
        if not _matches_ref(ref, stateful_set, "apps/v1", "StatefulSet") and not _matches_ref(ref, pod, "v1", "Pod")
    ]
    if unexpected:
        return refs
    scaled, deleted = _policy(stateful_set)
    scaled_down = not _in_range(stateful_set, pod)
    if scaled == "Delete" and scaled_down:
        refs.append(controller_reference(pod, "v1", "Pod"))
    if (deleted == "Delete" and scaled == "Retain") or (scaled == deleted == "Delete" and not scaled_down):
        refs.append(controller_reference(stateful_set, "apps/v1", "StatefulSet"))
    return refs


def _pod_claims(simulation: Simulation, stateful_set: dict[str, Any], pod: dict[str, Any]) -> list[dict[str, Any]]:
    namespace = metadata_of(stateful_set).get("namespace", "")
    names = _claim_names(stateful_set, ordinal_of(pod)).values()
    found = [simulation.store.find(CLAIMS, namespace, name) for name in names]
    return [claim for claim in found if claim is not None]


def _claims_match_policy(simulation: Simulation, stateful_set: dict[str, Any], pod: dict[str, Any]) -> bool:
    return all(_claim_up_to_date(c, stateful_set, pod) for c in _pod_claims(simulation, stateful_set, pod))


def _update_claim_owners(simulation: Simulation, stateful_set: dict[str, Any], pod: dict[str, Any]) -> None:
    """``UpdatePodClaimForRetentionPolicy``."""
    for claim in _pod_claims(simulation, stateful_set, pod):
        if _claim_up_to_date(claim, stateful_set, pod):
            continue
        refs = _claim_owners(claim, stateful_set, pod)

        def with_owners(current: dict[str, Any], refs: list[dict[str, Any]] = refs) -> dict[str, Any]:
            metadata = {**metadata_of(current), "ownerReferences": refs}
            if not refs:
                metadata.pop("ownerReferences")
            return {**current, "metadata": metadata}

        meta = metadata_of(claim)
        simulation.store.update(CLAIMS, meta.get("namespace", ""), meta["name"], with_owners, manager=MANAGER)


def _fix_claims(simulation: Simulation, stateful_set: dict[str, Any], pod: dict[str, Any]) -> None:
    if not _claims_match_policy(simulation, stateful_set, pod):
        _update_claim_owners(simulation, stateful_set, pod)


def _claim_is_stale(simulation: Simulation, stateful_set: dict[str, Any], pod: dict[str, Any]) -> bool:
    """``PodClaimIsStale``: a claim still owned by an earlier pod of that name blocks the new one."""
    if _policy(stateful_set)[0] == "Retain":
        return False
    return any(_has_stale(c, pod, "v1", "Pod") for c in _pod_claims(simulation, stateful_set, pod))


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


def _write_status(simulation: Simulation, stateful_set: dict[str, Any], status: dict[str, Any]) -> None:
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
    meta = metadata_of(stateful_set)

    def with_status(current: dict[str, Any]) -> dict[str, Any]:
        return {**current, "status": dict(status)}

    simulation.store.update(
        STATEFUL_SETS,
        meta.get("namespace", ""),
        meta["name"],
        with_status,
        subresource="status",
        manager=MANAGER,
        unconditional=True,
    )


def _truncate_history(
    simulation: Simulation,
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
