"""What the storage controllers share: the annotations they write, a claim's class and binding mode,
the pods that use a claim, and the claim-and-volume writes of ``pv_controller.go`` (docs/storage.md).

The names are those of ``staging/src/k8s.io/component-helpers/storage/volume/helpers.go`` and
``pv_helpers.go``: ``AnnBindCompleted``, ``AnnBoundByController``, ``AnnSelectedNode``,
``AnnStorageProvisioner`` and its beta spelling, ``AnnDynamicallyProvisioned``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.recording import object_reference
from fakeapi._cluster.status_writes import CONTROLLER_MANAGER
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.storeview import StoreView

__all__ = [
    "BIND_COMPLETED",
    "BOUND_BY_CONTROLLER",
    "CLAIMS",
    "PROVISIONED_BY",
    "SELECTED_NODE",
    "STORAGE_CLASSES",
    "STORAGE_PROVISIONER",
    "STORAGE_PROVISIONER_BETA",
    "VOLUMES",
    "already_recorded",
    "claim_class",
    "claim_names",
    "claim_reference",
    "class_of",
    "delays_binding",
    "set_volume_phase",
    "storage_request",
    "update_object",
]

CLAIMS = builtin_type("", "v1", "PersistentVolumeClaim")
VOLUMES = builtin_type("", "v1", "PersistentVolume")
STORAGE_CLASSES = builtin_type("storage.k8s.io", "v1", "StorageClass")

BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
STORAGE_PROVISIONER_BETA = "volume.beta.kubernetes.io/storage-provisioner"
_BETA_CLASS = "volume.beta.kubernetes.io/storage-class"


def claim_class(claim: dict[str, Any]) -> str:
    """``GetPersistentVolumeClaimClass``: the beta annotation first, then ``spec.storageClassName``."""
    annotations = metadata_of(claim).get("annotations") or {}
    if _BETA_CLASS in annotations:
        return str(annotations[_BETA_CLASS])
    return str((claim.get("spec") or {}).get("storageClassName") or "")


def class_of(store: StoreView, name: str) -> dict[str, Any] | None:
    return store.find(STORAGE_CLASSES, "", name) if name else None


def delays_binding(store: StoreView, claim: dict[str, Any]) -> bool:
    """``IsDelayBindingMode``: the claim's class exists and binds ``WaitForFirstConsumer``."""
    found = class_of(store, claim_class(claim))
    return found is not None and found.get("volumeBindingMode") == "WaitForFirstConsumer"


def claim_names(pod: dict[str, Any]) -> list[str]:
    """The claims a pod's volumes name (``persistentVolumeClaim.claimName``)."""
    names = []
    for volume in (pod.get("spec") or {}).get("volumes") or []:
        source = volume.get("persistentVolumeClaim") if isinstance(volume, dict) else None
        if isinstance(source, dict) and source.get("claimName"):
            names.append(str(source["claimName"]))
    return names


def storage_request(claim: dict[str, Any]) -> str | None:
    requests = ((claim.get("spec") or {}).get("resources") or {}).get("requests") or {}
    value = requests.get("storage")
    return None if value is None else str(value)


def claim_reference(claim: dict[str, Any]) -> dict[str, Any]:
    """``reference.GetReference`` of a claim, as a volume's ``claimRef`` holds it."""
    return object_reference({**claim, "kind": "PersistentVolumeClaim", "apiVersion": "v1"})


def already_recorded(simulation: ControllerContext, involved: dict[str, Any], reason: str, message: str) -> bool:
    """Whether this object already has this Event: upstream records it at every sync and its recorder
    folds the repeats into one Event's ``count``; here it is written once."""
    meta = metadata_of(involved)
    events = builtin_type("", "v1", "Event")
    namespace = meta.get("namespace") or "default"
    return any(
        (event.get("involvedObject") or {}).get("uid") == meta.get("uid")
        and event.get("reason") == reason
        and event.get("message") == message
        for event in simulation.store.items(events, namespace)
    )


def update_object(
    simulation: ControllerContext,
    rtype: ResourceType,
    obj: dict[str, Any],
    change: dict[str, Any],
    *,
    annotations: dict[str, str | None] | None = None,
    finalizers: list[str] | None = None,
    subresource: str = "",
    manager: str = CONTROLLER_MANAGER,
) -> dict[str, Any]:
    """An update of the stored object: the top-level sections of ``change`` merged one level deep
    (a None value removes the field), annotations set or removed, finalizers replaced."""
    meta = metadata_of(obj)

    def compute(current: dict[str, Any]) -> dict[str, Any]:
        result = dict(current)
        for section, fields in change.items():
            merged = dict(result.get(section) or {})
            for key, value in fields.items():
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            result[section] = merged
        if annotations is not None or finalizers is not None:
            metadata = dict(result.get("metadata") or {})
            if annotations is not None:
                current_annotations = dict(metadata.get("annotations") or {})
                for key, value in annotations.items():
                    if value is None:
                        current_annotations.pop(key, None)
                    else:
                        current_annotations[key] = value
                metadata["annotations"] = current_annotations
            if finalizers is not None:
                metadata["finalizers"] = finalizers
            result["metadata"] = metadata
        return result

    committed = simulation.store.update(
        rtype,
        meta.get("namespace", ""),
        meta.get("name", ""),
        compute,
        subresource=subresource,
        manager=manager,
        unconditional=True,
    )
    return committed.object


def set_volume_phase(simulation: ControllerContext, volume: dict[str, Any], phase: str) -> dict[str, Any]:
    """``updateVolumePhase``: a status update; the registry stamps ``lastPhaseTransitionTime`` when the
    phase changes (``persistentvolume/strategy.go``, written here with the update)."""
    if (volume.get("status") or {}).get("phase") == phase:
        return volume
    now = simulation.store.clock.timestamp()
    fields = {"phase": phase, "message": None, "lastPhaseTransitionTime": now}
    return update_object(simulation, VOLUMES, volume, {"status": fields}, subresource="status")
