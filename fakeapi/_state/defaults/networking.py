"""Defaults of networking objects: NetworkPolicies, IngressClasses, Endpoints and EndpointSlices.

Reproduced from kube-apiserver 1.32: ``pkg/apis/networking/v1/defaults.go``
(``SetDefaults_NetworkPolicyPort``: TCP; ``SetDefaults_NetworkPolicy``: a policy naming no types is
an Ingress policy, and an Egress one too when it has egress rules; ``SetDefaults_IngressClass``: a
parameters reference is cluster-scoped), ``pkg/apis/core/v1/defaults.go`` ``SetDefaults_Endpoints``
(ports TCP) and ``pkg/apis/discovery/v1/defaults.go`` ``SetDefaults_EndpointPort`` (an empty name,
TCP).
"""

from __future__ import annotations

from fakeapi._state.defaults.fields import Obj, default, default_if_absent, items, sub

__all__ = ["endpoint_slice_defaults", "endpoints_defaults", "ingress_class_defaults", "network_policy_defaults"]


def network_policy_defaults(policy: Obj, creating: bool | None) -> None:
    spec = sub(policy, "spec")
    if spec is None:
        return
    for direction, peers in (("ingress", "ports"), ("egress", "ports")):
        for rule in items(spec, direction):
            for port in items(rule, peers):
                default_if_absent(port, "protocol", "TCP")
    if not spec.get("policyTypes"):
        egress = spec.get("egress")
        spec["policyTypes"] = ["Ingress", "Egress"] if isinstance(egress, list) and egress else ["Ingress"]


def ingress_class_defaults(ingress_class: Obj, creating: bool | None) -> None:
    spec = ingress_class.get("spec")
    parameters = spec.get("parameters") if isinstance(spec, dict) else None
    if isinstance(parameters, dict):
        default_if_absent(parameters, "scope", "Cluster")


def endpoints_defaults(endpoints: Obj, creating: bool | None) -> None:
    for subset in items(endpoints, "subsets"):
        for port in items(subset, "ports"):
            default(port, "protocol", "TCP")


def endpoint_slice_defaults(endpoint_slice: Obj, creating: bool | None) -> None:
    for port in items(endpoint_slice, "ports"):
        default_if_absent(port, "name", "")
        default_if_absent(port, "protocol", "TCP")
