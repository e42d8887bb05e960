"""``scheduling.k8s.io/v1``: PriorityClasses, defaulted as ``pkg/apis/scheduling/v1/defaults.go`` does,
validated as ``pkg/apis/scheduling/validation`` does, with one global default (the Priority admission plugin)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.admission.plugins import PRIORITY
from fakeapi._state.admission.priority import check_single_global_default
from fakeapi._state.defaults.fields import Obj, default_if_absent
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType
from fakeapi._state.strategy import Strategy
from fakeapi._state.tables.cluster import PRIORITY_CLASS_PRINTER
from fakeapi._state.validation.scheduling import PRIORITY_CLASS

if TYPE_CHECKING:
    from fakeapi._state.storeview import StoreView

__all__ = ["TYPES"]


def priority_class_defaults(priority_class: Obj, creating: bool | None) -> None:
    """``SetDefaults_PriorityClass``: no preemption policy is ``PreemptLowerPriority``."""
    default_if_absent(priority_class, "preemptionPolicy", "PreemptLowerPriority")


class PriorityClassStrategy(Strategy):
    """The strategy's validation (422), then the Priority admission plugin's (403), as the create handler orders them."""

    def validate_create(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        super().validate_create(store, rtype, obj)
        if PRIORITY in store.admission_plugins:
            check_single_global_default(store, obj, creating=True)

    def validate_update(
        self, store: StoreView, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], subresource: str
    ) -> None:
        super().validate_update(store, rtype, new, old, subresource)
        if PRIORITY in store.admission_plugins:
            check_single_global_default(store, new, creating=False)


TYPES: tuple[ResourceType, ...] = (
    builtin(
        "scheduling.k8s.io",
        "v1",
        "priorityclasses",
        "PriorityClass",
        False,
        short_names=("pc",),
        strategy=PriorityClassStrategy(PRIORITY_CLASS),
        defaulter=priority_class_defaults,
        printer=PRIORITY_CLASS_PRINTER,
    ),
)
