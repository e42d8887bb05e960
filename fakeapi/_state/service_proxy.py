"""Where ``services/<name>/proxy`` would send a request, and the error a server with no pods answers.

Reproduced from kubernetes ``pkg/registry/core/service/storage/storage.go`` (``ResourceLocation``
and ``isValidAddress``), docs/subresources.md:

* a port given as a number is looked up among the Service's ports and replaced by that port's
  name (the Service must exist: its 404; no such port: ``503 no service port <n> found for
  service "<name>"``); a port given as a name, or none (the empty name), is used as it is;
* the Service's Endpoints must exist (``404 endpoints "<name>" not found``), unless the endpoints
  controller would have written them: it does for every Service with a selector, with no subsets
  while no pod is ready, which is ``503 no endpoints available for service "<name>"``;
* an address is used only when it names a pod (``targetRef``) in the Service's namespace whose
  ``status.podIPs`` hold that address, on an Endpoints port of exactly the requested name;
  none is ``503 no endpoints available for service "<name as given>"``. The ``kubernetes``
  Service's addresses name no pod, so its proxy is that 503 too, as on a real cluster;
* with one, the proxy dials the pod, where nothing listens here: ``503 error trying to reach
  service`` (:func:`~fakeapi._state.pod_subresources.refused`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from fakeapi._state.kinds import builtin_type
from fakeapi._state.pod_subresources import refused
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._state.store import Store

__all__ = ["service_location"]

# ``strconv.ParseInt(s, 10, 64)``: an optional sign and decimal digits, within 64 bits.
_INTEGER = re.compile(r"[+-]?[0-9]+")


def _unavailable(message: str) -> APIError:
    return APIError(message, reason="ServiceUnavailable", code=503)


def _as_port_number(text: str) -> int | None:
    if not _INTEGER.fullmatch(text) or len(text.lstrip("+-").lstrip("0")) > 19:
        return None
    number = int(text)
    return number if -(2**63) <= number < 2**63 else None


def service_location(store: Store, namespace: str, given: str, name: str, port: str) -> APIError:
    """The error ``services/<given>/proxy`` answers; ``name`` and ``port`` are parsed from ``given``."""
    services = builtin_type("", "v1", "Service")
    number = _as_port_number(port)
    if number is not None:
        service = store.get(services, namespace, name)
        ports = [p for p in (service.get("spec") or {}).get("ports") or [] if isinstance(p, dict)]
        match = next((p for p in ports if p.get("port") == number), None)
        if match is None:
            return _unavailable(f'no service port {number} found for service "{name}"')
        port = str(match.get("name") or "")
    endpoints = store.find(builtin_type("", "v1", "Endpoints"), namespace, name)
    if endpoints is None:
        selected = store.find(services, namespace, name)
        if selected is None or not (selected.get("spec") or {}).get("selector"):
            return APIError.not_found(builtin_type("", "v1", "Endpoints").group_resource, name)
    subsets = [s for s in (endpoints or {}).get("subsets") or [] if isinstance(s, dict)]
    if not subsets:
        return _unavailable(f'no endpoints available for service "{name}"')
    for subset in subsets:
        addresses = [a for a in subset.get("addresses") or [] if isinstance(a, dict)]
        if not addresses:
            continue
        for endpoint_port in subset.get("ports") or []:
            if not isinstance(endpoint_port, dict) or str(endpoint_port.get("name") or "") != port:
                continue
            for address in addresses:
                if _names_a_pod(store, namespace, address):
                    return refused(str(address.get("ip", "")), endpoint_port.get("port", 0))
    return _unavailable(f'no endpoints available for service "{given}"')


def _names_a_pod(store: Store, namespace: str, address: dict[str, Any]) -> bool:
    """``isValidAddress``: the address's pod exists in this namespace and has that IP."""
    target = address.get("targetRef")
    if not isinstance(target, dict) or target.get("namespace", "") != namespace:
        return False
    pod = store.find(builtin_type("", "v1", "Pod"), namespace, str(target.get("name", "")))
    pod_ips = ((pod or {}).get("status") or {}).get("podIPs") or []
    return any(isinstance(entry, dict) and entry.get("ip") == address.get("ip") for entry in pod_ips)
