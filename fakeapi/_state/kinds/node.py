"""``node.k8s.io/v1``: RuntimeClasses."""

from __future__ import annotations

from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType

__all__ = ["TYPES"]

TYPES: tuple[ResourceType, ...] = (builtin("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", False),)
