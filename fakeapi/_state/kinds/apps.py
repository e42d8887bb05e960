"""``apps/v1``: ``pkg/registry/apps/<kind>``; spec changes bump the generation.

Deployments, ReplicaSets, StatefulSets and DaemonSets are defaulted as ``pkg/apis/apps/v1/defaults.go``
does and validated as ``pkg/apis/apps/validation`` does (:mod:`fakeapi._state.validation.apps`).
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.defaults.workloads import (
    daemon_set_defaults,
    deployment_defaults,
    replica_set_defaults,
    stateful_set_defaults,
)
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.objects import metadata_of, with_metadata
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.strategy import GenerationStrategy
from fakeapi._state.tables.workloads import (
    CONTROLLER_REVISION_PRINTER,
    DAEMON_SET_PRINTER,
    DEPLOYMENT_PRINTER,
    REPLICA_SET_PRINTER,
    STATEFUL_SET_PRINTER,
)
from fakeapi._state.validation.apps import DAEMON_SET, DEPLOYMENT, REPLICA_SET, STATEFUL_SET

__all__ = ["TEMPLATE_GENERATION", "TYPES"]

TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"


class DaemonSetStrategy(GenerationStrategy):
    """``pkg/registry/apps/daemonset/strategy.go``: the internal ``spec.templateGeneration`` starts
    at 1 and grows by one with each change of the template; apps/v1 carries it as the
    ``deprecated.daemonset.template.generation`` annotation (its conversion functions), which the
    DaemonSet controller copies into its pods' ``pod-template-generation`` label."""

    def prepare_for_create(self, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        obj = super().prepare_for_create(rtype, obj)
        return _with_template_generation(obj, max(_template_generation(obj), 1))

    def before_update(
        self, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], subresource: str
    ) -> dict[str, Any]:
        new = super().before_update(rtype, new, old, subresource)
        if subresource != "":
            return new
        if (new.get("spec") or {}).get("template") != (old.get("spec") or {}).get("template"):
            return _with_template_generation(new, _template_generation(old) + 1)
        return _with_template_generation(new, _template_generation(new))


def _template_generation(obj: dict[str, Any]) -> int:
    value = str((metadata_of(obj).get("annotations") or {}).get(TEMPLATE_GENERATION) or "")
    return int(value) if value.lstrip("-").isdigit() and len(value) <= 20 else 0


def _with_template_generation(obj: dict[str, Any], generation: int) -> dict[str, Any]:
    annotations = {**(metadata_of(obj).get("annotations") or {}), TEMPLATE_GENERATION: str(generation)}
    return with_metadata(obj, annotations=dict(sorted(annotations.items())))


_SCALE = Subresource("scale", kind="Scale", group="autoscaling", version="v1")
# deployment/strategy.go deploymentStatusStrategy.PrepareForUpdate keeps only spec and labels from the
# stored object, so a status write sets annotations too (the controller's revision annotation).
_DEPLOYMENT_STATUS = Subresource(
    "status",
    writes=(("status",), ("metadata", "annotations"), ("metadata", "finalizers"), ("metadata", "ownerReferences")),
)

TYPES: tuple[ResourceType, ...] = (
    builtin("apps", "v1", "controllerrevisions", "ControllerRevision", printer=CONTROLLER_REVISION_PRINTER),
    builtin(
        "apps",
        "v1",
        "daemonsets",
        "DaemonSet",
        short_names=("ds",),
        categories=("all",),
        subresources=(Subresource("status"),),
        strategy=DaemonSetStrategy(DAEMON_SET),
        defaulter=daemon_set_defaults,
        printer=DAEMON_SET_PRINTER,
    ),
    builtin(
        "apps",
        "v1",
        "deployments",
        "Deployment",
        short_names=("deploy",),
        categories=("all",),
        subresources=(_SCALE, _DEPLOYMENT_STATUS),
        strategy=GenerationStrategy(DEPLOYMENT),
        defaulter=deployment_defaults,
        printer=DEPLOYMENT_PRINTER,
    ),
    builtin(
        "apps",
        "v1",
        "replicasets",
        "ReplicaSet",
        short_names=("rs",),
        categories=("all",),
        subresources=(_SCALE, Subresource("status")),
        strategy=GenerationStrategy(REPLICA_SET),
        defaulter=replica_set_defaults,
        printer=REPLICA_SET_PRINTER,
    ),
    builtin(
        "apps",
        "v1",
        "statefulsets",
        "StatefulSet",
        short_names=("sts",),
        categories=("all",),
        subresources=(_SCALE, Subresource("status")),
        strategy=GenerationStrategy(STATEFUL_SET),
        defaulter=stateful_set_defaults,
        printer=STATEFUL_SET_PRINTER,
    ),
)
