"""What a new control plane holds before anyone asks: the objects kube-apiserver writes at boot.

A kube-apiserver, on an empty etcd, writes (docs/bootstrap.md):

* the system namespaces ``default``, ``kube-system``, ``kube-public`` and ``kube-node-lease``
  (``pkg/controlplane/controller/systemnamespaces``);
* the system PriorityClasses ``system-node-critical`` and ``system-cluster-critical``
  (``pkg/apis/scheduling/helpers.go`` ``SystemPriorityClasses``, created by the
  ``scheduling/bootstrap-system-priority-classes`` post-start hook);
* the bootstrap RBAC policy (the ``rbac/bootstrap-roles`` post-start hook,
  :mod:`fakeapi._state.bootstrap_policy`);
* the API Priority and Fairness configuration (the ``priority-and-fairness-config-producer``
  post-start hook, :mod:`fakeapi._state.bootstrap_apf`), written as its producer writes it;
* once it serves, the ``default/kubernetes`` Service that points at itself, and its Endpoints and
  EndpointSlice, as the endpoint reconciler writes them
  (``pkg/controlplane/controller/kubernetesservice/controller.go``,
  ``pkg/controlplane/reconcilers/endpointsadapter.go``).

Every one is written as the apiserver's own loopback client writes it, so its ``managedFields``
name the manager ``kube-apiserver``. The Service needs the port the server listens on, so it is
written by :func:`publish_kubernetes_service` once that is known.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.bootstrap_apf import bootstrap_apf
from fakeapi._state.bootstrap_policy import bootstrap_policy
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._state.store import Store

__all__ = [
    "APISERVER",
    "KUBERNETES_SERVICE_IP",
    "SYSTEM_NAMESPACES",
    "SYSTEM_PRIORITY_CLASSES",
    "bootstrap",
    "publish_kubernetes_service",
]

APISERVER = "kube-apiserver"
SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
# The first address of the service CIDR (10.96.0.0/12, kubeadm's and kind's), which the apiserver
# reserves for the ``kubernetes`` Service.
KUBERNETES_SERVICE_IP = "10.96.0.1"
_SYSTEM_CRITICAL_PRIORITY = 2 * 1_000_000_000
SYSTEM_PRIORITY_CLASSES = (
    (
        "system-node-critical",
        _SYSTEM_CRITICAL_PRIORITY + 1000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
    (
        "system-cluster-critical",
        _SYSTEM_CRITICAL_PRIORITY,
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    ),
)
_SERVICE_NAME = "kubernetes"
_PORT_NAME = "https"
_SERVICE_PORT = 443


def bootstrap(store: Store) -> None:
    """The namespaces, PriorityClasses, RBAC policy and APF configuration of a new cluster (what needs no
    listening port)."""
    for name in SYSTEM_NAMESPACES:
        store.create(
            store.registry.namespaces,
            "",
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
            manager=APISERVER,
        )
    priority_classes = builtin_type("scheduling.k8s.io", "v1", "PriorityClass")
    for name, value, description in SYSTEM_PRIORITY_CLASSES:
        store.create(
            priority_classes,
            "",
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
                "description": description,
            },
            manager=APISERVER,
        )
    bootstrap_policy(store, APISERVER)
    bootstrap_apf(store)


def publish_kubernetes_service(store: Store, address: str, port: int) -> None:
    """``default/kubernetes`` and its endpoints at ``address:port``, created or set right.

    The Service is created once (``CreateOrUpdateMasterServiceIfNeeded`` never updates it); the
    Endpoints and EndpointSlice are reset to the
    address and port the server serves on, as the reconciler does whenever they differ.
    """
    services = builtin_type("", "v1", "Service")
    if store.find(services, "default", _SERVICE_NAME) is None:
        store.create(services, "default", _kubernetes_service(port), manager=APISERVER)
    endpoint_ports = [{"name": _PORT_NAME, "port": port, "protocol": "TCP"}]
    _create_or_reset(
        store,
        builtin_type("", "v1", "Endpoints"),
        {
            "apiVersion": "v1",
            "kind": "Endpoints",
            "metadata": {
                "name": _SERVICE_NAME,
                "namespace": "default",
                "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"},
            },
            "subsets": [{"addresses": [{"ip": address}], "ports": endpoint_ports}],
        },
    )
    _create_or_reset(
        store,
        builtin_type("discovery.k8s.io", "v1", "EndpointSlice"),
        {
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "metadata": {
                "name": _SERVICE_NAME,
                "namespace": "default",
                "labels": {"kubernetes.io/service-name": _SERVICE_NAME},
            },
            "addressType": "IPv6" if ":" in address else "IPv4",
            "endpoints": [{"addresses": [address], "conditions": {"ready": True}}],
            "ports": endpoint_ports,
        },
    )


def _kubernetes_service(port: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": _SERVICE_NAME,
            "namespace": "default",
            "labels": {"component": "apiserver", "provider": "kubernetes"},
        },
        "spec": {
            "ports": [{"name": _PORT_NAME, "protocol": "TCP", "port": _SERVICE_PORT, "targetPort": port}],
            "clusterIP": KUBERNETES_SERVICE_IP,
            "type": "ClusterIP",
            "sessionAffinity": "None",
            "ipFamilyPolicy": "SingleStack",
        },
    }


def _create_or_reset(store: Store, rtype: Any, desired: dict[str, Any]) -> None:
    current = store.find(rtype, "default", _SERVICE_NAME)
    if current is None:
        store.create(rtype, "default", desired, manager=APISERVER)
        return

    def reset(existing: dict[str, Any]) -> dict[str, Any]:
        meta = {**metadata_of(existing), "labels": desired["metadata"]["labels"]}
        return {**existing, **{k: v for k, v in desired.items() if k != "metadata"}, "metadata": meta}

    store.update(rtype, "default", _SERVICE_NAME, reset, manager=APISERVER, unconditional=True)
