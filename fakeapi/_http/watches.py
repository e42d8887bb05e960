"""Watch streams: newline-delimited events, flushed one by one (docs/watch.md).

``200``, ``Content-Type: application/json``, chunked. The start point follows the watch cache:
no resourceVersion or ``"0"`` sends an ADDED per matching object first; ``sendInitialEvents=true``
does the same and then a BOOKMARK annotated ``k8s.io/initial-events-end``; a resourceVersion N
sends only changes after N, and one older than the retained window gets a single ERROR event with
the 410 Expired Status before the stream ends. Bookmarks, when allowed, come at the server's
bookmark interval; ``timeoutSeconds`` ends the stream quietly. An event is
``{"type":...,"object":...}`` in that key order (``metav1.WatchEvent``).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from aiohttp import web
from aiohttp.abc import AbstractStreamWriter

from fakeapi._http.answers import served, served_encoding
from fakeapi._http.context import ServerState
from fakeapi._http.converting import at_version, converts_each
from fakeapi._http.keys import DEPRECATION, STREAM, VALVE
from fakeapi._http.negotiation import negotiate_answer
from fakeapi._http.options import parse_list_options, parse_resource_version
from fakeapi._http.reads import selector_filter
from fakeapi._http.requestinfo import RequestInfo
from fakeapi._http.responses import warn_first
from fakeapi._patching.goencode import encode, encode_in_order
from fakeapi._state.conversion import ConversionError
from fakeapi._state.encodings import KeptByIdentity
from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType
from fakeapi._state.watching import ADDED, Watcher
from fakeapi.errors import APIError

__all__ = ["handle_watch"]

INITIAL_EVENTS_END = "k8s.io/initial-events-end"
WRITE_BUDGET = 2**16  # bytes of events in one write, aiohttp's write-buffer high-water mark


def _event_line(kind: str, body: bytes) -> bytes:
    return b'{"type":"' + kind.encode() + b'","object":' + body + b"}\n"


# Event lines of the objects lately sent: watchers take their queued events in batches of different
# lengths, so the line for one change is asked for many times, not only right after the write.
_lines = KeptByIdentity(256)


def _line_once(kind: str, obj: dict[str, Any], rtype: ResourceType, api_version: str) -> bytes:
    """The same change goes to every watcher: encode it once (objects are never mutated)."""
    line = _lines.get(obj, (kind, api_version))
    if line is None:
        line = _event_line(kind, served_encoding(rtype, obj))
        _lines.put(obj, line, (kind, api_version))
    return line


def _bookmark(rtype: ResourceType, revision: int, *, initial_end: bool = False) -> bytes:
    metadata: dict[str, Any] = {"resourceVersion": str(revision)}
    if initial_end:
        metadata["annotations"] = {INITIAL_EVENTS_END: "true"}
    return _event_line("BOOKMARK", encode({"apiVersion": rtype.api_version, "kind": rtype.kind, "metadata": metadata}))


async def handle_watch(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.StreamResponse:
    answer = negotiate_answer(request.headers.get("Accept"))
    options = parse_list_options(request.query, watch=True)
    label_text, field_text = options.label_selector, options.field_selector
    if info.name:
        if field_text and field_text != f"metadata.name={info.name}":
            raise APIError.bad_request("fieldSelector metadata.name doesn't match requested name")
        field_text = f"metadata.name={info.name}"
    matches, everything = selector_filter(rtype, label_text, field_text)
    namespace = info.namespace if rtype.namespaced and info.namespace else None
    store = state.store
    start = options.resource_version
    start_revision = parse_resource_version(start)
    watcher = Watcher(rtype.storage_key, namespace, None if everything else matches)
    table_headers = [True]
    api_version = rtype.api_version

    def render(kind: str, obj: dict[str, Any]) -> bytes:
        if answer.transform == "Table":
            from fakeapi._state.tables import table_for

            table = table_for(
                rtype,
                [served(rtype, obj)],
                list_metadata={"resourceVersion": metadata_of(obj).get("resourceVersion", "")},
                include_object=request.query.get("includeObject", ""),
                now=state.clock.now(),
                headers=table_headers[0],
            )
            table_headers[0] = False
            return _event_line(kind, encode_in_order(table))
        return _line_once(kind, obj, rtype, api_version)

    converting = converts_each(rtype)

    async def render_event(kind: str, obj: dict[str, Any]) -> bytes:
        """The event's line; a conversion that fails ends the watch with an ERROR event, as the
        etcd3 watcher's ``transformErrorToEvent`` sends it (docs/conversion.md, "Watch")."""
        if not converting:
            return render(kind, obj)
        try:
            shown = await at_version(state, rtype, obj)
        except ConversionError as error:
            raise _WatchConversionFailed(APIError.internal_error(str(error))) from None
        return render(kind, shown)

    expired: APIError | None = None
    initial_objects: list[dict[str, Any]] = []
    initial_end: bytes | None = None
    if start_revision is None or options.send_initial_events:
        initial_objects = [obj for obj in store.items(rtype, namespace) if matches(obj)]
        if options.send_initial_events:
            initial_end = _bookmark(rtype, store.revision, initial_end=True)
        store.hub.subscribe(watcher)
    else:
        oldest = store.hub.oldest_available()
        if start_revision < oldest:
            expired = APIError.expired(f"too old resource version: {start_revision} ({oldest})")
        else:
            for change in store.hub.changes_since(start_revision, rtype.storage_key):
                watcher.offer(change)
            store.hub.subscribe(watcher)

    response = web.StreamResponse(status=200)
    response.content_type = "application/json"
    response.enable_chunked_encoding()
    deprecation = request.get(DEPRECATION)
    if deprecation is not None:
        warn_first(response, deprecation)
    writer = await response.prepare(request)
    assert writer is not None
    request[STREAM] = response
    if expired is not None:
        await response.write(_event_line("ERROR", encode_in_order(expired.status())))
        await response.write_eof()
        return response
    valve = request.get(VALVE)
    if valve is not None:
        valve._attach(watcher)
    try:
        for obj in initial_objects:
            await response.write(await render_event(ADDED, obj))
        if initial_end is not None:
            await response.write(initial_end)
        await _stream(
            request,
            response,
            writer,
            watcher,
            state,
            rtype,
            options.timeout_seconds,
            options.allow_bookmarks,
            render_event,
        )
    except _WatchConversionFailed as failure:
        with contextlib.suppress(ConnectionResetError, RuntimeError):
            await response.write(_event_line("ERROR", encode_in_order(failure.error.status())))
    except ConnectionResetError:
        pass
    finally:
        # Also when the client went away and the handler is cancelled: the watch ends with it.
        store.hub.unsubscribe(watcher)
        if valve is not None:
            valve.detach()
    with contextlib.suppress(ConnectionResetError, RuntimeError):
        await response.write_eof()
    return response


async def _stream(
    request: web.BaseRequest,
    response: web.StreamResponse,
    writer: AbstractStreamWriter,
    watcher: Watcher,
    state: ServerState,
    rtype: ResourceType,
    timeout: int | None,
    bookmarks: bool,
    render: Any,
) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout if timeout else None
    interval = state.config.bookmark_interval
    next_bookmark = loop.time() + interval if bookmarks else None
    while True:
        waits = [t for t in (deadline, next_bookmark) if t is not None]
        wait = max(0.0, min(waits) - loop.time()) if waits else None
        try:
            if wait is None:
                await watcher.wait()
            elif wait == 0:
                raise TimeoutError  # a timer that is due comes before queued events
            else:
                async with asyncio.timeout(wait):
                    await watcher.wait()
        except TimeoutError:
            now = loop.time()
            if deadline is not None and now >= deadline:
                return
            if next_bookmark is not None and now >= next_bookmark:
                await response.write(_bookmark(rtype, state.store.revision))
                next_bookmark = now + interval
            continue
        if request.protocol.writing_paused:
            # The client reads slower than events come: they wait here as references to the
            # stored objects, not as bytes in the write buffer.
            await writer.drain()
        # Whatever is queued by now goes out in one write, up to a budget: what a watcher that was
        # slow has piled up goes out a part at a time, each when the transport takes more.
        events = watcher.take()
        lines: list[bytes] = []
        size = 0
        for index, event in enumerate(events):
            try:
                line = await render(*event)
            except _WatchConversionFailed:
                if lines:
                    _send(request, writer, b"".join(lines))
                raise
            lines.append(line)
            size += len(line)
            if size >= WRITE_BUDGET:
                watcher.put_back(events[index + 1 :])
                break
        if lines:
            _send(request, writer, b"".join(lines))
        if watcher.closed and not (watcher.events and watcher.allowance != 0):
            return


class _WatchConversionFailed(Exception):
    def __init__(self, error: APIError) -> None:
        super().__init__(error.message)
        self.error = error


def _send(request: web.BaseRequest, writer: AbstractStreamWriter, data: bytes) -> None:
    """One chunk, framed as ``StreamResponse.write`` frames it, straight to the transport (no await)."""
    transport = request.transport
    if transport is None or transport.is_closing():
        raise ConnectionResetError("Cannot write to closing transport")
    chunk = b"%x\r\n%b\r\n" % (len(data), data)
    writer.output_size += len(chunk)
    transport.write(chunk)
