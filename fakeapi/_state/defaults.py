"""What kube-apiserver 1.32 fills in when it stores a built-in object, so a read shows the same fields.

The real server gets there in several steps, all reproduced here as one pure function:

* versioned defaulting on every decode, so after every create, update and patch
  (``pkg/apis/core/v1/defaults.go``, ``pkg/apis/apps/v1/defaults.go``, ``pkg/apis/batch/v1/defaults.go``
  and the declarative ``+default`` markers they generate from): Service, Pod and pod templates,
  Secret, Namespace, Deployment, Job;
* the v1 to internal conversion folding ``Secret.stringData`` into ``data``;
* registry strategies: ``pkg/registry/core/namespace/strategy.go`` (status ``Active``, the
  ``kubernetes`` finalizer), ``pkg/registry/core/pod/strategy.go`` (status ``Pending`` with the QoS
  class of ``pkg/apis/core/helper/qos/qos.go``), ``pkg/registry/batch/job/strategy.go``
  (``generateSelector`` from the object's uid), ``pkg/registry/core/service/storage/alloc.go``
  (``initIPFamilyFields``, ``normalizeClusterIPs``, cluster IP and node port allocation);
* the default admission plugins that act like defaulting on pods: Priority (``priority``,
  ``preemptionPolicy``) and DefaultTolerationSeconds (the two 300 s ``NoExecute`` tolerations).
  ServiceAccount admission is left out: it needs the ServiceAccount object and a random token
  volume name;
* typed serialization: struct fields that ``omitempty`` cannot drop are always written
  (``"resources":{}``, ``"status":{}``, a template's ``"creationTimestamp":null``, an Event's
  ``"reportingComponent":""``).

``creating`` says which write this is. ``True`` applies the create-only strategy steps as the
apiserver does (status reset, the namespace finalizer appended); ``False`` leaves them out (an update
keeps what the old object had); ``None`` (the default) fills them in only where missing, which
gives the create result for ordinary bodies and never undoes a status an update carried over.
"""

from __future__ import annotations

import base64
import copy
import ipaddress
import itertools
import re
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

__all__ = ["allocate_cluster_ip", "allocate_node_ports", "apply_defaults"]

Obj = dict[str, Any]

SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")
NODE_PORT_RANGE = range(30000, 32768)
MAX_INT32 = 2**31 - 1
METADATA_NAME_LABEL = "kubernetes.io/metadata.name"
_SYSTEM_PRIORITIES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
_VOLUME_SOURCES = (
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi",
    "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
    "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected",
    "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image",
)  # fmt: skip
_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


def apply_defaults(group: str, version: str, kind: str, obj: Obj, *, creating: bool | None = None) -> Obj:
    """The object as the apiserver would store it; other kinds come back as they are, never mutated."""
    defaulter = _DEFAULTERS.get((group, version, kind))
    if defaulter is None:
        return obj
    out = copy.deepcopy(obj)
    defaulter(out, creating)
    return out


# -- small helpers over decoded JSON ------------------------------------------------------------------


def _sub(parent: Obj, key: str) -> Obj | None:
    """The struct at ``key``, created when absent or null; ``None`` when it is not an object at all."""
    value = parent.get(key)
    if value is None:
        value = parent[key] = {}
    return value if isinstance(value, dict) else None


def _items(parent: Obj | None, key: str) -> Iterator[Obj]:
    values = parent.get(key) if parent is not None else None
    if isinstance(values, list):
        yield from (item for item in values if isinstance(item, dict))


def _default(parent: Obj, key: str, value: Any) -> None:
    """Go's ``if x == nil`` / ``if x == ""`` / ``if x == 0``: absent, null and zero values take the default."""
    if parent.get(key) in (None, "", 0) and parent.get(key) is not False:
        parent[key] = value


def _default_if_absent(parent: Obj, key: str, value: Any) -> None:
    """Pointer fields: only nil takes the default, an explicit zero stays."""
    if parent.get(key) is None:
        parent[key] = value


# -- Namespace, Secret, Lease, Event ------------------------------------------------------------------


def _namespace(namespace: Obj, creating: bool | None) -> None:
    meta = _sub(namespace, "metadata")
    name = meta.get("name") if meta is not None else None
    if meta is not None and isinstance(name, str) and name:
        labels = _sub(meta, "labels")
        if labels is not None:
            labels[METADATA_NAME_LABEL] = name
    spec = _sub(namespace, "spec")
    if spec is not None and creating is not False:
        finalizers = spec.get("finalizers")
        if creating and isinstance(finalizers, list) and "kubernetes" not in finalizers:
            spec["finalizers"] = [*finalizers, "kubernetes"]
        elif finalizers is None:
            spec["finalizers"] = ["kubernetes"]
    if creating:
        namespace["status"] = {"phase": "Active"}
    elif (status := _sub(namespace, "status")) is not None:
        _default(status, "phase", "Active")


def _secret(secret: Obj, creating: bool | None) -> None:
    string_data = secret.get("stringData")
    if isinstance(string_data, dict) or string_data is None:
        secret.pop("stringData", None)
    if isinstance(string_data, dict) and string_data and (data := _sub(secret, "data")) is not None:
        for key, value in string_data.items():
            if isinstance(value, str):
                data[key] = base64.b64encode(value.encode()).decode()
    _default(secret, "type", "Opaque")


def _lease(lease: Obj, creating: bool | None) -> None:
    _sub(lease, "spec")


def _core_event(event: Obj, creating: bool | None) -> None:
    _sub(event, "involvedObject")
    _sub(event, "source")
    for key in ("firstTimestamp", "lastTimestamp", "eventTime"):
        event.setdefault(key, None)
    for key in ("reportingComponent", "reportingInstance"):
        _default_if_absent(event, key, "")


def _events_event(event: Obj, creating: bool | None) -> None:
    _sub(event, "regarding")
    _sub(event, "deprecatedSource")
    for key in ("eventTime", "deprecatedFirstTimestamp", "deprecatedLastTimestamp"):
        event.setdefault(key, None)


# -- Service ------------------------------------------------------------------------------------------


def _service(service: Obj, creating: bool | None) -> None:
    spec = _sub(service, "spec")
    if spec is not None:
        _service_spec(spec, service)
    if creating:
        service["status"] = {"loadBalancer": {}}
    elif (status := _sub(service, "status")) is not None:
        _sub(status, "loadBalancer")


def _service_spec(spec: Obj, service: Obj) -> None:
    _default(spec, "sessionAffinity", "None")
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    elif spec["sessionAffinity"] == "ClientIP":
        config = spec.get("sessionAffinityConfig")
        client_ip = config.get("clientIP") if isinstance(config, dict) else None
        if not isinstance(client_ip, dict) or client_ip.get("timeoutSeconds") is None:
            spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": 10800}}
    _default(spec, "type", "ClusterIP")
    service_type = spec["type"]
    for port in _items(spec, "ports"):
        _default(port, "protocol", "TCP")
        if port.get("targetPort") in (None, 0, ""):
            port["targetPort"] = port.get("port", 0)
    externally_accessible = service_type in ("LoadBalancer", "NodePort") or (
        service_type == "ClusterIP" and bool(spec.get("externalIPs"))
    )
    if externally_accessible:
        _default(spec, "externalTrafficPolicy", "Cluster")
    if service_type in ("NodePort", "LoadBalancer", "ClusterIP"):
        _default_if_absent(spec, "internalTrafficPolicy", "Cluster")
    if service_type == "LoadBalancer":
        _default_if_absent(spec, "allocateLoadBalancerNodePorts", True)
        status = service.get("status")
        load_balancer = status.get("loadBalancer") if isinstance(status, dict) else None
        for ingress in _items(load_balancer, "ingress"):
            if ingress.get("ip") and ingress.get("ipMode") is None:
                ingress["ipMode"] = "VIP"
    if service_type != "ExternalName":
        _service_ip_families(spec)


def _service_ip_families(spec: Obj) -> None:
    """``normalizeClusterIPs`` and ``initIPFamilyFields`` on a single-stack IPv4 cluster."""
    if spec.get("clusterIP") and not spec.get("clusterIPs"):
        spec["clusterIPs"] = [spec["clusterIP"]]
    headless_selectorless = spec.get("clusterIP") == "None" and not spec.get("selector")
    _default(spec, "ipFamilyPolicy", "RequireDualStack" if headless_selectorless else "SingleStack")
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


def allocate_cluster_ip(obj: Obj, used: set[str]) -> Obj:
    """A Service with ``clusterIP``/``clusterIPs`` set as the allocator leaves them.

    Requested addresses (and ``None``) are kept; otherwise the lowest free address of the dynamic
    band of 10.96.0.0/12 is taken. The bitmap allocator reserves the first ``min(max(16, size/16),
    256)`` addresses for static requests (``calculateRangeOffset``) and picks randomly above them;
    the fake picks the lowest so that runs replay, and falls back to the static band when full.
    """
    spec = obj.get("spec")
    if not isinstance(spec, dict) or spec.get("type") == "ExternalName":
        return obj
    out = copy.deepcopy(obj)
    spec = out["spec"]
    if spec.get("clusterIP") or spec.get("clusterIPs"):
        if spec.get("clusterIP") and not spec.get("clusterIPs"):
            spec["clusterIPs"] = [spec["clusterIP"]]
        return out
    size = SERVICE_CIDR.num_addresses - 2
    offset = min(max(16, size // 16), 256)
    first = int(SERVICE_CIDR.network_address)
    for index in itertools.chain(range(offset + 1, size + 1), range(1, offset + 1)):
        candidate = str(ipaddress.ip_address(first + index))
        if candidate not in used:
            spec["clusterIP"] = candidate
            spec["clusterIPs"] = [candidate]
            return out
    raise RuntimeError("failed to allocate a serviceIP: range is full")


def allocate_node_ports(obj: Obj, used: set[int]) -> Obj:
    """NodePort and LoadBalancer Services with their ``nodePort``\\ s (and health check port) set.

    Ports with the same ``port`` share one node port (``initNodePorts``); requested ones are kept.
    Like cluster IPs, the lowest free port above the static band (``min(max(16, size/32), 128)``
    ports) is taken instead of a random one.
    """
    spec = obj.get("spec")
    if not isinstance(spec, dict) or spec.get("type") not in ("NodePort", "LoadBalancer"):
        return obj
    out = copy.deepcopy(obj)
    spec = out["spec"]
    taken = set(used)
    allocate_new = spec["type"] == "NodePort" or spec.get("allocateLoadBalancerNodePorts") is not False
    by_port: dict[Any, int] = {}
    ports = list(_items(spec, "ports"))
    for port in ports:
        if port.get("nodePort"):
            taken.add(port["nodePort"])
            by_port.setdefault(port.get("port"), port["nodePort"])
    for port in ports:
        if port.get("nodePort") or not allocate_new:
            continue
        if port.get("port") not in by_port:
            by_port[port.get("port")] = _next_node_port(taken)
        port["nodePort"] = by_port[port.get("port")]
    needs_health_check = spec["type"] == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"
    if needs_health_check and not spec.get("healthCheckNodePort"):
        spec["healthCheckNodePort"] = _next_node_port(taken)
    return out


def _next_node_port(taken: set[int]) -> int:
    size = len(NODE_PORT_RANGE)
    offset = min(max(16, size // 32), 128)
    for port in itertools.chain(NODE_PORT_RANGE[offset:], NODE_PORT_RANGE[:offset]):
        if port not in taken:
            taken.add(port)
            return port
    raise RuntimeError("failed to allocate a nodePort: range is full")


# -- Pod and pod templates ----------------------------------------------------------------------------


def _pod(pod: Obj, creating: bool | None) -> None:
    spec = _sub(pod, "spec")
    if spec is not None:
        _pod_only_defaults(spec)
        _pod_spec_defaults(spec)
        _pod_admission(spec)
    if creating:
        pod["status"] = {"phase": "Pending", "qosClass": _qos_class(spec or {})}
        return
    status = _sub(pod, "status")
    if status is not None and creating is None:
        _default(status, "phase", "Pending")
        _default(status, "qosClass", _qos_class(spec or {}))


def _pod_only_defaults(spec: Obj) -> None:
    """``SetDefaults_Pod``: what a Pod gets and a pod template does not."""
    for key in ("containers", "initContainers"):
        for container in _items(spec, key):
            resources = container.get("resources")
            limits = resources.get("limits") if isinstance(resources, dict) else None
            if not isinstance(resources, dict) or not isinstance(limits, dict) or not limits:
                continue
            requests = resources.get("requests")
            if not isinstance(requests, dict):
                requests = resources["requests"] = {}
            for name, quantity in limits.items():
                requests.setdefault(name, quantity)
    _default_if_absent(spec, "enableServiceLinks", True)
    if spec.get("hostNetwork") is True:
        for key in ("containers", "initContainers"):
            for container in _items(spec, key):
                for port in _items(container, "ports"):
                    if not port.get("hostPort"):
                        port["hostPort"] = port.get("containerPort", 0)


def _pod_spec_defaults(spec: Obj) -> None:
    """``SetDefaults_PodSpec`` and the defaulters of everything a PodSpec holds."""
    _default(spec, "dnsPolicy", "ClusterFirst")
    _default(spec, "restartPolicy", "Always")
    _default_if_absent(spec, "securityContext", {})
    _default_if_absent(spec, "terminationGracePeriodSeconds", 30)
    _default(spec, "schedulerName", "default-scheduler")
    for volume in _items(spec, "volumes"):
        _volume_defaults(volume)
    for key in _CONTAINER_LISTS:
        for container in _items(spec, key):
            _container_defaults(container)


def _volume_defaults(volume: Obj) -> None:
    if all(volume.get(source) is None for source in _VOLUME_SOURCES):
        volume["emptyDir"] = {}
    if isinstance(host_path := volume.get("hostPath"), dict):
        _default_if_absent(host_path, "type", "")
    for source in ("secret", "configMap", "downwardAPI", "projected"):
        if isinstance(value := volume.get(source), dict):
            _default_if_absent(value, "defaultMode", 420)
    if isinstance(downward := volume.get("downwardAPI"), dict):
        _downward_items_defaults(downward)
    if isinstance(projected := volume.get("projected"), dict):
        for projection in _items(projected, "sources"):
            if isinstance(downward := projection.get("downwardAPI"), dict):
                _downward_items_defaults(downward)
            if isinstance(token := projection.get("serviceAccountToken"), dict):
                _default_if_absent(token, "expirationSeconds", 3600)
    ephemeral = volume.get("ephemeral")
    template = ephemeral.get("volumeClaimTemplate") if isinstance(ephemeral, dict) else None
    if isinstance(template, dict) and isinstance(claim_spec := template.get("spec"), dict):
        _default_if_absent(claim_spec, "volumeMode", "Filesystem")


def _downward_items_defaults(downward: Obj) -> None:
    for item in _items(downward, "items"):
        if isinstance(field_ref := item.get("fieldRef"), dict):
            _default(field_ref, "apiVersion", "v1")


def _container_defaults(container: Obj) -> None:
    if not container.get("imagePullPolicy"):
        image = container.get("image")
        tag = _image_tag(image if isinstance(image, str) else "")
        container["imagePullPolicy"] = "Always" if tag == "latest" else "IfNotPresent"
    _default(container, "terminationMessagePath", "/dev/termination-log")
    _default(container, "terminationMessagePolicy", "File")
    for port in _items(container, "ports"):
        _default(port, "protocol", "TCP")
    for env in _items(container, "env"):
        value_from = env.get("valueFrom")
        if isinstance(value_from, dict) and isinstance(field_ref := value_from.get("fieldRef"), dict):
            _default(field_ref, "apiVersion", "v1")
    for key in _PROBES:
        if isinstance(probe := container.get(key), dict):
            _default(probe, "timeoutSeconds", 1)
            _default(probe, "periodSeconds", 10)
            _default(probe, "successThreshold", 1)
            _default(probe, "failureThreshold", 3)
            _handler_defaults(probe)
            if isinstance(grpc := probe.get("grpc"), dict):
                _default_if_absent(grpc, "service", "")
    if isinstance(lifecycle := container.get("lifecycle"), dict):
        for hook in ("postStart", "preStop"):
            if isinstance(handler := lifecycle.get(hook), dict):
                _handler_defaults(handler)
    _sub(container, "resources")


def _handler_defaults(handler: Obj) -> None:
    if isinstance(http_get := handler.get("httpGet"), dict):
        _default(http_get, "path", "/")
        _default(http_get, "scheme", "HTTP")


_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = re.compile(rf"^{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*(?::[0-9]+)?$")
_PATH_COMPONENT = re.compile(r"^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*$")
_TAG = re.compile(r"^[\w][\w.-]{0,127}$")
_DIGEST = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$")


def _image_tag(image: str) -> str:
    """The tag ``parsers.ParseImageName`` reports: ``latest`` when neither tag nor digest, ``""`` if unparsable."""
    name, _, digest = image.partition("@")
    if digest and not _DIGEST.match(digest):
        return ""
    head, _, last = name.rpartition("/")
    last, _, tag = last.partition(":")
    if tag and not _TAG.match(tag):
        return ""
    components = [*head.split("/"), last] if head else [last]
    first = components[0]
    if len(components) > 1 and (any(c in first for c in ".:") or first == "localhost" or first.lower() != first):
        if not _DOMAIN.match(first):
            return ""
        components = components[1:]
    if len(name) > 255 or not all(_PATH_COMPONENT.match(component) for component in components):
        return ""
    return tag or ("" if digest else "latest")


def _pod_admission(spec: Obj) -> None:
    """The Priority and DefaultTolerationSeconds admission plugins (pods only, not templates)."""
    if spec.get("priority") is None:
        spec["priority"] = _SYSTEM_PRIORITIES.get(str(spec.get("priorityClassName") or ""), 0)
    _default_if_absent(spec, "preemptionPolicy", "PreemptLowerPriority")
    tolerations = spec.get("tolerations")
    if tolerations is not None and not isinstance(tolerations, list):
        return
    tolerations = list(tolerations or [])
    for taint in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"):
        tolerated = any(
            isinstance(t, dict) and t.get("key") in (taint, "", None) and t.get("effect") in ("NoExecute", "", None)
            for t in tolerations
        )
        if not tolerated:
            tolerations.append({"key": taint, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300})
    spec["tolerations"] = tolerations


def _template_defaults(spec: Obj) -> Obj | None:
    """A pod template's defaults; returns the template so callers can look at its labels."""
    template = _sub(spec, "template")
    if template is None:
        return None
    if (meta := _sub(template, "metadata")) is not None:
        meta.setdefault("creationTimestamp", None)
    if (pod_spec := _sub(template, "spec")) is not None:
        _pod_spec_defaults(pod_spec)
    return template


# -- QoS ----------------------------------------------------------------------------------------------

_QUANTITY = re.compile(
    r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:[eE]([+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$"
)
_SUFFIXES = {
    None: Decimal(1), "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "k": Decimal("1e3"),
    "M": Decimal("1e6"), "G": Decimal("1e9"), "T": Decimal("1e12"), "P": Decimal("1e15"), "E": Decimal("1e18"),
    "Ki": Decimal(2**10), "Mi": Decimal(2**20), "Gi": Decimal(2**30), "Ti": Decimal(2**40), "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}  # fmt: skip


def _quantity(value: Any) -> Decimal | None:
    """A resource quantity's amount (``resource.ParseQuantity``; JSON numbers are accepted too)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    match = _QUANTITY.match(value.strip() if isinstance(value, str) else repr(value))
    if match is None:
        return None
    number = Decimal(match.group(1))
    if match.group(2) is not None:
        return number.scaleb(int(match.group(2)))
    return number * _SUFFIXES[match.group(3)]


def _qos_class(spec: Obj) -> str:
    """``ComputePodQOS``: cpu and memory only, init containers included, zero amounts ignored."""
    requests: dict[str, Decimal] = {}
    limits: dict[str, Decimal] = {}
    guaranteed = True
    for key in ("containers", "initContainers"):
        for container in _items(spec, key):
            resources = container.get("resources")
            resources = resources if isinstance(resources, dict) else {}
            for name, amount in _compute_amounts(resources.get("requests")):
                requests[name] = requests.get(name, Decimal(0)) + amount
            found = set()
            for name, amount in _compute_amounts(resources.get("limits")):
                found.add(name)
                limits[name] = limits.get(name, Decimal(0)) + amount
            if not {"cpu", "memory"} <= found:
                guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    equal = all(limits.get(name) == amount for name, amount in requests.items())
    if guaranteed and equal and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


def _compute_amounts(resources: Any) -> Iterator[tuple[str, Decimal]]:
    if isinstance(resources, dict):
        for name in ("cpu", "memory"):
            amount = _quantity(resources.get(name))
            if amount is not None and amount > 0:
                yield name, amount


# -- Deployment and Job -------------------------------------------------------------------------------


def _deployment(deployment: Obj, creating: bool | None) -> None:
    spec = _sub(deployment, "spec")
    if spec is not None:
        _default_if_absent(spec, "replicas", 1)
        if (strategy := _sub(spec, "strategy")) is not None:
            _default(strategy, "type", "RollingUpdate")
            if strategy["type"] == "RollingUpdate" and (rolling := _sub(strategy, "rollingUpdate")) is not None:
                _default_if_absent(rolling, "maxUnavailable", "25%")
                _default_if_absent(rolling, "maxSurge", "25%")
        _default_if_absent(spec, "revisionHistoryLimit", 10)
        _default_if_absent(spec, "progressDeadlineSeconds", 600)
        _template_defaults(spec)
    _status_struct(deployment, creating)


def _status_struct(obj: Obj, creating: bool | None) -> None:
    if creating:
        obj["status"] = {}
    else:
        _sub(obj, "status")


def _job(job: Obj, creating: bool | None) -> None:
    spec = _sub(job, "spec")
    meta = _sub(job, "metadata")
    if spec is not None and meta is not None:
        _job_spec(spec)
        template = _template_defaults(spec)
        if creating is not False and spec.get("manualSelector") is not True and template is not None:
            _generate_selector(spec, template, meta)
        template_meta = template.get("metadata") if template is not None else None
        template_labels = template_meta.get("labels") if isinstance(template_meta, dict) else None
        if isinstance(template_labels, dict) and template_labels and not meta.get("labels"):
            meta["labels"] = dict(template_labels)
    _status_struct(job, creating)


def _job_spec(spec: Obj) -> None:
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    _default_if_absent(spec, "parallelism", 1)
    _default_if_absent(spec, "backoffLimit", MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else 6)
    _default_if_absent(spec, "completionMode", "NonIndexed")
    _default_if_absent(spec, "suspend", False)
    failure_policy = spec.get("podFailurePolicy")
    for rule in _items(failure_policy if isinstance(failure_policy, dict) else None, "rules"):
        for pattern in _items(rule, "onPodConditions"):
            _default(pattern, "status", "True")
    _default_if_absent(spec, "podReplacementPolicy", "Failed" if failure_policy is not None else "TerminatingOrFailed")
    _default_if_absent(spec, "manualSelector", False)


def _generate_selector(spec: Obj, template: Obj, meta: Obj) -> None:
    """``generateSelector``: template labels and a selector keyed on the Job's uid."""
    uid = str(meta.get("uid") or "")
    name = str(meta.get("name") or "")
    template_meta = _sub(template, "metadata")
    labels = _sub(template_meta, "labels") if template_meta is not None else None
    if labels is None:
        return
    for key in ("job-name", "batch.kubernetes.io/job-name"):
        labels.setdefault(key, name)
    for key in ("controller-uid", "batch.kubernetes.io/controller-uid"):
        labels.setdefault(key, uid)
    selector = _sub(spec, "selector")
    match_labels = _sub(selector, "matchLabels") if selector is not None else None
    if match_labels is not None:
        match_labels.setdefault("batch.kubernetes.io/controller-uid", uid)


_DEFAULTERS: dict[tuple[str, str, str], Callable[[Obj, bool | None], None]] = {
    ("", "v1", "Namespace"): _namespace,
    ("", "v1", "Secret"): _secret,
    ("", "v1", "Service"): _service,
    ("", "v1", "Pod"): _pod,
    ("", "v1", "Event"): _core_event,
    ("events.k8s.io", "v1", "Event"): _events_event,
    ("coordination.k8s.io", "v1", "Lease"): _lease,
    ("apps", "v1", "Deployment"): _deployment,
    ("batch", "v1", "Job"): _job,
}
