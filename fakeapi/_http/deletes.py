"""DELETE of one object and of a collection (``handlers/delete.go``, ``registry/rest/delete.go``).

DeleteOptions come from the body when there is one (the query is then ignored), else the query; a
body that does not decode is a 500, as the handler passes it on unwrapped. A custom resource
deleted outright is answered with a Success Status; some built-ins answer with the object. Each
delete passes the admission chain (:mod:`.admitting`; a collection's mutating admission once, its
validating admission per object). A webhook-converted CRD's object is read (converted) before it
is deleted, and answered at the request's version (docs/conversion.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from aiohttp import web

from fakeapi._http.admitting import admission_warnings, admit_delete, admitted_delete
from fakeapi._http.answers import answer_for, pretty, read_body, respond, served
from fakeapi._http.context import ServerState
from fakeapi._http.converting import converted_for_answer, converts_each
from fakeapi._http.negotiation import (
    body_media_type,
)
from fakeapi._http.options import DeleteOptions, parse_delete_options, parse_list_options
from fakeapi._http.reads import selector_filter
from fakeapi._http.requestinfo import RequestInfo
from fakeapi._http.responses import object_response
from fakeapi._patching.godecode import decode
from fakeapi._patching.goencode import format_float
from fakeapi._patching.goscanner import GoSyntaxError
from fakeapi._patching.jsonpatch import json_kind
from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType
from fakeapi._state.storeview import Committed
from fakeapi.errors import APIError, status_body

__all__ = ["handle_delete", "handle_delete_collection"]

_PROTECTED_NAMESPACES = ("default", "kube-system", "kube-public")


async def _delete_body(request: web.BaseRequest) -> dict[str, Any] | None:
    body = await read_body(request)
    if not body.strip():
        return None
    body_media_type(request.headers.get("Content-Type"))
    try:
        decoded = decode(body)
    except GoSyntaxError as error:
        raise APIError.internal(f"couldn't get version/kind; json parse error: {error}") from None
    if not isinstance(decoded, dict):
        raise APIError.internal("decoded object cannot be converted to DeleteOptions")
    _check_field_types(decoded, _DELETE_OPTIONS_FIELDS, "DeleteOptions", "")
    return decoded


# The Go type of each DeleteOptions field the body may hold (``metav1.DeleteOptions``).
_PRECONDITIONS_FIELDS: dict[str, Any] = {"uid": "string", "resourceVersion": "string"}
_DELETE_OPTIONS_FIELDS: dict[str, Any] = {
    "kind": "string",
    "apiVersion": "string",
    "gracePeriodSeconds": "int64",
    "preconditions": ("v1.Preconditions", "Preconditions", _PRECONDITIONS_FIELDS),
    "orphanDependents": "bool",
    "propagationPolicy": "v1.DeletionPropagation",
    "dryRun": "[]string",
    "ignoreStoreReadErrorWithClusterBreakingPotential": "bool",
}


def _check_field_types(value: dict[str, Any], fields: dict[str, Any], struct: str, prefix: str) -> None:
    """Decoding into the typed struct: a value of the wrong JSON type is Go's ``UnmarshalTypeError``,
    which the delete handler passes on unwrapped (a 500 carrying its text)."""
    for name, item in value.items():
        expected = fields.get(name)
        if expected is None or item is None:
            continue
        path = f"{prefix}{name}"
        if isinstance(expected, tuple):
            type_name, inner_struct, inner_fields = expected
            if not isinstance(item, dict):
                raise _type_error(item, struct, path, type_name)
            _check_field_types(item, inner_fields, inner_struct, path + ".")
            continue
        if expected == "[]string":
            if not isinstance(item, list):
                raise _type_error(item, struct, path, expected)
            for element in item:
                if element is not None and not isinstance(element, str):
                    raise _type_error(element, struct, path, "string")
            continue
        if expected == "bool":
            matches = isinstance(item, bool)
        elif expected == "int64":
            matches = isinstance(item, int) and not isinstance(item, bool)
        else:
            matches = isinstance(item, str)
        if not matches:
            raise _type_error(item, struct, path, expected)


def _type_error(value: Any, struct: str, path: str, type_name: str) -> APIError:
    kind = json_kind(value)
    if kind == "number" and type_name == "int64" and isinstance(value, float):
        kind = f"number {format_float(value)}"
    return APIError.internal(f"json: cannot unmarshal {kind} into Go struct field {struct}.{path} of type {type_name}")


def _deleted_status(rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    meta = metadata_of(obj)
    details: dict[str, Any] = {"name": meta.get("name", "")}
    if rtype.group:
        details["group"] = rtype.group
    details["kind"] = rtype.plural
    details["uid"] = meta.get("uid", "")
    return status_body(200, "", details=details, success=True)


_RETURNS_DELETED_OBJECT = {("", "Pod"), ("", "Service"), ("", "Namespace"), ("apps", "Deployment"), ("batch", "Job")}


async def handle_delete(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer = answer_for(request)
    options = parse_delete_options(request.query, await _delete_body(request))
    if rtype.kind == "Namespace" and info.name in _PROTECTED_NAMESPACES:
        raise APIError.forbidden(rtype.group_resource, info.name, "this namespace may not be deleted")
    namespace = info.namespace if rtype.namespaced else ""
    attributes = await admit_delete(request, state, rtype, info, options, info.name)

    def delete(current: dict[str, Any]) -> Committed:
        return state.store.delete(
            rtype,
            namespace,
            info.name,
            uid=options.uid,
            resource_version=options.resource_version,
            propagation=_propagation(options),
            grace_period=options.grace_period,
            dry_run=options.dry_run,
        )

    async def read(stored: dict[str, Any]) -> dict[str, Any]:
        # The registry reads (decodes, converts) the object before deleting it.
        return await converted_for_answer(state, rtype, stored)

    committed = await admitted_delete(
        request,
        state,
        rtype,
        attributes,
        info.name,
        delete,
        uid=options.uid,
        resource_version=options.resource_version,
        read=read if converts_each(rtype) else None,
    )
    warnings = admission_warnings(request)
    if committed.deleted and (rtype.group, rtype.kind) not in _RETURNS_DELETED_OBJECT:
        body = _deleted_status(rtype, committed.object)
        return object_response(body, pretty=pretty(request), ordered=True, warnings=warnings)
    status = 202 if not committed.deleted and options.orphan_dependents is False else 200
    shown = await converted_for_answer(state, rtype, committed.object)
    return respond(request, state, rtype, shown, answer, status=status, warnings=warnings)


async def handle_delete_collection(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer = answer_for(request)
    delete_options = parse_delete_options(request.query, await _delete_body(request))
    list_options = parse_list_options(request.query, watch=False)
    matches, _ = selector_filter(rtype, list_options.label_selector, list_options.field_selector)
    namespace = info.namespace if rtype.namespaced and info.namespace else None
    attributes = await admit_delete(request, state, rtype, info, delete_options, "")
    # The collection is listed (each item converted) before anything is deleted.
    listed = [obj for obj in state.store.items(rtype, namespace) if matches(obj)]
    converted = converts_each(rtype)
    seen = [await converted_for_answer(state, rtype, obj) for obj in listed] if converted else listed
    removed = []
    for obj, listed_as in zip(listed, seen, strict=True):
        meta = metadata_of(obj)
        item_namespace, item_name = meta.get("namespace", ""), meta.get("name", "")
        if not state.store.is_stored(rtype, obj):
            continue

        def delete(
            current: dict[str, Any], item_namespace: str = item_namespace, item_name: str = item_name
        ) -> Committed:
            return state.store.delete(
                rtype,
                item_namespace,
                item_name,
                propagation=_propagation(delete_options),
                grace_period=delete_options.grace_period,
                dry_run=delete_options.dry_run,
            )

        try:
            committed = await admitted_delete(
                request,
                state,
                rtype,
                replace(attributes, namespace=item_namespace),
                item_name,
                delete,
                read=_reader(state, rtype, obj, listed_as) if converted else None,
            )
        except APIError as error:
            # Deleted by someone else since it was listed (while a webhook converted the list).
            if error.code == 404:
                continue
            raise
        removed.append(committed.object)
    deleted = [served(rtype, await converted_for_answer(state, rtype, obj)) for obj in removed]
    list_meta: dict[str, Any] = {"resourceVersion": str(state.store.revision)}
    if rtype.custom:
        list_meta["continue"] = ""
        body = {"apiVersion": rtype.api_version, "items": deleted, "kind": rtype.list_kind, "metadata": list_meta}
    else:
        items = [{k: v for k, v in item.items() if k not in ("apiVersion", "kind")} for item in deleted]
        body = {"kind": rtype.list_kind, "apiVersion": rtype.api_version, "metadata": list_meta, "items": items}
    return object_response(
        body,
        media_type=answer.media_type,
        pretty=pretty(request),
        ordered=rtype.struct_order,
        warnings=admission_warnings(request),
    )


def _reader(
    state: ServerState, rtype: ResourceType, listed: dict[str, Any], listed_as: dict[str, Any]
) -> Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]:
    """An item's read before its delete: what the list converted it to while it is unchanged."""

    async def read(stored: dict[str, Any]) -> dict[str, Any]:
        return listed_as if stored is listed else await converted_for_answer(state, rtype, stored)

    return read


def _propagation(options: DeleteOptions) -> str | None:
    """The policy asked for: ``propagationPolicy``, or the deprecated ``orphanDependents`` (true is
    Orphan, false Background, as ``shouldOrphanDependents`` reads it); None for the kind's default."""
    if options.propagation is not None:
        return options.propagation
    if options.orphan_dependents is not None:
        return "Orphan" if options.orphan_dependents else "Background"
    return None
