"""The aiohttp server: every request authenticated, gated, authorized, routed and journaled.

Each step of :func:`journaled` is one function below: who sent the request (authentication and
impersonation), the journal entry it gets, what a scenario's gate decides about it, whether it is
authorized, the handler :mod:`fakeapi._http.routing` finds for it and the Status an error it raises
becomes, and the request log's line. Every request is journaled with its answer; an unexpected
exception is a 500 Status and is remembered, so the pytest plugin can fail the test that caused it.

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
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict

from aiohttp import HttpVersion11, web

from fakeapi._http.authentication import ANONYMOUS, USER, User, request_attributes
from fakeapi._http.compression import compress_answer, gzip_wanted
from fakeapi._http.connections import GoServer
from fakeapi._http.context import GateRequest, ServerState
from fakeapi._http.impersonation import ImpersonationError, impersonate
from fakeapi._http.keys import (
    ADMISSION_WARNINGS,
    DEPRECATION,
    ENTRY,
    INFO,
    JOURNAL,
    PATCH_CONTEXT,
    STALE_REVISION,
    STREAM,
    VALVE,
)
from fakeapi._http.outer_filters import FILTER_HEADERS, audit_ids
from fakeapi._http.patching import PANIC_MESSAGE, ApiserverPanic
from fakeapi._http.priority_and_fairness import classification_headers
from fakeapi._http.requestinfo import RequestInfo, parse_request_info
from fakeapi._http.responses import error_response, wants_pretty, warn_first
from fakeapi._http.routing import dispatch
from fakeapi._patching.lazynode import deep_recursion
from fakeapi._state.authorization import forbidden_error
from fakeapi._state.journal import JournalEntry
from fakeapi._state.requesters import Requester, acting_for
from fakeapi._state.store import track_writes
from fakeapi.errors import APIError

__all__ = ["build_server"]


@dataclass(frozen=True)
class _AfterCommit:
    """What a scenario's gate decided for the moment the handler has run."""

    drop_response: bool = False
    after_run: Callable[[], None] | None = None


_AS_USUAL = _AfterCommit()


class _Routing(TypedDict):
    """What the journal entry and the gate's request both say of where a request goes."""

    verb: str
    group: str
    version: str
    resource: str
    subresource: str
    namespace: str
    name: str


def _routing(info: RequestInfo) -> _Routing:
    return _Routing(
        verb=info.verb,
        group=info.group,
        version=info.version,
        resource=info.resource,
        subresource=info.subresource,
        namespace=info.namespace,
        name=info.name,
    )


async def journaled(request: web.BaseRequest, state: ServerState) -> web.StreamResponse:
    """Answer one request and journal it with its answer, faults and writes."""
    info = parse_request_info(request.method, request.path, request.query)
    request[INFO] = info
    pretty = wants_pretty(request.query, request.headers.get("User-Agent", ""))
    started = time.perf_counter()
    user, refusal = _authenticate(request, state, info, pretty=pretty)
    entry = _begin_entry(request, state, info, user)
    if refusal is not None:
        return await _answered(request, entry, refusal, state, started)
    if user is not None:
        request[FILTER_HEADERS] = classification_headers(state.flow_classifier, info, user, request.method)
    after_commit = _AS_USUAL
    if state.gate is not None and info.is_resource_request:
        gated = await _consult_gate(request, state, info, entry)
        if isinstance(gated, APIError):
            return await _answered(
                request,
                entry,
                error_response(gated, pretty=pretty, accept=request.headers.get("Accept")),
                state,
                started,
            )
        after_commit = gated
    requester = None
    if user is not None and state.authorization.enforcing:
        authorized = _authorize(request, state, info, user, entry)
        if isinstance(authorized, APIError):
            return await _answered(
                request,
                entry,
                error_response(authorized, pretty=pretty, accept=request.headers.get("Accept")),
                state,
                started,
            )
        requester = authorized
    entry.revision_before = state.store.revision
    writes = track_writes()
    try:
        response = await _dispatch_as(request, state, requester)
    except (asyncio.CancelledError, ConnectionError):
        # The client went away: aiohttp cancels its handler, or a read or write finds the
        # connection gone. That is no server error; a stream it had begun to read is journaled
        # with the status it was sent, a request it gave up on before any answer with none.
        stream = request.get(STREAM)
        if stream is not None:
            _finish(entry, stream, state)
        _record_writes(entry, state, writes)
        raise
    except Exception as error:
        response = _error_answer(request, state, error, pretty=pretty)
    deprecation = request.get(DEPRECATION)
    if deprecation is not None and not response.prepared:
        warn_first(response, deprecation)
    context = request.get(PATCH_CONTEXT)
    if context is not None:
        entry.diagnoses = list(context.diagnoses)
    _record_writes(entry, state, writes)
    if after_commit.after_run is not None:
        after_commit.after_run()
    if after_commit.drop_response:
        _finish(entry, response, state)
        entry.fault = "response lost after commit"
        _cut(request)
        raise ConnectionResetError("response dropped by the gate")
    return await _answered(request, entry, response, state, started)


async def _answered(
    request: web.BaseRequest, entry: JournalEntry, response: web.StreamResponse, state: ServerState, started: float
) -> web.StreamResponse:
    """The answer journaled, and logged when there is a request log: every answer, refusals included.

    The journal keeps the body as encoded; gzip, when the client asked for it, comes after."""
    response = _finish(entry, response, state)
    to_gzip = gzip_wanted(request, response)
    if to_gzip is not None:
        assert isinstance(response, web.Response)  # gzip_wanted says so
        await compress_answer(response, to_gzip)
    if state.request_log is not None:
        state.request_log(_log_line(request, entry, response, started))
    return response


def _authenticate(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, *, pretty: bool
) -> tuple[User | None, web.StreamResponse | None]:
    """Who the request acts as, after impersonation; or the answer that refuses it."""
    try:
        user = state.authentication.authenticate(
            request.headers, info, request.path, request.method, request.query, _client_certificate(request, state)
        )
    except APIError as refusal:
        if refusal.code == 403:
            # ``token_auth`` without RBAC refuses an anonymous request here in the authorizer's stead;
            # the authorizer runs after priority and fairness, so the refusal is classified.
            request[FILTER_HEADERS] = classification_headers(state.flow_classifier, info, ANONYMOUS, request.method)
        return None, error_response(refusal, pretty=pretty, accept=request.headers.get("Accept"))
    try:
        user = impersonate(request.headers, user, state.authorization.decide)
    except APIError as refusal:
        return None, error_response(refusal, pretty=pretty, accept=request.headers.get("Accept"))
    except ImpersonationError as impersonation_error:
        return None, _plain_error(500, impersonation_error.text(request.path_qs))
    request[USER] = user
    return user, None


def _begin_entry(request: web.BaseRequest, state: ServerState, info: RequestInfo, user: User | None) -> JournalEntry:
    """The request's journal entry, before anything is decided about it."""
    entry = state.journal.begin(
        method=request.method,
        path=request.path,
        query=request.query_string,
        actor=None if user is None else user.actor_name,
        user_agent=request.headers.get("User-Agent", ""),
        content_type=request.headers.get("Content-Type", ""),
        body=b"",
        **_routing(info),
        user="" if user is None else user.name,
        groups=() if user is None else user.groups,
    )
    request[ENTRY] = entry
    request[JOURNAL] = state.journal
    return entry


async def _consult_gate(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, entry: JournalEntry
) -> APIError | _AfterCommit:
    """Hold the request at the scenario's gate; the error to answer instead, or what to do after it runs."""
    assert state.gate is not None
    decision = await state.gate(
        GateRequest(
            actor=entry.actor,
            method=request.method,
            path=request.path,
            query=request.query_string,
            **_routing(info),
            sequence=entry.sequence,
            activity=request.headers.get("X-Fakeapi-Activity", ""),
        )
    )
    if decision is None:
        return _AS_USUAL
    if decision.drop_before:
        entry.fault = "connection cut before commit"
        _cut(request)
        raise ConnectionResetError("request dropped by the gate")
    if decision.fail_before is not None:
        entry.fault = f"failed before commit with {decision.fail_before.code}"
        return decision.fail_before
    if decision.stale_revision is not None:
        request[STALE_REVISION] = decision.stale_revision
        entry.fault = f"served stale at revision {decision.stale_revision}"
    if decision.valve is not None:
        request[VALVE] = decision.valve
    return _AfterCommit(drop_response=decision.drop_response, after_run=decision.after_run)


def _authorize(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, user: User, entry: JournalEntry
) -> Requester | APIError:
    """The authorizer's verdict, journaled: who the handlers act for, or the 403 to answer."""
    attributes = request_attributes(user, info, request.method, request.path, request.query)
    verdict = state.authorization.decide(attributes)
    entry.authorized, entry.authorization_reason = verdict.allowed, verdict.reason
    if not verdict.allowed:
        return forbidden_error(attributes, verdict.reason)
    return Requester(attributes)


async def _dispatch_as(request: web.BaseRequest, state: ServerState, requester: Requester | None) -> web.StreamResponse:
    """The routed handler's answer, run as the authorized requester when there is one."""
    with deep_recursion():  # Go accepts documents 10,000 levels deep (docs/depth.md)
        if requester is None:
            return await dispatch(request, state)
        with acting_for(requester):
            return await dispatch(request, state)


def _error_answer(request: web.BaseRequest, state: ServerState, error: Exception, *, pretty: bool) -> web.Response:
    """The answer for what a handler raised: its Status, the panic's plain text, or a remembered 500."""
    if isinstance(error, APIError):
        context = request.get(PATCH_CONTEXT)
        warnings = list(context.warnings) if context is not None else []
        warnings += request.get(ADMISSION_WARNINGS) or []
        return error_response(error, pretty=pretty, warnings=warnings, accept=request.headers.get("Accept"))
    if isinstance(error, ApiserverPanic):
        return web.Response(status=500, text=PANIC_MESSAGE + "\n", content_type="text/plain")
    state.errors.append(f"{request.method} {request.path_qs}: {traceback.format_exc()}")
    return error_response(
        APIError.internal(f"fakeapi internal error: {type(error).__name__}: {error}"),
        accept=request.headers.get("Accept"),
    )


def _record_writes(entry: JournalEntry, state: ServerState, writes: list[int]) -> None:
    entry.revision_after = state.store.revision
    entry.write_revisions = list(writes)


def _log_line(request: web.BaseRequest, entry: JournalEntry, response: web.StreamResponse, started: float) -> str:
    """The request log's line: method, path, status, time taken, and what the patch diagnosed."""
    elapsed = (time.perf_counter() - started) * 1000
    line = f"{request.method} {request.path_qs} {response.status} {elapsed:.1f}ms"
    for diagnosis in entry.diagnoses:
        line += f" | {diagnosis}"
    return line


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
        new_audit_id=audit_ids(state.config.seed),
    )
