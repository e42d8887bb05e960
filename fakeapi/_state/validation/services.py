"""A Service's cluster IPs, IP families and node ports, as validation and the Service registry's allocators check them.

* ``ValidateServiceClusterIPsRelatedFields`` (``pkg/apis/core/validation/validation.go``):
  ``clusterIP`` and ``clusterIPs[0]`` agree, each address is an IP (``must be a valid IP address,
  (e.g. 10.9.8.7 or 2001:db8::ffff)``, parsed as Go's sloppy ``ParseIP`` does), ``None`` only alone,
  at most two, one per family, families and policy among the supported values and matching the
  addresses;
* ``initIPFamilyFields`` (``pkg/registry/core/service/storage/alloc.go``) on this single-stack IPv4
  cluster: ``IPv6 is not configured on this cluster``, ``this cluster is not configured for
  dual-stack services``, a single-stack policy with two addresses or families;
* ``allocIPs`` and ``initNodePorts`` over the bitmap allocators: a requested address outside
  10.96.0.0/12 (or its network or broadcast address) is ``failed to allocate IP <ip>: provided IP is
  not in the valid range. The range of valid IPs is 10.96.0.0/12``, one another Service holds
  ``provided IP is already allocated``; a node port outside 30000-32767 or taken likewise;
* ``ValidateServiceUpdate``: a cluster IP or family ``may not change once set``, the
  loadBalancerClass of a LoadBalancer, the health check node port.

The allocator errors come before any other validation, as the registry allocates in
``BeginCreate``, before the strategy validates.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from fakeapi._state.defaults.allocation import NODE_PORT_RANGE, SERVICE_CIDR
from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError
from fakeapi._state.validation.names import is_qualified_name

__all__ = [
    "allocation_errors",
    "family_errors",
    "node_port_update_errors",
    "parse_ip",
    "validate_cluster_ip_fields",
    "validate_service_update_fields",
]

Obj = Mapping[str, Any]

_FAMILIES = ("IPv4", "IPv6")
_POLICIES = ("PreferDualStack", "RequireDualStack", "SingleStack")
_INVALID_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
_NOT_CHANGED = "may not change once set"
_IP_RANGE = f"provided IP is not in the valid range. The range of valid IPs is {SERVICE_CIDR}"
_PORT_RANGE = (
    f"provided port is not in the valid range. The range of valid ports is "
    f"{NODE_PORT_RANGE.start}-{NODE_PORT_RANGE.stop - 1}"
)


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []


def parse_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``netutils.ParseIPSloppy``: Go's old ``net.ParseIP``, which reads IPv4 parts with leading zeros as decimal."""
    parts = text.split(".")
    if len(parts) == 4 and all(part.isascii() and part.isdigit() for part in parts):
        if all(int(part) <= 255 for part in parts):
            return ipaddress.IPv4Address(".".join(str(int(part)) for part in parts))
        return None
    if ":" not in text or "%" in text:
        return None
    try:
        address = ipaddress.IPv6Address(text)
    except ValueError:
        return None
    return address.ipv4_mapped or address


def _is_ipv6(text: str) -> bool:
    """``netutils.IsIPv6String``: an IPv4-mapped address counts as IPv4."""
    return isinstance(parse_ip(text), ipaddress.IPv6Address)


def _listed(values: list[str], go_type: str = "[]string") -> Any:
    """A list as a bad value: a nil one prints as ``[]string(nil)``, not ``null``."""
    return values if values else field.Printed(f"{go_type}(nil)", "null")


def _headless(spec: Obj) -> bool:
    ips = _strings(spec.get("clusterIPs"))
    return len(ips) == 1 and ips[0] == "None"


def validate_cluster_ip_fields(spec: Obj) -> list[FieldError]:
    """``ValidateServiceClusterIPsRelatedFields``."""
    if spec.get("type") == "ExternalName":
        return []
    errors: list[FieldError] = []
    cluster_ip = str(spec.get("clusterIP") or "")
    ips = _strings(spec.get("clusterIPs"))
    if cluster_ip:
        if not ips:
            errors.append(field.required("spec.clusterIPs"))
        elif ips[0] != cluster_ip:
            errors.append(field.invalid("spec.clusterIPs", ips, "first value must match `clusterIP`", "[]string"))
    elif ips:
        detail = "must be empty when `clusterIP` is not specified"
        errors.append(field.invalid("spec.clusterIPs", ips, detail, "[]string"))
    families = _strings(spec.get("ipFamilies"))
    seen: set[str] = set()
    for position, family in enumerate(families):
        where = field.index("spec.ipFamilies", position)
        if family not in _FAMILIES:
            errors.append(field.not_supported(where, family, _FAMILIES))
        if family in seen:
            errors.append(field.duplicate(where, family))
        seen.add(family)
    policy = spec.get("ipFamilyPolicy")
    if policy is not None and policy not in _POLICIES:
        errors.append(field.not_supported("spec.ipFamilyPolicy", policy, _POLICIES))
    invalid_ips = False
    for position, ip in enumerate(ips):
        if position == 0 and ip == "None":
            if len(ips) > 1:
                invalid_ips = True
                detail = "'None' must be the first and only value"
                errors.append(field.invalid("spec.clusterIPs", ips, detail, "[]string"))
            continue
        if parse_ip(ip) is None:
            invalid_ips = True
            errors.append(field.invalid(field.index("spec.clusterIPs", position), ip, _INVALID_IP))
    if len(ips) > 2:
        errors.append(field.invalid("spec.clusterIPs", ips, "may only hold up to 2 values", "[]string"))
    if invalid_ips:
        return errors
    if len(ips) > 1 and len({_is_ipv6(ip) for ip in ips}) < 2:
        detail = "may specify no more than one IP for each IP family"
        errors.append(field.invalid("spec.clusterIPs", ips, detail, "[]string"))
    if not _headless(spec) and ips and families:
        for position, ip in enumerate(ips[: len(families)]):
            where = field.index("spec.clusterIPs", position)
            if families[position] == "IPv4" and _is_ipv6(ip):
                detail = f"expected an IPv4 value as indicated by `ipFamilies[{position}]`"
                errors.append(field.invalid(where, ip, detail))
            if families[position] == "IPv6" and not _is_ipv6(ip):
                detail = f"expected an IPv6 value as indicated by `ipFamilies[{position}]`"
                errors.append(field.invalid(where, ip, detail))
    return errors


def family_errors(service: Obj) -> list[FieldError]:
    """What ``allocateCreate`` refuses before allocating, on the Service as the client sent it.

    ``normalizeClusterIPs`` copies ``clusterIP`` into ``clusterIPs``, ``initIPFamilyFields`` defaults
    the policy (RequireDualStack for a headless Service without selector, else SingleStack), runs
    ``ValidateServiceClusterIPsRelatedFields`` and checks the families against the cluster's one.
    """
    spec = dict(_dict(service.get("spec")))
    if spec.get("type") == "ExternalName":
        return []
    if spec.get("clusterIP") and not spec.get("clusterIPs"):
        spec["clusterIPs"] = [spec["clusterIP"]]
    headless_selectorless = spec.get("clusterIP") == "None" and not spec.get("selector")
    if spec.get("ipFamilyPolicy") is None:
        spec["ipFamilyPolicy"] = "RequireDualStack" if headless_selectorless else "SingleStack"
    errors = validate_cluster_ip_fields(spec)
    if errors:
        return errors
    policy, ips, families = spec["ipFamilyPolicy"], _strings(spec.get("clusterIPs")), _strings(spec.get("ipFamilies"))
    if policy == "SingleStack":
        if len(ips) == 2:
            detail = "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"
            errors.append(field.invalid("spec.ipFamilyPolicy", policy, detail))
        if len(families) == 2:
            detail = "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"
            errors.append(field.invalid("spec.ipFamilyPolicy", policy, detail))
    for position, ip in enumerate(ips):
        if ip == "None":
            break
        family = "IPv6" if _is_ipv6(ip) else "IPv4"
        if position >= len(families):
            if family != "IPv4":
                where = field.index("spec.clusterIPs", position)
                errors.append(field.invalid(where, ips, f"{family} is not configured on this cluster", "[]string"))
            else:
                families.append(family)
    if errors or headless_selectorless:
        return errors
    if policy == "RequireDualStack":
        detail = "this cluster is not configured for dual-stack services"
        errors.append(field.invalid("spec.ipFamilyPolicy", policy, detail))
    for position, family in enumerate(families):
        if family != "IPv4":
            errors.append(
                field.invalid(field.index("spec.ipFamilies", position), family, "not configured on this cluster")
            )
    return errors


def _ip_error(spec: Obj, used_ips: set[str]) -> list[FieldError]:
    """``allocIPs``: a requested address must be in the range and free."""
    ips = _strings(spec.get("clusterIPs"))
    if spec.get("type") == "ExternalName" or not ips or ips[0] in ("None", ""):
        return []
    address = parse_ip(ips[0])
    taken = {str(parse_ip(ip)) for ip in used_ips}
    usable = address is not None and address in SERVICE_CIDR
    if usable and address in (SERVICE_CIDR.network_address, SERVICE_CIDR.broadcast_address):
        usable = False
    if not usable:
        problem = _IP_RANGE
    elif str(address) in taken:
        problem = "provided IP is already allocated"
    else:
        return []
    return [field.invalid("spec.clusterIPs", ips, f"failed to allocate IP {ips[0]}: {problem}", "[]string")]


def _port_error(port: int, taken: set[int], path: str) -> list[FieldError]:
    """``PortAllocator.Allocate``'s two errors, as ``initNodePorts`` reports them."""
    if port not in NODE_PORT_RANGE:
        return [field.invalid(path, port, _PORT_RANGE)]
    if port in taken:
        return [field.invalid(path, port, "provided port is already allocated")]
    taken.add(port)
    return []


def _node_port_errors(spec: Obj, used_ports: set[int]) -> list[FieldError]:
    """``initNodePorts``: ports with the same number share one node port; the first refusal stops it."""
    if spec.get("type") not in ("NodePort", "LoadBalancer"):
        return []
    ports = [_dict(port) for port in spec.get("ports") or []]
    taken = set(used_ports)
    by_number: dict[Any, int] = {}
    for position, port in enumerate(ports):
        node_port = port.get("nodePort") or 0
        where = f"spec.ports[{position}].nodePort"
        shared = by_number.get(port.get("port"))
        if shared is None:
            requested = next(
                (p.get("nodePort") for p in ports if p.get("port") == port.get("port") and p.get("nodePort")), 0
            )
            if requested:
                errors = _port_error(requested, taken, where)
                if errors:
                    return errors
                by_number[port.get("port")] = requested
        elif node_port and node_port != shared:
            errors = _port_error(node_port, taken, where)
            if errors:
                return errors
    return []


def allocation_errors(service: Obj, used_ips: set[str], used_ports: set[int]) -> list[FieldError]:
    """What the allocators refuse on create: a taken or out-of-range cluster IP, then node port."""
    spec = _dict(service.get("spec"))
    return _ip_error(spec, used_ips) or _node_port_errors(spec, used_ports)


def node_port_update_errors(new: Obj, old: Obj, used_ports: set[int]) -> list[FieldError]:
    """``updateNodePorts``: a node port the old Service did not hold must be in range and free."""
    spec = _dict(new.get("spec"))
    if spec.get("type") not in ("NodePort", "LoadBalancer"):
        return []
    held = {_dict(port).get("nodePort") for port in _dict(old.get("spec")).get("ports") or []}
    taken = set(used_ports)
    claimed: set[int] = set()
    for position, item in enumerate(spec.get("ports") or []):
        node_port = _dict(item).get("nodePort") or 0
        if node_port and node_port not in held and node_port not in claimed:
            errors = _port_error(node_port, taken, f"spec.ports[{position}].nodePort")
            if errors:
                return errors
            claimed.add(node_port)
    return []


def _upgrade_downgrade_cluster_ips(new: Obj, old: Obj) -> list[FieldError]:
    """``validateUpgradeDowngradeClusterIPs``."""
    if "ExternalName" in (new.get("type"), old.get("type")) or (_headless(new) and _headless(old)):
        return []
    ips, old_ips = _strings(new.get("clusterIPs")), _strings(old.get("clusterIPs"))
    errors: list[FieldError] = []
    if len(old_ips) == len(ips):
        for position, ip in enumerate(old_ips):
            if ip != ips[position]:
                errors.append(
                    field.invalid(field.index("spec.clusterIPs", position), _listed(ips), _NOT_CHANGED, "[]string")
                )
    elif len(old_ips) > len(ips):
        if not ips:
            errors.append(field.invalid("spec.clusterIPs[0]", _listed(ips), "primary clusterIP can not be unset"))
        if old_ips and ips and ips[0] != old_ips[0]:
            errors.append(field.invalid("spec.clusterIPs[0]", ips, _NOT_CHANGED, "[]string"))
        if len(ips) == 1 and new.get("ipFamilyPolicy") != "SingleStack":
            detail = "must be set to 'SingleStack' when releasing the secondary clusterIP"
            errors.append(field.invalid("spec.ipFamilyPolicy", new.get("ipFamilyPolicy"), detail))
    elif old_ips and ips[0] != old_ips[0]:
        errors.append(field.invalid("spec.clusterIPs[0]", ips, _NOT_CHANGED, "[]string"))
    return errors


def _upgrade_downgrade_families(new: Obj, old: Obj) -> list[FieldError]:
    """``validateUpgradeDowngradeIPFamilies`` (its messages print the families, or the addresses, as upstream's do)."""
    if "ExternalName" in (new.get("type"), old.get("type")) or _headless(new) or _headless(old):
        return []
    families, old_families = _strings(new.get("ipFamilies")), _strings(old.get("ipFamilies"))
    ips = _strings(new.get("clusterIPs"))
    errors: list[FieldError] = []
    if len(old_families) == len(families):
        for position, family in enumerate(old_families):
            if family != families[position]:
                errors.append(
                    field.invalid(
                        "spec.ipFamilies[0]", _listed(families, "[]core.IPFamily"), _NOT_CHANGED, "[]core.IPFamily"
                    )
                )
    elif len(old_families) > len(families):
        if not ips:
            detail = "primary ipFamily can not be unset"
            errors.append(
                field.invalid("spec.ipFamilies[0]", _listed(families, "[]core.IPFamily"), detail, "[]core.IPFamily")
            )
        if families and families[0] != old_families[0]:
            errors.append(field.invalid("spec.ipFamilies[0]", _listed(ips), _NOT_CHANGED, "[]string"))
        if len(families) == 1 and new.get("ipFamilyPolicy") != "SingleStack":
            detail = "must be set to 'SingleStack' when releasing the secondary ipFamily"
            errors.append(field.invalid("spec.ipFamilyPolicy", new.get("ipFamilyPolicy"), detail))
    elif old_families and families and families[0] != old_families[0]:
        errors.append(field.invalid("spec.ipFamilies[0]", _listed(ips), _NOT_CHANGED, "[]string"))
    return errors


def _needs_health_check(spec: Obj) -> bool:
    return spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def validate_load_balancer_class(new: Obj, old: Obj | None) -> list[FieldError]:
    """``validateLoadBalancerClassField``."""
    errors: list[FieldError] = []
    balanced = new.get("type") == "LoadBalancer"
    value = new.get("loadBalancerClass")
    if old is not None and balanced and old.get("type") == "LoadBalancer" and old.get("loadBalancerClass") != value:
        errors.append(field.invalid("spec.loadBalancerClass", value, _NOT_CHANGED))
    if balanced and isinstance(value, str):
        errors += [field.invalid("spec.loadBalancerClass", value, problem) for problem in is_qualified_name(value)]
    elif not balanced and value is not None:
        errors.append(field.forbidden("spec.loadBalancerClass", "may only be used when `type` is 'LoadBalancer'"))
    return errors


def validate_service_update_fields(new: Obj, old: Obj) -> list[FieldError]:
    """What ``ValidateServiceUpdate`` checks before ``ValidateService``."""
    new_spec, old_spec = _dict(new.get("spec")), _dict(old.get("spec"))
    errors = _upgrade_downgrade_cluster_ips(new_spec, old_spec)
    errors += _upgrade_downgrade_families(new_spec, old_spec)
    errors += validate_load_balancer_class(new_spec, old_spec)
    moved = new_spec.get("healthCheckNodePort") != old_spec.get("healthCheckNodePort")
    if _needs_health_check(new_spec) and _needs_health_check(old_spec) and moved:
        errors.append(field.forbidden("spec.healthCheckNodePort", "field is immutable"))
    return errors
