"""kube-controller-manager's PersistentVolume controller, its binder half
(``pkg/controller/volume/persistentvolume/pv_controller.go``; docs/storage.md).

``syncClaim`` for each claim, then ``syncVolume`` for each volume, level-triggered:

* an unbound claim (no ``pv.kubernetes.io/bind-completed``) without ``spec.volumeName`` is bound to
  the best matching volume (``findBestMatchForClaim``, :mod:`.volume_matching`); failing one, a claim
  without a class gets the default one (``assignDefaultStorageClass``), a ``WaitForFirstConsumer``
  claim the scheduler has not given a node waits (``WaitForFirstConsumer`` or ``WaitForPodScheduled``
  Event), a claim with a class is handed to its external provisioner (the two
  ``storage-provisioner`` annotations and the ``ExternalProvisioning`` Event), and a claim with
  neither gets ``FailedBinding``;
* ``bind``: the volume's ``claimRef`` (and ``bound-by-controller`` when this controller made the
  link), the volume's phase Bound, the claim's ``volumeName`` with ``bound-by-controller`` and
  ``bind-completed``, the claim's phase Bound with the volume's access modes and capacity: four
  writes, each made only when it changes something;
* a bound claim whose volume went is ``Lost`` (``ClaimLost``), one whose volume names another claim
  ``ClaimMisbound``;
* a volume with no claim is Available; one whose claim is gone is Released and reclaimed: Retain
  keeps it, Delete leaves it to its external provisioner (``doDeleteVolume`` finds no in-tree
  deleter for ``rancher.io/local-path``).

Writes are by ``kube-controller-manager``, Events from ``persistentvolume-controller``. Each Event
upstream repeats at every sync is written once (:func:`.volumes.already_recorded`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.status_writes import CONTROLLER_MANAGER
from fakeapi._cluster.volume_matching import best_match, satisfies
from fakeapi._cluster.volumes import (
    BIND_COMPLETED,
    BOUND_BY_CONTROLLER,
    CLAIMS,
    PROVISIONED_BY,
    SELECTED_NODE,
    STORAGE_PROVISIONER,
    STORAGE_PROVISIONER_BETA,
    VOLUMES,
    already_recorded,
    claim_class,
    claim_names,
    claim_reference,
    class_of,
    delays_binding,
    set_volume_phase,
    update_object,
)
from fakeapi._state.admission.storage import BETA_CLAIM_CLASS_ANNOTATION, default_class
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["PV_CONTROLLER", "sync_persistent_volumes"]

PV_CONTROLLER = "persistentvolume-controller"
_PODS = builtin_type("", "v1", "Pod")
_EXTERNAL_MESSAGE = (
    "Waiting for a volume to be created either by the external provisioner '{}' or manually by the system "
    "administrator. If volume creation is delayed, please verify that the provisioner is running and correctly "
    "registered."
)


def sync_persistent_volumes(simulation: ControllerContext) -> None:
    store = simulation.store
    for claim in store.items(CLAIMS, None):
        current = store.find(CLAIMS, metadata_of(claim).get("namespace", ""), metadata_of(claim).get("name", ""))
        if current is not None:
            _sync_claim(simulation, current)
    for volume in store.items(VOLUMES, None):
        current = store.find(VOLUMES, "", metadata_of(volume).get("name", ""))
        if current is not None:
            _sync_volume(simulation, current)


def _event(simulation: ControllerContext, obj: dict[str, Any], event_type: str, reason: str, message: str) -> None:
    if not already_recorded(simulation, obj, reason, message):
        simulation.recorder.record(
            obj, event_type, reason, message, component=PV_CONTROLLER, manager=CONTROLLER_MANAGER
        )


def _annotations(obj: dict[str, Any]) -> dict[str, Any]:
    return metadata_of(obj).get("annotations") or {}


def _set_claim_phase(
    simulation: ControllerContext, claim: dict[str, Any], phase: str, volume: dict[str, Any] | None
) -> dict[str, Any]:
    """``updateClaimStatus``: the phase, and the volume's access modes and (on becoming Bound) capacity."""
    status = claim.get("status") or {}
    fields: dict[str, Any] = {}
    if status.get("phase") != phase:
        fields["phase"] = phase
    if volume is None:
        for key in ("accessModes", "capacity"):
            if status.get(key) is not None:
                fields[key] = None
    else:
        modes = (volume.get("spec") or {}).get("accessModes")
        if status.get("accessModes") != modes:
            fields["accessModes"] = modes
        capacity = (volume.get("spec") or {}).get("capacity") or {}
        if status.get("phase") != phase and (status.get("capacity") or {}).get("storage") != capacity.get("storage"):
            fields["capacity"] = capacity
    if not fields:
        return claim
    return update_object(simulation, CLAIMS, claim, {"status": fields}, subresource="status")


def _bind(simulation: ControllerContext, volume: dict[str, Any], claim: dict[str, Any]) -> None:
    """``bind``: volume spec, volume status, claim spec, claim status, in that order."""
    reference = (volume.get("spec") or {}).get("claimRef") or {}
    claim_meta = metadata_of(claim)
    linked = (
        reference.get("name") == claim_meta.get("name")
        and reference.get("namespace") == claim_meta.get("namespace")
        and reference.get("uid") in (None, "", claim_meta.get("uid"))
    )
    annotations: dict[str, str | None] = {}
    change: dict[str, Any] = {}
    if not linked and BOUND_BY_CONTROLLER not in _annotations(volume):
        annotations[BOUND_BY_CONTROLLER] = "yes"
    if not linked or reference.get("uid") != claim_meta.get("uid"):
        change = {"spec": {"claimRef": claim_reference(claim)}}
    if change or annotations:
        volume = update_object(simulation, VOLUMES, volume, change, annotations=annotations)
    volume = set_volume_phase(simulation, volume, "Bound")
    claim_annotations: dict[str, str | None] = {}
    claim_change: dict[str, Any] = {}
    if (claim.get("spec") or {}).get("volumeName") != metadata_of(volume).get("name"):
        claim_change = {"spec": {"volumeName": metadata_of(volume).get("name")}}
        if BOUND_BY_CONTROLLER not in _annotations(claim):
            claim_annotations[BOUND_BY_CONTROLLER] = "yes"
    if BIND_COMPLETED not in _annotations(claim):
        claim_annotations[BIND_COMPLETED] = "yes"
    if claim_change or claim_annotations:
        claim = update_object(simulation, CLAIMS, claim, claim_change, annotations=claim_annotations)
    _set_claim_phase(simulation, claim, "Bound", volume)


def _sync_claim(simulation: ControllerContext, claim: dict[str, Any]) -> None:
    if BIND_COMPLETED in _annotations(claim):
        _sync_bound_claim(simulation, claim)
        return
    store = simulation.store
    volume_name = (claim.get("spec") or {}).get("volumeName")
    if not volume_name:
        delay = delays_binding(store, claim)
        found = best_match(store, claim, delay)
        if found is not None:
            _bind(simulation, found, claim)
            return
        _provision_or_wait(simulation, claim, delay)
        return
    volume = store.find(VOLUMES, "", volume_name)
    if volume is None:
        _set_claim_phase(simulation, claim, "Pending", None)
        return
    reference = (volume.get("spec") or {}).get("claimRef")
    claim_meta = metadata_of(claim)
    if reference is None:
        problem = satisfies(volume, claim)
        if problem:
            message = f'Cannot bind to requested volume "{volume_name}": {problem}'
            _event(simulation, claim, "Warning", "VolumeMismatch", message)
            _set_claim_phase(simulation, claim, "Pending", None)
            return
        _bind(simulation, volume, claim)
    elif (
        reference.get("name") == claim_meta.get("name")
        and reference.get("namespace") == claim_meta.get("namespace")
        and reference.get("uid") in (None, "", claim_meta.get("uid"))
    ):
        _bind(simulation, volume, claim)
    elif BOUND_BY_CONTROLLER not in _annotations(claim):
        _event(
            simulation, claim, "Warning", "FailedBinding", f'volume "{volume_name}" already bound to a different claim.'
        )
        _set_claim_phase(simulation, claim, "Pending", None)


def _provision_or_wait(simulation: ControllerContext, claim: dict[str, Any], delay: bool) -> None:
    """The branch of ``syncUnboundClaim`` where no volume matched."""
    store = simulation.store
    spec = claim.get("spec") or {}
    if claim_class(claim) == "" and spec.get("storageClassName") is None:
        # ``assignDefaultStorageClass``: a claim created before any default class existed.
        chosen = default_class(store)
        if chosen is not None and BETA_CLAIM_CLASS_ANNOTATION not in _annotations(claim):
            update_object(simulation, CLAIMS, claim, {"spec": {"storageClassName": metadata_of(chosen).get("name")}})
            return
    if delay and SELECTED_NODE not in _annotations(claim):
        _wait_for_consumer(simulation, claim)
    elif claim_class(claim):
        _provision(simulation, claim)
        return
    else:
        _event(
            simulation,
            claim,
            "Normal",
            "FailedBinding",
            "no persistent volumes available for this claim and no storage class is set",
        )
    _set_claim_phase(simulation, claim, "Pending", None)


def _wait_for_consumer(simulation: ControllerContext, claim: dict[str, Any]) -> None:
    """``emitEventForUnboundDelayBindingClaim``."""
    meta = metadata_of(claim)
    waiting = [
        str(metadata_of(pod).get("name"))
        for pod in simulation.store.items(_PODS, meta.get("namespace", ""))
        if meta.get("name") in claim_names(pod)
        and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
        and not (pod.get("spec") or {}).get("nodeName")
    ]
    if not waiting:
        reason, message = "WaitForFirstConsumer", "waiting for first consumer to be created before binding"
    elif len(waiting) == 1:
        reason, message = "WaitForPodScheduled", f"waiting for pod {waiting[0]} to be scheduled"
    else:
        reason, message = "WaitForPodScheduled", f"waiting for pods {','.join(waiting)} to be scheduled"
    _event(simulation, claim, "Normal", reason, message)


def _provision(simulation: ControllerContext, claim: dict[str, Any]) -> None:
    """``provisionClaim``: a class's external provisioner is asked through the claim's annotations."""
    name = claim_class(claim)
    found = class_of(simulation.store, name)
    if found is None:
        _event(simulation, claim, "Warning", "ProvisioningFailed", f'storageclass.storage.k8s.io "{name}" not found')
        return
    provisioner = str(found.get("provisioner") or "")
    if provisioner.startswith("kubernetes.io/"):
        # No in-tree volume plugin is simulated: ``FindProvisionablePluginByName`` fails for them all.
        _event(simulation, claim, "Warning", "ProvisioningFailed", f"no volume plugin matched name: {provisioner}")
        return
    annotations = _annotations(claim)
    wanted = {STORAGE_PROVISIONER_BETA: provisioner, STORAGE_PROVISIONER: provisioner}
    if any(annotations.get(key) != value for key, value in wanted.items()):
        claim = update_object(simulation, CLAIMS, claim, {}, annotations=dict(wanted))
    _event(simulation, claim, "Normal", "ExternalProvisioning", _EXTERNAL_MESSAGE.format(provisioner))


def _sync_bound_claim(simulation: ControllerContext, claim: dict[str, Any]) -> None:
    volume_name = (claim.get("spec") or {}).get("volumeName")
    if not volume_name:
        _lose(
            simulation,
            claim,
            "ClaimLost",
            "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!",
        )
        return
    volume = simulation.store.find(VOLUMES, "", volume_name)
    if volume is None:
        _lose(simulation, claim, "ClaimLost", "Bound claim has lost its PersistentVolume. Data on the volume is lost!")
        return
    reference = (volume.get("spec") or {}).get("claimRef")
    if reference is None or reference.get("uid") == metadata_of(claim).get("uid"):
        _bind(simulation, volume, claim)
    else:
        _lose(
            simulation, claim, "ClaimMisbound", "Two claims are bound to the same volume, this one is bound incorrectly"
        )


def _lose(simulation: ControllerContext, claim: dict[str, Any], reason: str, message: str) -> None:
    """``updateClaimStatusWithEvent`` to Lost: the Event only when the phase changes."""
    if (claim.get("status") or {}).get("phase") == "Lost":
        return
    claim = _set_claim_phase(simulation, claim, "Lost", None)
    simulation.recorder.record(claim, "Warning", reason, message, component=PV_CONTROLLER, manager=CONTROLLER_MANAGER)


def _sync_volume(simulation: ControllerContext, volume: dict[str, Any]) -> None:
    reference = (volume.get("spec") or {}).get("claimRef")
    if reference is None or not reference.get("uid"):
        set_volume_phase(simulation, volume, "Available")
        return
    claim = simulation.store.find(CLAIMS, str(reference.get("namespace") or ""), str(reference.get("name") or ""))
    if claim is not None and metadata_of(claim).get("uid") != reference.get("uid"):
        claim = None
    phase = (volume.get("status") or {}).get("phase")
    if claim is None:
        if phase not in ("Released", "Failed"):
            set_volume_phase(simulation, volume, "Released")
        # ``reclaimVolume``: Retain keeps it; Delete is the external provisioner's (it deletes the
        # volumes it provisioned); Recycle and in-tree deleters are not simulated.
        return
    claimed = (claim.get("spec") or {}).get("volumeName")
    if not claimed:
        return
    if claimed == metadata_of(volume).get("name"):
        set_volume_phase(simulation, volume, "Bound")
        return
    spec = volume.get("spec") or {}
    if PROVISIONED_BY in _annotations(volume) and spec.get("persistentVolumeReclaimPolicy") == "Delete":
        if phase not in ("Released", "Failed"):
            set_volume_phase(simulation, volume, "Released")
        return
    # ``unbindVolume``: a link this controller made is undone, a user's pre-binding keeps its name.
    if BOUND_BY_CONTROLLER in _annotations(volume):
        volume = update_object(
            simulation, VOLUMES, volume, {"spec": {"claimRef": None}}, annotations={BOUND_BY_CONTROLLER: None}
        )
    else:
        kept = {key: value for key, value in reference.items() if key != "uid"}
        volume = update_object(simulation, VOLUMES, volume, {"spec": {"claimRef": kept}})
    set_volume_phase(simulation, volume, "Available")
