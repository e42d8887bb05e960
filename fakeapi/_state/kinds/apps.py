"""``apps/v1``: ``pkg/registry/apps/<kind>``; spec changes bump the generation.

Deployments are validated as ``pkg/apis/apps/validation`` does (:mod:`fakeapi._state.validation.apps`);
ReplicaSets, StatefulSets and DaemonSets are not defaulted yet, so only their metadata is checked.
"""

from __future__ import annotations

from fakeapi._state.defaults.workloads import deployment_defaults
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.strategy import GenerationStrategy
from fakeapi._state.tables.workloads import DEPLOYMENT_PRINTER
from fakeapi._state.validation.apps import DEPLOYMENT

__all__ = ["TYPES"]

_SCALE = Subresource("scale", kind="Scale", group="autoscaling", version="v1")

_GENERATION = GenerationStrategy()

TYPES: tuple[ResourceType, ...] = (
    builtin("apps", "v1", "controllerrevisions", "ControllerRevision"),
    builtin(
        "apps",
        "v1",
        "daemonsets",
        "DaemonSet",
        short_names=("ds",),
        categories=("all",),
        subresources=(Subresource("status"),),
        strategy=_GENERATION,
    ),
    builtin(
        "apps",
        "v1",
        "deployments",
        "Deployment",
        short_names=("deploy",),
        categories=("all",),
        subresources=(_SCALE, Subresource("status")),
        strategy=GenerationStrategy(DEPLOYMENT),
        defaulter=deployment_defaults,
        printer=DEPLOYMENT_PRINTER,
        patch_struct="Deployment",
    ),
    *(
        builtin(
            "apps",
            "v1",
            plural,
            kind,
            short_names=(short,),
            categories=("all",),
            subresources=(_SCALE, Subresource("status")),
            strategy=_GENERATION,
        )
        for plural, kind, short in (("replicasets", "ReplicaSet", "rs"), ("statefulsets", "StatefulSet", "sts"))
    ),
)
