"""POST, PUT and PATCH of one object, checked in the apiserver's order (``create.go``, ``update.go``, ``patch.go``).

POST checks the content type before the body size, PUT the body size before the content type;
the body's apiVersion, namespace and name must match the URL; PATCH runs inside the store's update
so the patch sees the object being replaced; server-side apply goes through :mod:`.applying`.
Every write passes the admission chain (:mod:`.admitting`).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fakeapi._http.admitting import admission_warnings, admitted_create, admitted_update
from fakeapi._http.answers import answer_for, read_body, respond, served
from fakeapi._http.applying import check_applied_type, decode_apply_body, require_manager
from fakeapi._http.bodies import decode_object_body
from fakeapi._http.context import ServerState
from fakeapi._http.converting import storage_api_version, writes_convert
from fakeapi._http.keys import PATCH_CONTEXT
from fakeapi._http.negotiation import (
    APPLY_PATCH,
    PATCH_TYPES_BUILTIN,
    PATCH_TYPES_CUSTOM,
    Answer,
    body_media_type,
    patch_media_type,
)
from fakeapi._http.options import WriteOptions, parse_write_options
from fakeapi._http.patching import PatchContext, compute_patch
from fakeapi._http.requestinfo import RequestInfo
from fakeapi._http.slicing import in_slices
from fakeapi._state import field_ownership
from fakeapi._state.objects import metadata_of, with_metadata
from fakeapi._state.resources import ResourceType
from fakeapi._state.strategy import strategy_of
from fakeapi.errors import APIError

__all__ = ["handle_create", "handle_patch", "handle_update"]


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


def _check_api_version(rtype: ResourceType, obj: dict[str, Any], *, exact: bool = False) -> None:
    """``AcceptsGroupVersion``. A custom resource's body is decoded without conversion (the CRD
    handler's decoder copies unstructured objects), so it must be at the URL's version
    (docs/conversion.md). An apply is checked by :func:`check_applied_type` instead."""
    api_version = obj.get("apiVersion") or ""
    group = api_version.split("/")[0] if "/" in api_version else ""
    if group != rtype.group or not api_version or (exact and api_version != rtype.api_version):
        raise APIError.bad_request(
            f"the API version in the data ({api_version}) does not match the expected API version ({rtype.api_version})"
        )


async def handle_create(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer = answer_for(request)
    media_type = body_media_type(request.headers.get("Content-Type"))
    body = await read_body(request)
    options = parse_write_options("CreateOptions", request.query, request.headers.get("User-Agent", ""))
    structs = state.store.registry.structs
    decoded = await in_slices(len(body), decode_object_body, rtype, body, media_type, options.field_validation, structs)
    # The decoder's warnings are recorded as it finds them, so a refusal after it carries them too.
    admission_warnings(request).extend(decoded.warnings)
    _check_api_version(rtype, decoded.obj, exact=rtype.custom)
    obj = _check_body_namespace(rtype, info, decoded.obj)
    # A write stored at another version is computed at the request's (docs/conversion.md).
    obj = {**obj, "apiVersion": rtype.api_version if writes_convert(rtype) else storage_api_version(rtype)}
    committed = await admitted_create(
        request, state, rtype, info, obj, dry_run=options.dry_run, manager=options.manager
    )
    return respond(
        request,
        state,
        rtype,
        committed.object,
        answer,
        status=201,
        warnings=admission_warnings(request) + list(committed.warnings),
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
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer = answer_for(request)
    body = await read_body(request)
    options = parse_write_options("UpdateOptions", request.query, request.headers.get("User-Agent", ""))
    media_type = body_media_type(request.headers.get("Content-Type"))
    structs = state.store.registry.structs
    decoded = await in_slices(len(body), decode_object_body, rtype, body, media_type, options.field_validation, structs)
    # The decoder's warnings are recorded as it finds them, so a refusal after it carries them too.
    admission_warnings(request).extend(decoded.warnings)
    _check_api_version(rtype, decoded.obj, exact=rtype.custom)
    obj = _check_body_namespace(rtype, info, decoded.obj)
    _check_name(info, obj)
    obj = {**obj, "apiVersion": rtype.api_version if writes_convert(rtype) else storage_api_version(rtype)}
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

    committed = await admitted_update(
        request, state, rtype, info, compute, dry_run=options.dry_run, manager=options.manager
    )
    return respond(
        request,
        state,
        rtype,
        committed.object,
        answer,
        warnings=admission_warnings(request) + list(committed.warnings),
    )


def _storage_key(rtype: ResourceType, info: RequestInfo) -> str:
    group = rtype.storage_key[0]  # events.k8s.io Events are kept under the core group's key
    prefix = f"/registry/{group}/{rtype.plural}" if group else f"/registry/{rtype.plural}"
    return f"{prefix}/{info.namespace}/{info.name}" if rtype.namespaced else f"{prefix}/{info.name}"


async def handle_patch(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    accepted = PATCH_TYPES_CUSTOM if rtype.custom else PATCH_TYPES_BUILTIN
    media_type = patch_media_type(request.headers.get("Content-Type"))
    if media_type not in accepted:
        raise APIError.unsupported_media_type(accepted)
    answer = answer_for(request)
    body = await read_body(request)
    options = parse_write_options("PatchOptions", request.query, request.headers.get("User-Agent", ""))
    if media_type == APPLY_PATCH:
        return await _server_side_apply(request, state, info, rtype, answer, body, options)
    context = PatchContext(state.store.registry.structs, lambda document: state.store.encoding_of(rtype, document))
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

    committed = await admitted_update(
        request, state, rtype, info, compute, dry_run=options.dry_run, manager=options.manager
    )
    return respond(
        request,
        state,
        rtype,
        committed.object,
        answer,
        warnings=context.warnings + admission_warnings(request) + list(committed.warnings),
    )


async def _server_side_apply(
    request: web.BaseRequest,
    state: ServerState,
    info: RequestInfo,
    rtype: ResourceType,
    answer: Answer,
    body: bytes,
    options: WriteOptions,
) -> web.Response:
    manager = require_manager(request.query.get("fieldManager"))
    sent = await in_slices(len(body), decode_apply_body, body)
    check_applied_type(sent, group=rtype.group, version=rtype.version, kind=rtype.kind)
    field_ownership.check_applied(
        sent, field_ownership.kind_atom(rtype), group=rtype.group, version=rtype.version, kind=rtype.kind
    )
    applied = _check_body_namespace(rtype, info, sent)
    _check_name(info, applied)
    namespace = info.namespace if rtype.namespaced else ""
    if state.store.find(rtype, namespace, info.name) is None:
        created = {**applied, "apiVersion": rtype.api_version} if writes_convert(rtype) else applied
        created = field_ownership.with_last_applied(created, sent, manager)
        committed = await admitted_create(
            request, state, rtype, info, created, dry_run=options.dry_run, manager=manager, applied=applied
        )
        warnings = admission_warnings(request) + list(committed.warnings)
        return respond(request, state, rtype, committed.object, answer, status=201, warnings=warnings)

    def compute(current: dict[str, Any]) -> dict[str, Any]:
        merged = field_ownership.merge_applied(
            current,
            applied,
            atom=field_ownership.kind_atom(rtype),
            manager=manager,
            api_version=rtype.api_version,
            force=options.force,
            now=state.clock.timestamp(),
            status_is_subresource="status" in rtype.subresources,
            renaming=strategy_of(rtype).field_renaming(rtype),
        )
        return field_ownership.with_last_applied(merged, sent, manager)

    committed = await admitted_update(
        request,
        state,
        rtype,
        info,
        compute,
        dry_run=options.dry_run,
        manager=manager,
        unconditional=True,
        track_fields=False,
    )
    warnings = admission_warnings(request) + list(committed.warnings)
    return respond(request, state, rtype, committed.object, answer, warnings=warnings)
