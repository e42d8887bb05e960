"""kube-controller-manager's DaemonSet controller (``pkg/controller/daemon``).

Each sync is ``syncDaemonSet`` of ``daemon_controller.go``:

* **history** (``update.go`` ``constructHistory``/``snapshot``): the revision whose patch equals
  the template's is the current one, renumbered to follow the others; else one is created as
  ``<ds>-<hash>`` with the template's labels plus ``controller-revision-hash``, the DaemonSet's
  annotations, a controller reference and the next revision number. A name taken by a different
  revision bumps ``status.collisionCount``. The hash is a stand-in (:mod:`.revisions`).
* **pods** (``manage``, ``podsShouldBeOnNode``, ``syncNodes``): a node should run the pod when
  ``NodeShouldRunDaemonPod`` says so (the template's ``nodeName``, ``nodeSelector`` and required
  node affinity match it, and its ``NoSchedule``/``NoExecute`` taints are tolerated once the
  daemon tolerations are added). A node without a pod gets one, built by ``CreatePodTemplate``
  (``util/daemonset_util.go``): the tolerations of ``AddOrUpdateDaemonPodTolerations``, the
  labels ``controller-revision-hash`` and ``pod-template-generation``, and required node affinity
  ``matchFields`` ``metadata.name In [<node>]`` (``ReplaceDaemonSetPodNodeNameNodeAffinity``), so
  the scheduler binds it there. Failed and Succeeded pods are deleted (``FailedDaemonPod``,
  ``SucceededDaemonPod`` Events), extra pods on a node are deleted keeping the oldest, and pods on
  nodes that no longer qualify are deleted.
* **rolling update** (``update.go`` ``rollingUpdate``): with ``maxSurge`` 0, old pods are deleted
  while fewer than ``maxUnavailable`` pods are unavailable (the manage step then creates their
  replacements); with ``maxSurge``, a new pod is created next to an old one and the old one is
  deleted once the new one is available. ``OnDelete`` leaves old pods alone.
* **status** (``updateDaemonSetStatus``): ``desiredNumberScheduled``, ``currentNumberScheduled``,
  ``numberMisscheduled``, ``numberReady``, ``updatedNumberScheduled``, ``numberAvailable``,
  ``numberUnavailable`` and ``observedGeneration``, written when one of them changed.

Pods are created through ``RealPodControl`` (``pkg/controller/controller_utils.go``): named
``<ds>-`` plus five characters, with a Normal ``SuccessfulCreate`` Event ``Created pod: <name>``;
deletions get ``SuccessfulDelete`` ``Deleted pod: <name>``. Writes are by
``kube-controller-manager``; Events come from ``daemonset-controller``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._patching.goencode import encode
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of
from fakeapi._state.simulation.nodes import NODES
from fakeapi._state.simulation.revisions import (
    CONTROLLER_REVISIONS,
    controller_reference,
    daemon_set_hash,
    owned_by,
    owned_revisions,
    revision_data,
)
from fakeapi._state.simulation.scheduling import required_affinity_matches, tolerates
from fakeapi._state.simulation.statefulsets import available, ready_since
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._state.simulation.manager import Simulation

__all__ = ["DAEMON_TOLERATIONS", "daemon_set_due", "sync_daemon_sets"]

DAEMON_SETS = builtin_type("apps", "v1", "DaemonSet")
PODS = builtin_type("", "v1", "Pod")
MANAGER = "kube-controller-manager"
COMPONENT = "daemonset-controller"
HASH_LABEL = "controller-revision-hash"
GENERATION_LABEL = "pod-template-generation"
TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"
DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
NETWORK_UNAVAILABLE = ("node.kubernetes.io/network-unavailable", "NoSchedule")
TERMINAL = ("Succeeded", "Failed")
NOT_READY_TAINT = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}


def sync_daemon_sets(simulation: Simulation) -> None:
    for daemon_set in simulation.store.items(DAEMON_SETS, None):
        _sync(simulation, daemon_set)


def daemon_set_due(simulation: Simulation) -> float | None:
    """When a Ready pod of a DaemonSet with ``minReadySeconds`` becomes available."""
    now = simulation.store.clock.now()
    times = []
    for daemon_set in simulation.store.items(DAEMON_SETS, None):
        wait = int((daemon_set.get("spec") or {}).get("minReadySeconds") or 0)
        for pod in _owned_pods(simulation, daemon_set) if wait > 0 else []:
            since = ready_since(pod)
            if since is not None and since + wait > now:
                times.append(since + wait)
    return min(times, default=None)


# -- which nodes (daemon_controller.go) -------------------------------------------------------------


def daemon_tolerations(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """``AddOrUpdateDaemonPodTolerations``: the pod's tolerations plus the daemon ones it lacks."""
    tolerations = list(spec.get("tolerations") or [])
    wanted = [*DAEMON_TOLERATIONS, *([NETWORK_UNAVAILABLE] if spec.get("hostNetwork") else [])]
    for key, effect in wanted:
        toleration = {"key": key, "operator": "Exists", "effect": effect}
        same = [
            i
            for i, t in enumerate(tolerations)
            if t.get("key") == key and t.get("operator", "Equal") == "Exists" and t.get("effect") == effect
            and not t.get("value")
        ]  # fmt: skip
        if same:
            tolerations[same[0]] = toleration
        else:
            tolerations.append(toleration)
    return tolerations


def should_run(daemon_set: dict[str, Any], node: dict[str, Any]) -> tuple[bool, bool]:
    """``NodeShouldRunDaemonPod``: (should run, should continue running)."""
    spec = dict(((daemon_set.get("spec") or {}).get("template") or {}).get("spec") or {})
    node_name = metadata_of(node).get("name")
    if spec.get("nodeName") not in (None, "", node_name):
        return False, False
    if not required_affinity_matches(spec, node):
        return False, False
    tolerations = daemon_tolerations(spec)
    taints = list((node.get("spec") or {}).get("taints") or [])
    if not _node_ready(node) and not any(t.get("key") == NOT_READY_TAINT["key"] for t in taints):
        # The node lifecycle controller, which is not simulated, taints a node that is not Ready so.
        taints.append(NOT_READY_TAINT)

    def untolerated(effects: tuple[str, ...]) -> bool:
        return any(
            taint.get("effect") in effects and not any(tolerates(t, taint) for t in tolerations) for taint in taints
        )

    if untolerated(("NoExecute", "NoSchedule")):
        return False, not untolerated(("NoExecute",))
    return True, True


def _node_ready(node: dict[str, Any]) -> bool:
    conditions = (node.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _target_node(pod: dict[str, Any]) -> str | None:
    """``util.GetTargetNodeName``: ``spec.nodeName``, else the pod's ``metadata.name In`` affinity field."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return str(spec["nodeName"])
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    for term in required.get("nodeSelectorTerms") or []:
        for requirement in term.get("matchFields") or []:
            if requirement.get("key") == "metadata.name" and requirement.get("operator") == "In":
                values = requirement.get("values") or []
                return str(values[0]) if len(values) == 1 else None
    return None


def _owned_pods(simulation: Simulation, daemon_set: dict[str, Any]) -> list[dict[str, Any]]:
    namespace = metadata_of(daemon_set).get("namespace", "")
    return [pod for pod in simulation.store.items(PODS, namespace) if owned_by(pod, daemon_set)]


def _phase(pod: dict[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def _deleting(pod: dict[str, Any]) -> bool:
    return metadata_of(pod).get("deletionTimestamp") is not None


def _pods_by_node(simulation: Simulation, daemon_set: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """``getNodesToDaemonPods``, each node's pods oldest first (``podByCreationTimestampAndPhase``)."""
    by_node: dict[str, list[dict[str, Any]]] = {}
    for pod in _owned_pods(simulation, daemon_set):
        if _phase(pod) in TERMINAL and _deleting(pod):
            continue
        node = _target_node(pod)
        if node is not None:
            by_node.setdefault(node, []).append(pod)
    for pods in by_node.values():
        pods.sort(key=_age_order)
    return by_node


def _age_order(pod: dict[str, Any]) -> tuple[bool, str, str]:
    meta = metadata_of(pod)
    return not (pod.get("spec") or {}).get("nodeName"), meta.get("creationTimestamp") or "", meta.get("name") or ""


def _generation(daemon_set: dict[str, Any]) -> str | None:
    value = (metadata_of(daemon_set).get("annotations") or {}).get(TEMPLATE_GENERATION)
    return str(value) if value is not None and str(value).lstrip("-").isdigit() else None


def _updated(pod: dict[str, Any], digest: str, generation: str | None) -> bool:
    """``util.IsPodUpdated``: the hash label, or the deprecated template generation label, matches."""
    labels = metadata_of(pod).get("labels") or {}
    return bool(digest and labels.get(HASH_LABEL) == digest) or (
        generation is not None and labels.get(GENERATION_LABEL) == generation
    )


def _ready(pod: dict[str, Any]) -> bool:
    return ready_since(pod) is not None


# -- one sync ---------------------------------------------------------------------------------------


def _sync(simulation: Simulation, daemon_set: dict[str, Any]) -> None:
    if metadata_of(daemon_set).get("deletionTimestamp") is not None:
        return
    selector = (daemon_set.get("spec") or {}).get("selector") or {}
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        return
    history = _construct_history(simulation, daemon_set)
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
        _rolling_update(simulation, daemon_set, nodes, digest)
    _cleanup_history(simulation, daemon_set, old)
    _write_status(simulation, daemon_set, nodes, digest)


def _construct_history(
    simulation: Simulation, daemon_set: dict[str, Any]
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
            return store.create(CONTROLLER_REVISIONS, namespace, revision, manager=MANAGER).object, old
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

        store.update(
            DAEMON_SETS, namespace, meta["name"], bump, subresource="status", manager=MANAGER, unconditional=True
        )
        return None
    current = max(matching, key=lambda r: int(r.get("revision") or 0))
    for duplicate in matching:
        if duplicate is not current:
            store.delete(CONTROLLER_REVISIONS, namespace, metadata_of(duplicate)["name"])
    if int(current.get("revision") or 0) < number:

        def renumber(revision: dict[str, Any]) -> dict[str, Any]:
            return {**revision, "revision": number}

        current = store.update(
            CONTROLLER_REVISIONS, namespace, metadata_of(current)["name"], renumber, manager=MANAGER
        ).object
    return current, old


def _manage(simulation: Simulation, daemon_set: dict[str, Any], nodes: list[dict[str, Any]], digest: str) -> None:
    """``manage``/``podsShouldBeOnNode``: which nodes need a pod, which pods must go."""
    by_node = _pods_by_node(simulation, daemon_set)
    surge = _surge(daemon_set, 1) > 0
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
                if _deleting(pod):
                    continue
                if _phase(pod) in TERMINAL:
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
            doomed += [pod for pod in pods if not _deleting(pod)]
    known = {metadata_of(node)["name"] for node in nodes}
    for node_name, pods in by_node.items():
        if node_name not in known:
            doomed += [pod for pod in pods if not (pod.get("spec") or {}).get("nodeName")]
    _sync_nodes(simulation, daemon_set, doomed, needing, digest)


def _report_finished(simulation: Simulation, daemon_set: dict[str, Any], pod: dict[str, Any], node: str) -> None:
    meta = metadata_of(pod)
    where = f"{meta.get('namespace')}/{meta.get('name')} on node {node}"
    if _phase(pod) == "Failed":
        event = ("Warning", "FailedDaemonPod", f"Found failed daemon pod {where}, will try to kill it")
    else:
        event = ("Normal", "SucceededDaemonPod", f"Found succeeded daemon pod {where}, will try to delete it")
    simulation.recorder.record(daemon_set, *event, component=COMPONENT, manager=MANAGER)


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


def _sync_nodes(
    simulation: Simulation, daemon_set: dict[str, Any], doomed: list[dict[str, Any]], needing: list[str], digest: str
) -> None:
    """``syncNodes``: create the pods (``CreatePodTemplate``, pinned to the node), then delete."""
    store = simulation.store
    meta = metadata_of(daemon_set)
    namespace = meta.get("namespace", "")
    template = (daemon_set.get("spec") or {}).get("template") or {}
    template_meta = template.get("metadata") or {}
    generation = _generation(daemon_set)
    labels = dict(template_meta.get("labels") or {})
    if generation is not None:
        labels[GENERATION_LABEL] = generation
    if digest:
        labels[HASH_LABEL] = digest
    for node_name in needing:
        spec = dict(template.get("spec") or {})
        spec["tolerations"] = daemon_tolerations(spec)
        spec["affinity"] = _pinned_affinity(spec.get("affinity"), node_name)
        metadata: dict[str, Any] = {
            "generateName": f"{meta.get('name')}-",
            "namespace": namespace,
            "labels": dict(labels),
        }
        if template_meta.get("annotations"):
            metadata["annotations"] = dict(template_meta["annotations"])
        if template_meta.get("finalizers"):
            metadata["finalizers"] = list(template_meta["finalizers"])
        metadata["ownerReferences"] = [controller_reference(daemon_set, "apps/v1", "DaemonSet")]
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}
        stored = store.create(PODS, namespace, pod, manager=MANAGER).object
        message = f"Created pod: {metadata_of(stored)['name']}"
        simulation.recorder.record(
            daemon_set, "Normal", "SuccessfulCreate", message, component=COMPONENT, manager=MANAGER
        )
    for pod in doomed:
        name = metadata_of(pod)["name"]
        try:
            store.delete(PODS, namespace, name)
        except APIError as error:
            if error.reason != "NotFound":
                raise
            continue
        simulation.recorder.record(
            daemon_set, "Normal", "SuccessfulDelete", f"Deleted pod: {name}", component=COMPONENT, manager=MANAGER
        )


def _pinned_affinity(affinity: dict[str, Any] | None, node_name: str) -> dict[str, Any]:
    """``ReplaceDaemonSetPodNodeNameNodeAffinity``: the required terms become ``metadata.name In [node]``."""
    selector = {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]
    }
    affinity = dict(affinity or {})
    node_affinity = dict(affinity.get("nodeAffinity") or {})
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = (
        selector if required is None else {**required, **selector}
    )
    affinity["nodeAffinity"] = node_affinity
    return affinity


def _scaled(value: Any, total: int, round_up: bool) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``."""
    if isinstance(value, str) and value.endswith("%"):
        percent = int(value[:-1])
        return -(-percent * total // 100) if round_up else percent * total // 100
    return int(value or 0)


def _surge(daemon_set: dict[str, Any], desired: int) -> int:
    strategy = (daemon_set.get("spec") or {}).get("updateStrategy") or {}
    rolling = strategy.get("rollingUpdate")
    if strategy.get("type", "RollingUpdate") != "RollingUpdate" or rolling is None:
        return 0
    return _scaled(rolling.get("maxSurge"), desired, True)


def _rolling_update(
    simulation: Simulation, daemon_set: dict[str, Any], nodes: list[dict[str, Any]], digest: str
) -> None:
    """``rollingUpdate``: old pods replaced within ``maxUnavailable``, or ``maxSurge`` extra pods."""
    by_node = _pods_by_node(simulation, daemon_set)
    wanted = {metadata_of(n)["name"]: should_run(daemon_set, n)[0] for n in nodes}
    desired = sum(wanted.values())
    for name, run in wanted.items():
        if run:
            by_node.setdefault(name, [])
    rolling = ((daemon_set.get("spec") or {}).get("updateStrategy") or {}).get("rollingUpdate") or {}
    max_unavailable = _scaled(rolling.get("maxUnavailable"), desired, True)
    max_surge = _surge(daemon_set, desired)
    if desired > 0 and max_unavailable == 0 and max_surge == 0:
        max_unavailable = 1
    generation = _generation(daemon_set)
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
        _sync_nodes(simulation, daemon_set, replace + candidates[:room], [], digest)
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
    _sync_nodes(simulation, daemon_set, doomed, new_nodes + candidate_nodes[:room], digest)


def _new_and_old(
    pods: list[dict[str, Any]], digest: str, generation: str | None
) -> tuple[dict[str, Any] | None, dict[str, Any] | None] | None:
    """``findUpdatedPodsOnNode``: at most one new and one old live pod, or None for more."""
    new = old = None
    for pod in pods:
        if _deleting(pod):
            continue
        if _updated(pod, digest, generation):
            if new is not None:
                return None
            new = pod
        else:
            if old is not None:
                return None
            old = pod
    return new, old


def _cleanup_history(simulation: Simulation, daemon_set: dict[str, Any], old: list[dict[str, Any]]) -> None:
    """``cleanupHistory``: old revisions past ``revisionHistoryLimit`` that no pod still uses."""
    limit = int((daemon_set.get("spec") or {}).get("revisionHistoryLimit", 10))
    excess = len(old) - limit
    if excess <= 0:
        return
    live = {(metadata_of(p).get("labels") or {}).get(HASH_LABEL) for p in _owned_pods(simulation, daemon_set)}
    for revision in sorted(old, key=lambda r: int(r.get("revision") or 0)):
        if excess <= 0:
            break
        if (metadata_of(revision).get("labels") or {}).get(HASH_LABEL) in live:
            continue
        meta = metadata_of(revision)
        simulation.store.delete(CONTROLLER_REVISIONS, meta.get("namespace", ""), meta["name"])
        excess -= 1


_STATUS_FIELDS = (
    "desiredNumberScheduled",
    "currentNumberScheduled",
    "numberMisscheduled",
    "numberReady",
    "updatedNumberScheduled",
    "numberAvailable",
    "numberUnavailable",
)


def _write_status(simulation: Simulation, daemon_set: dict[str, Any], nodes: list[dict[str, Any]], digest: str) -> None:
    """``updateDaemonSetStatus``/``storeDaemonSetStatus``."""
    store = simulation.store
    meta = metadata_of(daemon_set)
    current = store.find(DAEMON_SETS, meta.get("namespace", ""), meta["name"]) or daemon_set
    by_node = _pods_by_node(simulation, daemon_set)
    generation = _generation(daemon_set)
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
        counts["updatedNumberScheduled"] += _updated(pod, digest, generation)
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

    store.update(
        DAEMON_SETS, meta.get("namespace", ""), meta["name"], with_status, subresource="status", manager=MANAGER,
        unconditional=True,
    )  # fmt: skip
