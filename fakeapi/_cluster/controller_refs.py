"""Controller references: how a simulated controller marks what it creates as its own, and finds
its own again.

``metav1.NewControllerRef`` (``k8s.io/apimachinery/pkg/apis/meta/v1/controller_ref.go``) gives the
reference every workload controller puts into the objects it creates: the owner's apiVersion, kind,
name and uid, ``controller`` and ``blockOwnerDeletion`` true. ``metav1.GetControllerOf`` finds it
again: the one reference with ``controller`` true (the apiserver lets an object have at most one).
Adoption of orphans is not simulated, so an object is a controller's only by that reference.
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.objects import metadata_of

__all__ = ["controller_of", "controller_reference", "owned_by"]


def controller_reference(owner: dict[str, Any], api_version: str, kind: str) -> dict[str, Any]:
    """``metav1.NewControllerRef``."""
    meta = metadata_of(owner)
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": meta.get("name"),
        "uid": meta.get("uid"),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def controller_of(obj: dict[str, Any]) -> dict[str, Any] | None:
    """``metav1.GetControllerOf``."""
    return next((ref for ref in metadata_of(obj).get("ownerReferences") or [] if ref.get("controller") is True), None)


def owned_by(obj: dict[str, Any], owner: dict[str, Any]) -> bool:
    """Whether ``obj``'s controller reference names ``owner``."""
    reference = controller_of(obj)
    return reference is not None and reference.get("uid") == metadata_of(owner).get("uid")
