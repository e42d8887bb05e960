"""Which volume a claim can bind to: ``findBestMatchForClaim`` of
``pkg/controller/volume/persistentvolume/index.go`` and ``FindMatchingVolume`` and
``CheckVolumeModeMismatches``/``CheckAccessModes`` of
``staging/src/k8s.io/component-helpers/storage/volume/pv_helpers.go``, with
``checkVolumeSatisfyClaim`` of ``pv_controller.go`` (docs/storage.md).

A volume pre-bound to the claim (its ``claimRef`` names it, with the claim's uid or none) and large
enough wins at once. Otherwise the smallest volume that is Available, not being deleted, not bound
elsewhere, of the claim's class, volume mode and label selector, large enough and offering every
access mode the claim asks for. In ``WaitForFirstConsumer`` mode the controller binds only
pre-bound volumes: the rest is the scheduler's (which here does not bind existing volumes).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.volumes import VOLUMES, claim_class, storage_request
from fakeapi._state.label_selectors import requirements_match
from fakeapi._state.objects import metadata_of
from fakeapi._state.typed.quantities import QuantityError, quantity_amount

if TYPE_CHECKING:
    from fakeapi._state.storeview import StoreView

__all__ = ["best_match", "quantity", "satisfies"]


def quantity(text: str | None) -> Decimal:
    """A quantity's value (0 when absent or unreadable: validation keeps those out of real objects)."""
    if text is None:
        return Decimal(0)
    try:
        return quantity_amount(str(text))
    except QuantityError:
        return Decimal(0)


def _volume_class(volume: dict[str, Any]) -> str:
    """``GetPersistentVolumeClass``: the beta annotation first, then ``spec.storageClassName``."""
    annotations = metadata_of(volume).get("annotations") or {}
    if "volume.beta.kubernetes.io/storage-class" in annotations:
        return str(annotations["volume.beta.kubernetes.io/storage-class"])
    return str((volume.get("spec") or {}).get("storageClassName") or "")


def _capacity(volume: dict[str, Any]) -> Decimal:
    return quantity(((volume.get("spec") or {}).get("capacity") or {}).get("storage"))


def _mode_mismatch(volume: dict[str, Any], claim: dict[str, Any]) -> bool:
    wanted = (claim.get("spec") or {}).get("volumeMode") or "Filesystem"
    offered = (volume.get("spec") or {}).get("volumeMode") or "Filesystem"
    return bool(wanted != offered)


def _access_modes_fit(volume: dict[str, Any], claim: dict[str, Any]) -> bool:
    offered = set((volume.get("spec") or {}).get("accessModes") or [])
    return all(mode in offered for mode in (claim.get("spec") or {}).get("accessModes") or [])


def satisfies(volume: dict[str, Any], claim: dict[str, Any]) -> str:
    """``checkVolumeSatisfyClaim``: why the volume cannot serve the claim ("" when it can)."""
    if metadata_of(volume).get("deletionTimestamp") is not None:
        return f'the volume is marked for deletion "{metadata_of(volume).get("name")}"'
    if _capacity(volume) < quantity(storage_request(claim)):
        return "requested PV is too small"
    if _volume_class(volume) != claim_class(claim):
        return "storageClassName does not match"
    if _mode_mismatch(volume, claim):
        return "incompatible volumeMode"
    if not _access_modes_fit(volume, claim):
        return "incompatible accessMode"
    return ""


def _prebound(volume: dict[str, Any], claim: dict[str, Any]) -> bool:
    reference = (volume.get("spec") or {}).get("claimRef")
    meta = metadata_of(claim)
    return (
        isinstance(reference, dict)
        and reference.get("name") == meta.get("name")
        and reference.get("namespace") == meta.get("namespace")
        and reference.get("uid") in (None, "", meta.get("uid"))
    )


def _selector_matches(volume: dict[str, Any], claim: dict[str, Any]) -> bool:
    selector = (claim.get("spec") or {}).get("selector")
    if not isinstance(selector, dict):
        return True
    labels = metadata_of(volume).get("labels") or {}
    return requirements_match(selector.get("matchLabels") or {}, selector.get("matchExpressions") or [], labels)


def best_match(store: StoreView, claim: dict[str, Any], delay_binding: bool) -> dict[str, Any] | None:
    requested = quantity(storage_request(claim))
    best: dict[str, Any] | None = None
    for volume in store.items(VOLUMES, None):
        if metadata_of(volume).get("deletionTimestamp") is not None or _mode_mismatch(volume, claim):
            continue
        size = _capacity(volume)
        if _prebound(volume, claim):
            if size >= requested:
                return volume
            continue
        if delay_binding:
            continue
        if (volume.get("spec") or {}).get("claimRef") is not None:
            continue
        if (volume.get("status") or {}).get("phase") != "Available":
            continue
        if _volume_class(volume) != claim_class(claim) or not _selector_matches(volume, claim):
            continue
        if size < requested or not _access_modes_fit(volume, claim):
            continue
        if best is None or size < _capacity(best):
            best = volume
    return best
