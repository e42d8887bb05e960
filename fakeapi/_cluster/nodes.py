"""The kubelet's node registration: each fake node created as ``registerWithAPIServer`` creates it.

A kubelet builds its Node (``pkg/kubelet/kubelet_node_status.go`` ``initialNode``), runs the
status setters on it (``pkg/kubelet/nodestatus/setters.go``: addresses, capacity and allocatable,
nodeInfo, daemon endpoints, and the MemoryPressure, DiskPressure, PIDPressure and Ready
conditions) and creates it with its status in one POST, as ``kubelet``: the node strategy keeps a
created Node's status. The well-known labels are those ``initialNode`` sets; the
``controller-managed-attach-detach`` annotation is the one it adds by default. What kube-controller-
manager adds later (``spec.podCIDR``, the TTL annotation, taints) and the kubelet's heartbeats
(status patches, Leases) are not written.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.options import NodeSpec
from fakeapi._state.kinds import builtin_type

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["KUBELET", "KUBELET_VERSION", "NODES", "host_ip", "pod_subnet", "register_nodes"]

NODES = builtin_type("", "v1", "Node")
KUBELET = "kubelet"
KUBELET_VERSION = "v1.32.0"
KUBELET_PORT = 10250

# (type, reason, message) while healthy, from the nodestatus setters.
_HEALTHY = (
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
)
_NOT_READY = ("Ready", "False", "KubeletNotReady", "container runtime status check may not have completed yet")


def host_ip(index: int) -> str:
    """The node's InternalIP: one address per node, as a kind cluster's docker network gives them."""
    return f"172.18.0.{index + 2}"


def pod_subnet(index: int) -> str:
    """The first three octets of the node's pod range (10.244.<index>.0/24, kind's pod subnet)."""
    return f"10.244.{index}"


def register_nodes(simulation: ControllerContext) -> None:
    """Create every configured node that is not there yet."""
    store = simulation.store
    for index, spec in enumerate(simulation.options.nodes):
        if store.find(NODES, "", spec.name) is None:
            store.create(NODES, "", _node(spec, index, store.clock.timestamp()), manager=KUBELET)


def _node(spec: NodeSpec, index: int, now: str) -> dict[str, Any]:
    resources = {
        "cpu": spec.cpu,
        "ephemeral-storage": "100Gi",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": spec.memory,
        "pods": spec.pods,
    }
    conditions = [*_HEALTHY[:3], _HEALTHY[3] if spec.ready else _NOT_READY]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": spec.name,
            "labels": {
                "beta.kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": spec.name,
                "kubernetes.io/os": "linux",
                **spec.labels,
            },
            "annotations": {"volumes.kubernetes.io/controller-managed-attach-detach": "true"},
        },
        "spec": {},
        "status": {
            "capacity": resources,
            "allocatable": dict(resources),
            "conditions": [
                {
                    "type": kind,
                    "status": status,
                    "lastHeartbeatTime": now,
                    "lastTransitionTime": now,
                    "reason": reason,
                    "message": message,
                }
                for kind, status, reason, message in conditions
            ],
            "addresses": [
                {"type": "InternalIP", "address": host_ip(index)},
                {"type": "Hostname", "address": spec.name},
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": KUBELET_PORT}},
            "nodeInfo": {
                "machineID": _identifier(spec.name, "machine"),
                "systemUUID": _identifier(spec.name, "system"),
                "bootID": _identifier(spec.name, "boot"),
                "kernelVersion": "6.8.0-fakeapi",
                "osImage": "Debian GNU/Linux 12 (bookworm)",
                "containerRuntimeVersion": "containerd://1.7.24",
                "kubeletVersion": KUBELET_VERSION,
                "kubeProxyVersion": "",
                "operatingSystem": "linux",
                "architecture": "amd64",
            },
        },
    }


def _identifier(name: str, what: str) -> str:
    return hashlib.sha256(f"{name}/{what}".encode()).hexdigest()[:32]
