"""The DefaultStorageClass and StorageObjectInUseProtection admission plugins (docs/storage.md).

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
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.objects import metadata_of, with_metadata

if TYPE_CHECKING:
    from fakeapi._state.storeview import StoreView

__all__ = [
    "BETA_CLAIM_CLASS_ANNOTATION",
    "DEFAULT_CLASS_ANNOTATIONS",
    "PROTECTION_FINALIZERS",
    "add_protection_finalizer",
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
