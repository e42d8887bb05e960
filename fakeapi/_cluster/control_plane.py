"""What a new one-node kind cluster holds in ``kube-system`` before anyone uses it (docs/control-plane-pods.md).

``kubeadm init`` (kind's node image runs it) writes the control plane's static pod manifests
(``cmd/kubeadm/app/phases/controlplane/manifests.go``, ``phases/etcd/local.go``); the kubelet of the
control-plane node runs them and creates a mirror pod for each (``pkg/kubelet/pod/mirror_client.go``
``CreateMirrorPod``): named ``<component>-<node>``, owned by the Node, annotated
``kubernetes.io/config.mirror``. kubeadm then labels the node as the control plane
(``phases/markcontrolplane``) and installs its addons: the CoreDNS ConfigMap, Deployment and
``kube-dns`` Service (``phases/addons/dns``) and the kube-proxy DaemonSet (``phases/addons/proxy``);
kind adds its CNI, the ``kindnet`` DaemonSet (``pkg/build/nodeimage/const_cni.go``).

Here :func:`install_control_plane` writes them as those components do, once the nodes exist; the
simulated controllers that run then make the pods of the Deployment and DaemonSets, schedule them
and run them, as they do for any other workload. Images are the server's release's.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.control_plane_addons import KUBE_SYSTEM, addon_objects
from fakeapi._cluster.nodes import KUBELET, NODES, host_ip
from fakeapi._state.clock import format_timestamp
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of
from fakeapi._state.releases import kube_release

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["KUBEADM", "install_control_plane"]

KUBEADM = "kubeadm"
PODS = builtin_type("", "v1", "Pod")
_CONTROL_PLANE_ROLE = "node-role.kubernetes.io/control-plane"
_EXCLUDE_FROM_BALANCERS = "node.kubernetes.io/exclude-from-external-load-balancers"
_APISERVER_PORT = 6443
_ETCD_CLIENT_PORT = 2379
# Each component's container: (component, binary, cpu request, memory request); kubeadm's
# ComponentResources for the three control-plane components, etcd's own requests in local.go.
_STATIC_PODS = (
    ("etcd", "etcd", "100m", "100Mi"),
    ("kube-apiserver", "kube-apiserver", "250m", ""),
    ("kube-controller-manager", "kube-controller-manager", "200m", ""),
    ("kube-scheduler", "kube-scheduler", "100m", ""),
)
# What each release's kubeadm pins (cmd/kubeadm/app/constants: DefaultEtcdVersion, CoreDNSVersion).
_ETCD_VERSIONS = {"1.32": "3.5.16-0", "1.33": "3.5.21-0", "1.34": "3.6.4-0"}


def install_control_plane(simulation: ControllerContext) -> bool:
    """Write what is missing of the control plane's objects; whether anything was written."""
    store = simulation.store
    if not simulation.options.control_plane_pods:
        return False
    before = store.revision
    version = store.registry.kube_version
    for rtype, obj, manager in addon_objects(version):
        meta = metadata_of(obj)
        if store.find(rtype, meta.get("namespace", ""), meta["name"]) is None:
            store.create(rtype, meta.get("namespace", ""), obj, manager=manager)
    nodes = simulation.options.nodes
    node = store.find(NODES, "", nodes[0].name) if nodes and simulation.options.runs("nodes") else None
    if node is not None:
        _mark_control_plane(simulation, nodes[0].name, node)
        if simulation.options.runs("kubelet"):
            for component, binary, cpu, memory in _STATIC_PODS:
                name = f"{component}-{nodes[0].name}"
                if store.find(PODS, KUBE_SYSTEM, name) is None:
                    seen = _rfc3339_nano(store.clock.now())
                    pod = _mirror_pod(node, component, binary, cpu, memory, version, seen)
                    store.create(PODS, KUBE_SYSTEM, pod, manager=KUBELET)
    return store.revision != before


def _mark_control_plane(simulation: ControllerContext, name: str, node: dict[str, Any]) -> None:
    """kubeadm's mark-control-plane phase: the role label and the load-balancer exclusion. A one-node
    kind cluster has no control-plane taint (kind's kubeadm config leaves it out)."""
    labels = metadata_of(node).get("labels") or {}
    if _CONTROL_PLANE_ROLE in labels and _EXCLUDE_FROM_BALANCERS in labels:
        return

    def mark(current: dict[str, Any]) -> dict[str, Any]:
        meta = metadata_of(current)
        marked = {**(meta.get("labels") or {}), _CONTROL_PLANE_ROLE: "", _EXCLUDE_FROM_BALANCERS: ""}
        return {**current, "metadata": {**meta, "labels": marked}}

    simulation.store.update(NODES, "", name, mark, manager=KUBEADM, unconditional=True)


def _mirror_pod(
    node: dict[str, Any], component: str, binary: str, cpu: str, memory: str, version: str, seen: str
) -> dict[str, Any]:
    node_meta = metadata_of(node)
    node_name = str(node_meta["name"])
    address = _internal_ip(node)
    image = f"registry.k8s.io/{component}:{kube_release(version).git_version}"
    if component == "etcd":
        image = f"registry.k8s.io/etcd:{_ETCD_VERSIONS[version]}"
    requests = {"cpu": cpu, **({"memory": memory} if memory else {})}
    spec: dict[str, Any] = {
        "containers": [{"name": component, "image": image, "command": [binary], "resources": {"requests": requests}}],
        "hostNetwork": True,
        "priorityClassName": "system-node-critical",
        "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
        "nodeName": node_name,
        # The kubelet lets every static pod tolerate every NoExecute taint (config/common.go applyDefaults).
        "tolerations": [{"operator": "Exists", "effect": "NoExecute"}],
    }
    config_hash = hashlib.sha256(f"{node_name}/{component}/{image}".encode()).hexdigest()[:32]
    annotations = {
        "kubernetes.io/config.hash": config_hash,
        "kubernetes.io/config.mirror": config_hash,
        "kubernetes.io/config.seen": seen,
        "kubernetes.io/config.source": "file",
    }
    if component == "kube-apiserver":
        annotations["kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint"] = f"{address}:{_APISERVER_PORT}"
    if component == "etcd":
        annotations["kubeadm.kubernetes.io/etcd.advertise-client-urls"] = f"https://{address}:{_ETCD_CLIENT_PORT}"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{component}-{node_name}",
            "namespace": KUBE_SYSTEM,
            "labels": {"component": component, "tier": "control-plane"},
            "annotations": annotations,
            "ownerReferences": [
                {"apiVersion": "v1", "kind": "Node", "name": node_name, "uid": node_meta["uid"], "controller": True}
            ],
        },
        "spec": spec,
    }


def _rfc3339_nano(seconds: float) -> str:
    """Go's ``time.RFC3339Nano`` in UTC, as the kubelet stamps ``config.seen``: trailing zeros of the
    fraction dropped, no fraction at all on a whole second."""
    whole = int(seconds)
    nanos = round((seconds - whole) * 1e9)
    if nanos >= 1_000_000_000:
        whole, nanos = whole + 1, nanos - 1_000_000_000
    stamp = format_timestamp(whole)
    return stamp if not nanos else f"{stamp[:-1]}.{nanos:09d}".rstrip("0") + "Z"


def _internal_ip(node: dict[str, Any]) -> str:
    for address in (node.get("status") or {}).get("addresses") or []:
        if address.get("type") == "InternalIP":
            return str(address.get("address"))
    return host_ip(0)
