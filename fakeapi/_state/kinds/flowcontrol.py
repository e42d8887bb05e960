"""``flowcontrol.apiserver.k8s.io/v1``: API priority and fairness objects, stored and served.

After a FlowSchema is written, or a priority level created or deleted, the config controller's
``Dangling`` condition is brought up to date (:mod:`fakeapi._state.flowcontrol_status`,
docs/priority-and-fairness.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.defaults.flowcontrol import flow_schema_defaults, priority_level_defaults
from fakeapi._state.flowcontrol_status import sync_dangling, sync_referrers
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.strategy import GenerationStrategy
from fakeapi._state.tables.access import FLOW_SCHEMA_PRINTER, PRIORITY_LEVEL_PRINTER

if TYPE_CHECKING:
    from fakeapi._state.storeview import StoreView

__all__ = ["TYPES"]

_GROUP = "flowcontrol.apiserver.k8s.io"


class FlowSchemaStrategy(GenerationStrategy):
    """A FlowSchema's ``Dangling`` condition follows every write of it, its status included."""

    def after_create(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        sync_dangling(store, rtype, obj)

    def after_update(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any], old: dict[str, Any]) -> None:
        sync_dangling(store, rtype, obj)


class PriorityLevelStrategy(GenerationStrategy):
    """A priority level's coming and going changes the ``Dangling`` condition of the schemas that name it."""

    def after_create(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        sync_referrers(store, str(metadata_of(obj).get("name", "")))

    def after_delete(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        sync_referrers(store, str(metadata_of(obj).get("name", "")))


TYPES: tuple[ResourceType, ...] = (
    builtin(
        _GROUP,
        "v1",
        "flowschemas",
        "FlowSchema",
        False,
        subresources=(Subresource("status"),),
        strategy=FlowSchemaStrategy(),
        printer=FLOW_SCHEMA_PRINTER,
        defaulter=flow_schema_defaults,
    ),
    builtin(
        _GROUP,
        "v1",
        "prioritylevelconfigurations",
        "PriorityLevelConfiguration",
        False,
        subresources=(Subresource("status"),),
        strategy=PriorityLevelStrategy(),
        printer=PRIORITY_LEVEL_PRINTER,
        defaulter=priority_level_defaults,
    ),
)
