"""The headers kube-apiserver's outermost filters put on every answer, and the one aiohttp adds that it never sends.

``DefaultBuildHandlerChain`` (k8s.io/apiserver ``pkg/server/config.go``) wraps every handler,
authentication failures included, in ``WithAuditInit``, which echoes the request's ``Audit-ID``
header or a new random UUID as the answer's ``Audit-Id``, and ``WithCacheControl``, which sets
``Cache-Control: no-cache, private`` unless the handler set its own (the OpenAPI documents do). Go's
``net/http`` sends no ``Server`` header; aiohttp adds ``Python/3.x aiohttp/3.x`` to every answer, so
it is taken out here (docs/http-limits.md, "The headers of every answer").

aiohttp calls a request's ``_prepare_hook`` after it has filled in its own headers and before it
writes them: the one place that sees every answer, including the streaming ones (watches) that
handlers prepare themselves.
"""

from __future__ import annotations

import operator
import random
import uuid
from collections.abc import Callable

from aiohttp import hdrs, web
from aiohttp.web_protocol import RequestHandler
from multidict import CIMultiDict

__all__ = ["AUDIT_ID", "FILTER_HEADERS", "ApiserverRequest", "audit_ids", "request_factory"]

AUDIT_ID = "Audit-Id"
_REQUEST_AUDIT_ID = "Audit-ID"
_CACHE_CONTROL = "no-cache, private"
# Headers a filter further in set before the handler ran (priority and fairness's), for whatever answer follows.
FILTER_HEADERS: web.RequestKey[tuple[tuple[str, str], ...]] = web.RequestKey("fakeapi_filter_headers", tuple)


def audit_ids(seed: int) -> Callable[[], str]:
    """``uuid.New``: random version 4 UUIDs, from the seed when the server has one, so runs replay.

    Without one the generator is seeded once from the system's entropy: an audit ID needs to be
    unique, not secret, and a system call per request would be paid by every answer.
    """
    source = random.Random(seed or None)

    def new_audit_id() -> str:
        return str(uuid.UUID(int=source.getrandbits(128), version=4))

    return new_audit_id


class ApiserverRequest(web.BaseRequest):
    """A request whose answer carries the outer filters' headers and no ``Server`` header."""

    audit_id: str = ""

    async def _prepare_hook(self, response: web.StreamResponse) -> None:
        headers = response.headers
        headers.popall(hdrs.SERVER, None)
        if not headers.get(AUDIT_ID):
            headers[AUDIT_ID] = self.audit_id
        headers.setdefault(hdrs.CACHE_CONTROL, _CACHE_CONTROL)
        for name, value in self.get(FILTER_HEADERS, ()):
            headers[name] = value
        _in_go_order(headers)
        await super()._prepare_hook(response)


# What Go's server writes after the handler's headers, in its order (``extraHeader.Write``).
_GO_AFTER_HANDLER = (hdrs.CONNECTION, hdrs.TRANSFER_ENCODING, hdrs.DATE, hdrs.CONTENT_LENGTH)


def canonical_header_name(name: str) -> str:
    """``textproto.CanonicalMIMEHeaderKey``: each dash-separated word capitalised, the rest lower case."""
    canonical = _canonical_names.get(name)
    if canonical is None:
        canonical = "-".join(word[:1].upper() + word[1:].lower() for word in name.split("-"))
        if len(_canonical_names) < _CANONICAL_NAMES_KEPT:
            _canonical_names[name] = canonical
    return canonical


# Every answer's headers go through here, and the names repeat: the spelling is kept per name, up
# to a bound, since a handler may set names taken from a request.
_canonical_names: dict[str, str] = {}
_CANONICAL_NAMES_KEPT = 4096


def _in_go_order(headers: CIMultiDict[str]) -> None:
    """Go writes a handler's headers sorted by their canonical names (``Header.WriteSubset``), then the
    ones its server adds itself; aiohttp writes them in the order they were set."""
    trailing = [(name, headers.getall(name)) for name in _GO_AFTER_HANDLER if name in headers]
    handler = []
    for name, value in headers.items():
        canonical = canonical_header_name(name)
        if canonical not in _GO_AFTER_HANDLER:
            handler.append((canonical, value))
    handler.sort(key=_first)  # stable: a name's values keep their order, as Go writes them
    headers.clear()
    headers.extend(handler)
    for name, values in trailing:
        for value in values:
            headers.add(name, value)


_first = operator.itemgetter(0)


def request_factory(server: web.Server, new_audit_id: Callable[[], str]) -> Callable[..., web.BaseRequest]:
    """What :class:`aiohttp.web.Server` calls to make each request: an :class:`ApiserverRequest` with its audit ID."""

    def make(
        message: object, payload: object, protocol: RequestHandler, writer: object, task: object
    ) -> web.BaseRequest:
        request = ApiserverRequest(message, payload, protocol, writer, task, server._loop)  # type: ignore[arg-type]
        request.audit_id = request.headers.get(_REQUEST_AUDIT_ID) or new_audit_id()
        return request

    return make
