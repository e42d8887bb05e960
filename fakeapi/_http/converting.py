"""Custom resources at the version a request names, converted as the CRD's storage layer converts them.

Each served version of a CRD has its own storage whose codec decodes what is stored (the storage
version) into that version and encodes into the storage version
(``crdConversionRESTOptionsGetter`` in ``apiextensions-apiserver/pkg/apiserver/customresource_handler.go``).
The object sent for conversion is the stored one, which has no ``resourceVersion`` in etcd: the
storage sets it on the decoded object afterwards. A conversion that fails is the error the
storage returns as it is, which the handler answers as a 500 without reason
(``ErrorToAPIStatus``); a watch wraps it as an internal error. docs/conversion.md.

A built-in resource stored in another resource's shape (events.k8s.io/v1 Events, stored as core/v1
Events) goes through the same steps with its conversion in place of the CRD's, which never fails
and calls no webhook (docs/events.md).
"""

from __future__ import annotations

import uuid
from typing import Any, cast

from fakeapi._http.context import ServerState
from fakeapi._state.conversion import ConversionError, CRDConversion, convert_object
from fakeapi._state.conversion.events import EventConversion
from fakeapi._state.objects import metadata_of, with_metadata
from fakeapi._state.resources import ResourceType
from fakeapi._state.webhook_client import HookResponse, hook_target
from fakeapi.errors import APIError

__all__ = [
    "at_storage_version",
    "at_version",
    "by_webhook",
    "converted_for_answer",
    "converts_each",
    "storage_api_version",
    "writes_convert",
]


def conversion_of(rtype: ResourceType) -> CRDConversion | EventConversion | None:
    return cast("CRDConversion | EventConversion | None", rtype.conversion)


def by_webhook(rtype: ResourceType) -> bool:
    """A version of a CRD whose conversion calls a webhook: what is stored may be at another version
    (the storage version, or one it was stored at before), so reads and writes go through it."""
    conversion = conversion_of(rtype)
    return isinstance(conversion, CRDConversion) and conversion.by_webhook


def converts_each(rtype: ResourceType) -> bool:
    """Every stored object is converted for the request's version, not only given its apiVersion:
    a CRD converted by webhook, and a built-in stored in another resource's shape."""
    conversion = conversion_of(rtype)
    return isinstance(conversion, EventConversion) or by_webhook(rtype)


def writes_convert(rtype: ResourceType) -> bool:
    """Writes computed at the request's version and stored at another: a CRD's version other than
    its storage version, every version of a CRD converted by webhook, and a built-in stored in
    another resource's shape."""
    conversion = conversion_of(rtype)
    if isinstance(conversion, EventConversion):
        return True
    return conversion is not None and (conversion.by_webhook or rtype.version != rtype.storage_version)


def storage_api_version(rtype: ResourceType) -> str:
    conversion = conversion_of(rtype)
    if isinstance(conversion, EventConversion):
        return conversion.storage_api_version
    return (rtype.storage_version and f"{rtype.group}/{rtype.storage_version}") or rtype.api_version


async def _convert(state: ServerState, conversion: CRDConversion, obj: dict[str, Any], version: str) -> dict[str, Any]:
    async def post(body: bytes) -> HookResponse:
        target = hook_target(
            conversion.client_config, state.admission.service_addresses, timeout=state.config.webhook_timeout
        )
        return await state.webhook_transport(target, body)

    revision = metadata_of(obj).get("resourceVersion")
    sent = with_metadata(obj, resourceVersion=None) if revision is not None else obj
    converted = await convert_object(conversion, sent, version, post, lambda: str(uuid.uuid4()))
    return with_metadata(converted, resourceVersion=revision) if revision is not None else converted


async def at_version(state: ServerState, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """A stored object at ``rtype``'s version; :class:`ConversionError` when the conversion fails."""
    conversion = conversion_of(rtype)
    if conversion is None or obj.get("apiVersion") == rtype.api_version:
        return obj
    if isinstance(conversion, EventConversion):
        return conversion.from_storage(state.store.registry.structs, obj)
    return await _convert(state, conversion, obj, rtype.version)


async def at_storage_version(state: ServerState, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """An object at ``rtype``'s version as the storage encodes it: at the storage version, without
    ``resourceVersion`` (``PrepareObjectForStorage``)."""
    conversion = conversion_of(rtype)
    assert conversion is not None
    prepared = with_metadata(obj, resourceVersion=None)
    if isinstance(conversion, EventConversion):
        return conversion.to_storage(state.store.registry.structs, prepared)
    return await _convert(state, conversion, prepared, rtype.storage_version)


async def converted_for_answer(state: ServerState, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """:func:`at_version` for a GET, a list item or a write's answer: a failure is a 500 without reason."""
    if conversion_of(rtype) is None:
        return obj
    try:
        return await at_version(state, rtype, obj)
    except ConversionError as error:
        raise APIError.internal(str(error)) from None
