"""kind's storage: the ``standard`` StorageClass and the local-path provisioner that serves it
(docs/storage.md).

kind's node image ships a manifest (``pkg/build/nodeimage/const_storage.go`` in kubernetes-sigs/kind)
that ``kubectl apply`` installs at cluster creation (``installstorage/storage.go``): among its objects
the default class ``standard``, provisioner ``rancher.io/local-path``, ``WaitForFirstConsumer``,
reclaim policy ``Delete``. :func:`install_default_class` creates it as that apply does.

The provisioner is rancher/local-path-provisioner (``provisioner.go`` ``provisionFor``) run by
sig-storage-lib-external-provisioner's controller. For a claim whose
``volume.kubernetes.io/storage-provisioner`` annotation names it, that has no volume yet and, under
``WaitForFirstConsumer``, a ``volume.kubernetes.io/selected-node``: a Normal ``Provisioning`` Event,
then the volume ``pvc-<claim uid>`` (the name the PV controller's ``getProvisionedVolumeNameForClaim``
gives the library), pre-bound to the claim through ``claimRef``, with the claim's size and access
modes, a ``hostPath`` (``DirectoryOrCreate``) under ``/var/local-path-provisioner`` (or ``local``
when the claim's ``volumeType`` annotation asks), node affinity to the selected node's
``kubernetes.io/hostname`` and the annotations ``pv.kubernetes.io/provisioned-by`` and
``local.path.provisioner/selected-node``; then ``ProvisioningSucceeded``. A claim it cannot serve (no
node, another access mode, a selector) gets a Warning ``ProvisioningFailed``. A volume it provisioned
that is Released under reclaim policy Delete is deleted. The helper pods that create and remove the
directory on the node are not simulated.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.nodes import NODES
from fakeapi._cluster.volumes import (
    CLAIMS,
    PROVISIONED_BY,
    SELECTED_NODE,
    STORAGE_CLASSES,
    STORAGE_PROVISIONER,
    STORAGE_PROVISIONER_BETA,
    VOLUMES,
    already_recorded,
    claim_class,
    claim_reference,
    class_of,
    storage_request,
)
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext
    from fakeapi._state.storeview import StoreView

__all__ = ["LOCAL_PATH", "install_default_class", "provision_local_paths"]

LOCAL_PATH = "rancher.io/local-path"
PROVISIONER_MANAGER = "local-path-provisioner"
BASE_PATH = "/var/local-path-provisioner"
NODE_ANNOTATION = "local.path.provisioner/selected-node"
HOSTNAME_LABEL = "kubernetes.io/hostname"
# The library's identity: "<provisioner>_<leader's host name>_<uuid>" (the pod of kind's Deployment).
_POD = "local-path-provisioner-6d5d9b6c7b-fakea"
IDENTITY = f"{LOCAL_PATH}_{_POD}_{uuid.UUID(hashlib.sha256(_POD.encode()).hexdigest()[:32], version=4)}"

DEFAULT_CLASS: dict[str, Any] = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "StorageClass",
    "metadata": {"name": "standard", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
    "provisioner": LOCAL_PATH,
    "reclaimPolicy": "Delete",
    "volumeBindingMode": "WaitForFirstConsumer",
}


def install_default_class(store: StoreView) -> None:
    """kind's ``kubectl apply`` of the ``standard`` class, unless a class of that name exists."""
    if store.find(STORAGE_CLASSES, "", "standard") is None:
        store.create(STORAGE_CLASSES, "", DEFAULT_CLASS, manager="kubectl-client-side-apply")


def provision_local_paths(simulation: ControllerContext) -> None:
    store = simulation.store
    for claim in store.items(CLAIMS, None):
        _provision(simulation, claim)
    for volume in store.items(VOLUMES, None):
        _delete_released(simulation, volume)


def _event(simulation: ControllerContext, claim: dict[str, Any], event_type: str, reason: str, message: str) -> None:
    if not already_recorded(simulation, claim, reason, message):
        simulation.recorder.record(claim, event_type, reason, message, component=IDENTITY, manager=PROVISIONER_MANAGER)


def _wants_provisioning(simulation: ControllerContext, claim: dict[str, Any]) -> dict[str, Any] | None:
    """The library's ``shouldProvision``: the claim's class, when this provisioner is to act on it."""
    meta = metadata_of(claim)
    annotations = meta.get("annotations") or {}
    if (claim.get("spec") or {}).get("volumeName") or meta.get("deletionTimestamp") is not None:
        return None
    if (annotations.get(STORAGE_PROVISIONER) or annotations.get(STORAGE_PROVISIONER_BETA)) != LOCAL_PATH:
        return None
    found = class_of(simulation.store, claim_class(claim))
    if found is None or found.get("provisioner") != LOCAL_PATH:
        return None
    if found.get("volumeBindingMode") == "WaitForFirstConsumer" and SELECTED_NODE not in annotations:
        return None
    if simulation.store.find(VOLUMES, "", f"pvc-{meta.get('uid')}") is not None:
        return None
    return found


def _refusal(claim: dict[str, Any], node: dict[str, Any] | None) -> str:
    """``provisionFor``'s checks before it creates anything ("" when none fails)."""
    spec = claim.get("spec") or {}
    if spec.get("selector") is not None:
        return "claim.Spec.Selector is not supported"
    if any(mode not in ("ReadWriteOnce", "ReadWriteOncePod") for mode in spec.get("accessModes") or []):
        return "NodePath only supports ReadWriteOnce and ReadWriteOncePod (1.22+) access modes"
    if node is None:
        return "configuration error, no node was specified"
    return ""


def _provision(simulation: ControllerContext, claim: dict[str, Any]) -> None:
    storage_class = _wants_provisioning(simulation, claim)
    if storage_class is None:
        return
    store = simulation.store
    meta = metadata_of(claim)
    namespace, name = meta.get("namespace", ""), meta.get("name", "")
    _event(
        simulation,
        claim,
        "Normal",
        "Provisioning",
        f'External provisioner is provisioning volume for claim "{namespace}/{name}"',
    )
    node_name = (meta.get("annotations") or {}).get(SELECTED_NODE)
    node = store.find(NODES, "", node_name) if node_name else None
    problem = _refusal(claim, node)
    if node_name and node is None:
        problem = f'nodes "{node_name}" not found'
    if problem:
        class_name = metadata_of(storage_class).get("name")
        _event(
            simulation,
            claim,
            "Warning",
            "ProvisioningFailed",
            f'failed to provision volume with StorageClass "{class_name}": {problem}',
        )
        return
    assert node is not None  # _refusal says so
    volume_name = f"pvc-{meta.get('uid')}"
    path = f"{BASE_PATH}/{volume_name}_{namespace}_{name}"
    volume_type = str((meta.get("annotations") or {}).get("volumeType") or "hostPath").lower()
    source = (
        {"local": {"path": path}}
        if volume_type == "local"
        else {"hostPath": {"path": path, "type": "DirectoryOrCreate"}}
    )
    host = (metadata_of(node).get("labels") or {}).get(HOSTNAME_LABEL) or node_name
    spec = claim.get("spec") or {}
    volume = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": volume_name, "annotations": {NODE_ANNOTATION: node_name, PROVISIONED_BY: LOCAL_PATH}},
        "spec": {
            "accessModes": spec.get("accessModes"),
            "capacity": {"storage": storage_request(claim)},
            "claimRef": claim_reference(claim),
            **source,
            "nodeAffinity": {
                "required": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": HOSTNAME_LABEL, "operator": "In", "values": [host]}]}
                    ]
                }
            },
            "persistentVolumeReclaimPolicy": storage_class.get("reclaimPolicy") or "Delete",
            "storageClassName": claim_class(claim),
            "volumeMode": "Filesystem",
        },
    }
    store.create(VOLUMES, "", volume, manager=PROVISIONER_MANAGER)
    _event(simulation, claim, "Normal", "ProvisioningSucceeded", f"Successfully provisioned volume {volume_name}")


def _delete_released(simulation: ControllerContext, volume: dict[str, Any]) -> None:
    """The library's ``shouldDelete``: Released, reclaim policy Delete, provisioned here."""
    meta = metadata_of(volume)
    if (
        (volume.get("status") or {}).get("phase") == "Released"
        and (volume.get("spec") or {}).get("persistentVolumeReclaimPolicy") == "Delete"
        and (meta.get("annotations") or {}).get(PROVISIONED_BY) == LOCAL_PATH
        and meta.get("deletionTimestamp") is None
    ):
        simulation.store.delete(VOLUMES, "", meta.get("name", ""))
