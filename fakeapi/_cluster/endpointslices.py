"""kube-controller-manager's EndpointSlice controller (``pkg/controller/endpointslice/endpointslice_controller.go``
``syncService``, ``staging/src/k8s.io/endpointslice/reconciler.go`` and ``utils.go``).

For each Service with a selector (:mod:`.service_pods`), the slices labelled with its name and
``endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`` (not being deleted) are
reconciled against its pods, per address type of ``spec.ipFamilies`` (``getAddressTypesForService``):

* each pod that ``ShouldPodBeInEndpoints`` (terminating ones included) on a known node, or any node
  under ``publishNotReadyAddresses``, is an endpoint (``podToEndpoint``): its IPs of that family,
  ``ready`` (serving and not terminating, or always under ``publishNotReadyAddresses``), ``serving``
  (the Ready condition), ``terminating`` (being deleted), ``hostname`` when the pod names the Service
  as its subdomain, ``targetRef``, ``nodeName``, and ``zone`` only when the node has a
  ``topology.kubernetes.io/zone`` label;
* endpoints are grouped by their ports (``getEndpointPorts``: each Service port resolved against
  the pod with ``FindPort``, ``name`` always present, ports the pod lacks left out), at most 100 per
  slice (``reconcileByPortMapping``: existing slices keep the endpoints still desired and are updated
  when one changed, emptied slices are deleted, new endpoints fill updated slices, then an unchanged
  one with room, then new slices);
* a Service with no endpoints keeps one placeholder slice with no endpoints and no ports;
* ``finalize`` turns a create plus a delete into an update of the slice that would go, then creates
  (unless the Service is being deleted), updates and deletes, each slice with the trigger-time
  annotation.

A new slice is named ``<service>-`` plus five characters, carries the Service's labels (less the
reserved ones), ``kubernetes.io/service-name``, the managed-by label,
``service.kubernetes.io/headless: ""`` for a headless Service, and a controller ownerReference to the
Service. Writes are by ``kube-controller-manager``. Upstream orders endpoints as a Go map yields them
and sorts ports with ``portsInOrder``; here endpoints follow the pods' names and ports the Service's
order. Topology hints, ``trafficDistribution`` and the Events of failed syncs are not simulated.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.controller_refs import controller_reference
from fakeapi._cluster.service_pods import (
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

__all__ = ["CONTROLLER_NAME", "sync_endpoint_slices"]

SLICES = builtin_type("discovery.k8s.io", "v1", "EndpointSlice")
NODES = builtin_type("", "v1", "Node")
CONTROLLER_NAME = "endpointslice-controller.k8s.io"
SERVICE_NAME_LABEL = "kubernetes.io/service-name"
MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
HEADLESS_LABEL = "service.kubernetes.io/headless"
ZONE_LABEL = "topology.kubernetes.io/zone"
RESERVED_LABELS = frozenset((SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_LABEL))
MAX_ENDPOINTS_PER_SLICE = 100
Slice = dict[str, Any]


def sync_endpoint_slices(simulation: ControllerContext) -> None:
    for service in handled_services(simulation):
        _sync(simulation, service)


def _sync(simulation: ControllerContext, service: dict[str, Any]) -> None:
    meta = metadata_of(service)
    namespace = meta.get("namespace", "")
    slices = [
        {**s, "endpoints": s.get("endpoints") or [], "ports": s.get("ports") or []}
        for s in simulation.store.items(SLICES, namespace)
        if (metadata_of(s).get("labels") or {}).get(SERVICE_NAME_LABEL) == meta.get("name")
        and (metadata_of(s).get("labels") or {}).get(MANAGED_BY_LABEL) == CONTROLLER_NAME
        and metadata_of(s).get("deletionTimestamp") is None
    ]
    pods = selected_pods(simulation, service)
    nodes = {str(metadata_of(n).get("name")): n for n in simulation.store.items(NODES, None)}
    supported = _address_types(service)
    plan = _Plan()
    for address_type in sorted(supported):
        _reconcile_address_type(
            plan, service, pods, nodes, [s for s in slices if s.get("addressType") == address_type], address_type
        )
    stale_types = [s for s in slices if s.get("addressType") not in supported]
    stamp = trigger_time(service, pods, last_written(slices), plan.changed)
    _finalize(simulation, service, plan, stamp)
    for stale in stale_types:
        simulation.store.delete(SLICES, namespace, metadata_of(stale)["name"])


class _Plan:
    def __init__(self) -> None:
        self.creates: list[Slice] = []
        self.updates: list[Slice] = []
        self.deletes: list[Slice] = []
        # The pods whose endpoint is added, changed or removed.
        self.changed: set[str] = set()


def _address_types(service: dict[str, Any]) -> set[str]:
    """``getAddressTypesForService``."""
    spec = service.get("spec") or {}
    families = {str(family) for family in spec.get("ipFamilies") or [] if family in ("IPv4", "IPv6")}
    if families:
        return families
    cluster_ip = spec.get("clusterIP") or ""
    if cluster_ip and cluster_ip != "None":
        return {"IPv6" if is_ipv6(cluster_ip) else "IPv4"}
    return {"IPv4", "IPv6"}


def _owned_by(slice_: Slice, service: dict[str, Any]) -> bool:
    uid = metadata_of(service).get("uid")
    return any(
        ref.get("uid") == uid and ref.get("kind") == "Service" and ref.get("apiVersion") == "v1"
        for ref in metadata_of(slice_).get("ownerReferences") or []
    )


def _slice_labels(slice_: Slice, service: dict[str, Any]) -> tuple[dict[str, str], bool]:
    """``setEndpointSliceLabels``: the labels the slice should have, and whether the Service's differ."""
    current = {k: v for k, v in (metadata_of(slice_).get("labels") or {}).items() if k not in RESERVED_LABELS}
    labels = {k: v for k, v in (metadata_of(service).get("labels") or {}).items() if k not in RESERVED_LABELS}
    changed = current != labels
    cluster_ip = (service.get("spec") or {}).get("clusterIP") or ""
    if cluster_ip in ("", "None"):
        labels[HEADLESS_LABEL] = ""
    labels[SERVICE_NAME_LABEL] = str(metadata_of(service).get("name"))
    labels[MANAGED_BY_LABEL] = CONTROLLER_NAME
    return labels, changed


def _new_slice(service: dict[str, Any], ports: list[dict[str, Any]], address_type: str) -> Slice:
    """``newEndpointSlice``."""
    meta = metadata_of(service)
    slice_: Slice = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "generateName": f"{meta.get('name')}-",
            "namespace": meta.get("namespace"),
            "ownerReferences": [controller_reference(service, "v1", "Service")],
        },
        "addressType": address_type,
        "endpoints": [],
        "ports": ports,
    }
    labels, _ = _slice_labels(slice_, service)
    slice_["metadata"]["labels"] = labels
    return slice_


def _endpoint_ports(service: dict[str, Any], pod: dict[str, Any]) -> list[dict[str, Any]]:
    """``getEndpointPorts``."""
    spec = service.get("spec") or {}
    ports = []
    for service_port in spec.get("ports") or []:
        number = find_port(pod, service_port)
        if number is None:
            continue
        port = {"name": service_port.get("name", ""), "protocol": service_port.get("protocol", "TCP"), "port": number}
        if service_port.get("appProtocol") is not None:
            port["appProtocol"] = service_port["appProtocol"]
        ports.append(port)
    return ports


def _endpoint(
    pod: dict[str, Any], node: dict[str, Any] | None, service: dict[str, Any], address_type: str
) -> dict[str, Any]:
    """``podToEndpoint``."""
    meta, spec, status = metadata_of(pod), pod.get("spec") or {}, pod.get("status") or {}
    service_spec = service.get("spec") or {}
    serving = pod_ready(pod)
    terminating = meta.get("deletionTimestamp") is not None
    ready = bool(service_spec.get("publishNotReadyAddresses")) or (serving and not terminating)
    ips = [entry.get("ip", "") for entry in status.get("podIPs") or []]
    endpoint: dict[str, Any] = {
        "addresses": [ip for ip in ips if is_ipv6(ip) == (address_type == "IPv6")],
        "conditions": {"ready": ready, "serving": serving, "terminating": terminating},
    }
    if spec.get("hostname") and spec.get("subdomain") == metadata_of(service).get("name"):
        endpoint["hostname"] = spec["hostname"]
    endpoint["targetRef"] = {
        "kind": "Pod",
        "namespace": meta.get("namespace"),
        "name": meta.get("name"),
        "uid": meta.get("uid"),
    }
    if spec.get("nodeName"):
        endpoint["nodeName"] = spec["nodeName"]
    zone = (metadata_of(node).get("labels") or {}).get(ZONE_LABEL) if node is not None else None
    if zone:
        endpoint["zone"] = zone
    return endpoint


def _identity(endpoint: dict[str, Any]) -> tuple[Any, ...]:
    """The EndpointSet key (``hashEndpoint``): sorted addresses, hostname and the pod's name."""
    target = endpoint.get("targetRef") or {}
    return (
        tuple(sorted(endpoint.get("addresses") or [])),
        endpoint.get("hostname", ""),
        target.get("namespace"),
        target.get("name"),
    )


def _same_beyond_identity(desired: dict[str, Any], existing: dict[str, Any]) -> bool:
    """``EndpointsEqualBeyondHash`` (the pod's resourceVersion is never compared)."""
    keys = ("conditions", "zone", "nodeName", "hints", "hostname")
    target = {k: v for k, v in (existing.get("targetRef") or {}).items() if k != "resourceVersion"}
    return all(desired.get(k) == existing.get(k) for k in keys) and desired.get("targetRef") == target


def _reconcile_address_type(
    plan: _Plan,
    service: dict[str, Any],
    pods: list[dict[str, Any]],
    nodes: dict[str, dict[str, Any]],
    existing: list[Slice],
    address_type: str,
) -> None:
    """``reconcileByAddressType``."""
    deletes = [s for s in existing if not _owned_by(s, service)]
    by_ports: dict[str, list[Slice]] = {}
    for slice_ in existing:
        if _owned_by(slice_, service):
            by_ports.setdefault(_port_key(slice_.get("ports") or []), []).append(slice_)
    desired: dict[str, tuple[list[dict[str, Any]], dict[tuple[Any, ...], dict[str, Any]]]] = {}
    publish = bool((service.get("spec") or {}).get("publishNotReadyAddresses"))
    for pod in pods:
        if not should_be_in_endpoints(pod, include_terminating=True):
            continue
        ports = _endpoint_ports(service, pod)
        entry = desired.setdefault(_port_key(ports), (ports, {}))
        node = nodes.get(str((pod.get("spec") or {}).get("nodeName")))
        if node is None and not publish:
            continue
        endpoint = _endpoint(pod, node, service, address_type)
        if endpoint["addresses"]:
            entry[1][_identity(endpoint)] = endpoint
    creates: list[Slice] = []
    updates: list[Slice] = []
    for key, (ports, endpoints) in desired.items():
        created, updated, deleted = _reconcile_ports(
            plan, service, by_ports.get(key, []), endpoints, ports, address_type
        )
        creates += created
        updates += updated
        deletes += deleted
    for key, slices in by_ports.items():
        if key not in desired:
            deletes += slices
            plan.changed |= {name for s in slices for name in _pod_names(s)}
    if len(existing) == len(deletes) and not creates:
        placeholder = _new_slice(service, [], address_type)
        if len(deletes) == 1 and _is_placeholder(deletes[0], placeholder):
            deletes = []
        else:
            creates.append(placeholder)
    plan.creates += creates
    plan.updates += updates
    plan.deletes += deletes


def _port_key(ports: list[dict[str, Any]]) -> str:
    return repr(sorted(sorted(port.items()) for port in ports))


def _pod_name(endpoint: dict[str, Any]) -> str:
    return str((endpoint.get("targetRef") or {}).get("name"))


def _pod_names(slice_: Slice) -> set[str]:
    return {_pod_name(e) for e in slice_.get("endpoints") or []}


def _is_placeholder(slice_: Slice, placeholder: Slice) -> bool:
    """``placeholderSliceCompare``: namespace, labels and ownerReferences, no endpoints, no ports."""
    meta, other = metadata_of(slice_), metadata_of(placeholder)
    return (
        meta.get("namespace") == other.get("namespace")
        and (meta.get("labels") or {}) == other.get("labels")
        and meta.get("ownerReferences") == other.get("ownerReferences")
        and slice_.get("addressType") == placeholder.get("addressType")
        and not slice_.get("endpoints")
        and not slice_.get("ports")
    )


def _reconcile_ports(
    plan: _Plan,
    service: dict[str, Any],
    existing: list[Slice],
    desired: dict[tuple[Any, ...], dict[str, Any]],
    ports: list[dict[str, Any]],
    address_type: str,
) -> tuple[list[Slice], list[Slice], list[Slice]]:
    """``reconcileByPortMapping``: (creates, updates, deletes) for one set of ports."""
    by_name: dict[str, Slice] = {}
    unchanged: list[str] = []
    to_update: list[str] = []
    to_delete: list[str] = []
    for slice_ in existing:
        name = metadata_of(slice_)["name"]
        by_name[name] = slice_
        kept, changed = [], False
        for endpoint in slice_.get("endpoints") or []:
            want = desired.pop(_identity(endpoint), None)
            if want is None:
                plan.changed.add(_pod_name(endpoint))
                continue
            kept.append(want)
            if not _same_beyond_identity(want, endpoint):
                plan.changed.add(_pod_name(endpoint))
                changed = True
        labels, labels_changed = _slice_labels(slice_, service)
        if changed or len(kept) != len(slice_.get("endpoints") or []):
            if not kept:
                to_delete.append(name)
            else:
                by_name[name] = _with(slice_, endpoints=kept, labels=labels)
                to_update.append(name)
        elif labels_changed:
            by_name[name] = _with(slice_, labels=labels)
            to_update.append(name)
        else:
            unchanged.append(name)
    pending = list(desired.values())
    plan.changed |= {_pod_name(endpoint) for endpoint in pending}
    if pending and to_update:
        for name in sorted(to_update, key=lambda n: -len(by_name[n]["endpoints"])):
            room = MAX_ENDPOINTS_PER_SLICE - len(by_name[name]["endpoints"])
            by_name[name]["endpoints"] += pending[: max(room, 0)]
            pending = pending[max(room, 0) :]
    creates: list[Slice] = []
    while pending:
        fill: Slice | None = None
        if len(pending) < MAX_ENDPOINTS_PER_SLICE and unchanged:
            fill = _slice_to_fill([by_name[n] for n in unchanged], len(pending))
        if fill is None:
            fill = _new_slice(service, ports, address_type)
        else:
            fill = copy.deepcopy(fill)
            by_name[metadata_of(fill)["name"]] = fill
        room = MAX_ENDPOINTS_PER_SLICE - len(fill["endpoints"])
        fill["endpoints"] = [*fill["endpoints"], *pending[:room]]
        pending = pending[room:]
        name = metadata_of(fill).get("name")
        if name:
            to_update.append(name)
            unchanged.remove(name)
        else:
            creates.append(fill)
    return creates, [by_name[n] for n in to_update], [by_name[n] for n in to_delete]


def _slice_to_fill(slices: list[Slice], count: int) -> Slice | None:
    """``getSliceToFill``: the slice that ends closest to full."""
    closest, best = MAX_ENDPOINTS_PER_SLICE, None
    for slice_ in slices:
        diff = MAX_ENDPOINTS_PER_SLICE - (count + len(slice_.get("endpoints") or []))
        if 0 <= diff < closest:
            closest, best = diff, slice_
            if diff == 0:
                break
    return best


def _with(slice_: Slice, **fields: Any) -> Slice:
    copied = copy.deepcopy(slice_)
    if "labels" in fields:
        copied["metadata"]["labels"] = fields.pop("labels")
    copied.update(fields)
    return copied


def _finalize(simulation: ControllerContext, service: dict[str, Any], plan: _Plan, stamp: str | None) -> None:
    """``finalize``: creates that can reuse a slice to delete become updates of it."""
    creates, updates, deletes = list(plan.creates), list(plan.updates), list(plan.deletes)
    index = 0
    while index < len(deletes) and creates:
        doomed, replacement = deletes[index], creates[-1]
        if doomed.get("addressType") == replacement.get("addressType") and _owned_by(doomed, service):
            replacement = _with(replacement)
            replacement["metadata"]["name"] = metadata_of(doomed)["name"]
            creates.pop()
            updates.append(replacement)
            deletes.pop(index)
        else:
            index += 1
    store = simulation.store
    namespace = metadata_of(service).get("namespace", "")
    if metadata_of(service).get("deletionTimestamp") is None:
        for slice_ in creates:
            store.create(SLICES, namespace, _annotated(slice_, stamp), manager=CONTROLLER_MANAGER)
    for slice_ in updates:
        wanted = _annotated(slice_, stamp)

        def replaced(current: dict[str, Any], wanted: Slice = wanted) -> dict[str, Any]:
            meta = {**wanted["metadata"], "resourceVersion": None}
            if "managedFields" not in meta:
                meta["managedFields"] = metadata_of(current).get("managedFields")
            return {**wanted, "metadata": meta}

        store.update(
            SLICES, namespace, metadata_of(slice_)["name"], replaced, manager=CONTROLLER_MANAGER, unconditional=True
        )
    for slice_ in deletes:
        if store.find(SLICES, namespace, metadata_of(slice_)["name"]) is not None:
            store.delete(SLICES, namespace, metadata_of(slice_)["name"])


def _annotated(slice_: Slice, stamp: str | None) -> Slice:
    """``addTriggerTimeAnnotation``."""
    copied = _with(slice_)
    annotations = dict(copied["metadata"].get("annotations") or {})
    if stamp is not None:
        annotations[TRIGGER_TIME_ANNOTATION] = stamp
    else:
        annotations.pop(TRIGGER_TIME_ANNOTATION, None)
    copied["metadata"].pop("annotations", None)
    if annotations:
        copied["metadata"]["annotations"] = annotations
    # Sent as protobuf, an empty list arrives as none: the stored slice shows null.
    copied["endpoints"] = copied.get("endpoints") or None
    copied["ports"] = copied.get("ports") or None
    return copied
