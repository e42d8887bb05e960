"""``networking.k8s.io/v1``: Ingresses, IngressClasses and NetworkPolicies (spec changes bump the
generation), and from 1.33, when MultiCIDRServiceAllocator went GA, IPAddresses and ServiceCIDRs
(``pkg/registry/networking/ipaddress`` and ``servicecidr``: no short names, ServiceCIDR with a
status subresource)."""

from __future__ import annotations

from fakeapi._state.defaults.networking import ingress_class_defaults, network_policy_defaults
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.strategy import GenerationStrategy
from fakeapi._state.tables.networking import INGRESS_CLASS_PRINTER, INGRESS_PRINTER, NETWORK_POLICY_PRINTER

__all__ = ["TYPES"]

_GROUP = "networking.k8s.io"
_GENERATION = GenerationStrategy()

TYPES: tuple[ResourceType, ...] = (
    builtin(
        _GROUP,
        "v1",
        "ingressclasses",
        "IngressClass",
        False,
        strategy=_GENERATION,
        printer=INGRESS_CLASS_PRINTER,
        defaulter=ingress_class_defaults,
    ),
    builtin(
        _GROUP,
        "v1",
        "ingresses",
        "Ingress",
        short_names=("ing",),
        subresources=(Subresource("status"),),
        strategy=_GENERATION,
        printer=INGRESS_PRINTER,
    ),
    builtin(_GROUP, "v1", "ipaddresses", "IPAddress", False, since="1.33"),
    builtin(
        _GROUP,
        "v1",
        "networkpolicies",
        "NetworkPolicy",
        short_names=("netpol",),
        strategy=_GENERATION,
        printer=NETWORK_POLICY_PRINTER,
        defaulter=network_policy_defaults,
    ),
    builtin(_GROUP, "v1", "servicecidrs", "ServiceCIDR", False, subresources=(Subresource("status"),), since="1.33"),
)
