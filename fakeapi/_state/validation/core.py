"""The core group's kinds as ``pkg/apis/core/validation/validation.go`` validates them.

* ConfigMap (``ValidateConfigMap``, ``ValidateConfigMapUpdate``): data and binaryData keys are
  config keys, no key in both, 1 MiB in all (a ``Too long`` on the empty path); once
  ``immutable`` is true, it, data and binaryData cannot change.
* Secret (``ValidateSecret``, ``ValidateSecretUpdate``): keys, 1 MiB of data, the fields each
  well-known type requires (``kubernetes.io/tls`` needs ``tls.crt`` and ``tls.key``, ...); the type
  is immutable, and so is everything once ``immutable`` is true.
* Service (``ValidateService``, ``ValidateServiceUpdate``): ports (required unless headless or
  ExternalName; names DNS labels, required when several, unique; port numbers; protocol; target
  port), selector labels, sessionAffinity, the cluster IP fields (:mod:`.services`), type, node
  ports only where a type allows them, no port twice, loadBalancerClass, the external and internal
  traffic policies; an update first keeps the cluster IPs and families (:mod:`.services`). Not
  reproduced: externalIPs, loadBalancerSourceRanges, the kubelet port.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._patching.slices import paused
from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError
from fakeapi._state.validation.names import is_config_map_key, is_dns1123_label, is_dns1123_subdomain, is_port_name
from fakeapi._state.validation.objectmeta import validate_immutable, validate_labels
from fakeapi._state.validation.services import (
    validate_cluster_ip_fields,
    validate_load_balancer_class,
    validate_service_update_fields,
)

__all__ = [
    "MAX_SECRET_SIZE",
    "validate_config_map",
    "validate_config_map_update",
    "validate_secret",
    "validate_secret_update",
    "validate_service",
    "validate_service_update",
]

Obj = Mapping[str, Any]
MAX_SECRET_SIZE = 1 * 1024 * 1024
_IMMUTABLE_SET = "field is immutable when `immutable` is set"
_PROTOCOLS = ("SCTP", "TCP", "UDP")
_SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
_SESSION_AFFINITIES = ("ClientIP", "None")
_TRAFFIC_POLICIES = ("Cluster", "Local")


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _decoded_size(text: Any) -> int:
    """The bytes a base64 ``[]byte`` field holds."""
    if not isinstance(text, str):
        return 0
    padding = len(text) - len(text.rstrip("="))
    return len(text) * 3 // 4 - padding


# -- ConfigMap and Secret --------------------------------------------------------------------------


def validate_config_map(config_map: Obj) -> list[FieldError]:
    errors: list[FieldError] = []
    data = _dict(config_map.get("data"))
    binary = _dict(config_map.get("binaryData"))
    total = 0
    for key, value in paused(data.items(), len(data)):
        errors += [field.invalid(f"data[{key}]", key, problem) for problem in is_config_map_key(key)]
        if key in binary:
            errors.append(field.invalid(f"data[{key}]", key, "duplicate of key present in binaryData"))
        total += len(str(value).encode())
    for key, value in paused(binary.items(), len(binary)):
        errors += [field.invalid(f"binaryData[{key}]", key, problem) for problem in is_config_map_key(key)]
        total += _decoded_size(value)
    if total > MAX_SECRET_SIZE:
        errors.append(field.too_long("", MAX_SECRET_SIZE))
    return errors


def validate_config_map_update(new: Obj, old: Obj) -> list[FieldError]:
    errors: list[FieldError] = []
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            errors.append(field.forbidden("immutable", _IMMUTABLE_SET))
        if (new.get("data") or None) != (old.get("data") or None):
            errors.append(field.forbidden("data", _IMMUTABLE_SET))
        if (new.get("binaryData") or None) != (old.get("binaryData") or None):
            errors.append(field.forbidden("binaryData", _IMMUTABLE_SET))
    return errors + validate_config_map(new)


def validate_secret(secret: Obj) -> list[FieldError]:
    errors: list[FieldError] = []
    data = _dict(secret.get("data"))
    total = 0
    for key, value in paused(data.items(), len(data)):
        errors += [field.invalid(f"data[{key}]", key, problem) for problem in is_config_map_key(key)]
        total += _decoded_size(value)
    if total > MAX_SECRET_SIZE:
        errors.append(field.too_long("data", MAX_SECRET_SIZE))
    kind = secret.get("type") or ""
    annotations = _dict(_dict(secret.get("metadata")).get("annotations"))
    if kind == "kubernetes.io/service-account-token":
        if not annotations.get("kubernetes.io/service-account.name"):
            errors.append(field.required("metadata.annotations[kubernetes.io/service-account.name]"))
    elif kind == "kubernetes.io/dockercfg":
        if ".dockercfg" not in data:
            errors.append(field.required("data[.dockercfg]"))
    elif kind == "kubernetes.io/dockerconfigjson":
        if ".dockerconfigjson" not in data:
            errors.append(field.required("data[.dockerconfigjson]"))
    elif kind == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:
            errors += [field.required("data[username]"), field.required("data[password]")]
    elif kind == "kubernetes.io/ssh-auth":
        if not data.get("ssh-privatekey"):
            errors.append(field.required("data[ssh-privatekey]"))
    elif kind == "kubernetes.io/tls":
        for key in ("tls.crt", "tls.key"):
            if key not in data:
                errors.append(field.required(f"data[{key}]"))
    return errors


def validate_secret_update(new: Obj, old: Obj) -> list[FieldError]:
    errors = validate_immutable(new.get("type") or "", old.get("type") or "", "type")
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            errors.append(field.forbidden("immutable", _IMMUTABLE_SET))
        if (new.get("data") or None) != (old.get("data") or None):
            errors.append(field.forbidden("data", _IMMUTABLE_SET))
    return errors + validate_secret(new)


# -- Service -----------------------------------------------------------------------------------------


def _headless(spec: Obj) -> bool:
    ips = _list(spec.get("clusterIPs"))
    return len(ips) == 1 and ips[0] == "None"


def validate_service(service: Obj) -> list[FieldError]:
    """``ValidateService``, past the metadata."""
    spec = _dict(service.get("spec"))
    errors: list[FieldError] = []
    kind = spec.get("type") or ""
    ports = [_dict(port) for port in _list(spec.get("ports"))]
    if not ports and not _headless(spec) and kind != "ExternalName":
        errors.append(field.required("spec.ports"))
    if kind in ("LoadBalancer", "NodePort") and _headless(spec):
        errors.append(
            field.invalid("spec.clusterIPs[0]", spec["clusterIPs"][0], f"may not be set to 'None' for {kind} services")
        )
    elif kind == "ExternalName":
        for name in ("clusterIPs", "ipFamilies"):
            if _list(spec.get(name)):
                errors.append(field.forbidden(f"spec.{name}", "may not be set for ExternalName services"))
        if spec.get("ipFamilyPolicy") is not None:
            errors.append(field.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"))
        cname = str(spec.get("externalName") or "").removesuffix(".")
        if cname:
            errors += [field.invalid("spec.externalName", cname, problem) for problem in is_dns1123_subdomain(cname)]
        else:
            errors.append(field.required("spec.externalName"))
    names: set[str] = set()
    for position, port in enumerate(ports):
        errors += _validate_service_port(port, len(ports) > 1, names, f"spec.ports[{position}]")
    if spec.get("selector") is not None:
        errors += validate_labels(_dict(spec.get("selector")), "spec.selector")
    affinity = spec.get("sessionAffinity") or ""
    if not affinity:
        errors.append(field.required("spec.sessionAffinity"))
    elif affinity not in _SESSION_AFFINITIES:
        errors.append(field.not_supported("spec.sessionAffinity", affinity, _SESSION_AFFINITIES))
    if affinity == "None" and spec.get("sessionAffinityConfig") is not None:
        errors.append(field.forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"))
    errors += validate_cluster_ip_fields(spec)
    if not kind:
        errors.append(field.required("spec.type"))
    elif kind not in _SERVICE_TYPES:
        errors.append(field.not_supported("spec.type", kind, _SERVICE_TYPES))
    if kind == "ClusterIP":
        for position, port in enumerate(ports):
            if port.get("nodePort"):
                errors.append(
                    field.forbidden(f"spec.ports[{position}].nodePort", "may not be used when `type` is 'ClusterIP'")
                )
    node_ports: set[tuple[str, int]] = set()
    for position, port in enumerate(ports):
        if not port.get("nodePort"):
            continue
        key = (port.get("protocol") or "", port["nodePort"])
        if key in node_ports:
            errors.append(field.duplicate(f"spec.ports[{position}].nodePort", port["nodePort"]))
        node_ports.add(key)
    seen: set[tuple[str, int]] = set()
    for position, port in enumerate(ports):
        key = (port.get("protocol") or "", port.get("port") or 0)
        if key in seen:
            shown = _service_port_syntax(key[0], key[1])
            errors.append(field.duplicate(f"spec.ports[{position}]", shown))
        seen.add(key)
    if spec.get("allocateLoadBalancerNodePorts") is not None and kind != "LoadBalancer":
        errors.append(
            field.forbidden("spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'")
        )
    errors += validate_load_balancer_class(spec, None)
    errors += _validate_external_traffic_policy(spec, kind)
    errors += _validate_internal_traffic_policy(spec, kind)
    return errors


def validate_service_update(new: Obj, old: Obj) -> list[FieldError]:
    """``ValidateServiceUpdate``: the cluster IPs, families, load balancer class and health check port, then the Service."""
    return validate_service_update_fields(new, old) + validate_service(new)


def _validate_external_traffic_policy(spec: Obj, kind: str) -> list[FieldError]:
    """``validateServiceExternalTrafficPolicy``."""
    errors: list[FieldError] = []
    policy = spec.get("externalTrafficPolicy") or ""
    accessible = kind in ("NodePort", "LoadBalancer") or (kind == "ClusterIP" and bool(_list(spec.get("externalIPs"))))
    if not accessible:
        if policy:
            detail = "may only be set for externally-accessible services"
            errors.append(field.invalid("spec.externalTrafficPolicy", policy, detail))
    elif not policy:
        errors.append(field.required("spec.externalTrafficPolicy"))
    elif policy not in _TRAFFIC_POLICIES:
        errors.append(field.not_supported("spec.externalTrafficPolicy", policy, _TRAFFIC_POLICIES))
    health_port = spec.get("healthCheckNodePort") or 0
    if not (kind == "LoadBalancer" and policy == "Local"):
        if health_port:
            detail = "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"
            errors.append(field.invalid("spec.healthCheckNodePort", health_port, detail))
    elif not health_port:
        errors.append(field.required("spec.healthCheckNodePort"))
    elif not 1 <= health_port <= 65535:
        errors.append(field.invalid("spec.healthCheckNodePort", health_port, "must be between 1 and 65535, inclusive"))
    return errors


def _service_port_syntax(protocol: str, port: int) -> field.Printed:
    """A ServicePort keyed on protocol and port, as ``%#v`` and as JSON print it."""
    go_syntax = (
        f'core.ServicePort{{Name:"", Protocol:"{protocol}", AppProtocol:(*string)(nil), Port:{port}, '
        'TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}'
    )
    # The internal type has no JSON tags: json.Marshal writes the Go field names.
    json = f'{{"Name":"","Protocol":"{protocol}","AppProtocol":null,"Port":{port},"TargetPort":0,"NodePort":0}}'
    return field.Printed(go_syntax, json)


def _validate_service_port(port: Obj, require_name: bool, names: set[str], path: str) -> list[FieldError]:
    """``validateServicePort``."""
    errors: list[FieldError] = []
    name = port.get("name") or ""
    if require_name and not name:
        errors.append(field.required(f"{path}.name"))
    elif name:
        errors += [field.invalid(f"{path}.name", name, problem) for problem in is_dns1123_label(name)]
        if name in names:
            errors.append(field.duplicate(f"{path}.name", name))
        else:
            names.add(name)
    number = port.get("port") or 0
    if not 1 <= number <= 65535:
        errors.append(field.invalid(f"{path}.port", number, "must be between 1 and 65535, inclusive"))
    protocol = port.get("protocol") or ""
    if not protocol:
        errors.append(field.required(f"{path}.protocol"))
    elif protocol not in _PROTOCOLS:
        errors.append(field.not_supported(f"{path}.protocol", protocol, _PROTOCOLS))
    target = port.get("targetPort")
    if isinstance(target, str):
        errors += [field.invalid(f"{path}.targetPort", target, problem) for problem in is_port_name(target)]
    else:
        value = target if isinstance(target, int) else 0
        if not 1 <= value <= 65535:
            errors.append(field.invalid(f"{path}.targetPort", value, "must be between 1 and 65535, inclusive"))
    return errors


def _validate_internal_traffic_policy(spec: Obj, kind: str) -> list[FieldError]:
    policy = spec.get("internalTrafficPolicy")
    if policy is None:
        if kind in ("NodePort", "LoadBalancer", "ClusterIP"):
            return [field.required("spec.internalTrafficPolicy")]
        return []
    if policy not in _TRAFFIC_POLICIES:
        return [field.not_supported("spec.internalTrafficPolicy", policy, _TRAFFIC_POLICIES)]
    return []
