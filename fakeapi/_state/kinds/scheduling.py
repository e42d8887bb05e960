"""``scheduling.k8s.io/v1``: PriorityClasses, defaulted as ``pkg/apis/scheduling/v1/defaults.go`` does."""

from __future__ import annotations

from fakeapi._state.defaults.fields import Obj, default_if_absent
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType
from fakeapi._state.tables.cluster import PRIORITY_CLASS_PRINTER

__all__ = ["TYPES"]


def priority_class_defaults(priority_class: Obj, creating: bool | None) -> None:
    """``SetDefaults_PriorityClass``: no preemption policy is ``PreemptLowerPriority``."""
    default_if_absent(priority_class, "preemptionPolicy", "PreemptLowerPriority")


TYPES: tuple[ResourceType, ...] = (
    builtin(
        "scheduling.k8s.io",
        "v1",
        "priorityclasses",
        "PriorityClass",
        False,
        short_names=("pc",),
        defaulter=priority_class_defaults,
        printer=PRIORITY_CLASS_PRINTER,
    ),
)
