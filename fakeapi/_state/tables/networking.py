"""Rows of Ingresses, IngressClasses, NetworkPolicies, Endpoints and EndpointSlices.

Reproduced from kube-apiserver 1.32 ``pkg/printers/internalversion/printers.go`` (``printIngress``,
``printIngressClass``, ``printNetworkPolicy``, ``printEndpoints`` with ``formatEndpoints``,
``printEndpointSlice`` with ``formatDiscoveryPorts`` and ``formatDiscoveryEndpoints``), always wide:
at most three hosts, addresses or ports, then ``+ N more...``.
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.tables.columns import AGE_COLUMN, NAME_COLUMN, Printer, column
from fakeapi._state.tables.durations import age
from fakeapi._state.tables.fields import Obj, as_int, as_list, as_obj, as_str, dicts, metadata, nested
from fakeapi._state.tables.swagger_docs import SWAGGER_DOCS
from fakeapi._state.tables.workloads import format_label_selector

__all__ = [
    "ENDPOINTS_PRINTER",
    "ENDPOINT_SLICE_PRINTER",
    "INGRESS_CLASS_PRINTER",
    "INGRESS_PRINTER",
    "NETWORK_POLICY_PRINTER",
]

_MAXIMUM = 3


def _with_more(shown: list[str], count: int, *, unset: str) -> str:
    """``listWithMoreString``."""
    text = ",".join(shown)
    if count > len(shown):
        return f"{text} + {count - _MAXIMUM} more..."
    return text or unset


def _hosts(rules: list[Obj]) -> str:
    """``formatHosts``: the first three hosts; ``*`` when no rule names one."""
    shown: list[str] = []
    more = False
    for rule in rules:
        if len(shown) == _MAXIMUM:
            more = True
        if not more and as_str(rule.get("host")):
            shown.append(as_str(rule.get("host")))
    if not shown:
        return "*"
    return f"{','.join(shown)} + {len(rules) - _MAXIMUM} more..." if more else ",".join(shown)


def _ingress_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec = as_obj(obj.get("spec"))
    class_name = spec.get("ingressClassName")
    ingress = dicts(nested(obj, "status", "loadBalancer", "ingress"))
    addresses = sorted({as_str(i.get("ip")) or as_str(i.get("hostname")) for i in ingress} - {""})
    return [
        metadata(obj).get("name", ""),
        class_name if isinstance(class_name, str) else "<none>",
        _hosts(dicts(spec.get("rules"))),
        ",".join(addresses),
        "80, 443" if as_list(spec.get("tls")) else "80",
        age(obj, now_ns),
    ]


def _ingress_class_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec = as_obj(obj.get("spec"))
    parameters = "<none>"
    given = spec.get("parameters")
    if isinstance(given, dict):
        parameters = as_str(given.get("kind"))
        if isinstance(given.get("apiGroup"), str):
            parameters += "." + given["apiGroup"]
        parameters += "/" + as_str(given.get("name"))
    return [metadata(obj).get("name", ""), as_str(spec.get("controller")), parameters, age(obj, now_ns)]


def _network_policy_cells(obj: Obj, now_ns: int) -> list[Any]:
    selector = nested(obj, "spec", "podSelector")
    return [metadata(obj).get("name", ""), format_label_selector(selector or {}), age(obj, now_ns)]


def _join_host_port(host: str, port: int) -> str:
    """``net.JoinHostPort``: brackets around an address with a colon."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _endpoints(obj: Obj) -> str:
    """``formatEndpoints`` with every port."""
    subsets = dicts(obj.get("subsets"))
    if not subsets:
        return "<none>"
    shown: list[str] = []
    count = 0
    more = False
    for subset in subsets:
        addresses = dicts(subset.get("addresses"))
        ports: list[Obj | None] = [*dicts(subset.get("ports"))] or [None]
        for port in ports:
            count += len(addresses)
            for address in addresses:
                if len(shown) == _MAXIMUM:
                    more = True
                    break
                ip = as_str(address.get("ip"))
                shown.append(ip if port is None else _join_host_port(ip, as_int(port.get("port"))))
    text = ",".join(shown)
    return f"{text} + {count - _MAXIMUM} more..." if more else text


def _endpoints_cells(obj: Obj, now_ns: int) -> list[Any]:
    return [metadata(obj).get("name", ""), _endpoints(obj), age(obj, now_ns)]


def _slice_ports(ports: list[Obj]) -> str:
    shown = []
    for port in ports[:_MAXIMUM]:
        if isinstance(port.get("port"), int):
            shown.append(str(port["port"]))
        elif isinstance(port.get("name"), str):
            shown.append(port["name"])
        else:
            shown.append("*")
    return _with_more(shown, len(ports), unset="<unset>")


def _slice_endpoints(endpoints: list[Obj]) -> str:
    addresses = [as_str(address) for endpoint in endpoints for address in as_list(endpoint.get("addresses"))]
    return _with_more(addresses[:_MAXIMUM], len(addresses), unset="<unset>")


def _endpoint_slice_cells(obj: Obj, now_ns: int) -> list[Any]:
    return [
        metadata(obj).get("name", ""),
        as_str(obj.get("addressType")),
        _slice_ports(dicts(obj.get("ports"))),
        _slice_endpoints(dicts(obj.get("endpoints"))),
        age(obj, now_ns),
    ]


INGRESS_PRINTER = Printer(
    (
        NAME_COLUMN,
        column(
            "Class", "string", "The name of the IngressClass resource that should be used for additional configuration"
        ),
        column("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule"),
        column("Address", "string", "Address is a list containing ingress points for the load-balancer"),
        column("Ports", "string", "Ports of TLS configurations that open"),
        AGE_COLUMN,
    ),
    _ingress_cells,
)

INGRESS_CLASS_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Controller", "string", "Controller that is responsible for handling this class"),
        column("Parameters", "string", "A reference to a resource with additional parameters"),
        AGE_COLUMN,
    ),
    _ingress_class_cells,
)

NETWORK_POLICY_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Pod-Selector", "string", SWAGGER_DOCS["extensions.v1beta1.NetworkPolicySpec.podSelector"]),
        AGE_COLUMN,
    ),
    _network_policy_cells,
)

ENDPOINTS_PRINTER = Printer(
    (NAME_COLUMN, column("Endpoints", "string", SWAGGER_DOCS["core.v1.Endpoints.subsets"]), AGE_COLUMN),
    _endpoints_cells,
)

ENDPOINT_SLICE_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("AddressType", "string", SWAGGER_DOCS["discovery.v1beta1.EndpointSlice.addressType"]),
        column("Ports", "string", SWAGGER_DOCS["discovery.v1beta1.EndpointSlice.ports"]),
        column("Endpoints", "string", SWAGGER_DOCS["discovery.v1beta1.EndpointSlice.endpoints"]),
        AGE_COLUMN,
    ),
    _endpoint_slice_cells,
)
