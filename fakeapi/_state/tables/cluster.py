"""Rows of the cluster's own kinds: Nodes, volumes and storage, priority and runtime classes, component statuses.

Reproduced from kube-apiserver 1.32 ``pkg/printers/internalversion/printers.go`` (``printNode``,
``printPersistentVolume``, ``printPersistentVolumeClaim``, ``printComponentStatus``,
``printStorageClass``, ``printPriorityClass``, ``printRuntimeClass``, ``printVolumeAttachment``,
``printCSINode``, ``printCSIDriver``, ``printCSIStorageCapacity``), always wide. Access modes are
``helper.GetAccessModesAsString`` (RWO, ROX, RWX, RWOP, each once, in that order); a storage class
is the field or, failing it, the beta annotation (``GetPersistentVolumeClass``).
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.tables.columns import AGE_COLUMN, NAME_COLUMN, Printer, column
from fakeapi._state.tables.durations import age
from fakeapi._state.tables.fields import Obj, as_int, as_list, as_obj, as_str, dicts, metadata, nested
from fakeapi._state.tables.swagger_docs import SWAGGER_DOCS

__all__ = [
    "COMPONENT_STATUS_PRINTER",
    "CSI_DRIVER_PRINTER",
    "CSI_NODE_PRINTER",
    "CSI_STORAGE_CAPACITY_PRINTER",
    "NODE_PRINTER",
    "PERSISTENT_VOLUME_CLAIM_PRINTER",
    "PERSISTENT_VOLUME_PRINTER",
    "PRIORITY_CLASS_PRINTER",
    "RUNTIME_CLASS_PRINTER",
    "STORAGE_CLASS_PRINTER",
    "VOLUME_ATTACHMENT_PRINTER",
]

_ROLE_PREFIX = "node-role.kubernetes.io/"
_ACCESS_MODES = (
    ("ReadWriteOnce", "RWO"),
    ("ReadOnlyMany", "ROX"),
    ("ReadWriteMany", "RWX"),
    ("ReadWriteOncePod", "RWOP"),
)
_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
_DEFAULT_CLASS_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)


def _name(obj: Obj) -> Any:
    return metadata(obj).get("name", "")


def _doc(key: str) -> str:
    return SWAGGER_DOCS[key]


def _bool(value: Any, default: bool) -> bool:
    return value if isinstance(value, bool) else default


def _node_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec, status = as_obj(obj.get("spec")), as_obj(obj.get("status"))
    ready = [c for c in dicts(status.get("conditions")) if c.get("type") == "Ready"]
    # The conditions are read into a map, so the last Ready condition wins.
    states = [("Ready" if ready[-1].get("status") == "True" else "NotReady")] if ready else ["Unknown"]
    if spec.get("unschedulable") is True:
        states.append("SchedulingDisabled")
    roles: set[str] = set()
    for key, value in as_obj(metadata(obj).get("labels")).items():
        if key.startswith(_ROLE_PREFIX) and key[len(_ROLE_PREFIX) :]:
            roles.add(key[len(_ROLE_PREFIX) :])
        elif key == "kubernetes.io/role" and value:
            roles.add(str(value))
    info = as_obj(status.get("nodeInfo"))
    addresses = dicts(status.get("addresses"))

    def address(kind: str) -> str:
        return next((as_str(a.get("address")) for a in addresses if a.get("type") == kind), "<none>")

    return [
        _name(obj),
        ",".join(states),
        ",".join(sorted(roles)) or "<none>",
        age(obj, now_ns),
        as_str(info.get("kubeletVersion")),
        address("InternalIP"),
        address("ExternalIP"),
        as_str(info.get("osImage")) or "<unknown>",
        as_str(info.get("kernelVersion")) or "<unknown>",
        as_str(info.get("containerRuntimeVersion")) or "<unknown>",
    ]


def _access_modes(modes: Any) -> str:
    given = set(as_list(modes))
    return ",".join(short for mode, short in _ACCESS_MODES if mode in given)


def _storage_class(obj: Obj, spec: Obj) -> str:
    annotations = as_obj(metadata(obj).get("annotations"))
    if _BETA_STORAGE_CLASS in annotations:
        return as_str(annotations[_BETA_STORAGE_CLASS])
    return as_str(spec.get("storageClassName"))


def _persistent_volume_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec, status = as_obj(obj.get("spec")), as_obj(obj.get("status"))
    claim = spec.get("claimRef")
    claim_text = f"{as_str(claim.get('namespace'))}/{as_str(claim.get('name'))}" if isinstance(claim, dict) else ""
    terminating = metadata(obj).get("deletionTimestamp") is not None
    return [
        _name(obj),
        as_str(nested(spec, "capacity", "storage")) or "0",
        _access_modes(spec.get("accessModes")),
        as_str(spec.get("persistentVolumeReclaimPolicy")),
        "Terminating" if terminating else as_str(status.get("phase")),
        claim_text,
        _storage_class(obj, spec),
        spec["volumeAttributesClassName"] if isinstance(spec.get("volumeAttributesClassName"), str) else "<unset>",
        as_str(status.get("reason")),
        age(obj, now_ns),
        spec["volumeMode"] if isinstance(spec.get("volumeMode"), str) else "<unset>",
    ]


def _persistent_volume_claim_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec, status = as_obj(obj.get("spec")), as_obj(obj.get("status"))
    terminating = metadata(obj).get("deletionTimestamp") is not None
    volume = as_str(spec.get("volumeName"))
    capacity = (as_str(nested(status, "capacity", "storage")) or "0") if volume else ""
    return [
        _name(obj),
        "Terminating" if terminating else as_str(status.get("phase")),
        volume,
        capacity,
        _access_modes(status.get("accessModes")) if volume else "",
        _storage_class(obj, spec),
        spec["volumeAttributesClassName"] if isinstance(spec.get("volumeAttributesClassName"), str) else "<unset>",
        age(obj, now_ns),
        spec["volumeMode"] if isinstance(spec.get("volumeMode"), str) else "<unset>",
    ]


def _component_status_cells(obj: Obj, now_ns: int) -> list[Any]:
    status, message, error = "Unknown", "", ""
    for condition in dicts(obj.get("conditions")):
        if condition.get("type") == "Healthy":
            status = "Healthy" if condition.get("status") == "True" else "Unhealthy"
            message, error = as_str(condition.get("message")), as_str(condition.get("error"))
            break
    return [_name(obj), status, message, error]


def _storage_class_cells(obj: Obj, now_ns: int) -> list[Any]:
    annotations = as_obj(metadata(obj).get("annotations"))
    default = any(annotations.get(key) == "true" for key in _DEFAULT_CLASS_ANNOTATIONS)
    reclaim, binding = obj.get("reclaimPolicy"), obj.get("volumeBindingMode")
    return [
        as_str(_name(obj)) + (" (default)" if default else ""),
        as_str(obj.get("provisioner")),
        reclaim if isinstance(reclaim, str) else "Delete",
        binding if isinstance(binding, str) else "Immediate",
        _bool(obj.get("allowVolumeExpansion"), False),
        age(obj, now_ns),
    ]


def _priority_class_cells(obj: Obj, now_ns: int) -> list[Any]:
    policy = obj.get("preemptionPolicy")
    return [
        _name(obj),
        as_int(obj.get("value")),
        _bool(obj.get("globalDefault"), False),
        age(obj, now_ns),
        policy if isinstance(policy, str) else "",
    ]


def _runtime_class_cells(obj: Obj, now_ns: int) -> list[Any]:
    return [_name(obj), as_str(obj.get("handler")), age(obj, now_ns)]


def _volume_attachment_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec = as_obj(obj.get("spec"))
    return [
        _name(obj),
        as_str(spec.get("attacher")),
        as_str(nested(spec, "source", "persistentVolumeName")),
        as_str(spec.get("nodeName")),
        _bool(nested(obj, "status", "attached"), False),
        age(obj, now_ns),
    ]


def _csi_node_cells(obj: Obj, now_ns: int) -> list[Any]:
    return [_name(obj), len(as_list(nested(obj, "spec", "drivers"))), age(obj, now_ns)]


def _csi_driver_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec = as_obj(obj.get("spec"))
    requests = spec.get("tokenRequests")
    tokens = ",".join(as_str(r.get("audience")) for r in dicts(requests)) if isinstance(requests, list) else "<unset>"
    return [
        _name(obj),
        _bool(spec.get("attachRequired"), True),
        _bool(spec.get("podInfoOnMount"), False),
        _bool(spec.get("storageCapacity"), False),
        tokens,
        _bool(spec.get("requiresRepublish"), False),
        ",".join(as_str(mode) for mode in as_list(spec.get("volumeLifecycleModes"))) or "<none>",
        age(obj, now_ns),
    ]


def _csi_storage_capacity_cells(obj: Obj, now_ns: int) -> list[Any]:
    capacity = obj.get("capacity")
    return [_name(obj), as_str(obj.get("storageClassName")), capacity if isinstance(capacity, str) else "<unset>"]


NODE_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Status", "string", "The status of the node"),
        column("Roles", "string", "The roles of the node"),
        AGE_COLUMN,
        column("Version", "string", _doc("core.v1.NodeSystemInfo.kubeletVersion")),
        column("Internal-IP", "string", _doc("core.v1.NodeStatus.addresses"), priority=1),
        column("External-IP", "string", _doc("core.v1.NodeStatus.addresses"), priority=1),
        column("OS-Image", "string", _doc("core.v1.NodeSystemInfo.osImage"), priority=1),
        column("Kernel-Version", "string", _doc("core.v1.NodeSystemInfo.kernelVersion"), priority=1),
        column("Container-Runtime", "string", _doc("core.v1.NodeSystemInfo.containerRuntimeVersion"), priority=1),
    ),
    _node_cells,
)

PERSISTENT_VOLUME_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Capacity", "string", _doc("core.v1.PersistentVolumeSpec.capacity")),
        column("Access Modes", "string", _doc("core.v1.PersistentVolumeSpec.accessModes")),
        column("Reclaim Policy", "string", _doc("core.v1.PersistentVolumeSpec.persistentVolumeReclaimPolicy")),
        column("Status", "string", _doc("core.v1.PersistentVolumeStatus.phase")),
        column("Claim", "string", _doc("core.v1.PersistentVolumeSpec.claimRef")),
        column("StorageClass", "string", "StorageClass of the pv"),
        column("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
        column("Reason", "string", _doc("core.v1.PersistentVolumeStatus.reason")),
        AGE_COLUMN,
        column("VolumeMode", "string", _doc("core.v1.PersistentVolumeSpec.volumeMode"), priority=1),
    ),
    _persistent_volume_cells,
)

PERSISTENT_VOLUME_CLAIM_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Status", "string", _doc("core.v1.PersistentVolumeClaimStatus.phase")),
        column("Volume", "string", _doc("core.v1.PersistentVolumeClaimSpec.volumeName")),
        column("Capacity", "string", _doc("core.v1.PersistentVolumeClaimStatus.capacity")),
        column("Access Modes", "string", _doc("core.v1.PersistentVolumeClaimStatus.accessModes")),
        column("StorageClass", "string", "StorageClass of the pvc"),
        column("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
        AGE_COLUMN,
        column("VolumeMode", "string", _doc("core.v1.PersistentVolumeClaimSpec.volumeMode"), priority=1),
    ),
    _persistent_volume_claim_cells,
)

COMPONENT_STATUS_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Status", "string", "Status of the component conditions"),
        column("Message", "string", "Message of the component conditions"),
        column("Error", "string", "Error of the component conditions"),
    ),
    _component_status_cells,
)

STORAGE_CLASS_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Provisioner", "string", _doc("storage.v1.StorageClass.provisioner")),
        column("ReclaimPolicy", "string", _doc("storage.v1.StorageClass.reclaimPolicy")),
        column("VolumeBindingMode", "string", _doc("storage.v1.StorageClass.volumeBindingMode")),
        column("AllowVolumeExpansion", "string", _doc("storage.v1.StorageClass.allowVolumeExpansion")),
        AGE_COLUMN,
    ),
    _storage_class_cells,
)

PRIORITY_CLASS_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Value", "integer", _doc("scheduling.v1.PriorityClass.value")),
        column("Global-Default", "boolean", _doc("scheduling.v1.PriorityClass.globalDefault")),
        AGE_COLUMN,
        column("PreemptionPolicy", "string", _doc("scheduling.v1.PriorityClass.preemptionPolicy")),
    ),
    _priority_class_cells,
)

# ``metav1.ObjectMeta{}.SwaggerDoc()["handler"]``: ObjectMeta has no such field, so the text is empty.
RUNTIME_CLASS_PRINTER = Printer((NAME_COLUMN, column("Handler", "string", ""), AGE_COLUMN), _runtime_class_cells)

VOLUME_ATTACHMENT_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Attacher", "string", _doc("storage.v1.VolumeAttachmentSpec.attacher"), format_="name"),
        column("PV", "string", _doc("storage.v1.VolumeAttachmentSource.persistentVolumeName")),
        column("Node", "string", _doc("storage.v1.VolumeAttachmentSpec.nodeName")),
        column("Attached", "boolean", _doc("storage.v1.VolumeAttachmentStatus.attached")),
        AGE_COLUMN,
    ),
    _volume_attachment_cells,
)

CSI_NODE_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Drivers", "integer", "Drivers indicates the number of CSI drivers registered on the node"),
        AGE_COLUMN,
    ),
    _csi_node_cells,
)

CSI_DRIVER_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("AttachRequired", "boolean", _doc("storage.v1.CSIDriverSpec.attachRequired")),
        column("PodInfoOnMount", "boolean", _doc("storage.v1.CSIDriverSpec.podInfoOnMount")),
        column("StorageCapacity", "boolean", _doc("storage.v1.CSIDriverSpec.storageCapacity")),
        column("TokenRequests", "string", _doc("storage.v1.CSIDriverSpec.tokenRequests")),
        column("RequiresRepublish", "boolean", _doc("storage.v1.CSIDriverSpec.requiresRepublish")),
        column("Modes", "string", _doc("storage.v1.CSIDriverSpec.volumeLifecycleModes")),
        AGE_COLUMN,
    ),
    _csi_driver_cells,
)

CSI_STORAGE_CAPACITY_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("StorageClassName", "string", _doc("storage.v1.CSIStorageCapacity.storageClassName")),
        column("Capacity", "string", _doc("storage.v1.CSIStorageCapacity.capacity")),
    ),
    _csi_storage_capacity_cells,
)
