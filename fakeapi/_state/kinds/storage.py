"""``storage.k8s.io/v1``: StorageClasses, CSI objects and VolumeAttachments, stored and served; from
1.34, when the VolumeAttributesClass gate went GA, VolumeAttributesClasses (short name ``vac``,
``pkg/registry/storage/volumeattributesclass/storage``)."""

from __future__ import annotations

from fakeapi._state.defaults.storage import storage_class_defaults
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.tables.cluster import (
    CSI_DRIVER_PRINTER,
    CSI_NODE_PRINTER,
    CSI_STORAGE_CAPACITY_PRINTER,
    STORAGE_CLASS_PRINTER,
    VOLUME_ATTACHMENT_PRINTER,
)

__all__ = ["TYPES"]

_GROUP = "storage.k8s.io"

TYPES: tuple[ResourceType, ...] = (
    builtin(_GROUP, "v1", "csidrivers", "CSIDriver", False, printer=CSI_DRIVER_PRINTER),
    builtin(_GROUP, "v1", "csinodes", "CSINode", False, printer=CSI_NODE_PRINTER),
    builtin(_GROUP, "v1", "csistoragecapacities", "CSIStorageCapacity", printer=CSI_STORAGE_CAPACITY_PRINTER),
    builtin(
        _GROUP,
        "v1",
        "storageclasses",
        "StorageClass",
        False,
        short_names=("sc",),
        printer=STORAGE_CLASS_PRINTER,
        defaulter=storage_class_defaults,
    ),
    builtin(
        _GROUP,
        "v1",
        "volumeattachments",
        "VolumeAttachment",
        False,
        subresources=(Subresource("status"),),
        printer=VOLUME_ATTACHMENT_PRINTER,
    ),
    builtin(
        _GROUP, "v1", "volumeattributesclasses", "VolumeAttributesClass", False, short_names=("vac",), since="1.34"
    ),
)
