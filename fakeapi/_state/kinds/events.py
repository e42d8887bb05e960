"""``events.k8s.io/v1``: the Event of ``pkg/registry/core/event``, served in its newer shape.

The apiserver has one Event resource: the events.k8s.io REST storage is the core event store
(``pkg/registry/events/rest/storage_events.go``), so both groups see the same objects, stored as
core/v1 Events, and each answers in its own shape (:mod:`fakeapi._state.conversion.events`). The
strategy is one for both groups too, but what it validates depends on the group-version of the
request (``pkg/registry/core/event/strategy.go``, :mod:`fakeapi._state.validation.events`).
docs/events.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.admission.plugins import NAMESPACE_LIFECYCLE
from fakeapi._state.conversion.events import CORE_EVENTS, EVENT_CONVERSION
from fakeapi._state.defaults.core import events_event_defaults
from fakeapi._state.field_ownership import Renaming
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType
from fakeapi._state.strategy import Strategy
from fakeapi._state.tables.events import EVENT_PRINTER
from fakeapi._state.validation import field
from fakeapi._state.validation.events import legacy_event_errors, strict_create_errors, strict_update_errors
from fakeapi._state.validation.field import FieldError
from fakeapi._state.validation.names import NameRule, name_is_dns_subdomain, name_is_path_segment
from fakeapi._state.validation.objectmeta import validate_object_meta
from fakeapi._state.validation.rules import validate_kube_finalizers
from fakeapi.errors import APIError, Cause, GroupResource

if TYPE_CHECKING:
    from fakeapi._state.storeview import StoreView

__all__ = ["EVENT_STRATEGY", "TYPES", "EventStrategy"]

# ``BeforeCreate`` and ``BeforeUpdate`` name the internal object's kind, ``core.Event``'s first:
# an Event is invalid as ``Event``, whichever group it was written through.
_CORE_EVENT = GroupResource("", "Event")


class EventStrategy(Strategy):
    """``eventStrategy``: legacy checks through core/v1, strict ones through events.k8s.io/v1.

    A write's checks run on its object in core/v1 field names, as upstream runs them on the internal
    ``core.Event``. A create's event checks come before the metadata checks, which run only when the
    event checks pass (``BeforeCreate``); an update's come after them, all reported together.
    """

    def garbage_collected(self, rtype: ResourceType) -> bool:
        # ``DefaultGarbageCollectionPolicy`` is ``rest.Unsupported``: a delete's propagationPolicy
        # adds no orphan or foregroundDeletion finalizer to an Event.
        return False

    def field_renaming(self, rtype: ResourceType) -> Renaming:
        return EVENT_CONVERSION.fields_at

    def _names(self, rtype: ResourceType) -> NameRule:
        # ``ValidateObjectMetaAccessor`` with ``ValidatePathSegmentName``: the store's own check.
        return name_is_path_segment

    def _event_errors(self, rtype: ResourceType, obj: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
        core = EVENT_CONVERSION.core_fields(obj)
        meta = metadata_of(obj)
        through_core = rtype.api_version == CORE_EVENTS
        errors = legacy_event_errors(
            core,
            str(meta.get("namespace") or ""),
            reporting_field="reportingComponent" if through_core else "reportingController",
        )
        if through_core:
            return errors
        if old is None:
            errors += validate_object_meta(meta, namespaced=True, names=name_is_dns_subdomain)
            errors += validate_kube_finalizers(meta.get("finalizers"))
            return errors + strict_create_errors(core)
        return errors + strict_update_errors(core, EVENT_CONVERSION.core_fields(old))

    def validate_create(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        if NAMESPACE_LIFECYCLE in store.admission_plugins:
            self.check_namespace(store, rtype, obj)
        errors = self._event_errors(rtype, obj, None)
        if errors:
            name = str(metadata_of(obj).get("name") or "")
            self._raise_if(rtype, name, field.causes(errors, store.registry.kube_version))
        super().validate_create(store, rtype, obj)

    def validate_rules(
        self,
        rtype: ResourceType,
        obj: dict[str, Any],
        old: dict[str, Any] | None,
        subresource: str,
        causes: list[Cause],
    ) -> list[Cause]:
        return field.causes(self._event_errors(rtype, obj, old)) if old is not None else []

    def _raise_if(self, rtype: ResourceType, name: str, causes: list[Cause]) -> None:
        if causes:
            raise APIError.invalid(_CORE_EVENT, name, causes)


EVENT_STRATEGY = EventStrategy()

TYPES: tuple[ResourceType, ...] = (
    builtin(
        "events.k8s.io",
        "v1",
        "events",
        "Event",
        short_names=("ev",),
        strategy=EVENT_STRATEGY,
        defaulter=events_event_defaults,
        printer=EVENT_PRINTER,
        stored_as=("", "v1", "Event"),
        conversion=EVENT_CONVERSION,
    ),
)
