"""The REST verbs on resources: parse, call the store, serialize. The rules live in the store.

Each handler checks what the apiserver's handler checks, in its order, so a request with several
problems gets the same answer (``handlers/create.go``, ``update.go``, ``patch.go``, ``delete.go``,
``get.go``; orders in the research notes section 1): for example POST checks the content type
before the body size, PUT the body size before the content type.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fakeapi._http.applying import decode_apply_body, merge_applied, require_manager
from fakeapi._http.bodies import decode_object_body
from fakeapi._http.context import ServerState
from fakeapi._http.keys import ENTRY, PATCH_CONTEXT, STALE_REVISION
from fakeapi._http.negotiation import (
    APPLY_PATCH,
    PATCH_TYPES_BUILTIN,
    PATCH_TYPES_CUSTOM,
    Answer,
    body_media_type,
    negotiate_answer,
    request_media_type,
)
from fakeapi._http.options import WriteOptions, parse_delete_options, parse_list_options, parse_write_options
from fakeapi._http.patching import PatchContext, compute_patch
from fakeapi._http.requestinfo import RequestInfo
from fakeapi._http.responses import object_response, wants_pretty
from fakeapi._patching.godecode import decode
from fakeapi._patching.goscanner import GoSyntaxError
from fakeapi._state import selectors
from fakeapi._state.listing import field_values, paginate, supported_fields
from fakeapi._state.resources import ResourceType
from fakeapi._state.store import metadata_of, with_metadata
from fakeapi.errors import APIError, status_body

__all__ = [
    "MAX_REQUEST_BODY_BYTES",
    "handle_create",
    "handle_delete",
    "handle_delete_collection",
    "handle_get",
    "handle_list",
    "handle_patch",
    "handle_update",
    "read_body",
]

MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024
_PROTECTED_NAMESPACES = ("default", "kube-system", "kube-public")


async def read_body(request: web.Request) -> bytes:
    """The body, at most 3 MiB (``limitedReadBody``): 413 beyond."""
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_REQUEST_BODY_BYTES:
        chunk = await request.content.read(MAX_REQUEST_BODY_BYTES + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    body = b"".join(chunks)
    entry = request.get(ENTRY)
    if entry is not None:
        entry.body = body
    if len(body) > MAX_REQUEST_BODY_BYTES:
        raise APIError.too_large(f"limit is {MAX_REQUEST_BODY_BYTES}")
    return body


def served(rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """The object at the version the request asked for (CRD conversion ``None``: only apiVersion)."""
    if obj.get("apiVersion") == rtype.api_version:
        return obj
    return {**obj, "apiVersion": rtype.api_version}


def _kind_list(rtype: ResourceType) -> str:
    return rtype.list_kind


def _answer(request: web.Request) -> Answer:
    return negotiate_answer(request.headers.get("Accept"))


def _pretty(request: web.Request) -> bool:
    return wants_pretty(request.query, request.headers.get("User-Agent", ""))


def respond(
    request: web.Request,
    state: ServerState,
    rtype: ResourceType,
    obj: dict[str, Any],
    answer: Answer,
    *,
    status: int = 200,
    warnings: tuple[str, ...] | list[str] = (),
) -> web.Response:
    if answer.transform == "Table":
        from fakeapi._http.tables import table_for

        table = table_for(
            rtype,
            [obj],
            list_metadata={"resourceVersion": metadata_of(obj).get("resourceVersion", "")},
            include_object=request.query.get("includeObject", ""),
            now=state.clock.now(),
        )
        return object_response(
            table, status=status, media_type=answer.media_type, pretty=_pretty(request), warnings=warnings, ordered=True
        )
    if answer.transform == "PartialObjectMetadata":
        partial = {
            "kind": "PartialObjectMetadata",
            "apiVersion": f"meta.k8s.io/{answer.table_version}",
            "metadata": metadata_of(obj),
        }
        return object_response(
            partial, status=status, media_type=answer.media_type, pretty=_pretty(request), warnings=warnings
        )
    return object_response(
        served(rtype, obj), status=status, media_type=answer.media_type, pretty=_pretty(request), warnings=warnings
    )


# -- reads ------------------------------------------------------------------------------------------


async def handle_get(request: web.Request, state: ServerState, info: RequestInfo, rtype: ResourceType) -> web.Response:
    answer = _answer(request)
    obj = state.store.get(rtype, info.namespace if rtype.namespaced else "", info.name)
    stale = request.get(STALE_REVISION)
    if stale is not None:
        for version in reversed(state.store.history_of(rtype, info.namespace if rtype.namespaced else "", info.name)):
            if int(metadata_of(version).get("resourceVersion", "0")) <= stale:
                obj = version
                break
    return respond(request, state, rtype, obj, answer)


def _selector_filter(rtype: ResourceType, label_text: str, field_text: str) -> tuple[Any, bool]:
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


async def handle_list(request: web.Request, state: ServerState, info: RequestInfo, rtype: ResourceType) -> web.Response:
    answer = _answer(request)
    options = parse_list_options(request.query, watch=False)
    matches, selectors_empty = _selector_filter(rtype, options.label_selector, options.field_selector)
    if options.continue_token and options.resource_version not in ("", "0"):
        raise APIError.bad_request("specifying resource version is not allowed when using continue")
    namespace = info.namespace if rtype.namespaced and info.namespace else None
    objects = state.store.items(rtype, namespace)
    page = paginate(
        objects,
        matches,
        revision=state.store.revision,
        all_namespaces=rtype.namespaced and namespace is None,
        limit=options.limit,
        continue_token=options.continue_token or None,
        selectors_empty=selectors_empty,
    )
    list_meta: dict[str, Any] = {"resourceVersion": str(page.resource_version)}
    if page.continue_token or rtype.custom:
        list_meta["continue"] = page.continue_token
    if page.remaining is not None:
        list_meta["remainingItemCount"] = page.remaining
    if answer.transform == "Table":
        from fakeapi._http.tables import table_for

        table = table_for(
            rtype,
            [served(rtype, item) for item in page.items],
            list_metadata=list_meta,
            include_object=request.query.get("includeObject", ""),
            now=state.clock.now(),
        )
        return object_response(table, media_type=answer.media_type, pretty=_pretty(request), ordered=True)
    if answer.transform == "PartialObjectMetadataList":
        items = [
            {
                "kind": "PartialObjectMetadata",
                "apiVersion": f"meta.k8s.io/{answer.table_version}",
                "metadata": metadata_of(o),
            }
            for o in page.items
        ]
        body = {
            "kind": "PartialObjectMetadataList",
            "apiVersion": f"meta.k8s.io/{answer.table_version}",
            "metadata": list_meta,
            "items": items,
        }
        return object_response(body, media_type=answer.media_type, pretty=_pretty(request))
    if answer.transform == "PartialObjectMetadata":
        raise APIError.not_acceptable(("application/json", "application/yaml", "application/vnd.kubernetes.protobuf"))
    if not rtype.custom:
        items = [{k: v for k, v in item.items() if k not in ("apiVersion", "kind")} for item in page.items]
        body = {"kind": _kind_list(rtype), "apiVersion": rtype.api_version, "metadata": list_meta, "items": items}
        return object_response(body, media_type=answer.media_type, pretty=_pretty(request))
    items = [served(rtype, item) for item in page.items]
    body = {"apiVersion": rtype.api_version, "items": items, "kind": _kind_list(rtype), "metadata": list_meta}
    return object_response(body, media_type=answer.media_type, pretty=_pretty(request))


# -- writes -----------------------------------------------------------------------------------------


def _check_body_namespace(rtype: ResourceType, info: RequestInfo, obj: dict[str, Any]) -> dict[str, Any]:
    """``EnsureObjectNamespaceMatchesRequestNamespace``."""
    body_namespace = metadata_of(obj).get("namespace") or ""
    if not rtype.namespaced:
        return with_metadata(obj, namespace=None) if body_namespace else obj
    if not body_namespace:
        return with_metadata(obj, namespace=info.namespace)
    if body_namespace != info.namespace:
        raise APIError.bad_request(
            "the namespace of the provided object does not match the namespace sent on the request"
        )
    return obj


def _check_api_version(rtype: ResourceType, obj: dict[str, Any]) -> None:
    api_version = obj.get("apiVersion") or ""
    group = api_version.split("/")[0] if "/" in api_version else ""
    if group != rtype.group or not api_version:
        raise APIError.bad_request(
            f"the API version in the data ({api_version}) does not match the expected API version ({rtype.api_version})"
        )


async def handle_create(
    request: web.Request, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer = _answer(request)
    media_type = body_media_type(request.headers.get("Content-Type"))
    body = await read_body(request)
    options = parse_write_options("CreateOptions", request.query, request.headers.get("User-Agent", ""))
    decoded = decode_object_body(rtype, body, media_type, options.field_validation)
    _check_api_version(rtype, decoded.obj)
    obj = _check_body_namespace(rtype, info, decoded.obj)
    obj = {
        **obj,
        "apiVersion": (rtype.storage_version and f"{rtype.group}/{rtype.storage_version}") or rtype.api_version,
    }
    if rtype.kind == "SelfSubjectAccessReview":
        review = {**obj, "status": {"allowed": True}}
        review = with_metadata(review, creationTimestamp=None)
        return respond(request, state, rtype, review, answer, status=201)
    committed = state.store.create(
        rtype, info.namespace if rtype.namespaced else "", obj, dry_run=options.dry_run, manager=options.manager
    )
    return respond(
        request,
        state,
        rtype,
        committed.object,
        answer,
        status=201,
        warnings=decoded.warnings + list(committed.warnings),
    )


def _check_name(info: RequestInfo, obj: dict[str, Any]) -> None:
    name = metadata_of(obj).get("name") or ""
    if not name:
        raise APIError.bad_request(
            f"the name of the object ({info.name} based on URL) was undeterminable: name must be provided"
        )
    if name != info.name:
        raise APIError.bad_request(f"the name of the object ({name}) does not match the name on the URL ({info.name})")


async def handle_update(
    request: web.Request, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer = _answer(request)
    body = await read_body(request)
    options = parse_write_options("UpdateOptions", request.query, request.headers.get("User-Agent", ""))
    media_type = body_media_type(request.headers.get("Content-Type"))
    decoded = decode_object_body(rtype, body, media_type, options.field_validation)
    _check_api_version(rtype, decoded.obj)
    obj = _check_body_namespace(rtype, info, decoded.obj)
    _check_name(info, obj)
    obj = {
        **obj,
        "apiVersion": (rtype.storage_version and f"{rtype.group}/{rtype.storage_version}") or rtype.api_version,
    }
    uid = metadata_of(obj).get("uid")

    def compute(current: dict[str, Any]) -> dict[str, Any]:
        current_uid = metadata_of(current).get("uid")
        if uid and uid != current_uid:
            raise APIError.conflict(
                rtype.group_resource,
                info.name,
                f"StorageError: invalid object, Code: 4, Key: {_storage_key(rtype, info)}, ResourceVersion: 0, "
                f"AdditionalErrorMsg: Precondition failed: UID in precondition: {uid}, UID in object meta: {current_uid}",
            )
        return obj

    namespace = info.namespace if rtype.namespaced else ""
    committed = state.store.update(
        rtype,
        namespace,
        info.name,
        compute,
        subresource=info.subresource,
        dry_run=options.dry_run,
        manager=options.manager,
    )
    return respond(
        request, state, rtype, committed.object, answer, warnings=decoded.warnings + list(committed.warnings)
    )


def _storage_key(rtype: ResourceType, info: RequestInfo) -> str:
    prefix = f"/registry/{rtype.group}/{rtype.plural}" if rtype.group else f"/registry/{rtype.plural}"
    return f"{prefix}/{info.namespace}/{info.name}" if rtype.namespaced else f"{prefix}/{info.name}"


async def handle_patch(
    request: web.Request, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    accepted = PATCH_TYPES_CUSTOM if rtype.custom else PATCH_TYPES_BUILTIN
    media_type = request_media_type(request.headers.get("Content-Type"))
    if media_type not in accepted:
        raise APIError.unsupported_media_type(accepted)
    answer = _answer(request)
    body = await read_body(request)
    options = parse_write_options("PatchOptions", request.query, request.headers.get("User-Agent", ""))
    if media_type == APPLY_PATCH:
        return await _server_side_apply(request, state, info, rtype, answer, body, options)
    context = PatchContext(lambda document: state.store.encoding_of(rtype, document))
    request[PATCH_CONTEXT] = context
    compute_new = compute_patch(rtype, media_type, body, options, context)
    namespace = info.namespace if rtype.namespaced else ""

    def compute(current: dict[str, Any]) -> dict[str, Any]:
        new = compute_new(served(rtype, current))
        new_namespace = metadata_of(new).get("namespace") or ""
        if rtype.namespaced and new_namespace != namespace:
            raise APIError.bad_request(
                "the namespace of the provided object does not match the namespace sent on the request"
            )
        _check_name(info, new)
        return {**new, "apiVersion": current.get("apiVersion")} if new.get("apiVersion") == rtype.api_version else new

    committed = state.store.update(
        rtype,
        namespace,
        info.name,
        compute,
        subresource=info.subresource,
        dry_run=options.dry_run,
        manager=options.manager,
        unconditional=False,
    )
    return respond(
        request, state, rtype, committed.object, answer, warnings=context.warnings + list(committed.warnings)
    )


async def _server_side_apply(
    request: web.Request,
    state: ServerState,
    info: RequestInfo,
    rtype: ResourceType,
    answer: Answer,
    body: bytes,
    options: WriteOptions,
) -> web.Response:
    manager = require_manager(request.query.get("fieldManager"))
    applied = decode_apply_body(body)
    _check_api_version(rtype, applied)
    applied = _check_body_namespace(rtype, info, applied)
    _check_name(info, applied)
    namespace = info.namespace if rtype.namespaced else ""
    if state.store.find(rtype, namespace, info.name) is None:
        committed = state.store.create(
            rtype, namespace, applied, dry_run=options.dry_run, manager=manager, operation="Apply"
        )
        return respond(request, state, rtype, committed.object, answer, status=201, warnings=list(committed.warnings))

    def compute(current: dict[str, Any]) -> dict[str, Any]:
        return merge_applied(rtype, current, applied, manager=manager, force=options.force, now=state.clock.timestamp())

    committed = state.store.update(
        rtype,
        namespace,
        info.name,
        compute,
        subresource=info.subresource,
        dry_run=options.dry_run,
        manager=manager,
        unconditional=True,
        track_fields=False,
    )
    return respond(request, state, rtype, committed.object, answer, warnings=list(committed.warnings))


# -- deletes ----------------------------------------------------------------------------------------


async def _delete_body(request: web.Request) -> dict[str, Any] | None:
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
    request: web.Request, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer = _answer(request)
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
        return object_response(_deleted_status(rtype, committed.object), pretty=_pretty(request), ordered=True)
    status = 202 if not committed.deleted and options.orphan_dependents is False else 200
    return respond(request, state, rtype, committed.object, answer, status=status)


async def handle_delete_collection(
    request: web.Request, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer = _answer(request)
    delete_options = parse_delete_options(request.query, await _delete_body(request))
    list_options = parse_list_options(request.query, watch=False)
    matches, _ = _selector_filter(rtype, list_options.label_selector, list_options.field_selector)
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
        body = {"apiVersion": rtype.api_version, "items": deleted, "kind": _kind_list(rtype), "metadata": list_meta}
    else:
        items = [{k: v for k, v in item.items() if k not in ("apiVersion", "kind")} for item in deleted]
        body = {"kind": _kind_list(rtype), "apiVersion": rtype.api_version, "metadata": list_meta, "items": items}
    return object_response(body, media_type=answer.media_type, pretty=_pretty(request))
