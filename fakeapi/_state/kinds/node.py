"""``node.k8s.io/v1``: RuntimeClasses."""

from __future__ import annotations

from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType
from fakeapi._state.tables.cluster import RUNTIME_CLASS_PRINTER

__all__ = ["TYPES"]

TYPES: tuple[ResourceType, ...] = (
    builtin("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", False, printer=RUNTIME_CLASS_PRINTER),
)
