"""GET of one object and of a collection: selectors, pages, Tables (``handlers/get.go``).

A list answers in the kind's list shape: a custom resource list is a sorted map with
``metadata.continue`` always present; a built-in list is written in its struct's order, items
included, and leaves its items' kind and apiVersion out.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fakeapi._http.answers import answer_for, pretty, respond, served
from fakeapi._http.context import ServerState
from fakeapi._http.converting import converted_for_answer
from fakeapi._http.keys import STALE_REVISION
from fakeapi._http.options import ListOptions, parse_list_options, parse_resource_version
from fakeapi._http.requestinfo import RequestInfo
from fakeapi._http.responses import object_response
from fakeapi._patching.gostrconv import parse_uint, quote
from fakeapi._state import selectors
from fakeapi._state.listing import decode_continue, encode_continue, field_values, paginate, supported_fields
from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType
from fakeapi._state.typed.ordering import partial_object_metadata
from fakeapi.errors import APIError

__all__ = ["handle_get", "handle_list", "selector_filter"]

# etcd3/errors.go: a list at a compacted revision, and a continue token whose revision is compacted.
EXPIRED_LIST = "The resourceVersion for the provided list is too old."
INCONSISTENT_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. You can start a new list "
    "without the continue parameter, or use the continue token in this response to retrieve the remainder of the "
    "results. Continuing with the provided token results in an inconsistent list - objects that were created, "
    "modified, or deleted between the time the first chunk was returned and now may show up in the list."
)


async def handle_get(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer = answer_for(request)
    parse_resource_version(request.query.get("resourceVersion", ""))
    namespace = info.namespace if rtype.namespaced else ""
    stale = request.get(STALE_REVISION)
    obj = _stale_object(state, rtype, namespace, info.name, stale) if stale is not None else None
    if obj is None:
        obj = state.store.get(rtype, namespace, info.name)
    obj = await converted_for_answer(state, rtype, obj)
    return respond(request, state, rtype, obj, answer)


def _stale_object(
    state: ServerState, rtype: ResourceType, namespace: str, name: str, revision: int
) -> dict[str, Any] | None:
    """The object as a watch cache standing at ``revision`` holds it: 404 if it did not exist then; None
    (read the store) once the changes since are compacted, as the cache has caught up by then."""
    objects = state.store.items_at(rtype, namespace, revision)
    if objects is None:
        return None
    for obj in objects:
        if metadata_of(obj).get("name") == name:
            return obj
    raise APIError.not_found(rtype.group_resource, name)


def selector_filter(rtype: ResourceType, label_text: str, field_text: str) -> tuple[Any, bool]:
    try:
        labels = selectors.parse_label_selector(label_text)
        fields = selectors.parse_field_selector(field_text)
        fields.check_supported(supported_fields(rtype))
    except selectors.SelectorError as error:
        raise APIError.bad_request(str(error)) from None

    def matches(obj: dict[str, Any]) -> bool:
        return labels.matches(metadata_of(obj).get("labels") or {}) and (
            fields.empty or fields.matches(field_values(rtype, obj))
        )

    return matches, labels.empty and fields.empty


def _list_source(
    state: ServerState, rtype: ResourceType, namespace: str | None, options: ListOptions
) -> tuple[list[dict[str, Any]], int, str]:
    """The objects a list reads, at which revision, and from which key (``etcd3/store.go GetList``).

    A continue token reads at its revision; ``resourceVersionMatch=Exact``, and a ``limit`` with a
    resourceVersion and no match, read at that resourceVersion (the watch cache hands both to etcd).
    Anything else reads the latest state. A revision whose changes are compacted is 410 Expired; a
    revision not reached yet is 504 Too large resource version.
    """
    store = state.store
    if options.continue_token:
        revision, start = decode_continue(options.continue_token)
        if options.resource_version not in ("", "0"):
            raise APIError.bad_request("specifying resource version is not allowed when using continue")
        if revision < 0:
            return store.items(rtype, namespace), store.revision, start
        objects = store.items_at(rtype, namespace, revision)
        if objects is None:
            raise APIError.expired(INCONSISTENT_CONTINUE, list_continue=encode_continue(-1, start))
        return objects, revision, start
    match = options.resource_version_match
    if options.resource_version not in ("", "0") and (match == "Exact" or (not match and options.limit > 0)):
        requested = _list_resource_version(options.resource_version)
        if requested > store.revision:
            raise _too_large_resource_version(requested, store.revision)
        objects = store.items_at(rtype, namespace, requested)
        if objects is None:
            raise APIError.expired(EXPIRED_LIST)
        return objects, requested, ""
    parse_resource_version(options.resource_version)
    return store.items(rtype, namespace), store.revision, ""


def _too_large_resource_version(requested: int, current: int) -> APIError:
    """etcd refuses a range read at a revision it has not reached; GetList maps that to
    ``storage.NewTooLargeResourceVersionError(rv, current, 0)`` from release-1.34 on, the reference's
    baseline (earlier releases passed etcd's own error on as a 500).

    Inferred: read from kubernetes PR 132374 and its follow-up issue 132526, not from the release
    branch's source; ``current`` is taken to be the store's latest revision.
    """
    return APIError(
        f"Timeout: Too large resource version: {requested}, current: {current}",
        reason="Timeout",
        code=504,
        details={"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}]},
    )


def _list_resource_version(text: str) -> int:
    value, problem = parse_uint(text)
    if problem is not None:
        raise APIError.bad_request(
            f"invalid resource version: resourceVersion: Invalid value: {quote(text)}: {problem}"
        )
    return value


async def handle_list(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer = answer_for(request)
    options = parse_list_options(request.query, watch=False)
    matches, selectors_empty = selector_filter(rtype, options.label_selector, options.field_selector)
    namespace = info.namespace if rtype.namespaced and info.namespace else None
    objects, revision, start = _list_source(state, rtype, namespace, options)
    stale = request.get(STALE_REVISION)
    if stale is not None and not start:
        cached = state.store.items_at(rtype, namespace, stale)
        if cached is not None:  # else compacted since: the cache has caught up
            objects, revision = cached, stale
    page = paginate(
        objects,
        matches,
        revision=revision,
        all_namespaces=rtype.namespaced and namespace is None,
        limit=options.limit,
        start=start,
        selectors_empty=selectors_empty,
    )
    # The storage decodes (converts) each item on its own, and the first failure fails the list.
    page_items = [await converted_for_answer(state, rtype, item) for item in page.items]
    list_meta: dict[str, Any] = {"resourceVersion": str(page.resource_version)}
    if page.continue_token or rtype.custom:
        list_meta["continue"] = page.continue_token
    if page.remaining is not None:
        list_meta["remainingItemCount"] = page.remaining
    if answer.transform == "Table":
        from fakeapi._state.tables import table_for

        table = table_for(
            rtype,
            [served(rtype, item) for item in page_items],
            list_metadata=list_meta,
            include_object=request.query.get("includeObject", ""),
            now=state.clock.now(),
        )
        return object_response(table, media_type=answer.media_type, pretty=pretty(request), ordered=True)
    if answer.transform == "PartialObjectMetadataList":
        items = [partial_object_metadata(item, f"meta.k8s.io/{answer.table_version}") for item in page_items]
        body = {
            "kind": "PartialObjectMetadataList",
            "apiVersion": f"meta.k8s.io/{answer.table_version}",
            # A typed ListMeta: an empty continue is omitted, even for a custom resource.
            "metadata": {key: value for key, value in list_meta.items() if value != ""},
            "items": items,
        }
        return object_response(body, media_type=answer.media_type, pretty=pretty(request), ordered=True)
    if answer.transform == "PartialObjectMetadata":
        raise APIError.not_acceptable(("application/json", "application/yaml", "application/vnd.kubernetes.protobuf"))
    if not rtype.custom:
        items = [{k: v for k, v in item.items() if k not in ("apiVersion", "kind")} for item in page_items]
        body = {"kind": rtype.list_kind, "apiVersion": rtype.api_version, "metadata": list_meta, "items": items}
        return object_response(body, media_type=answer.media_type, pretty=pretty(request), ordered=rtype.struct_order)
    items = [served(rtype, item) for item in page_items]
    body = {"apiVersion": rtype.api_version, "items": items, "kind": rtype.list_kind, "metadata": list_meta}
    return object_response(body, media_type=answer.media_type, pretty=pretty(request))
