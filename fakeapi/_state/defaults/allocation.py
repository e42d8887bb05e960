"""The cluster IP and node ports a Service gets on create, picked so that runs replay.

Reproduced from kube-apiserver 1.32 ``pkg/registry/core/service/storage/alloc.go`` (``allocIPs``,
``initNodePorts``, ``allocateHealthCheckNodePort``) over the bitmap allocators of
``pkg/registry/core/service/ipallocator`` and ``portallocator``, with a kind-like cluster:
service CIDR 10.96.0.0/12 and node ports 30000-32767. Where the real allocators pick at random
above their static band (``calculateRangeOffset``), the fake picks the lowest free value.
"""

from __future__ import annotations

import copy
import ipaddress
import itertools
from typing import Any

from fakeapi._state.defaults.fields import Obj, items

__all__ = ["NODE_PORT_RANGE", "SERVICE_CIDR", "allocate_cluster_ip", "allocate_node_ports"]

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
