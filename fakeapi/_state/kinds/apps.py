"""``apps/v1``: ``pkg/registry/apps/<kind>``; spec changes bump the generation."""

from __future__ import annotations

from fakeapi._state.defaults.workloads import deployment_defaults
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.strategy import GenerationStrategy
from fakeapi._state.tables.workloads import DEPLOYMENT_PRINTER

__all__ = ["TYPES"]

_SCALE = Subresource("scale", kind="Scale", group="autoscaling", version="v1")

TYPES: tuple[ResourceType, ...] = (
    builtin(
        "apps",
        "v1",
        "deployments",
        "Deployment",
        short_names=("deploy",),
        categories=("all",),
        subresources=(_SCALE, Subresource("status")),
        strategy=GenerationStrategy(),
        defaulter=deployment_defaults,
        printer=DEPLOYMENT_PRINTER,
        patch_struct="Deployment",
        protobuf_message="Deployment",
    ),
)
