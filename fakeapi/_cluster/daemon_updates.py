"""A DaemonSet's history and rolling update: ``pkg/controller/daemon/update.go``.

``constructHistory``/``snapshot``: the revision whose patch equals the template's is the current
one, renumbered past the others; otherwise one is created as ``<ds>-<hash>`` (labels the template's
plus ``controller-revision-hash``, annotations the DaemonSet's, a controller reference), and a name
taken by another revision bumps ``status.collisionCount``. ``rollingUpdate``: without ``maxSurge``,
old pods are deleted while fewer than ``maxUnavailable`` are unavailable; with it, new pods start
beside old ones and the old ones go once the new are available. ``cleanupHistory`` deletes old
revisions past ``revisionHistoryLimit`` that no pod uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.availability import available
from fakeapi._cluster.controller_refs import controller_reference
from fakeapi._cluster.daemon_pods import (
    HASH_LABEL,
    deleting,
    is_updated,
    owned_pods,
    pods_by_node,
    scaled,
    should_run,
    surge_count,
    sync_nodes,
    template_generation,
)
from fakeapi._cluster.revisions import (
    CONTROLLER_REVISIONS,
    daemon_set_hash,
    owned_revisions,
    revision_data,
)
from fakeapi._cluster.status_writes import CONTROLLER_MANAGER, update_status
from fakeapi._patching.goencode import encode
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["cleanup_history", "construct_history", "rolling_update"]

DAEMON_SETS = builtin_type("apps", "v1", "DaemonSet")


def construct_history(
    simulation: ControllerContext, daemon_set: dict[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """``constructHistory``: the current revision (created or renumbered) and the old ones."""
    store = simulation.store
    meta = metadata_of(daemon_set)
    namespace = meta.get("namespace", "")
    template = (daemon_set.get("spec") or {}).get("template") or {}
    data = revision_data(template)
    raw = encode(data)
    matching: list[dict[str, Any]] = []
    old: list[dict[str, Any]] = []
    for revision in owned_revisions(simulation, daemon_set):
        (matching if encode(revision.get("data")) == raw else old).append(revision)
    number = max((int(r.get("revision") or 0) for r in old), default=0) + 1
    if not matching:
        collisions = (daemon_set.get("status") or {}).get("collisionCount")
        digest = daemon_set_hash(template, collisions)
        revision = {
            "apiVersion": "apps/v1",
            "kind": "ControllerRevision",
            "metadata": {
                "name": f"{meta.get('name')}-{digest}",
                "namespace": namespace,
                "labels": {**((template.get("metadata") or {}).get("labels") or {}), HASH_LABEL: digest},
                **({"annotations": dict(meta["annotations"])} if meta.get("annotations") else {}),
                "ownerReferences": [controller_reference(daemon_set, "apps/v1", "DaemonSet")],
            },
            "data": data,
            "revision": number,
        }
        try:
            return store.create(CONTROLLER_REVISIONS, namespace, revision, manager=CONTROLLER_MANAGER).object, old
        except APIError as error:
            if error.reason != "AlreadyExists":
                raise
        existing = store.get(CONTROLLER_REVISIONS, namespace, revision["metadata"]["name"])
        if encode(existing.get("data")) == raw:
            return existing, old

        def bump(current: dict[str, Any]) -> dict[str, Any]:
            status = dict(current.get("status") or {})
            status["collisionCount"] = int(status.get("collisionCount") or 0) + 1
            return {**current, "status": status}

        update_status(simulation, DAEMON_SETS, daemon_set, bump)
        return None
    current = max(matching, key=lambda r: int(r.get("revision") or 0))
    for duplicate in matching:
        if duplicate is not current:
            store.delete(CONTROLLER_REVISIONS, namespace, metadata_of(duplicate)["name"])
    if int(current.get("revision") or 0) < number:

        def renumber(revision: dict[str, Any]) -> dict[str, Any]:
            return {**revision, "revision": number}

        current = store.update(
            CONTROLLER_REVISIONS, namespace, metadata_of(current)["name"], renumber, manager=CONTROLLER_MANAGER
        ).object
    return current, old


def rolling_update(
    simulation: ControllerContext, daemon_set: dict[str, Any], nodes: list[dict[str, Any]], digest: str
) -> None:
    """``rollingUpdate``: old pods replaced within ``maxUnavailable``, or ``maxSurge`` extra pods."""
    by_node = pods_by_node(simulation, daemon_set)
    wanted = {metadata_of(n)["name"]: should_run(daemon_set, n)[0] for n in nodes}
    desired = sum(wanted.values())
    for name, run in wanted.items():
        if run:
            by_node.setdefault(name, [])
    rolling = ((daemon_set.get("spec") or {}).get("updateStrategy") or {}).get("rollingUpdate") or {}
    max_unavailable = scaled(rolling.get("maxUnavailable"), desired, True)
    max_surge = surge_count(daemon_set, desired)
    if desired > 0 and max_unavailable == 0 and max_surge == 0:
        max_unavailable = 1
    generation = template_generation(daemon_set)
    min_ready = int((daemon_set.get("spec") or {}).get("minReadySeconds") or 0)
    now = simulation.store.clock.now()
    doomed: list[dict[str, Any]] = []
    if max_surge == 0:
        unavailable = 0
        replace: list[dict[str, Any]] = []
        candidates: list[dict[str, Any]] = []
        for _, pods in sorted(by_node.items()):
            found = _new_and_old(pods, digest, generation)
            if found is None:
                unavailable += 1
                continue
            new, old = found
            if (new is None) == (old is None):
                unavailable += 1
            elif new is not None:
                unavailable += not available(new, min_ready, now)
            elif old is not None and not available(old, min_ready, now):
                replace.append(old)
                unavailable += 1
            elif unavailable < max_unavailable and old is not None:
                candidates.append(old)
        room = max(0, min(max_unavailable - unavailable, len(candidates)))
        sync_nodes(simulation, daemon_set, replace + candidates[:room], [], digest)
        return
    surging, available_count = 0, 0
    new_nodes: list[str] = []
    candidate_nodes: list[str] = []
    leaving: list[dict[str, Any]] = []
    for node_name, pods in sorted(by_node.items()):
        found = _new_and_old(pods, digest, generation)
        if found is None:
            surging += 1
            continue
        new, old = found
        counted = old if old is not None else new
        available_count += counted is not None and available(counted, min_ready, now)
        if old is None:
            continue
        if new is None:
            if not wanted.get(node_name, False):
                (doomed if not available(old, min_ready, now) else leaving).append(old)
            elif not available(old, min_ready, now):
                new_nodes.append(node_name)
            elif surging < max_surge:
                candidate_nodes.append(node_name)
        elif not available(new, min_ready, now):
            surging += 1
        else:
            doomed.append(old)
    deletable = min(available_count - desired, len(leaving))
    doomed += leaving[: max(0, deletable)]
    room = max(0, min(max_surge - surging, len(candidate_nodes)))
    sync_nodes(simulation, daemon_set, doomed, new_nodes + candidate_nodes[:room], digest)


def _new_and_old(
    pods: list[dict[str, Any]], digest: str, generation: str | None
) -> tuple[dict[str, Any] | None, dict[str, Any] | None] | None:
    """``findUpdatedPodsOnNode``: at most one new and one old live pod, or None for more."""
    new = old = None
    for pod in pods:
        if deleting(pod):
            continue
        if is_updated(pod, digest, generation):
            if new is not None:
                return None
            new = pod
        else:
            if old is not None:
                return None
            old = pod
    return new, old


def cleanup_history(simulation: ControllerContext, daemon_set: dict[str, Any], old: list[dict[str, Any]]) -> None:
    """``cleanupHistory``: old revisions past ``revisionHistoryLimit`` that no pod still uses."""
    limit = int((daemon_set.get("spec") or {}).get("revisionHistoryLimit", 10))
    excess = len(old) - limit
    if excess <= 0:
        return
    live = {(metadata_of(p).get("labels") or {}).get(HASH_LABEL) for p in owned_pods(simulation, daemon_set)}
    for revision in sorted(old, key=lambda r: int(r.get("revision") or 0)):
        if excess <= 0:
            break
        if (metadata_of(revision).get("labels") or {}).get(HASH_LABEL) in live:
            continue
        meta = metadata_of(revision)
        simulation.store.delete(CONTROLLER_REVISIONS, meta.get("namespace", ""), meta["name"])
        excess -= 1
