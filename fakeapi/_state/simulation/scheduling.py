"""kube-scheduler: each pending pod bound to a fake node through ``pods/binding``.

The scheduler takes pods with no ``spec.nodeName`` whose ``schedulerName`` is ``default-scheduler``
and that are not being deleted, filters the nodes (Ready, not ``unschedulable``, the pod's
``nodeSelector`` matched, every ``NoSchedule``/``NoExecute`` taint tolerated, room for one more pod
under ``status.allocatable.pods``) and scores what is left by fewest pods bound, ties going to the
node that sorts first: a deterministic stand-in for the real scoring plugins. The bind is the
``DefaultBinder`` plugin's POST of a Binding (``pkg/scheduler/framework/plugins/defaultbinder``),
which the apiserver's ``BindingREST`` turns into ``spec.nodeName`` and the ``PodScheduled``
condition without touching managedFields; then the ``Scheduled`` Event kube-scheduler's
``events.k8s.io`` recorder emits from ``handleBindingCycleError``'s success path in
``pkg/scheduler/schedule_one.go``: reason ``Scheduled``, action ``Binding``, note ``Successfully
assigned <namespace>/<name> to <node>``. A pod no node fits stays Pending with nothing written
(the real scheduler's ``Unschedulable`` condition and ``FailedScheduling`` Event are not
reproduced).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of
from fakeapi._state.pod_subresources import bind_pod
from fakeapi._state.simulation.nodes import NODES

if TYPE_CHECKING:
    from fakeapi._state.simulation.manager import Simulation

__all__ = ["SCHEDULER", "schedule_pods"]

PODS = builtin_type("", "v1", "Pod")
SCHEDULER = "default-scheduler"
SCHEDULER_MANAGER = "kube-scheduler"
SCHEDULER_INSTANCE = "default-scheduler-fakeapi-control-plane"


def schedule_pods(simulation: Simulation) -> None:
    store = simulation.store
    pending = [pod for pod in store.items(PODS, None) if _wants_scheduling(pod)]
    if not pending:
        return
    nodes = [node for node in store.items(NODES, None) if _schedulable(node)]
    bound: dict[str, int] = {}
    for pod in store.items(PODS, None):
        node_name = (pod.get("spec") or {}).get("nodeName")
        if node_name and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
            bound[node_name] = bound.get(node_name, 0) + 1
    for pod in pending:
        fitting = [node for node in nodes if _fits(pod, node, bound.get(metadata_of(node)["name"], 0))]
        if not fitting:
            continue
        node = min(fitting, key=lambda n: (bound.get(metadata_of(n)["name"], 0), metadata_of(n)["name"]))
        node_name = metadata_of(node)["name"]
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


def _schedulable(node: dict[str, Any]) -> bool:
    if (node.get("spec") or {}).get("unschedulable"):
        return False
    conditions = (node.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _fits(pod: dict[str, Any], node: dict[str, Any], bound: int) -> bool:
    spec = pod.get("spec") or {}
    labels = metadata_of(node).get("labels") or {}
    selector = spec.get("nodeSelector") or {}
    if any(labels.get(key) != value for key, value in selector.items()):
        return False
    tolerations = spec.get("tolerations") or []
    for taint in (node.get("spec") or {}).get("taints") or []:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not any(
            _tolerates(toleration, taint) for toleration in tolerations
        ):
            return False
    capacity = ((node.get("status") or {}).get("allocatable") or {}).get("pods")
    return capacity is None or not str(capacity).isdigit() or bound < int(capacity)


def _tolerates(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    """``Toleration.ToleratesTaint`` (``k8s.io/api/core/v1/toleration.go``)."""
    if toleration.get("effect") and toleration.get("effect") != taint.get("effect"):
        return False
    if toleration.get("key") and toleration.get("key") != taint.get("key"):
        return False
    if toleration.get("operator") == "Exists":
        return True
    return bool(toleration.get("value", "") == taint.get("value", ""))
