"""kube-scheduler's VolumeBinding plugin, as far as claims of kind's storage need it
(``pkg/scheduler/framework/plugins/volumebinding/volume_binding.go`` and ``binder.go``;
docs/storage.md).

``PreFilter`` (``GetPodVolumeClaims``): a pod naming a claim that does not exist, is being deleted,
or is unbound in ``Immediate`` mode is not scheduled yet. ``Filter`` (``FindPodVolumes``): a node
must match the node affinity of every volume the pod's bound claims use, and an unbound
``WaitForFirstConsumer`` claim needs a class whose provisioner is not
``kubernetes.io/no-provisioner``. ``PreBind`` (``BindPodVolumes``): each such claim gets
``volume.kubernetes.io/selected-node`` (an update by ``kube-scheduler``, ``AssumePodVolumes``), and
the pod is bound only once every claim is bound. Upstream the scheduler waits in ``PreBind`` for
that; here the pod stays unbound and the next round tries again, the claim's selected node standing
for the decision the scheduler keeps in memory. Existing volumes are not matched to unbound
``WaitForFirstConsumer`` claims by the scheduler (upstream it binds a fitting one before
provisioning).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.volumes import (
    CLAIMS,
    SELECTED_NODE,
    VOLUMES,
    claim_class,
    claim_names,
    class_of,
    update_object,
)
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from collections.abc import Callable

    from fakeapi._cluster.context import ControllerContext
    from fakeapi._state.storeview import StoreView

__all__ = ["PodVolumes", "pod_volumes", "select_nodes"]

_NO_PROVISIONER = "kubernetes.io/no-provisioner"


@dataclass
class PodVolumes:
    """What the pod's claims ask of its node."""

    bound: list[dict[str, Any]] = field(default_factory=list)  # the volumes of bound claims
    waiting: list[dict[str, Any]] = field(default_factory=list)  # unbound WaitForFirstConsumer claims


def pod_volumes(store: StoreView, pod: dict[str, Any]) -> PodVolumes | None:
    """``PreFilter``: None when the pod cannot be scheduled as its claims stand."""
    namespace = metadata_of(pod).get("namespace", "")
    volumes = PodVolumes()
    for name in claim_names(pod):
        claim = store.find(CLAIMS, namespace, name)
        if claim is None or metadata_of(claim).get("deletionTimestamp") is not None:
            return None
        volume_name = (claim.get("spec") or {}).get("volumeName")
        if volume_name:
            volume = store.find(VOLUMES, "", volume_name)
            if volume is None:
                return None
            volumes.bound.append(volume)
            continue
        storage_class = class_of(store, claim_class(claim))
        if storage_class is None or storage_class.get("volumeBindingMode") != "WaitForFirstConsumer":
            return None
        if storage_class.get("provisioner") == _NO_PROVISIONER:
            return None
        volumes.waiting.append(claim)
    return volumes


def fits(volumes: PodVolumes, node: dict[str, Any], matches: Callable[[dict[str, Any], dict[str, Any]], bool]) -> bool:
    """``Filter``: the bound volumes' node affinity, and the node already chosen for a waiting claim.

    ``matches`` is the scheduler's required-node-affinity test of a pod spec against a node.
    """
    node_name = metadata_of(node).get("name")
    for volume in volumes.bound:
        required = ((volume.get("spec") or {}).get("nodeAffinity") or {}).get("required")
        if required is not None:
            spec = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}}
            if not matches(spec, node):
                return False
    return all(
        (metadata_of(claim).get("annotations") or {}).get(SELECTED_NODE, node_name) == node_name
        for claim in volumes.waiting
    )


def select_nodes(simulation: ControllerContext, volumes: PodVolumes, node_name: str) -> None:
    """``AssumePodVolumes`` and ``BindPodVolumes``: the chosen node written on each waiting claim."""
    for claim in volumes.waiting:
        if SELECTED_NODE not in (metadata_of(claim).get("annotations") or {}):
            update_object(
                simulation, CLAIMS, claim, {}, annotations={SELECTED_NODE: node_name}, manager="kube-scheduler"
            )
