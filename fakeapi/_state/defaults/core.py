"""Defaults of Namespace, Secret, Lease, Event (core/v1 and events.k8s.io/v1) and Service.

Reproduced from kube-apiserver 1.32:

* ``pkg/apis/core/v1/defaults.go`` ``SetDefaults_Namespace`` (the ``kubernetes.io/metadata.name``
  label), ``SetDefaults_Secret`` and ``SetDefaults_Service`` (session affinity, type, port protocol
  and target port, traffic policies, load balancer ``ipMode``);
* ``pkg/apis/core/v1/conversion.go``: the v1 to internal conversion folds ``Secret.stringData``
  into ``data``;
* ``pkg/registry/core/namespace/strategy.go``: status ``Active`` and the ``kubernetes`` finalizer;
* ``pkg/registry/core/service/storage/alloc.go`` ``normalizeClusterIPs`` and ``initIPFamilyFields``
  on a single-stack IPv4 cluster (the addresses themselves: :mod:`.allocation`);
* typed serialization: the struct fields of a Lease, an Event and a Service status that
  ``omitempty`` cannot drop are written (``"spec":{}``, ``"source":{}``, ``"reportingComponent":""``).
"""

from __future__ import annotations

import base64

from fakeapi._state.defaults.fields import Obj, default, default_if_absent, items, sub

__all__ = [
    "core_event_defaults",
    "events_event_defaults",
    "lease_defaults",
    "namespace_defaults",
    "secret_defaults",
    "service_defaults",
]

METADATA_NAME_LABEL = "kubernetes.io/metadata.name"


def namespace_defaults(namespace: Obj, creating: bool | None) -> None:
    meta = sub(namespace, "metadata")
    name = meta.get("name") if meta is not None else None
    if meta is not None and isinstance(name, str) and name:
        labels = sub(meta, "labels")
        if labels is not None:
            labels[METADATA_NAME_LABEL] = name
    spec = sub(namespace, "spec")
    if spec is not None and creating is not False:
        finalizers = spec.get("finalizers")
        if creating and isinstance(finalizers, list) and "kubernetes" not in finalizers:
            spec["finalizers"] = [*finalizers, "kubernetes"]
        elif finalizers is None:
            spec["finalizers"] = ["kubernetes"]
    if creating:
        namespace["status"] = {"phase": "Active"}
    elif (status := sub(namespace, "status")) is not None:
        default(status, "phase", "Active")


def secret_defaults(secret: Obj, creating: bool | None) -> None:
    string_data = secret.get("stringData")
    if isinstance(string_data, dict) or string_data is None:
        secret.pop("stringData", None)
    if isinstance(string_data, dict) and string_data and (data := sub(secret, "data")) is not None:
        for key, value in string_data.items():
            if isinstance(value, str):
                data[key] = base64.b64encode(value.encode()).decode()
    default(secret, "type", "Opaque")


def lease_defaults(lease: Obj, creating: bool | None) -> None:
    sub(lease, "spec")


def core_event_defaults(event: Obj, creating: bool | None) -> None:
    sub(event, "involvedObject")
    sub(event, "source")
    for key in ("firstTimestamp", "lastTimestamp", "eventTime"):
        event.setdefault(key, None)
    for key in ("reportingComponent", "reportingInstance"):
        default_if_absent(event, key, "")


def events_event_defaults(event: Obj, creating: bool | None) -> None:
    sub(event, "regarding")
    sub(event, "deprecatedSource")
    for key in ("eventTime", "deprecatedFirstTimestamp", "deprecatedLastTimestamp"):
        event.setdefault(key, None)


def service_defaults(service: Obj, creating: bool | None) -> None:
    spec = sub(service, "spec")
    if spec is not None:
        _service_spec(spec, service)
    if creating:
        service["status"] = {"loadBalancer": {}}
    elif (status := sub(service, "status")) is not None:
        sub(status, "loadBalancer")


def _service_spec(spec: Obj, service: Obj) -> None:
    default(spec, "sessionAffinity", "None")
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    elif spec["sessionAffinity"] == "ClientIP":
        config = spec.get("sessionAffinityConfig")
        client_ip = config.get("clientIP") if isinstance(config, dict) else None
        if not isinstance(client_ip, dict) or client_ip.get("timeoutSeconds") is None:
            spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": 10800}}
    default(spec, "type", "ClusterIP")
    service_type = spec["type"]
    for port in items(spec, "ports"):
        default(port, "protocol", "TCP")
        if port.get("targetPort") in (None, 0, ""):
            port["targetPort"] = port.get("port", 0)
    externally_accessible = service_type in ("LoadBalancer", "NodePort") or (
        service_type == "ClusterIP" and bool(spec.get("externalIPs"))
    )
    if externally_accessible:
        default(spec, "externalTrafficPolicy", "Cluster")
    if service_type in ("NodePort", "LoadBalancer", "ClusterIP"):
        default_if_absent(spec, "internalTrafficPolicy", "Cluster")
    if service_type == "LoadBalancer":
        default_if_absent(spec, "allocateLoadBalancerNodePorts", True)
        status = service.get("status")
        load_balancer = status.get("loadBalancer") if isinstance(status, dict) else None
        for ingress in items(load_balancer, "ingress"):
            if ingress.get("ip") and ingress.get("ipMode") is None:
                ingress["ipMode"] = "VIP"
    if service_type != "ExternalName":
        _service_ip_families(spec)


def _service_ip_families(spec: Obj) -> None:
    """``normalizeClusterIPs`` and ``initIPFamilyFields`` on a single-stack IPv4 cluster."""
    if spec.get("clusterIP") and not spec.get("clusterIPs"):
        spec["clusterIPs"] = [spec["clusterIP"]]
    headless_selectorless = spec.get("clusterIP") == "None" and not spec.get("selector")
    default(spec, "ipFamilyPolicy", "RequireDualStack" if headless_selectorless else "SingleStack")
    families = list(spec.get("ipFamilies") or [])
    for index, ip in enumerate(spec.get("clusterIPs") or []):
        if ip == "None":
            break
        if index >= len(families):
            families.append("IPv6" if ":" in str(ip) else "IPv4")
    if not families:
        families = ["IPv4"]
    if headless_selectorless and len(families) < 2 and spec["ipFamilyPolicy"] != "SingleStack":
        families.append("IPv6" if families[0] == "IPv4" else "IPv4")
    spec["ipFamilies"] = families
