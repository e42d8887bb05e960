"""Rows of the simple core kinds: configmaps, secrets, namespaces, serviceaccounts, leases, services.

Reproduced from kube-apiserver 1.32 ``pkg/printers/internalversion/printers.go`` (``printConfigMap``,
``printSecret``, ``printNamespace``, ``printServiceAccount``, ``printLease``, ``printService`` with
``getServiceExternalIP`` and ``labels.FormatLabels``), rendered wide as the server's TableConvertor
does; descriptions are the swagger docs of the fields each column shows.
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.tables.columns import AGE_COLUMN, NAME_COLUMN, Printer, column
from fakeapi._state.tables.durations import age
from fakeapi._state.tables.fields import Obj, as_int, as_list, as_obj, as_str, dicts, metadata, nested
from fakeapi._state.tables.labels import format_labels

__all__ = [
    "CONFIGMAP_PRINTER",
    "LEASE_PRINTER",
    "NAMESPACE_PRINTER",
    "SECRET_PRINTER",
    "SERVICEACCOUNT_PRINTER",
    "SERVICE_PRINTER",
]

_DOCS = {
    "configmap.data": (
        "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. "
        "Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not "
        "overlap with the keys in the BinaryData field, this is enforced during validation process."
    ),
    "secret.type": (
        "Used to facilitate programmatic handling of secret data. More info: "
        "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"
    ),
    "secret.data": (
        "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The "
        "serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly "
        "non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4"
    ),
    "service.type": (
        "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, "
        'ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for '
        "load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by "
        'manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual '
        'IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" '
        "builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "
        '"LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current '
        'cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the '
        "specified externalName. Several other fields do not apply to ExternalName services. More info: "
        "https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types"
    ),
    "service.clusterIP": (
        "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified "
        "manually, is in-range (as per system configuration), and is not in use, it will be allocated to the "
        "service; otherwise creation of the service will fail. This field may not be changed through updates unless "
        "the type field is also being changed to ExternalName (which requires this field to be blank) or the type "
        "field is being changed from ExternalName (in which case this field may optionally be specified, as "
        'describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to '
        '"None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are '
        "preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If "
        "this field is specified when creating a Service of type ExternalName, creation will fail. This field will "
        "be wiped when updating a Service to type ExternalName. More info: "
        "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"
    ),
    "service.externalIPs": (
        "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this "
        "service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic "
        "arrives at a node with this IP.  A common example is external load-balancers that are not part of the "
        "Kubernetes system."
    ),
    "service.ports": (
        "The list of ports that are exposed by this service. More info: "
        "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"
    ),
    "service.selector": (
        "Route service traffic to pods with label keys and values matching this selector. If empty or not "
        "present, the service is assumed to have an external process managing its endpoints, which Kubernetes "
        "will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is "
        "ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/"
    ),
    "serviceaccount.secrets": (
        "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are "
        "allowed to use. Pods are only limited to this list if this service account has a "
        '"kubernetes.io/enforce-mountable-secrets" annotation set to "true". The '
        '"kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate '
        "namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated "
        "service account token secrets for use outside of pods. Instead, tokens can be requested directly using "
        "the TokenRequest API, or service account token secrets can be manually created. More info: "
        "https://kubernetes.io/docs/concepts/configuration/secret"
    ),
    "lease.holderIdentity": (
        "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is "
        "used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field."
    ),
}


def _configmap_cells(obj: Obj, now_ns: int) -> list[Any]:
    size = len(nested(obj, "data") or {}) + len(nested(obj, "binaryData") or {})
    return [metadata(obj).get("name", ""), size, age(obj, now_ns)]


def _secret_cells(obj: Obj, now_ns: int) -> list[Any]:
    return [metadata(obj).get("name", ""), as_str(obj.get("type")), len(nested(obj, "data") or {}), age(obj, now_ns)]


def _namespace_cells(obj: Obj, now_ns: int) -> list[Any]:
    return [metadata(obj).get("name", ""), as_str(nested(obj, "status", "phase")), age(obj, now_ns)]


def _serviceaccount_cells(obj: Obj, now_ns: int) -> list[Any]:
    return [metadata(obj).get("name", ""), len(as_list(obj.get("secrets"))), age(obj, now_ns)]


def _lease_cells(obj: Obj, now_ns: int) -> list[Any]:
    return [metadata(obj).get("name", ""), as_str(nested(obj, "spec", "holderIdentity")), age(obj, now_ns)]


def _service_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec = as_obj(obj.get("spec"))
    cluster_ips = as_list(spec.get("clusterIPs"))
    ports = []
    for port in dicts(spec.get("ports")):
        node_port = as_int(port.get("nodePort"))
        middle = f":{node_port}" if node_port > 0 else ""
        ports.append(f"{as_int(port.get('port'))}{middle}/{as_str(port.get('protocol'))}")
    return [
        metadata(obj).get("name", ""),
        as_str(spec.get("type")),
        as_str(cluster_ips[0]) if cluster_ips else "<none>",
        _external_ip(spec, obj.get("status")),
        ",".join(ports) or "<none>",
        age(obj, now_ns),
        format_labels(spec.get("selector")),
    ]


def _external_ip(spec: Obj, status: Any) -> str:
    """``getServiceExternalIP`` with wide output: load balancer addresses are not clipped."""
    external_ips = [as_str(ip) for ip in as_list(spec.get("externalIPs"))]
    service_type = spec.get("type")
    if service_type in ("ClusterIP", "NodePort"):
        return ",".join(external_ips) or "<none>"
    if service_type == "LoadBalancer":
        ingress = dicts(nested(status, "loadBalancer", "ingress"))
        addresses = sorted({as_str(i.get("ip")) or as_str(i.get("hostname")) for i in ingress} - {""})
        return ",".join(addresses + external_ips) or "<pending>"
    if service_type == "ExternalName":
        return as_str(spec.get("externalName"))
    return "<unknown>"


CONFIGMAP_PRINTER = Printer(
    (NAME_COLUMN, column("Data", "string", _DOCS["configmap.data"]), AGE_COLUMN), _configmap_cells
)

SECRET_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Type", "string", _DOCS["secret.type"]),
        column("Data", "string", _DOCS["secret.data"]),
        AGE_COLUMN,
    ),
    _secret_cells,
)

NAMESPACE_PRINTER = Printer(
    (NAME_COLUMN, column("Status", "string", "The status of the namespace"), AGE_COLUMN), _namespace_cells
)

SERVICEACCOUNT_PRINTER = Printer(
    (NAME_COLUMN, column("Secrets", "string", _DOCS["serviceaccount.secrets"]), AGE_COLUMN), _serviceaccount_cells
)

LEASE_PRINTER = Printer(
    (NAME_COLUMN, column("Holder", "string", _DOCS["lease.holderIdentity"]), AGE_COLUMN), _lease_cells
)

SERVICE_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Type", "string", _DOCS["service.type"]),
        column("Cluster-IP", "string", _DOCS["service.clusterIP"]),
        column("External-IP", "string", _DOCS["service.externalIPs"]),
        column("Port(s)", "string", _DOCS["service.ports"]),
        AGE_COLUMN,
        column("Selector", "string", _DOCS["service.selector"], priority=1),
    ),
    _service_cells,
)
