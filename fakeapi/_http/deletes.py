"""DELETE of one object and of a collection (``handlers/delete.go``, ``registry/rest/delete.go``).

DeleteOptions come from the body when there is one (the query is then ignored), else the query; a
body that does not decode is a 500, as the handler passes it on unwrapped. A custom resource
deleted outright is answered with a Success Status; some built-ins answer with the object.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fakeapi._http.answers import answer_for, pretty, read_body, respond, served
from fakeapi._http.context import ServerState
from fakeapi._http.negotiation import (
    body_media_type,
)
from fakeapi._http.options import parse_delete_options, parse_list_options
from fakeapi._http.reads import selector_filter
from fakeapi._http.requestinfo import RequestInfo
from fakeapi._http.responses import object_response
from fakeapi._patching.godecode import decode
from fakeapi._patching.goscanner import GoSyntaxError
from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType
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
    return decoded


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
    committed = state.store.delete(
        rtype,
        namespace,
        info.name,
        uid=options.uid,
        resource_version=options.resource_version,
        propagation=options.propagation,
        dry_run=options.dry_run,
    )
    if committed.deleted and (rtype.group, rtype.kind) not in _RETURNS_DELETED_OBJECT:
        return object_response(_deleted_status(rtype, committed.object), pretty=pretty(request), ordered=True)
    status = 202 if not committed.deleted and options.orphan_dependents is False else 200
    return respond(request, state, rtype, committed.object, answer, status=status)


async def handle_delete_collection(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer = answer_for(request)
    delete_options = parse_delete_options(request.query, await _delete_body(request))
    list_options = parse_list_options(request.query, watch=False)
    matches, _ = selector_filter(rtype, list_options.label_selector, list_options.field_selector)
    namespace = info.namespace if rtype.namespaced and info.namespace else None
    deleted = []
    for obj in state.store.items(rtype, namespace):
        if not matches(obj):
            continue
        meta = metadata_of(obj)
        committed = state.store.delete(
            rtype,
            meta.get("namespace", ""),
            meta.get("name", ""),
            propagation=delete_options.propagation,
            dry_run=delete_options.dry_run,
        )
        deleted.append(served(rtype, committed.object))
    list_meta: dict[str, Any] = {"resourceVersion": str(state.store.revision)}
    if rtype.custom:
        list_meta["continue"] = ""
        body = {"apiVersion": rtype.api_version, "items": deleted, "kind": rtype.list_kind, "metadata": list_meta}
    else:
        items = [{k: v for k, v in item.items() if k not in ("apiVersion", "kind")} for item in deleted]
        body = {"kind": rtype.list_kind, "apiVersion": rtype.api_version, "metadata": list_meta, "items": items}
    return object_response(body, media_type=answer.media_type, pretty=pretty(request))
