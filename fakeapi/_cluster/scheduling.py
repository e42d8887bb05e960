"""kube-scheduler: each pending pod bound to a fake node through ``pods/binding``.

The scheduler takes pods with no ``spec.nodeName`` whose ``schedulerName`` is ``default-scheduler``
and that are not being deleted, filters the nodes (Ready; not ``unschedulable`` unless the pod
tolerates ``node.kubernetes.io/unschedulable:NoSchedule``, as the ``NodeUnschedulable`` plugin
allows; the pod's ``nodeSelector`` and required node affinity matched, as the ``NodeAffinity``
plugin's ``nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)`` does, with ``matchFields`` on
``metadata.name`` and ``matchExpressions`` on labels; every ``NoSchedule``/``NoExecute`` taint
tolerated; room for one more pod under ``status.allocatable.pods``) and scores what is left by fewest pods bound, ties going to the
node that sorts first: a deterministic stand-in for the real scoring plugins. The bind is the
``DefaultBinder`` plugin's POST of a Binding (``pkg/scheduler/framework/plugins/defaultbinder``),
which the apiserver's ``BindingREST`` turns into ``spec.nodeName`` and the ``PodScheduled``
condition without touching managedFields; then the ``Scheduled`` Event kube-scheduler's
``events.k8s.io`` recorder emits from ``handleBindingCycleError``'s success path in
``pkg/scheduler/schedule_one.go``: reason ``Scheduled``, action ``Binding``, note ``Successfully
assigned <namespace>/<name> to <node>``. A pod no node fits stays Pending with nothing written
(the real scheduler's ``Unschedulable`` condition and ``FailedScheduling`` Event are not
reproduced). The pod's claims are the VolumeBinding plugin's (:mod:`.volume_scheduling`): a pod
waits until they are bound, and a ``WaitForFirstConsumer`` claim is told the chosen node first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.nodes import NODES
from fakeapi._cluster.volume_scheduling import fits, pod_volumes, select_nodes
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of
from fakeapi._state.pod_subresources import bind_pod

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["SCHEDULER", "required_affinity_matches", "schedule_pods", "tolerates"]

PODS = builtin_type("", "v1", "Pod")
SCHEDULER = "default-scheduler"
SCHEDULER_MANAGER = "kube-scheduler"
SCHEDULER_INSTANCE = "default-scheduler-fakeapi-control-plane"
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


def schedule_pods(simulation: ControllerContext) -> None:
    store = simulation.store
    pending = [pod for pod in store.items(PODS, None) if _wants_scheduling(pod)]
    if not pending:
        return
    nodes = [node for node in store.items(NODES, None) if _ready(node)]
    bound: dict[str, int] = {}
    for pod in store.items(PODS, None):
        node_name = (pod.get("spec") or {}).get("nodeName")
        if node_name and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
            bound[node_name] = bound.get(node_name, 0) + 1
    for pod in pending:
        volumes = pod_volumes(store, pod)
        if volumes is None:
            continue
        fitting = [
            node
            for node in nodes
            if _fits(pod, node, bound.get(metadata_of(node)["name"], 0))
            and fits(volumes, node, required_affinity_matches)
        ]
        if not fitting:
            continue
        node = min(fitting, key=lambda n: (bound.get(metadata_of(n)["name"], 0), metadata_of(n)["name"]))
        node_name = metadata_of(node)["name"]
        if volumes.waiting:
            # VolumeBinding's PreBind: the pod is bound once its claims are (docs/storage.md).
            select_nodes(simulation, volumes, node_name)
            continue
        meta = metadata_of(pod)
        namespace, name = meta.get("namespace", ""), meta.get("name", "")
        binding = {"metadata": {"name": name, "namespace": namespace, "uid": meta.get("uid")}}
        bind_pod(store, PODS, namespace, name, {**binding, "target": {"kind": "Node", "name": node_name}})
        bound[node_name] = bound.get(node_name, 0) + 1
        simulation.recorder.emit(
            pod,
            "Normal",
            "Scheduled",
            "Binding",
            f"Successfully assigned {namespace}/{name} to {node_name}",
            controller=SCHEDULER,
            instance=SCHEDULER_INSTANCE,
            manager=SCHEDULER_MANAGER,
        )


def _wants_scheduling(pod: dict[str, Any]) -> bool:
    spec = pod.get("spec") or {}
    return (
        not spec.get("nodeName")
        and spec.get("schedulerName", SCHEDULER) == SCHEDULER
        and metadata_of(pod).get("deletionTimestamp") is None
        and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
    )


def _ready(node: dict[str, Any]) -> bool:
    conditions = (node.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _fits(pod: dict[str, Any], node: dict[str, Any], bound: int) -> bool:
    spec = pod.get("spec") or {}
    tolerations = spec.get("tolerations") or []
    if (node.get("spec") or {}).get("unschedulable") and not any(
        tolerates(toleration, UNSCHEDULABLE_TAINT) for toleration in tolerations
    ):
        return False
    if not required_affinity_matches(spec, node):
        return False
    for taint in (node.get("spec") or {}).get("taints") or []:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not any(
            tolerates(toleration, taint) for toleration in tolerations
        ):
            return False
    capacity = ((node.get("status") or {}).get("allocatable") or {}).get("pods")
    return capacity is None or not str(capacity).isdigit() or bound < int(capacity)


def required_affinity_matches(pod_spec: dict[str, Any], node: dict[str, Any]) -> bool:
    """``nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)``: the nodeSelector, then any required term."""
    labels = metadata_of(node).get("labels") or {}
    if any(labels.get(key) != value for key, value in (pod_spec.get("nodeSelector") or {}).items()):
        return False
    required = ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    if required is None:
        return True
    fields = {"metadata.name": metadata_of(node).get("name")}
    return any(_term_matches(term, labels, fields) for term in required.get("nodeSelectorTerms") or [])


def _term_matches(term: dict[str, Any], labels: dict[str, Any], fields: dict[str, Any]) -> bool:
    """A ``NodeSelectorTerm``: all its requirements hold; a term with none matches no node."""
    expressions, match_fields = term.get("matchExpressions") or [], term.get("matchFields") or []
    if not expressions and not match_fields:
        return False
    return all(_requirement_holds(r, labels) for r in expressions) and all(
        _requirement_holds(r, fields) for r in match_fields
    )


def _requirement_holds(requirement: dict[str, Any], values: dict[str, Any]) -> bool:
    key, operator = str(requirement.get("key") or ""), requirement.get("operator")
    wanted = [str(v) for v in requirement.get("values") or []]
    present = key in values and values[key] is not None
    value = str(values.get(key)) if present else ""
    if operator == "In":
        return present and value in wanted
    if operator == "NotIn":
        return not present or value not in wanted
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and len(wanted) == 1:
        try:
            left, right = int(value), int(wanted[0])
        except ValueError:
            return False
        return left > right if operator == "Gt" else left < right
    return False


def tolerates(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    """``Toleration.ToleratesTaint`` (``k8s.io/api/core/v1/toleration.go``)."""
    if toleration.get("effect") and toleration.get("effect") != taint.get("effect"):
        return False
    if toleration.get("key") and toleration.get("key") != taint.get("key"):
        return False
    if toleration.get("operator") == "Exists":
        return True
    return bool(toleration.get("value", "") == taint.get("value", ""))
