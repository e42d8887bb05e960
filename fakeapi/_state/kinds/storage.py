"""``storage.k8s.io/v1``: StorageClasses, CSI objects and VolumeAttachments, stored and served."""

from __future__ import annotations

from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType, Subresource

__all__ = ["TYPES"]

_GROUP = "storage.k8s.io"

TYPES: tuple[ResourceType, ...] = (
    builtin(_GROUP, "v1", "csidrivers", "CSIDriver", False),
    builtin(_GROUP, "v1", "csinodes", "CSINode", False),
    builtin(_GROUP, "v1", "csistoragecapacities", "CSIStorageCapacity"),
    builtin(_GROUP, "v1", "storageclasses", "StorageClass", False, short_names=("sc",)),
    builtin(_GROUP, "v1", "volumeattachments", "VolumeAttachment", False, subresources=(Subresource("status"),)),
)
