"""The cluster IP and node ports a Service gets on create, picked so that runs replay.

Reproduced from kube-apiserver 1.32 ``pkg/registry/core/service/storage/alloc.go`` (``allocIPs``,
``initNodePorts``, ``allocateHealthCheckNodePort``) over the bitmap allocators of
``pkg/registry/core/service/ipallocator`` and ``portallocator``, with a kind-like cluster:
service CIDR 10.96.0.0/12 and node ports 30000-32767. Where the real allocators pick at random
above their static band (``calculateRangeOffset``), the fake picks the lowest free value. On update,
what the client left out of what was allocated is kept (:func:`keep_allocated_values`).
"""

from __future__ import annotations

import copy
import ipaddress
import itertools
from typing import Any

from fakeapi._state.defaults.fields import Obj, items

__all__ = ["NODE_PORT_RANGE", "SERVICE_CIDR", "allocate_cluster_ip", "allocate_node_ports", "keep_allocated_values"]

SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")
NODE_PORT_RANGE = range(30000, 32768)


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
    ports = list(items(spec, "ports"))
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


def _needs_cluster_ip(spec: Obj) -> bool:
    return spec.get("type") != "ExternalName"


def _needs_node_port(spec: Obj) -> bool:
    return spec.get("type") in ("NodePort", "LoadBalancer")


def _needs_health_check(spec: Obj) -> bool:
    return spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def _node_ports(spec: Obj) -> list[Any]:
    return [port.get("nodePort") for port in items(spec, "ports")]


def keep_allocated_values(new: Obj, old: Obj) -> Obj:
    """An update as the Service registry's ``beginUpdate`` prepares it (``pkg/registry/core/service/storage``).

    ``patchAllocatedValues`` keeps what was allocated and the client left out (cluster IPs, node
    ports by port name, the health check port), so that re-sending the YAML it created with works;
    ``normalizeClusterIPs`` keeps ``clusterIP`` and ``clusterIPs`` in step; ``dropTypeDependentFields``
    clears what a new type no longer needs, when the client did not change it.
    """
    out = copy.deepcopy(new)
    spec, old_spec = out.get("spec"), old.get("spec")
    if not isinstance(spec, dict) or not isinstance(old_spec, dict):
        return out
    if _needs_cluster_ip(old_spec) and _needs_cluster_ip(spec):
        if not spec.get("clusterIP"):
            spec["clusterIP"] = old_spec.get("clusterIP")
        if not spec.get("clusterIPs") and old_spec.get("clusterIPs"):
            spec["clusterIPs"] = list(old_spec["clusterIPs"])
    if _needs_node_port(old_spec) and _needs_node_port(spec):
        used = {port for port in _node_ports(old_spec) if port} & {port for port in _node_ports(spec) if port}
        by_name = {port.get("name") or "": port.get("nodePort") for port in items(old_spec, "ports")}
        for port in items(spec, "ports"):
            previous = by_name.get(port.get("name") or "")
            if not port.get("nodePort") and previous and previous not in used:
                port["nodePort"] = previous
    if _needs_health_check(old_spec) and _needs_health_check(spec) and not spec.get("healthCheckNodePort"):
        spec["healthCheckNodePort"] = old_spec.get("healthCheckNodePort")
    _normalize_cluster_ips(spec, old_spec)
    _drop_type_dependent_fields(spec, old_spec)
    return out


def _normalize_cluster_ips(spec: Obj, old_spec: Obj) -> None:
    same_ips = (spec.get("clusterIPs") or []) == (old_spec.get("clusterIPs") or [])
    if spec.get("clusterIP") and not spec.get("clusterIPs"):
        spec["clusterIPs"] = [spec["clusterIP"]]
    elif spec.get("clusterIP") != old_spec.get("clusterIP") and same_ips:
        if old_spec.get("clusterIP") and not spec.get("clusterIP"):
            spec.pop("clusterIPs", None)
        else:
            spec["clusterIPs"] = [spec.get("clusterIP")]


def _drop_type_dependent_fields(spec: Obj, old_spec: Obj) -> None:
    if _needs_cluster_ip(old_spec) and not _needs_cluster_ip(spec):
        if (spec.get("clusterIPs") or []) == (old_spec.get("clusterIPs") or []):
            spec.pop("clusterIP", None)
            spec.pop("clusterIPs", None)
        if (spec.get("ipFamilies") or []) == (old_spec.get("ipFamilies") or []):
            spec.pop("ipFamilies", None)
        if spec.get("ipFamilyPolicy") == old_spec.get("ipFamilyPolicy"):
            spec.pop("ipFamilyPolicy", None)
    if _needs_node_port(old_spec) and not _needs_node_port(spec) and _node_ports(spec) == _node_ports(old_spec):
        for port in items(spec, "ports"):
            port.pop("nodePort", None)
    same_health_port = spec.get("healthCheckNodePort") == old_spec.get("healthCheckNodePort")
    if _needs_health_check(old_spec) and not _needs_health_check(spec) and same_health_port:
        spec.pop("healthCheckNodePort", None)
    if old_spec.get("type") == "LoadBalancer" and spec.get("type") != "LoadBalancer":
        allocate = spec.get("allocateLoadBalancerNodePorts")
        if allocate is not None and allocate == old_spec.get("allocateLoadBalancerNodePorts"):
            spec.pop("allocateLoadBalancerNodePorts", None)
        if spec.get("loadBalancerClass") == old_spec.get("loadBalancerClass"):
            spec.pop("loadBalancerClass", None)
    accessible = _needs_node_port(spec) or (spec.get("type") == "ClusterIP" and spec.get("externalIPs"))
    was_accessible = _needs_node_port(old_spec) or (old_spec.get("type") == "ClusterIP" and old_spec.get("externalIPs"))
    if was_accessible and not accessible and spec.get("externalTrafficPolicy") == old_spec.get("externalTrafficPolicy"):
        spec.pop("externalTrafficPolicy", None)
