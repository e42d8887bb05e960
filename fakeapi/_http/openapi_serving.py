"""The HTTP side of ``/openapi/v2``, ``/openapi/v3`` and ``/openapi/v3/<group-version>``.

As kube-apiserver answers them (docs/discovery.md):

- ``/openapi/v3`` is written by the aggregator (kube-aggregator ``openapiv3/aggregator``,
  ``handleDiscovery``) through Go's ``http.ServeContent`` with no Content-Type, so it goes out as
  sniffed ``text/plain; charset=utf-8``, with a ``Last-Modified`` and no ETag;
- a group version nobody serves is a bare ``404`` with an empty body (``handleGroupVersion``);
- a served one (kube-openapi ``pkg/handler3``, ``HandleGroupVersion``) is negotiated on Accept
  (JSON only here; a client asking for nothing else gets ``406``), with ``Vary: Accept`` and a
  quoted ETag; a ``hash`` that is not the ETag is a ``301`` to the current URL, the right one adds
  ``Cache-Control: public, immutable`` and an ``Expires`` a year ahead; ``If-None-Match`` with the
  ETag is ``304``;
- ``/openapi/v2`` (kube-openapi ``pkg/handler``) answers JSON or gnostic protobuf, the latter as
  ``application/com.github.proto-openapi.spec.v2.v1.0+protobuf`` for either of its two names,
  with the ETag of the JSON bytes, else ``406``.
"""

from __future__ import annotations

import datetime
from email.utils import format_datetime

from aiohttp import web

from fakeapi._http import openapi_v2, openapi_v3
from fakeapi._http.negotiation import accept_clauses
from fakeapi._state.registry import Registry

__all__ = ["serve_v2", "serve_v3_document", "serve_v3_index"]

_V2_PROTOBUF = "com.github.proto-openapi.spec.v2.v1.0+protobuf"
_V2_PROTOBUF_DEPRECATED = "com.github.proto-openapi.spec.v2@v1.0+protobuf"


def _http_date(moment: datetime.datetime) -> str:
    return format_datetime(moment.astimezone(datetime.UTC), usegmt=True)


def serve_v3_index(registry: Registry) -> web.Response:
    body = openapi_v3.encode_index(registry)
    response = web.Response(body=body, content_type="text/plain", charset="utf-8")
    response.headers["Last-Modified"] = _http_date(datetime.datetime.now(datetime.UTC))
    return response


def _chosen(accept: str | None, subtypes: tuple[str, ...]) -> str | None:
    """The first of ``subtypes`` (of ``application/``) the Accept header's clauses, best first, admit."""
    clauses = accept_clauses(accept or "*/*")
    weighted = sorted(((_quality(params), media) for media, params in clauses), key=lambda clause: -clause[0])
    for quality, media_type in weighted:
        kind, _, subtype = media_type.partition("/")
        if quality <= 0:
            continue
        if kind not in ("application", "*"):
            continue
        for offered in subtypes:
            if subtype in (offered, "*"):
                return offered
    return None


def _quality(params: dict[str, str]) -> float:
    try:
        return float(params.get("q", "1"))
    except ValueError:
        return 0.0


def _not_modified(request: web.BaseRequest, etag: str) -> bool:
    return any(tag.strip() in (f'"{etag}"', "*") for tag in request.headers.get("If-None-Match", "").split(","))


def serve_v3_document(request: web.BaseRequest, registry: Registry, key: str) -> web.StreamResponse:
    parsed = openapi_v3.parse_document_key(key)
    document = None if parsed is None else openapi_v3.openapi_v3_document(registry, *parsed)
    if parsed is None or document is None:
        return web.Response(status=404)
    if _chosen(request.headers.get("Accept"), ("json",)) is None:
        return web.Response(status=406, headers={"Vary": "Accept"})
    etag = openapi_v3.document_etag(registry, *parsed, document)
    headers = {"Vary": "Accept", "Etag": f'"{etag}"'}
    wanted = request.query.get("hash")
    if wanted:
        if wanted != etag:
            headers["Location"] = f"/openapi/v3/{key}?hash={etag}"
            return web.Response(status=301, headers=headers)
        headers["Cache-Control"] = "public, immutable"
        headers["Expires"] = _http_date(datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=365))
    if _not_modified(request, etag):
        return web.Response(status=304, headers=headers)
    return web.Response(body=document, headers=headers, content_type="application/json")


def serve_v2(request: web.BaseRequest, registry: Registry) -> web.StreamResponse:
    chosen = _chosen(request.headers.get("Accept"), ("json", _V2_PROTOBUF_DEPRECATED, _V2_PROTOBUF))
    if chosen is None:
        return web.Response(status=406, headers={"Vary": "Accept"})
    protobuf = chosen != "json"
    json_bytes, body = openapi_v2.openapi_v2_document(registry, protobuf=protobuf)
    etag = openapi_v3.etag(json_bytes)
    headers = {"Vary": "Accept", "Etag": f'"{etag}"'}
    if _not_modified(request, etag):
        return web.Response(status=304, headers=headers)
    content_type = f"application/{_V2_PROTOBUF}" if protobuf else "application/json"
    return web.Response(body=body, headers=headers, content_type=content_type)
