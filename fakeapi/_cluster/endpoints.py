"""kube-controller-manager's Endpoints controller (``pkg/controller/endpoint/endpoints_controller.go`` ``syncService``).

For each Service with a selector (:mod:`.service_pods`), an Endpoints object of the same name:

* each pod that ``ShouldPodBeInEndpoints`` (terminating ones only under
  ``publishNotReadyAddresses``) gives an address (``podToEndpointAddressForService``): its first IP
  of the Service's first IP family, ``nodeName``, ``targetRef``, and ``hostname`` when the pod names
  the Service as its subdomain; it goes to ``addresses`` when the pod is ready (or under
  ``publishNotReadyAddresses``), else to ``notReadyAddresses``, once for every Service port the pod
  has (``FindPort``; a headless Service without ports takes the addresses with no ports);
* ``RepackSubsets`` (``pkg/api/v1/endpoints/util.go``) folds them into subsets: the addresses that
  serve the same set of ports share a subset, an address not ready for a port is not ready in it,
  and addresses are sorted by IP then pod uid;
* the object is written only when its subsets or labels differ: labels are the Service's, plus
  ``service.kubernetes.io/headless: ""`` for a headless Service, and the
  ``endpoints.kubernetes.io/last-change-trigger-time`` annotation is set or removed.

When a Service goes, the Endpoints this controller wrote for it are deleted. Writes are by
``kube-controller-manager``. Upstream orders a subset's ports, and the subsets, by a hash of their Go
dump; here ports follow their number and subsets their first address. The cap of 1000 addresses
(``endpoints.kubernetes.io/over-capacity``) is not simulated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.service_pods import (
    SERVICES,
    TRIGGER_TIME_ANNOTATION,
    find_port,
    handled_services,
    is_ipv6,
    last_written,
    pod_ready,
    selected_pods,
    should_be_in_endpoints,
    trigger_time,
)
from fakeapi._cluster.status_writes import CONTROLLER_MANAGER
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["sync_endpoints"]

ENDPOINTS = builtin_type("", "v1", "Endpoints")
HEADLESS_LABEL = "service.kubernetes.io/headless"
Address = dict[str, Any]
Subset = dict[str, Any]


def sync_endpoints(simulation: ControllerContext) -> None:
    for service in handled_services(simulation):
        _sync(simulation, service)
    _delete_orphans(simulation)


def _delete_orphans(simulation: ControllerContext) -> None:
    """The Endpoints of a deleted Service (upstream deletes them on the Service's delete event)."""
    store = simulation.store
    for endpoints in store.items(ENDPOINTS, None):
        meta = metadata_of(endpoints)
        namespace, name = meta.get("namespace", ""), meta.get("name", "")
        if last_written([endpoints]) is not None and store.find(SERVICES, namespace, name) is None:
            store.delete(ENDPOINTS, namespace, name)


def _address(service: dict[str, Any], pod: dict[str, Any]) -> Address | None:
    """``podToEndpointAddressForService``."""
    spec, status = service.get("spec") or {}, pod.get("status") or {}
    families = spec.get("ipFamilies") or []
    if families:
        ipv6 = families[0] == "IPv6"
    elif spec.get("clusterIP") not in (None, "", "None"):
        ipv6 = is_ipv6(spec["clusterIP"])
    else:
        ipv6 = is_ipv6(status.get("podIP") or "")
    ip = next((e.get("ip") for e in status.get("podIPs") or [] if is_ipv6(e.get("ip") or "") == ipv6), None)
    if not ip:
        return None
    meta, pod_spec = metadata_of(pod), pod.get("spec") or {}
    address: Address = {"ip": ip}
    if pod_spec.get("hostname") and pod_spec.get("subdomain") == metadata_of(service).get("name"):
        address["hostname"] = pod_spec["hostname"]
    address["nodeName"] = pod_spec.get("nodeName", "")
    address["targetRef"] = {
        "kind": "Pod",
        "namespace": meta.get("namespace"),
        "name": meta.get("name"),
        "uid": meta.get("uid"),
    }
    return address


def _raw_subsets(
    service: dict[str, Any], pods: list[dict[str, Any]]
) -> list[tuple[Address, dict[str, Any] | None, bool]]:
    """(address, port or None, ready) for each pod and port, as ``addEndpointSubset`` adds them."""
    spec = service.get("spec") or {}
    publish = bool(spec.get("publishNotReadyAddresses"))
    entries: list[tuple[Address, dict[str, Any] | None, bool]] = []
    for pod in pods:
        if not should_be_in_endpoints(pod, include_terminating=publish):
            continue
        address = _address(service, pod)
        if address is None:
            continue
        ready = publish or pod_ready(pod)
        if not spec.get("ports"):
            if spec.get("clusterIP") == "None":
                entries.append((address, None, ready))
            continue
        for service_port in spec["ports"]:
            number = find_port(pod, service_port)
            if number is None:
                continue
            port: dict[str, Any] = {"port": number, "protocol": service_port.get("protocol", "TCP")}
            if service_port.get("name"):
                port = {"name": service_port["name"], **port}
            if service_port.get("appProtocol") is not None:
                port["appProtocol"] = service_port["appProtocol"]
            entries.append((address, port, ready))
    return entries


def _address_order(address: Address) -> tuple[bytes, str]:
    """``LessEndpointAddress``: the IP's bytes, then the pod's uid."""
    return (str(address.get("ip", "")).encode(), str((address.get("targetRef") or {}).get("uid", "")))


def _repack(entries: list[tuple[Address, dict[str, Any] | None, bool]]) -> list[Subset]:
    """``RepackSubsets``: one subset per set of addresses (and readiness) serving the same ports."""
    by_port: dict[str, tuple[dict[str, Any] | None, dict[tuple[bytes, str], tuple[Address, bool]]]] = {}
    for address, port, ready in entries:
        key = repr(sorted(port.items())) if port is not None else ""
        addresses = by_port.setdefault(key, (port, {}))[1]
        address_key = _address_order(address)
        previous = addresses.get(address_key)
        if previous is None or previous[1]:
            addresses[address_key] = (previous[0] if previous else address, ready)
    groups: dict[tuple[Any, ...], tuple[dict[tuple[bytes, str], tuple[Address, bool]], list[dict[str, Any]]]] = {}
    for port, addresses in by_port.values():
        group_key = tuple(sorted((key, ready) for key, (_, ready) in addresses.items()))
        group = groups.setdefault(group_key, (addresses, []))
        if port is not None:
            group[1].append(port)
    subsets = []
    for addresses, ports in groups.values():
        ordered = [addresses[key] for key in sorted(addresses)]
        subset: Subset = {}
        serving = [address for address, is_ready in ordered if is_ready]
        not_ready = [address for address, is_ready in ordered if not is_ready]
        if serving:
            subset["addresses"] = serving
        if not_ready:
            subset["notReadyAddresses"] = not_ready
        if ports:
            subset["ports"] = sorted(ports, key=lambda p: (p["port"], p.get("name", ""), p["protocol"]))
        subsets.append(subset)
    return sorted(
        subsets, key=lambda s: _address_order(((s.get("addresses") or s.get("notReadyAddresses")) or [{}])[0])
    )


def _without_versions(subsets: list[Subset]) -> list[Subset]:
    """The subsets with the pods' resourceVersions dropped, as ``endpointSubsetsEqualIgnoreResourceVersion`` compares."""

    def strip(address: Address) -> Address:
        target = {k: v for k, v in (address.get("targetRef") or {}).items() if k != "resourceVersion"}
        return {**address, "targetRef": target} if "targetRef" in address else address

    return [
        {
            key: [strip(a) for a in value] if key in ("addresses", "notReadyAddresses") else value
            for key, value in subset.items()
        }
        for subset in subsets
    ]


def _changed_pods(old: list[Subset], new: list[Subset]) -> set[str]:
    def placed(subsets: list[Subset]) -> set[tuple[str, str, bool]]:
        return {
            (str((a.get("targetRef") or {}).get("name")), str(a.get("ip")), key == "addresses")
            for subset in subsets
            for key in ("addresses", "notReadyAddresses")
            for a in subset.get(key) or []
        }

    return {name for name, _, _ in placed(old) ^ placed(new)}


def _sync(simulation: ControllerContext, service: dict[str, Any]) -> None:
    store = simulation.store
    meta = metadata_of(service)
    namespace, name = meta.get("namespace", ""), meta.get("name", "")
    pods = selected_pods(simulation, service)
    subsets = _repack(_raw_subsets(service, pods))
    current = store.find(ENDPOINTS, namespace, name)
    service_labels = dict(meta.get("labels") or {})
    if current is not None:
        labels = {k: v for k, v in (metadata_of(current).get("labels") or {}).items() if k != HEADLESS_LABEL}
        if _without_versions(current.get("subsets") or []) == subsets and labels == service_labels:
            return
    old_subsets = current.get("subsets") or [] if current is not None else []
    written = last_written([current]) if current is not None else None
    stamp = trigger_time(service, pods, written, _changed_pods(old_subsets, subsets))
    labels = dict(service_labels)
    if (service.get("spec") or {}).get("clusterIP") in (None, "", "None"):
        labels[HEADLESS_LABEL] = ""
    else:
        labels.pop(HEADLESS_LABEL, None)
    annotations = dict(metadata_of(current).get("annotations") or {}) if current is not None else {}
    if stamp is not None:
        annotations[TRIGGER_TIME_ANNOTATION] = stamp
    else:
        annotations.pop(TRIGGER_TIME_ANNOTATION, None)
    fields = {"labels": labels or None, "annotations": annotations or None}
    if current is None:
        metadata = {"name": name, **{k: v for k, v in fields.items() if v is not None}}
        body = {"apiVersion": "v1", "kind": "Endpoints", "metadata": metadata, "subsets": subsets or None}
        store.create(ENDPOINTS, namespace, body, manager=CONTROLLER_MANAGER)
        return

    def updated(existing: dict[str, Any]) -> dict[str, Any]:
        metadata = {**metadata_of(existing), **fields, "resourceVersion": None}
        return {
            **existing,
            "metadata": {k: v for k, v in metadata.items() if v is not None},
            "subsets": subsets or None,
        }

    store.update(ENDPOINTS, namespace, name, updated, manager=CONTROLLER_MANAGER, unconditional=True)
