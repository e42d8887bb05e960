"""Defaults of the core kinds that describe the cluster and its limits: Nodes and LimitRanges, and the
pod templates of ReplicationControllers and PodTemplates.

Reproduced from kube-apiserver 1.32 ``pkg/apis/core/v1/defaults.go``: ``SetDefaults_NodeStatus``
(allocatable is the capacity when unset), ``SetDefaults_LimitRangeItem`` (for containers, the default
limit falls back to the max, the default request to the default limit, then to the min),
``SetDefaults_ReplicationController`` (selector and labels from the template's labels, one replica)
and the pod template defaults ``zz_generated.defaults.go`` applies to both.
"""

from __future__ import annotations

from fakeapi._state.defaults.fields import Obj, default_if_absent, items, sub
from fakeapi._state.defaults.pods import template_defaults

__all__ = ["limit_range_defaults", "node_defaults", "pod_template_defaults", "replication_controller_defaults"]


def node_defaults(node: Obj, creating: bool | None) -> None:
    status = node.get("status")
    if isinstance(status, dict) and status.get("allocatable") is None and isinstance(status.get("capacity"), dict):
        status["allocatable"] = dict(status["capacity"])


def limit_range_defaults(limit_range: Obj, creating: bool | None) -> None:
    spec = limit_range.get("spec")
    for item in items(spec if isinstance(spec, dict) else None, "limits"):
        if item.get("type") != "Container":
            continue
        limits = dict(item["default"]) if isinstance(item.get("default"), dict) else {}
        requests = dict(item["defaultRequest"]) if isinstance(item.get("defaultRequest"), dict) else {}
        maximum: Obj = item["max"] if isinstance(item.get("max"), dict) else {}
        minimum: Obj = item["min"] if isinstance(item.get("min"), dict) else {}
        for name, quantity in maximum.items():
            limits.setdefault(name, quantity)
        for name, quantity in [*limits.items(), *minimum.items()]:
            requests.setdefault(name, quantity)
        if limits:
            item["default"] = limits
        if requests:
            item["defaultRequest"] = requests


def replication_controller_defaults(controller: Obj, creating: bool | None) -> None:
    spec = sub(controller, "spec")
    if spec is None:
        return
    template = spec.get("template")
    if isinstance(template, dict):
        template_meta = template.get("metadata")
        labels = template_meta.get("labels") if isinstance(template_meta, dict) else None
        if isinstance(labels, dict):
            if not spec.get("selector"):
                spec["selector"] = dict(labels)
            meta = sub(controller, "metadata")
            if meta is not None and not meta.get("labels"):
                meta["labels"] = dict(labels)
        template_defaults(spec)
    default_if_absent(spec, "replicas", 1)
    if creating:
        controller["status"] = {}
    else:
        sub(controller, "status")


def pod_template_defaults(pod_template: Obj, creating: bool | None) -> None:
    template_defaults(pod_template)
