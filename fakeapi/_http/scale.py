"""The ``/scale`` subresource: an ``autoscaling/v1`` Scale view of a replica count.

For Deployments the replicas live at ``spec.replicas``/``status.replicas`` and the selector is
``spec.selector``; for a custom resource the CRD names the paths (``subresources.scale``). GET
answers the Scale; PUT and PATCH change the Scale and write its ``spec.replicas`` back to the
object, with the object's resourceVersion as the Scale's.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fakeapi._http.admitting import SubresourceView, admission_warnings, admitted_update
from fakeapi._http.answers import answer_for, read_body, respond
from fakeapi._http.context import ServerState
from fakeapi._http.converting import converted_for_answer
from fakeapi._http.negotiation import PATCH_TYPES_BUILTIN, patch_media_type
from fakeapi._http.options import parse_write_options
from fakeapi._http.patching import PatchContext, compute_patch
from fakeapi._http.requestinfo import RequestInfo
from fakeapi._patching.godecode import decode
from fakeapi._patching.goscanner import GoSyntaxError
from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType
from fakeapi.errors import APIError

__all__ = ["handle_scale"]

SCALE_TYPE = ResourceType(
    group="autoscaling",
    version="v1",
    plural="scale",
    singular="scale",
    kind="Scale",
    namespaced=True,
)


def _get_path(obj: Any, path: str) -> Any:
    for part in path.split(".") if path else []:
        obj = obj.get(part) if isinstance(obj, dict) else None
    return obj


def _set_path(obj: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    head, _, rest = path.partition(".")
    existing = obj.get(head)
    child: dict[str, Any] = existing if isinstance(existing, dict) else {}
    return {**obj, head: _set_path(child, rest, value) if rest else value}


def _selector(rtype: ResourceType, obj: dict[str, Any]) -> str:
    if rtype.custom:
        value = _get_path(obj, rtype.scale_paths[2]) if rtype.scale_paths[2] else None
        return value if isinstance(value, str) else ""
    match_labels = ((obj.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    return ",".join(f"{key}={match_labels[key]}" for key in sorted(match_labels))


def scale_of(rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    meta = metadata_of(obj)
    spec_path, status_path, _ = rtype.scale_paths
    status: dict[str, Any] = {"replicas": _get_path(obj, status_path) or 0}
    selector = _selector(rtype, obj)
    if selector:
        status["selector"] = selector
    scale_meta = {
        key: meta[key] for key in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp") if key in meta
    }
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": scale_meta,
        "spec": {"replicas": _get_path(obj, spec_path) or 0},
        "status": status,
    }


async def handle_scale(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    namespace = info.namespace if rtype.namespaced else ""
    if info.verb == "get":
        answer = answer_for(request)
        current = await converted_for_answer(state, rtype, state.store.get(rtype, namespace, info.name))
        return respond(request, state, SCALE_TYPE, scale_of(rtype, current), answer)
    media_type = patch_media_type(request.headers.get("Content-Type"))
    if info.verb == "patch" and media_type not in PATCH_TYPES_BUILTIN[:3]:
        raise APIError.unsupported_media_type(PATCH_TYPES_BUILTIN)
    answer = answer_for(request)
    body = await read_body(request)
    kind = "PatchOptions" if info.verb == "patch" else "UpdateOptions"
    options = parse_write_options(kind, request.query, request.headers.get("User-Agent", ""))
    context = PatchContext(state.store.registry.structs)
    if info.verb == "patch":
        compute_scale = compute_patch(SCALE_TYPE, media_type, body, options, context)
    else:
        try:
            replacement = decode(body)
        except GoSyntaxError as error:
            raise APIError.bad_request(str(error)) from None

        def compute_scale(current: dict[str, Any]) -> Any:
            return replacement

    spec_path = rtype.scale_paths[0]

    def written(current: dict[str, Any], new_scale: dict[str, Any]) -> dict[str, Any]:
        replicas = (new_scale.get("spec") or {}).get("replicas", 0) if isinstance(new_scale, dict) else 0
        updated = _set_path(current, spec_path, replicas)
        revision = metadata_of(new_scale).get("resourceVersion") if isinstance(new_scale, dict) else None
        metadata = dict(metadata_of(updated))
        if revision:
            metadata["resourceVersion"] = revision
        return {**updated, "metadata": metadata}

    def compute(current_scale: dict[str, Any]) -> dict[str, Any]:
        new_scale = compute_scale(current_scale)
        return new_scale if isinstance(new_scale, dict) else {}

    view = SubresourceView(("autoscaling", "v1", "Scale"), lambda obj: scale_of(rtype, obj), written)
    committed = await admitted_update(
        request,
        state,
        rtype,
        info,
        compute,
        dry_run=options.dry_run,
        manager=options.manager,
        unconditional=True,
        view=view,
    )
    warnings = context.warnings + admission_warnings(request)
    return respond(request, state, SCALE_TYPE, scale_of(rtype, committed.object), answer, warnings=warnings)
