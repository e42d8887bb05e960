"""kube-controller-manager's PVC and PV protection controllers (docs/storage.md).

``pkg/controller/volume/pvcprotection/pvc_protection_controller.go``: a claim being deleted loses
its ``kubernetes.io/pvc-protection`` finalizer once no scheduled pod names it in its volumes
(``podUsesPVC`` counts a pod only once it has a node: the kubelet refuses to start one whose claim
is being deleted). ``pkg/controller/volume/pvprotection/pv_protection_controller.go``: a volume
being deleted loses ``kubernetes.io/pv-protection`` once its phase is not Bound (``isBeingUsed``).
Each removal is an update by ``kube-controller-manager``; the last finalizer going lets the
deletion finish. The StorageObjectInUseProtection admission plugin adds the finalizers while these
controllers run (:mod:`..admission.storage`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.volumes import CLAIMS, VOLUMES, claim_names, update_object
from fakeapi._state.admission.storage import PROTECTION_FINALIZERS
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["protect_claims", "protect_volumes"]

_PODS = builtin_type("", "v1", "Pod")


def _release(simulation: ControllerContext, obj: dict[str, Any], finalizer: str, rtype: Any) -> None:
    finalizers = list(metadata_of(obj).get("finalizers") or [])
    update_object(simulation, rtype, obj, {}, finalizers=[f for f in finalizers if f != finalizer])


def _terminating_with(obj: dict[str, Any], finalizer: str) -> bool:
    meta = metadata_of(obj)
    return meta.get("deletionTimestamp") is not None and finalizer in (meta.get("finalizers") or [])


def protect_claims(simulation: ControllerContext) -> None:
    finalizer = PROTECTION_FINALIZERS["persistentvolumeclaims"]
    store = simulation.store
    for claim in store.items(CLAIMS, None):
        if not _terminating_with(claim, finalizer):
            continue
        meta = metadata_of(claim)
        in_use = any(
            (pod.get("spec") or {}).get("nodeName") and meta.get("name") in claim_names(pod)
            for pod in store.items(_PODS, meta.get("namespace", ""))
        )
        if not in_use:
            _release(simulation, claim, finalizer, CLAIMS)


def protect_volumes(simulation: ControllerContext) -> None:
    finalizer = PROTECTION_FINALIZERS["persistentvolumes"]
    for volume in simulation.store.items(VOLUMES, None):
        if _terminating_with(volume, finalizer) and (volume.get("status") or {}).get("phase") != "Bound":
            _release(simulation, volume, finalizer, VOLUMES)
