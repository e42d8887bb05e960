"""``resource.k8s.io/v1``, Dynamic Resource Allocation, served from 1.34 when the group's v1 went GA.

``pkg/registry/resource/<kind>``: DeviceClasses and ResourceSlices are cluster-scoped and bump
their generation when the spec changes (``PrepareForUpdate``); ResourceClaims have a status
subresource; ResourceClaimTemplates are plain namespaced objects. None has a short name.
"""

from __future__ import annotations

from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.strategy import GenerationStrategy

__all__ = ["TYPES"]

_GROUP = "resource.k8s.io"
_GENERATION = GenerationStrategy()

TYPES: tuple[ResourceType, ...] = (
    builtin(_GROUP, "v1", "deviceclasses", "DeviceClass", False, strategy=_GENERATION, since="1.34"),
    builtin(_GROUP, "v1", "resourceclaims", "ResourceClaim", subresources=(Subresource("status"),), since="1.34"),
    builtin(_GROUP, "v1", "resourceclaimtemplates", "ResourceClaimTemplate", since="1.34"),
    builtin(_GROUP, "v1", "resourceslices", "ResourceSlice", False, strategy=_GENERATION, since="1.34"),
)
