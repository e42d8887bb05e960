"""The aiohttp server: routing as the apiserver's handler chain routes, and the journal.

A path inside a built-in group-version that names no resource, or a method that resource does not
take, gets the JSON Status the go-restful container writes (404 ``the server could not find the
requested resource``, 405 ``the server does not allow this method on the requested resource``);
anything else nobody claims (unknown groups, versions, custom resources, non-API paths) falls
through to Go's plain-text ``404 page not found`` (research notes section 6). Every request is
journaled with its answer; an unexpected exception is a 500 Status and is remembered, so the
pytest plugin can fail the test that caused it.

Every path goes to one handler, so this is aiohttp's low-level server, without an application's
router and middleware chain: on uvloop here, a bare application answered in 160 µs of CPU per
request, the bare low-level server in 111 µs. What the application did besides,
:func:`_expect_continue` does: Go's server answers ``Expect: 100-continue`` with an interim
``100 Continue`` and any other expectation with 417.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from collections.abc import Awaitable, Callable

from aiohttp import HttpVersion11, web

from fakeapi._http import discovery
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
from fakeapi._http.authentication import USER, User, request_attributes
from fakeapi._http.connections import GoServer
from fakeapi._http.context import GateRequest, ServerState
from fakeapi._http.deletes import handle_delete, handle_delete_collection
from fakeapi._http.impersonation import ImpersonationError, impersonate
from fakeapi._http.keys import DEPRECATION, ENTRY, INFO, JOURNAL, PATCH_CONTEXT, STALE_REVISION, STREAM, VALVE
from fakeapi._http.openid import JWKS_PATH, OPENID_CONFIGURATION_PATH, openid_response
from fakeapi._http.patching import PANIC_MESSAGE, ApiserverPanic
from fakeapi._http.reads import handle_get, handle_list
from fakeapi._http.requestinfo import RequestInfo, parse_request_info
from fakeapi._http.responses import error_response, object_response, wants_pretty, warn_first
from fakeapi._http.scale import handle_scale
from fakeapi._http.watches import handle_watch
from fakeapi._http.writes import handle_create, handle_patch, handle_update
from fakeapi._patching.lazynode import deep_recursion
from fakeapi._state.authorization import forbidden_error
from fakeapi._state.journal import JournalEntry
from fakeapi._state.releases import kube_release
from fakeapi._state.requesters import Requester, acting_for
from fakeapi._state.resources import ResourceType
from fakeapi._state.reviews import ReviewStrategy
from fakeapi._state.store import track_writes
from fakeapi.errors import APIError

__all__ = ["build_server"]

_HEALTH_PATHS = ("/healthz", "/livez", "/readyz")

Handler = Callable[[web.BaseRequest, ServerState, RequestInfo, ResourceType], Awaitable[web.StreamResponse]]


def _client_certificate(request: web.BaseRequest, state: ServerState) -> bytes | None:
    """The DER of the client certificate the TLS layer verified, if the client sent one."""
    if state.server_scheme != "https" or request.transport is None:
        return None
    connection = request.transport.get_extra_info("ssl_object")
    der = connection.getpeercert(binary_form=True) if connection is not None else None
    return der if isinstance(der, bytes) else None


def _plain_error(status: int, text: str) -> web.Response:
    """What Go's ``http.Error`` writes."""
    response = web.Response(status=status, text=text, content_type="text/plain", charset="utf-8")
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def _plain_not_found() -> web.Response:
    response = web.Response(status=404, text="404 page not found\n", content_type="text/plain")
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def _route_not_found() -> APIError:
    return APIError.generic(404, "NotFound", "the server could not find the requested resource")


def _method_not_allowed() -> APIError:
    return APIError.generic(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")


async def _non_resource(request: web.BaseRequest, state: ServerState, info: RequestInfo) -> web.StreamResponse | None:
    path = request.path.rstrip("/") or "/"
    registry = state.store.registry
    release = kube_release(registry.kube_version)
    if path == "/version":
        return web.Response(body=discovery.version_info(release), content_type="application/json")
    if path in _HEALTH_PATHS:
        return web.Response(text="ok", content_type="text/plain")
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
        return object_response(discovery.openapi_v3_index(registry), pretty=pretty)
    if path.startswith("/openapi/v3/"):
        key = path[len("/openapi/v3/") :].split("/")
        group, version = (
            ("", key[1]) if key[0] == "api" and len(key) == 2 else (key[1], key[2]) if len(key) == 3 else ("", "")
        )
        document = discovery.openapi_v3_document(registry, group, version) if version else None
        return object_response(document, pretty=pretty) if document is not None else _plain_not_found()
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
    if info.verb not in handlers:
        if rtype.custom:
            raise APIError.method_not_supported(rtype.group_resource, info.verb)
        raise _method_not_allowed()
    return handlers[info.verb]


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
    has_namespace = bool(info.namespace) and not (rtype.kind == "Namespace" and info.resource == "namespaces")
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


async def journaled(request: web.BaseRequest, state: ServerState) -> web.StreamResponse:
    """Answer one request and journal it with its answer, faults and writes."""
    info = parse_request_info(request.method, request.path, request.query)
    request[INFO] = info
    user: User | None = None
    refused: APIError | None = None
    internal: str | None = None
    try:
        user = state.authentication.authenticate(
            request.headers, info, request.path, request.method, request.query, _client_certificate(request, state)
        )
        user = impersonate(request.headers, user, state.authorization.decide)
    except APIError as refusal:
        refused = refusal
    except ImpersonationError as impersonation_error:
        internal = impersonation_error.text(request.path_qs)
    else:
        request[USER] = user
    entry = state.journal.begin(
        method=request.method,
        path=request.path,
        query=request.query_string,
        actor=None if user is None else user.actor_name,
        user_agent=request.headers.get("User-Agent", ""),
        content_type=request.headers.get("Content-Type", ""),
        body=b"",
        verb=info.verb,
        group=info.group,
        version=info.version,
        resource=info.resource,
        subresource=info.subresource,
        namespace=info.namespace,
        name=info.name,
        user="" if user is None else user.name,
        groups=() if user is None else user.groups,
    )
    request[ENTRY] = entry
    request[JOURNAL] = state.journal
    started = time.perf_counter()
    pretty = wants_pretty(request.query, request.headers.get("User-Agent", ""))
    if refused is not None:
        return _finish(entry, error_response(refused, pretty=pretty), state)
    if internal is not None:
        return _finish(entry, _plain_error(500, internal), state)
    drop_response = False
    after_run: Callable[[], None] | None = None
    if state.gate is not None and info.is_resource_request:
        decision = await state.gate(
            GateRequest(
                actor=entry.actor,
                method=request.method,
                path=request.path,
                query=request.query_string,
                verb=info.verb,
                group=info.group,
                version=info.version,
                resource=info.resource,
                subresource=info.subresource,
                namespace=info.namespace,
                name=info.name,
                sequence=entry.sequence,
            )
        )
        if decision is not None:
            if decision.drop_before:
                entry.fault = "connection cut before commit"
                _cut(request)
                raise ConnectionResetError("request dropped by the gate")
            if decision.fail_before is not None:
                error = decision.fail_before
                entry.fault = f"failed before commit with {error.code}"
                return _finish(entry, error_response(error, pretty=pretty), state)
            if decision.stale_revision is not None:
                request[STALE_REVISION] = decision.stale_revision
                entry.fault = f"served stale at revision {decision.stale_revision}"
            drop_response = decision.drop_response
            after_run = decision.after_run
            if decision.valve is not None:
                request[VALVE] = decision.valve
    requester = None
    if user is not None and state.authorization.enforcing:
        attributes = request_attributes(user, info, request.method, request.path, request.query)
        verdict = state.authorization.decide(attributes)
        entry.authorized, entry.authorization_reason = verdict.allowed, verdict.reason
        if not verdict.allowed:
            return _finish(entry, error_response(forbidden_error(attributes, verdict.reason), pretty=pretty), state)
        requester = Requester(attributes)
    entry.revision_before = state.store.revision
    writes = track_writes()
    try:
        with deep_recursion():  # Go accepts documents 10,000 levels deep (docs/depth.md)
            if requester is None:
                response = await dispatch(request, state)
            else:
                with acting_for(requester):
                    response = await dispatch(request, state)
    except APIError as error:
        context = request.get(PATCH_CONTEXT)
        warnings = context.warnings if context is not None else []
        response = error_response(error, pretty=pretty, warnings=warnings)
    except ApiserverPanic:
        response = web.Response(status=500, text=PANIC_MESSAGE + "\n", content_type="text/plain")
    except (asyncio.CancelledError, ConnectionError):
        # The client went away: aiohttp cancels its handler, or a read or write finds the
        # connection gone. That is no server error; a stream it had begun to read is journaled
        # with the status it was sent, a request it gave up on before any answer with none.
        stream = request.get(STREAM)
        if stream is not None:
            _finish(entry, stream, state)
        entry.revision_after = state.store.revision
        entry.write_revisions = list(writes)
        raise
    except Exception as error:
        state.errors.append(f"{request.method} {request.path_qs}: {traceback.format_exc()}")
        response = error_response(APIError.internal(f"fakeapi internal error: {type(error).__name__}: {error}"))
    deprecation = request.get(DEPRECATION)
    if deprecation is not None and not response.prepared:
        warn_first(response, deprecation)
    context = request.get(PATCH_CONTEXT)
    if context is not None:
        entry.diagnoses = list(context.diagnoses)
    entry.revision_after = state.store.revision
    entry.write_revisions = list(writes)
    if after_run is not None:
        after_run()
    if drop_response:
        _finish(entry, response, state)
        entry.fault = "response lost after commit"
        _cut(request)
        raise ConnectionResetError("response dropped by the gate")
    response = _finish(entry, response, state)
    if state.request_log is not None:
        elapsed = (time.perf_counter() - started) * 1000
        line = f"{request.method} {request.path_qs} {response.status} {elapsed:.1f}ms"
        for diagnosis in entry.diagnoses:
            line += f" | {diagnosis}"
        state.request_log(line)
    return response


def _cut(request: web.BaseRequest) -> None:
    transport = request.transport
    if transport is not None:
        transport.abort()


def _finish(entry: JournalEntry, response: web.StreamResponse, state: ServerState) -> web.StreamResponse:
    entry.status = response.status
    if isinstance(response, web.Response) and response.body is not None and isinstance(response.body, bytes):
        state.journal.keep_response(entry, response.body)
    entry.warnings = [value for key, value in response.headers.items() if key == "Warning"]
    return response


async def _expect_continue(request: web.BaseRequest) -> web.StreamResponse | None:
    """Go's server on ``Expect``: an interim 100 for ``100-continue``, 417 for anything else.

    ``net/http`` sends the 100 when the handler first reads a body, only for HTTP/1.1 and a body
    that is not empty; every handler here reads the body it has first, so it goes out at once.
    """
    tokens = [token.strip().lower() for token in request.headers.get("Expect", "").split(",")]
    if "100-continue" not in tokens:
        response = web.Response(status=417)
        response.force_close()
        return response
    if request.version >= HttpVersion11 and request.can_read_body:
        await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        request.writer.output_size = 0
    return None


def build_server(state: ServerState) -> GoServer:
    """The low-level aiohttp server answering every request (call it inside the serving loop)."""

    async def handle(request: web.BaseRequest) -> web.StreamResponse:
        if "Expect" in request.headers:
            refused = await _expect_continue(request)
            if refused is not None:
                return refused
        return await journaled(request, state)

    # A handler is cancelled when its client goes away, as Go's request context is: a held or
    # streaming request must not outlive its connection.
    return GoServer(
        handle,
        handler_cancellation=True,
        access_log=None,
        header_timeout=state.config.header_timeout,
        idle_timeout=state.config.idle_timeout,
    )
