"""A DaemonSet's pods: which nodes should run one (``NodeShouldRunDaemonPod`` in
``pkg/controller/daemon/daemon_controller.go``), how each is built (``util/daemonset_util.go``
``CreatePodTemplate``, ``AddOrUpdateDaemonPodTolerations``, ``ReplaceDaemonSetPodNodeNameNodeAffinity``)
and written (``syncNodes`` through ``RealPodControl`` of ``pkg/controller/controller_utils.go``:
``generateName`` ``<ds>-``, Events ``SuccessfulCreate`` ``Created pod: <name>`` and
``SuccessfulDelete`` ``Deleted pod: <name>``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.controller_refs import controller_reference, owned_by
from fakeapi._cluster.scheduling import required_affinity_matches, tolerates
from fakeapi._cluster.status_writes import CONTROLLER_MANAGER
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = [
    "COMPONENT",
    "DAEMON_TOLERATIONS",
    "HASH_LABEL",
    "TERMINAL",
    "daemon_tolerations",
    "deleting",
    "is_updated",
    "owned_pods",
    "phase",
    "pods_by_node",
    "scaled",
    "should_run",
    "surge_count",
    "sync_nodes",
    "template_generation",
]

PODS = builtin_type("", "v1", "Pod")
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


def owned_pods(simulation: ControllerContext, daemon_set: dict[str, Any]) -> list[dict[str, Any]]:
    namespace = metadata_of(daemon_set).get("namespace", "")
    return [pod for pod in simulation.store.items(PODS, namespace) if owned_by(pod, daemon_set)]


def phase(pod: dict[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def deleting(pod: dict[str, Any]) -> bool:
    return metadata_of(pod).get("deletionTimestamp") is not None


def pods_by_node(simulation: ControllerContext, daemon_set: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """``getNodesToDaemonPods``, each node's pods oldest first (``podByCreationTimestampAndPhase``)."""
    by_node: dict[str, list[dict[str, Any]]] = {}
    for pod in owned_pods(simulation, daemon_set):
        if phase(pod) in TERMINAL and deleting(pod):
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


def template_generation(daemon_set: dict[str, Any]) -> str | None:
    value = (metadata_of(daemon_set).get("annotations") or {}).get(TEMPLATE_GENERATION)
    return str(value) if value is not None and str(value).lstrip("-").isdigit() else None


def is_updated(pod: dict[str, Any], digest: str, generation: str | None) -> bool:
    """``util.IsPodUpdated``: the hash label, or the deprecated template generation label, matches."""
    labels = metadata_of(pod).get("labels") or {}
    return bool(digest and labels.get(HASH_LABEL) == digest) or (
        generation is not None and labels.get(GENERATION_LABEL) == generation
    )


def sync_nodes(
    simulation: ControllerContext,
    daemon_set: dict[str, Any],
    doomed: list[dict[str, Any]],
    needing: list[str],
    digest: str,
) -> None:
    """``syncNodes``: create the pods (``CreatePodTemplate``, pinned to the node), then delete."""
    store = simulation.store
    meta = metadata_of(daemon_set)
    namespace = meta.get("namespace", "")
    template = (daemon_set.get("spec") or {}).get("template") or {}
    template_meta = template.get("metadata") or {}
    generation = template_generation(daemon_set)
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
        stored = store.create(PODS, namespace, pod, manager=CONTROLLER_MANAGER).object
        message = f"Created pod: {metadata_of(stored)['name']}"
        simulation.recorder.record(
            daemon_set, "Normal", "SuccessfulCreate", message, component=COMPONENT, manager=CONTROLLER_MANAGER
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
            daemon_set,
            "Normal",
            "SuccessfulDelete",
            f"Deleted pod: {name}",
            component=COMPONENT,
            manager=CONTROLLER_MANAGER,
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


def scaled(value: Any, total: int, round_up: bool) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``."""
    if isinstance(value, str) and value.endswith("%"):
        percent = int(value[:-1])
        return -(-percent * total // 100) if round_up else percent * total // 100
    return int(value or 0)


def surge_count(daemon_set: dict[str, Any], desired: int) -> int:
    strategy = (daemon_set.get("spec") or {}).get("updateStrategy") or {}
    rolling = strategy.get("rollingUpdate")
    if strategy.get("type", "RollingUpdate") != "RollingUpdate" or rolling is None:
        return 0
    return scaled(rolling.get("maxSurge"), desired, True)
