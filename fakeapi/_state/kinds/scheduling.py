"""``scheduling.k8s.io/v1``: PriorityClasses."""

from __future__ import annotations

from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType

__all__ = ["TYPES"]

TYPES: tuple[ResourceType, ...] = (
    builtin("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False, short_names=("pc",)),
)
