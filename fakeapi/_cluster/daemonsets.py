"""kube-controller-manager's DaemonSet controller (``pkg/controller/daemon``).

Each sync is ``syncDaemonSet`` of ``daemon_controller.go``:

* **history** (:mod:`.daemon_updates`): the current ControllerRevision, created or renumbered;
* **pods** (``manage``, ``podsShouldBeOnNode``): a node that should run the pod
  (:mod:`.daemon_pods`) and has none gets one; Failed and Succeeded pods are deleted
  (``FailedDaemonPod``, ``SucceededDaemonPod`` Events), extra pods on a node are deleted keeping the
  oldest (with ``maxSurge``, an old pod is kept beside a new one until that is available), and pods
  on nodes that no longer qualify are deleted;
* **rolling update** (:mod:`.daemon_updates`), only in a sync whose manage step wrote nothing, as
  upstream waits for its own creations and deletions to be observed first;
* **status** (``updateDaemonSetStatus``): ``desiredNumberScheduled``, ``currentNumberScheduled``,
  ``numberMisscheduled``, ``numberReady``, ``updatedNumberScheduled``, ``numberAvailable``,
  ``numberUnavailable`` and ``observedGeneration``, each node counted by its oldest pod, written
  when one of them changed.

Writes are by ``kube-controller-manager``; Events come from ``daemonset-controller``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.availability import available, ready_since
from fakeapi._cluster.daemon_pods import (
    COMPONENT,
    HASH_LABEL,
    TERMINAL,
    deleting,
    is_updated,
    owned_pods,
    phase,
    pods_by_node,
    should_run,
    surge_count,
    sync_nodes,
    template_generation,
)
from fakeapi._cluster.daemon_updates import cleanup_history, construct_history, rolling_update
from fakeapi._cluster.nodes import NODES
from fakeapi._cluster.status_writes import CONTROLLER_MANAGER, update_status
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["daemon_set_due", "sync_daemon_sets"]

DAEMON_SETS = builtin_type("apps", "v1", "DaemonSet")


def sync_daemon_sets(simulation: ControllerContext) -> None:
    for daemon_set in simulation.store.items(DAEMON_SETS, None):
        _sync(simulation, daemon_set)


def daemon_set_due(simulation: ControllerContext) -> float | None:
    """When a Ready pod of a DaemonSet with ``minReadySeconds`` becomes available."""
    now = simulation.store.clock.now()
    times = []
    for daemon_set in simulation.store.items(DAEMON_SETS, None):
        wait = int((daemon_set.get("spec") or {}).get("minReadySeconds") or 0)
        for pod in owned_pods(simulation, daemon_set) if wait > 0 else []:
            since = ready_since(pod)
            if since is not None and since + wait > now:
                times.append(since + wait)
    return min(times, default=None)


def _ready(pod: dict[str, Any]) -> bool:
    return ready_since(pod) is not None


# -- one sync ---------------------------------------------------------------------------------------


def _sync(simulation: ControllerContext, daemon_set: dict[str, Any]) -> None:
    if metadata_of(daemon_set).get("deletionTimestamp") is not None:
        return
    selector = (daemon_set.get("spec") or {}).get("selector") or {}
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        return
    history = construct_history(simulation, daemon_set)
    if history is None:
        return
    current, old = history
    digest = str((metadata_of(current).get("labels") or {}).get(HASH_LABEL) or "")
    nodes = simulation.store.items(NODES, None)
    before = simulation.store.revision
    _manage(simulation, daemon_set, nodes, digest)
    strategy = (daemon_set.get("spec") or {}).get("updateStrategy") or {}
    # Upstream waits for its own creations and deletions to be observed before rolling on.
    if simulation.store.revision == before and strategy.get("type", "RollingUpdate") == "RollingUpdate":
        rolling_update(simulation, daemon_set, nodes, digest)
    cleanup_history(simulation, daemon_set, old)
    _write_status(simulation, daemon_set, nodes, digest)


def _manage(
    simulation: ControllerContext, daemon_set: dict[str, Any], nodes: list[dict[str, Any]], digest: str
) -> None:
    """``manage``/``podsShouldBeOnNode``: which nodes need a pod, which pods must go."""
    by_node = pods_by_node(simulation, daemon_set)
    surge = surge_count(daemon_set, 1) > 0
    needing: list[str] = []
    doomed: list[dict[str, Any]] = []
    for node in nodes:
        node_name = metadata_of(node)["name"]
        run, keep = should_run(daemon_set, node)
        pods = by_node.get(node_name)
        if run and not pods:
            needing.append(node_name)
        elif keep:
            running = []
            for pod in pods or []:
                if deleting(pod):
                    continue
                if phase(pod) in TERMINAL:
                    _report_finished(simulation, daemon_set, pod, node_name)
                    doomed.append(pod)
                else:
                    running.append(pod)
            if not surge:
                doomed += running[1:]
            elif not running and run:
                needing.append(node_name)
            elif len(running) > 1:
                doomed += _surge_prune(daemon_set, running, digest, simulation.store.clock.now())
        elif pods:
            doomed += [pod for pod in pods if not deleting(pod)]
    known = {metadata_of(node)["name"] for node in nodes}
    for node_name, pods in by_node.items():
        if node_name not in known:
            doomed += [pod for pod in pods if not (pod.get("spec") or {}).get("nodeName")]
    sync_nodes(simulation, daemon_set, doomed, needing, digest)


def _report_finished(simulation: ControllerContext, daemon_set: dict[str, Any], pod: dict[str, Any], node: str) -> None:
    meta = metadata_of(pod)
    where = f"{meta.get('namespace')}/{meta.get('name')} on node {node}"
    if phase(pod) == "Failed":
        event = ("Warning", "FailedDaemonPod", f"Found failed daemon pod {where}, will try to kill it")
    else:
        event = ("Normal", "SucceededDaemonPod", f"Found succeeded daemon pod {where}, will try to delete it")
    simulation.recorder.record(daemon_set, *event, component=COMPONENT, manager=CONTROLLER_MANAGER)


def _surge_prune(
    daemon_set: dict[str, Any], running: list[dict[str, Any]], digest: str, now: float
) -> list[dict[str, Any]]:
    """With surge: keep the oldest new and oldest old pod, and the old one only while it is needed."""
    newest: dict[str, Any] | None = None
    oldest: dict[str, Any] | None = None
    doomed = []
    for pod in running:
        is_new = (metadata_of(pod).get("labels") or {}).get(HASH_LABEL) == digest
        if is_new and newest is None:
            newest = pod
        elif not is_new and oldest is None:
            oldest = pod
        else:
            doomed.append(pod)
    min_ready = int((daemon_set.get("spec") or {}).get("minReadySeconds") or 0)
    if newest is not None and oldest is not None and (not _ready(oldest) or available(newest, min_ready, now)):
        doomed.append(oldest)
    return doomed


_STATUS_FIELDS = (
    "desiredNumberScheduled",
    "currentNumberScheduled",
    "numberMisscheduled",
    "numberReady",
    "updatedNumberScheduled",
    "numberAvailable",
    "numberUnavailable",
)


def _write_status(
    simulation: ControllerContext, daemon_set: dict[str, Any], nodes: list[dict[str, Any]], digest: str
) -> None:
    """``updateDaemonSetStatus``/``storeDaemonSetStatus``."""
    store = simulation.store
    meta = metadata_of(daemon_set)
    current = store.find(DAEMON_SETS, meta.get("namespace", ""), meta["name"]) or daemon_set
    by_node = pods_by_node(simulation, daemon_set)
    generation = template_generation(daemon_set)
    min_ready = int((daemon_set.get("spec") or {}).get("minReadySeconds") or 0)
    now = store.clock.now()
    counts = dict.fromkeys(_STATUS_FIELDS, 0)
    for node in nodes:
        run, _ = should_run(daemon_set, node)
        pods = by_node.get(metadata_of(node)["name"]) or []
        if not run:
            counts["numberMisscheduled"] += bool(pods)
            continue
        counts["desiredNumberScheduled"] += 1
        if not pods:
            continue
        counts["currentNumberScheduled"] += 1
        pod = pods[0]
        if _ready(pod):
            counts["numberReady"] += 1
            counts["numberAvailable"] += available(pod, min_ready, now)
        counts["updatedNumberScheduled"] += is_updated(pod, digest, generation)
    counts["numberUnavailable"] = counts["desiredNumberScheduled"] - counts["numberAvailable"]
    status = current.get("status") or {}
    observed = metadata_of(current).get("generation") or 0
    if (
        all(int(status.get(k) or 0) == v for k, v in counts.items())
        and int(status.get("observedGeneration") or 0) >= observed
    ):
        return

    def with_status(obj: dict[str, Any]) -> dict[str, Any]:
        return {**obj, "status": {**(obj.get("status") or {}), "observedGeneration": observed, **counts}}

    update_status(simulation, DAEMON_SETS, daemon_set, with_status)
