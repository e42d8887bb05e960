"""kube-controller-manager's ReplicaSet controller (``pkg/controller/replicaset/replica_set.go`` ``syncReplicaSet``).

For each ReplicaSet it takes the active pods (not terminal, not being deleted:
``controller.FilterActivePods``) whose controller reference is the ReplicaSet and whose labels
its selector matches, then:

* ``manageReplicas`` (not for a ReplicaSet being deleted): creates the missing pods from the template (``controller_utils.go``
  ``GetPodFromTemplate``: the template's labels, annotations and finalizers, ``generateName``
  ``<rs>-`` so the apiserver adds five characters, a controller ownerReference with
  ``blockOwnerDeletion``), each followed by a Normal ``SuccessfulCreate`` Event ``Created pod:
  <name>``; or deletes the surplus, the first ones of the ranking in :mod:`.podranking`, each
  followed by a Normal ``SuccessfulDelete`` Event ``Deleted pod: <name>``;
* ``calculateStatus`` (``replica_set_utils.go``): ``replicas``, ``fullyLabeledReplicas`` (pods
  carrying every template label), ``readyReplicas``, ``availableReplicas`` (ready for
  ``minReadySeconds`` on the server's clock) and ``observedGeneration``, written only when one
  of them changed (``updateReplicaSetStatus``).

A pod create the apiserver refuses (a missing ServiceAccount, say) stops the creations of that
sync with a Warning ``FailedCreate`` Event ``Error creating: <the apiserver's message>`` (none in
a terminating namespace) and, in ``calculateStatus``, the ``ReplicaFailure`` condition (reason
``FailedCreate``, the message); a later sync that creates its pods removes it. The real controller
retries on its rate limiter's back-off and re-emits the Event each time (its recorder folds them
into one Event whose ``count`` grows); here a sync retries whenever the controllers run and reports
the failure once, while the condition stands.

Writes are by ``kube-controller-manager``; Events come from ``replicaset-controller``. Not
reproduced: failed pod deletes, the expectations and the 500-pod burst limit, the slow-start
batches (every missing pod is created in one sync), adoption and release of pods by labels alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.controller_refs import controller_of, controller_reference, owned_by
from fakeapi._cluster.podranking import pod_ready, ready_since, sorted_for_deletion
from fakeapi._cluster.status_writes import CONTROLLER_MANAGER, update_status
from fakeapi._state.kinds import builtin_type
from fakeapi._state.label_selectors import requirements_match
from fakeapi._state.objects import metadata_of
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["REPLICASETS", "replicaset_due", "selects", "sync_replicasets"]

REPLICASETS = builtin_type("apps", "v1", "ReplicaSet")
PODS = builtin_type("", "v1", "Pod")
COMPONENT = "replicaset-controller"


def sync_replicasets(simulation: ControllerContext) -> None:
    for replicaset in simulation.store.items(REPLICASETS, None):
        _sync(simulation, replicaset)


def replicaset_due(simulation: ControllerContext) -> float | None:
    """When a ready pod has been ready for ``minReadySeconds`` and so becomes available."""
    now = simulation.store.clock.now()
    times = []
    for replicaset in simulation.store.items(REPLICASETS, None):
        min_ready = int((replicaset.get("spec") or {}).get("minReadySeconds") or 0)
        if min_ready <= 0:
            continue
        for pod in _active_pods(simulation, replicaset):
            since = ready_since(pod)
            if since is not None and since + min_ready > now:
                times.append(since + min_ready)
    return min(times, default=None)


def selects(owner: dict[str, Any], obj: dict[str, Any]) -> bool:
    """Whether the owner's ``spec.selector`` matches the object's labels (an empty selector matches nothing)."""
    selector = (owner.get("spec") or {}).get("selector") or {}
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        return False
    labels = metadata_of(obj).get("labels") or {}
    return requirements_match(selector.get("matchLabels") or {}, selector.get("matchExpressions") or [], labels)


def available(pod: dict[str, Any], min_ready_seconds: int, now: float) -> bool:
    """``podutil.IsPodAvailable``, with ``minReadySeconds`` reached at the instant it ends (see the docs)."""
    since = ready_since(pod)
    return since is not None and (min_ready_seconds == 0 or since + min_ready_seconds <= now)


def _active_pods(simulation: ControllerContext, replicaset: dict[str, Any]) -> list[dict[str, Any]]:
    namespace = metadata_of(replicaset).get("namespace", "")
    return [
        pod
        for pod in simulation.store.items(PODS, namespace)
        if _active(pod) and owned_by(pod, replicaset) and selects(replicaset, pod)
    ]


def _active(pod: dict[str, Any]) -> bool:
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and metadata_of(pod).get("deletionTimestamp") is None


def _sync(simulation: ControllerContext, replicaset: dict[str, Any]) -> None:
    pods = _active_pods(simulation, replicaset)
    wanted = int((replicaset.get("spec") or {}).get("replicas", 1))
    deleting = metadata_of(replicaset).get("deletionTimestamp") is not None
    failure: APIError | None = None
    if not deleting and len(pods) < wanted:
        created, failure = _create_pods(simulation, replicaset, wanted - len(pods))
        pods += created
    elif not deleting and len(pods) > wanted:
        doomed = sorted_for_deletion(pods, _related_pods(simulation, replicaset), simulation.store.clock.now())
        doomed = doomed[: len(pods) - wanted]
        for pod in doomed:
            _delete_pod(simulation, replicaset, pod)
        names = {metadata_of(pod).get("name") for pod in doomed}
        pods = [pod for pod in pods if metadata_of(pod).get("name") not in names]
    _write_status(simulation, replicaset, pods, failure)


def _related_pods(simulation: ControllerContext, replicaset: dict[str, Any]) -> list[dict[str, Any]]:
    """``getIndirectlyRelatedPods``: the pods of every ReplicaSet with the same controller (or this one alone)."""
    owner = controller_of(replicaset)
    namespace = metadata_of(replicaset).get("namespace", "")
    siblings = [replicaset]
    if owner is not None:
        siblings = [
            other
            for other in simulation.store.items(REPLICASETS, namespace)
            if (controller_of(other) or {}).get("uid") == owner.get("uid")
        ]
    uids = {metadata_of(other).get("uid") for other in siblings}
    return [pod for pod in simulation.store.items(PODS, namespace) if (controller_of(pod) or {}).get("uid") in uids]


def _create_pods(
    simulation: ControllerContext, replicaset: dict[str, Any], count: int
) -> tuple[list[dict[str, Any]], APIError | None]:
    """The missing pods, up to the first the apiserver refuses (``slowStartBatch`` stops at a failed batch)."""
    meta = metadata_of(replicaset)
    template = (replicaset.get("spec") or {}).get("template") or {}
    template_meta = template.get("metadata") or {}
    reference = controller_reference(replicaset, "apps/v1", "ReplicaSet")
    metadata: dict[str, Any] = {"generateName": f"{meta.get('name')}-", "namespace": meta.get("namespace")}
    for key in ("labels", "annotations", "finalizers"):
        if template_meta.get(key):
            metadata[key] = template_meta[key]
    metadata["ownerReferences"] = [reference]
    created: list[dict[str, Any]] = []
    for _ in range(count):
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": dict(metadata), "spec": template.get("spec") or {}}
        try:
            stored = simulation.store.create(PODS, meta.get("namespace", ""), pod, manager=CONTROLLER_MANAGER).object
        except APIError as error:
            if _reported(replicaset, error):
                message = f"Error creating: {error.message}"
                simulation.recorder.record(
                    replicaset, "Warning", "FailedCreate", message, component=COMPONENT, manager=CONTROLLER_MANAGER
                )
            return created, error
        created.append(stored)
        message = f"Created pod: {metadata_of(stored)['name']}"
        simulation.recorder.record(
            replicaset, "Normal", "SuccessfulCreate", message, component=COMPONENT, manager=CONTROLLER_MANAGER
        )
    return created, None


def _reported(replicaset: dict[str, Any], error: APIError) -> bool:
    """Whether a refused create gets its ``FailedCreate`` Event: not in a terminating namespace, and only
    the first time while the ``ReplicaFailure`` condition stands (see the module docstring)."""
    causes = (error.details or {}).get("causes") or []
    if any(cause.get("reason") == "NamespaceTerminating" for cause in causes):
        return False
    return _failure_condition(replicaset) is None


def _failure_condition(replicaset: dict[str, Any]) -> dict[str, Any] | None:
    conditions = (replicaset.get("status") or {}).get("conditions") or []
    return next((c for c in conditions if c.get("type") == "ReplicaFailure"), None)


def _delete_pod(simulation: ControllerContext, replicaset: dict[str, Any], pod: dict[str, Any]) -> None:
    meta = metadata_of(pod)
    simulation.store.delete(PODS, meta.get("namespace", ""), meta.get("name", ""))
    message = f"Deleted pod: {meta.get('name')}"
    simulation.recorder.record(
        replicaset, "Normal", "SuccessfulDelete", message, component=COMPONENT, manager=CONTROLLER_MANAGER
    )


def _write_status(
    simulation: ControllerContext, replicaset: dict[str, Any], pods: list[dict[str, Any]], failure: APIError | None
) -> None:
    spec = replicaset.get("spec") or {}
    template_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    min_ready = int(spec.get("minReadySeconds") or 0)
    now = simulation.store.clock.now()
    counts = {
        "replicas": len(pods),
        "fullyLabeledReplicas": sum(
            1
            for pod in pods
            if all((metadata_of(pod).get("labels") or {}).get(k) == v for k, v in template_labels.items())
        ),
        "readyReplicas": sum(1 for pod in pods if pod_ready(pod)),
        "availableReplicas": sum(1 for pod in pods if available(pod, min_ready, now)),
    }
    current = replicaset.get("status") or {}
    conditions = list(current.get("conditions") or [])
    standing = _failure_condition(replicaset)
    if failure is not None and standing is None:
        diff = len(pods) - int(spec.get("replicas", 1))
        reason = "FailedCreate" if diff < 0 else "FailedDelete" if diff > 0 else ""
        conditions.append(
            {
                "type": "ReplicaFailure",
                "status": "True",
                "lastTransitionTime": simulation.store.clock.timestamp(),
                "reason": reason,
                "message": failure.message,
            }
        )
    elif failure is None and standing is not None:
        conditions = [c for c in conditions if c.get("type") != "ReplicaFailure"]
    generation = metadata_of(replicaset).get("generation")
    if (
        all(int(current.get(key) or 0) == value for key, value in counts.items())
        and current.get("observedGeneration") == generation
        and conditions == list(current.get("conditions") or [])
    ):
        return

    def with_status(stored: dict[str, Any]) -> dict[str, Any]:
        status = dict(stored.get("status") or {})
        status["replicas"] = counts["replicas"]
        for key in ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"):
            if counts[key]:
                status[key] = counts[key]
            else:
                status.pop(key, None)
        status["observedGeneration"] = generation
        if conditions:
            status["conditions"] = conditions
        else:
            status.pop("conditions", None)
        return {**stored, "status": status}

    update_status(simulation, REPLICASETS, replicaset, with_status)
