"""The DefaultStorageClass, StorageObjectInUseProtection and PersistentVolumeClaimResize admission
plugins (docs/storage.md).

``plugin/pkg/admission/storage/storageclass/setdefault/admission.go``: a PersistentVolumeClaim
created without a class (no ``spec.storageClassName`` key and no
``volume.beta.kubernetes.io/storage-class`` annotation, ``PersistentVolumeClaimHasClass``) gets the
default class's name: a class annotated ``storageclass.kubernetes.io/is-default-class`` (or its beta
spelling) ``"true"``, the newest of several, ties to the first name (``GetDefaultClass`` of
``pkg/volume/util/storageclass.go``); none leaves the claim as it is.

``plugin/pkg/admission/storage/storageobjectinuseprotection/admission.go``: every created claim
gets the ``kubernetes.io/pvc-protection`` finalizer and every created volume
``kubernetes.io/pv-protection``, appended to its own. Here only while the simulated protection
controller that removes it runs (:attr:`Store.protected_storage`): a server without it would leave
deleted claims and volumes terminating for good, where a cluster's controller manager lets them go.

``plugin/pkg/admission/storage/persistentvolume/resize/admission.go``, a validating plugin on a
claim's update (not its subresources): a larger ``spec.resources.requests.storage`` is refused with
403 unless the old claim is Bound and its class, the same before and after
(``GetPersistentVolumeClaimClass``), exists with ``allowVolumeExpansion: true``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from fakeapi._state.objects import metadata_of, with_metadata
from fakeapi._state.typed.quantities import QuantityError, quantity_amount
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.storeview import StoreView

__all__ = [
    "BETA_CLAIM_CLASS_ANNOTATION",
    "DEFAULT_CLASS_ANNOTATIONS",
    "PROTECTION_FINALIZERS",
    "add_protection_finalizer",
    "check_claim_resize",
    "default_claim_class",
    "default_class",
]

DEFAULT_CLASS_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)
BETA_CLAIM_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
PROTECTION_FINALIZERS = {
    "persistentvolumeclaims": "kubernetes.io/pvc-protection",
    "persistentvolumes": "kubernetes.io/pv-protection",
}


def default_class(store: StoreView) -> dict[str, Any] | None:
    """``GetDefaultClass``: of the classes marked default, the newest; equal times go to the first name."""
    rtype = store.registry.resolve("storage.k8s.io", "v1", "storageclasses")
    if rtype is None:
        return None
    marked = [
        candidate
        for candidate in store.bucket(rtype).values()
        if any(
            (metadata_of(candidate).get("annotations") or {}).get(key) == "true" for key in DEFAULT_CLASS_ANNOTATIONS
        )
    ]
    if not marked:
        return None
    # RFC 3339 timestamps of one server sort as text; newest first, then the name ascending.
    by_name = sorted(marked, key=lambda c: str(metadata_of(c).get("name") or ""))
    return max(by_name, key=lambda c: str(metadata_of(c).get("creationTimestamp") or ""))


def default_claim_class(store: StoreView, claim: dict[str, Any]) -> dict[str, Any]:
    """The DefaultStorageClass plugin on a claim's create."""
    spec = claim.get("spec")
    if not isinstance(spec, dict) or ("storageClassName" in spec and spec["storageClassName"] is not None):
        return claim
    if BETA_CLAIM_CLASS_ANNOTATION in (metadata_of(claim).get("annotations") or {}):
        return claim
    chosen = default_class(store)
    if chosen is None:
        return claim
    return {**claim, "spec": {**spec, "storageClassName": metadata_of(chosen).get("name")}}


def add_protection_finalizer(store: StoreView, resource: str, obj: dict[str, Any]) -> dict[str, Any]:
    """The StorageObjectInUseProtection plugin on a claim's or a volume's create."""
    finalizer = PROTECTION_FINALIZERS[resource]
    if resource not in store.protected_storage:
        return obj
    finalizers = metadata_of(obj).get("finalizers")
    current = list(finalizers) if isinstance(finalizers, list) else []
    if finalizer in current:
        return obj
    return with_metadata(obj, finalizers=[*current, finalizer])


def _claim_class(claim: dict[str, Any]) -> str:
    """``GetPersistentVolumeClaimClass``: the beta annotation first, then ``spec.storageClassName``."""
    annotations = metadata_of(claim).get("annotations") or {}
    if BETA_CLAIM_CLASS_ANNOTATION in annotations:
        return str(annotations[BETA_CLAIM_CLASS_ANNOTATION])
    return str((claim.get("spec") or {}).get("storageClassName") or "")


def _requested_storage(claim: dict[str, Any]) -> Decimal:
    """The claim's ``spec.resources.requests.storage`` as ``Quantity.Cmp`` compares it (absent is zero)."""
    spec = claim.get("spec")
    resources = spec.get("resources") if isinstance(spec, dict) else None
    requests = resources.get("requests") if isinstance(resources, dict) else None
    value = requests.get("storage") if isinstance(requests, dict) else None
    try:
        return quantity_amount(str(value)) if value is not None else Decimal(0)
    except QuantityError:
        # Validation has refused an unreadable quantity before admission runs.
        return Decimal(0)


def _expansion_allowed(store: StoreView, claim: dict[str, Any], old: dict[str, Any]) -> bool:
    """``allowResize``: one class before and after, which exists and says ``allowVolumeExpansion: true``."""
    name, old_name = _claim_class(claim), _claim_class(old)
    if not name or not old_name or name != old_name:
        return False
    rtype = store.registry.resolve("storage.k8s.io", "v1", "storageclasses")
    found = store.find(rtype, "", name) if rtype is not None else None
    return found is not None and found.get("allowVolumeExpansion") is True


def check_claim_resize(store: StoreView, rtype: ResourceType, claim: dict[str, Any], old: dict[str, Any]) -> None:
    """The PersistentVolumeClaimResize plugin on a claim's update: raise its 403 for a refused expansion."""
    if _requested_storage(claim) <= _requested_storage(old):
        return
    name = str(metadata_of(old).get("name") or "")
    group_resource = rtype.group_resource
    if (old.get("status") or {}).get("phase") != "Bound":
        raise APIError.forbidden(group_resource, name, "Only bound persistent volume claims can be expanded")
    if not _expansion_allowed(store, claim, old):
        raise APIError.forbidden(
            group_resource,
            name,
            "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must "
            "support resize",
        )
