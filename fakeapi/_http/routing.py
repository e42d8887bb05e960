"""Routing as the apiserver's handler chain routes: a request to its handler, or the answer for none.

A path inside a built-in group-version that names no resource, or a method that resource does not
take, gets the JSON Status the go-restful container writes (404 ``the server could not find the
requested resource``, 405 ``the server does not allow this method on the requested resource``);
anything else nobody claims (unknown groups, versions, custom resources, non-API paths) falls
through to Go's plain-text ``404 page not found``. Non-resource paths (version,
health (health.py), discovery, OpenAPI, OpenID) are answered here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from fakeapi._http import discovery, openapi_serving
from fakeapi._http.actions import (
    handle_binding,
    handle_connect,
    handle_eviction,
    handle_log,
    handle_proxy,
    handle_review,
    handle_token,
)
from fakeapi._http.aggregated import aggregated_version, discovery_response
from fakeapi._http.component_statuses import handle_component_status, handle_component_statuses
from fakeapi._http.context import ServerState
from fakeapi._http.deletes import handle_delete, handle_delete_collection
from fakeapi._http.health import health_response
from fakeapi._http.keys import DEPRECATION, INFO
from fakeapi._http.openid import JWKS_PATH, OPENID_CONFIGURATION_PATH, openid_response
from fakeapi._http.reads import handle_get, handle_list
from fakeapi._http.requestinfo import RequestInfo
from fakeapi._http.responses import object_response, wants_pretty
from fakeapi._http.scale import handle_scale
from fakeapi._http.watches import handle_watch
from fakeapi._http.writes import handle_create, handle_patch, handle_update
from fakeapi._state.releases import kube_release
from fakeapi._state.resources import ResourceType
from fakeapi._state.reviews import ReviewStrategy
from fakeapi.errors import APIError

__all__ = ["dispatch"]

Handler = Callable[[web.BaseRequest, ServerState, RequestInfo, ResourceType], Awaitable[web.StreamResponse]]


def _plain_not_found() -> web.Response:
    response = web.Response(status=404, text="404 page not found\n", content_type="text/plain")
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def _route_not_found() -> APIError:
    return APIError.generic(404, "NotFound", "the server could not find the requested resource")


def _method_not_allowed() -> APIError:
    return APIError.generic(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")


async def _non_resource(request: web.BaseRequest, state: ServerState, info: RequestInfo) -> web.StreamResponse | None:
    health = health_response(request)
    if health is not None:
        return health
    path = request.path.rstrip("/") or "/"
    registry = state.store.registry
    release = kube_release(registry.kube_version)
    if path == "/version":
        return web.Response(body=discovery.version_info(release), content_type="application/json")
    if path in (OPENID_CONFIGURATION_PATH, JWKS_PATH) and request.method == "GET":
        return openid_response(state, path)
    pretty = wants_pretty(request.query, request.headers.get("User-Agent", ""))
    if path in ("/api", "/apis"):
        aggregated = aggregated_version(request.headers.get("Accept"), release)
        if aggregated is not None:
            return discovery_response(
                registry, core=path == "/api", version=aggregated, if_none_match=request.headers.get("If-None-Match")
            )
    if path == "/api":
        return object_response(discovery.api_versions(state.server_address), pretty=pretty, ordered=True)
    if path == "/apis":
        return object_response(discovery.api_group_list(registry), pretty=pretty, ordered=True)
    if path == "/openapi/v3":
        return openapi_serving.serve_v3_index(registry)
    if path.startswith("/openapi/v3/"):
        return openapi_serving.serve_v3_document(request, registry, path[len("/openapi/v3/") :])
    if path == "/openapi/v2":
        return openapi_serving.serve_v2(request, registry)
    parts = path.strip("/").split("/")
    if parts[0] == "api" and len(parts) == 2:
        listing = discovery.api_resource_list(registry, "", parts[1])
        return object_response(listing, pretty=pretty, ordered=True) if listing else _plain_not_found()
    if parts[0] == "apis" and len(parts) == 2:
        api_group = discovery.api_group(registry, parts[1])
        return object_response(api_group, pretty=pretty, ordered=True) if api_group else _plain_not_found()
    if parts[0] == "apis" and len(parts) == 3:
        listing = discovery.api_resource_list(registry, parts[1], parts[2])
        return object_response(listing, pretty=pretty, ordered=True) if listing else _plain_not_found()
    return None


def _resolve_handler(info: RequestInfo, rtype: ResourceType) -> Handler:
    """The handler for a verb, or the error the apiserver answers for a verb it does not route."""
    verb = info.verb
    if info.subresource:
        return _subresource_handler(info, rtype)
    if verb in ("update", "patch") and not info.name:
        if rtype.custom:
            raise APIError.bad_request("name must be provided")
        raise _method_not_allowed()
    if verb == "create" and info.name and not rtype.custom:
        raise _method_not_allowed()
    allowed = set(rtype.verbs)
    if verb == "create" and isinstance(rtype.strategy, ReviewStrategy):
        return handle_review
    if verb == "create" and rtype.kind == "Binding" and not rtype.group:
        return handle_binding
    if verb not in allowed:
        if rtype.custom:
            raise APIError.method_not_supported(rtype.group_resource, verb)
        raise _method_not_allowed()
    if rtype.kind == "ComponentStatus" and not rtype.group:
        return handle_component_status if verb == "get" else handle_component_statuses
    return {
        "get": handle_get,
        "list": handle_list,
        "watch": handle_watch,
        "create": handle_create,
        "update": handle_update,
        "patch": handle_patch,
        "delete": handle_delete,
        "deletecollection": handle_delete_collection,
    }[verb]


_READ_WRITE: dict[str, Handler] = {"get": handle_get, "update": handle_update, "patch": handle_patch}
_CONNECT: dict[str, Handler] = {"get": handle_connect, "create": handle_connect}
# What each subresource routes, by verb; only those a resource's descriptor declares are reachable.
_SUBRESOURCE_HANDLERS: dict[str, dict[str, Handler]] = {
    "status": _READ_WRITE,
    "ephemeralcontainers": _READ_WRITE,
    "approval": _READ_WRITE,
    "scale": {"get": handle_scale, "update": handle_scale, "patch": handle_scale},
    "finalize": {"update": handle_update},
    "token": {"create": handle_token},
    "binding": {"create": handle_binding},
    "eviction": {"create": handle_eviction},
    "log": {"get": handle_log},
    "exec": _CONNECT,
    "attach": _CONNECT,
    "portforward": _CONNECT,
    "proxy": {verb: handle_proxy for verb in ("get", "create", "update", "patch", "delete")},
}


def _subresource_handler(info: RequestInfo, rtype: ResourceType) -> Handler:
    subresource = info.subresource
    if subresource in rtype.subresources and subresource in _SUBRESOURCE_HANDLERS:
        handlers = _SUBRESOURCE_HANDLERS[subresource]
    elif rtype.custom:
        raise APIError.not_found(rtype.group_resource, info.name)
    else:
        raise _route_not_found()  # go-restful has no route for it
    verb = info.verb
    if not info.name and not rtype.custom:
        # ``pods//status``: RequestInfo calls a nameless GET a list, but the route is the named one
        # and its handler refuses the empty name.
        verb = {"list": "get", "watch": "get", "deletecollection": "delete"}.get(verb, verb)
    if verb not in handlers:
        if rtype.custom:
            raise APIError.method_not_supported(rtype.group_resource, info.verb)
        raise _method_not_allowed()
    if not info.name:
        raise APIError.bad_request("name must be provided")
    return handlers[verb]


def _check_route_shape(info: RequestInfo) -> None:
    """Refuse a path go-restful has no route for: more segments than any route of the resource.

    A built-in resource's routes end at ``{resource}/{name}/{subresource}`` (``{resource}/{name}``
    under the ``watch/`` prefix); only ``proxy`` takes any path after it. A parameter matches an
    empty segment, so ``pods//status`` is routed and its empty name refused by the handler.
    """
    longest = 2 if info.legacy_watch else 3
    if len(info.parts) > longest and info.subresource != "proxy":
        raise _route_not_found()


async def dispatch(request: web.BaseRequest, state: ServerState) -> web.StreamResponse:
    info = request[INFO]
    non_resource = await _non_resource(request, state, info) if not info.is_resource_request else None
    if non_resource is not None:
        return non_resource
    if not info.is_resource_request:
        return _plain_not_found()
    builtin_group_version = (info.group, info.version) in state.store.registry.builtin_group_versions
    rtype = state.store.registry.resolve(info.group, info.version, info.resource)
    if rtype is None:
        if builtin_group_version:
            raise _route_not_found()
        return _plain_not_found()
    if not rtype.custom:
        _check_route_shape(info)
    has_namespace = bool(info.namespace) and not (rtype.kind == "Namespace" and info.resource == "namespaces")
    if rtype.namespaced and info.namespace_segment and not has_namespace and info.name:
        # go-restful matched ``namespaces/{namespace}`` with an empty namespace; the store's key
        # function refuses it (docs/routing.md).
        raise APIError.bad_request("Namespace parameter required.")
    if rtype.namespaced and not has_namespace and info.verb not in ("list", "watch"):
        if rtype.custom:
            return _plain_not_found()
        raise (
            _method_not_allowed()
            if not info.name and info.verb in ("create", "deletecollection")
            else _route_not_found()
        )
    if not rtype.namespaced and has_namespace:
        if rtype.custom:
            return _plain_not_found()
        raise _route_not_found()
    handler = _resolve_handler(info, rtype)
    deprecation = None if info.subresource else rtype.deprecation(kube_release(state.store.registry.kube_version).minor)
    if deprecation is not None:
        request[DEPRECATION] = deprecation
    return await handler(request, state, info, rtype)
