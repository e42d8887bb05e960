"""``apps/v1``: ``pkg/registry/apps/<kind>``; spec changes bump the generation.

Deployments, ReplicaSets, StatefulSets and DaemonSets are defaulted as ``pkg/apis/apps/v1/defaults.go``
does and validated as ``pkg/apis/apps/validation`` does (:mod:`fakeapi._state.validation.apps`).
"""

from __future__ import annotations

from fakeapi._state.defaults.workloads import (
    daemon_set_defaults,
    deployment_defaults,
    replica_set_defaults,
    stateful_set_defaults,
)
from fakeapi._state.kinds.declaring import builtin
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

__all__ = ["TYPES"]

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
        strategy=GenerationStrategy(DAEMON_SET),
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
