"""``apiregistration.k8s.io/v1``: APIService objects, stored and served (no aggregation happens)."""

from __future__ import annotations

from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType, Subresource

__all__ = ["TYPES"]

TYPES: tuple[ResourceType, ...] = (
    builtin(
        "apiregistration.k8s.io",
        "v1",
        "apiservices",
        "APIService",
        False,
        categories=("api-extensions",),
        subresources=(Subresource("status"),),
        # Not a k8s.io/api kind: its Go struct is not recorded, so its keys stay sorted.
        struct_order=False,
    ),
)
