"""Defaults of volumes and their classes: PersistentVolumes, claims and StorageClasses.

Reproduced from kube-apiserver 1.32: ``pkg/apis/core/v1/defaults.go`` ``SetDefaults_PersistentVolume``
(reclaim policy Retain, volume mode Filesystem, phase Pending), ``SetDefaults_PersistentVolumeClaim``
and ``SetDefaults_PersistentVolumeClaimSpec`` (phase Pending, volume mode Filesystem), the
``hostPath`` type of ``SetDefaults_HostPathVolumeSource``; the registries' ``PrepareForCreate``
(``pkg/registry/core/persistentvolume/strategy.go`` resets the status to Pending with its
``lastPhaseTransitionTime``, the PersistentVolumeLastPhaseTransitionTime feature being GA in 1.31;
``persistentvolumeclaim/strategy.go`` resets it to empty, which reading back defaults to Pending);
``pkg/apis/storage/v1/defaults.go`` ``SetDefaults_StorageClass`` (reclaim policy Delete, binding
mode Immediate).
"""

from __future__ import annotations

from fakeapi._state.defaults.fields import Obj, default, default_if_absent, sub

__all__ = ["persistent_volume_claim_defaults", "persistent_volume_defaults", "storage_class_defaults"]


def persistent_volume_defaults(volume: Obj, creating: bool | None) -> None:
    spec = sub(volume, "spec")
    if spec is not None:
        default(spec, "persistentVolumeReclaimPolicy", "Retain")
        default_if_absent(spec, "volumeMode", "Filesystem")
        if isinstance(host_path := spec.get("hostPath"), dict):
            default_if_absent(host_path, "type", "")
    if creating:
        created = (volume.get("metadata") or {}).get("creationTimestamp")
        volume["status"] = {"phase": "Pending", "lastPhaseTransitionTime": created}
    elif (status := sub(volume, "status")) is not None:
        default(status, "phase", "Pending")


def persistent_volume_claim_defaults(claim: Obj, creating: bool | None) -> None:
    if (spec := sub(claim, "spec")) is not None:
        default_if_absent(spec, "volumeMode", "Filesystem")
    if creating:
        claim["status"] = {}
    if (status := sub(claim, "status")) is not None:
        default(status, "phase", "Pending")


def storage_class_defaults(storage_class: Obj, creating: bool | None) -> None:
    default_if_absent(storage_class, "reclaimPolicy", "Delete")
    default_if_absent(storage_class, "volumeBindingMode", "Immediate")
