"""Reading a request and answering it: the body size limit, the served version, the answer's form.

The body is read up to 3 MiB (``limitedReadBody``: 413 beyond). An object is answered at the
version the request asked for (a CRD without conversion: only ``apiVersion`` changes), as the
object itself, a Table for ``kubectl get``, or partial metadata, in JSON or YAML.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fakeapi._http.context import ServerState
from fakeapi._http.keys import BODY_BYTES, ENTRY, JOURNAL
from fakeapi._http.negotiation import (
    Answer,
    negotiate_answer,
)
from fakeapi._http.responses import JSON, object_response, wants_pretty
from fakeapi._patching.goencode import encode
from fakeapi._state.encodings import encode_kept
from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType
from fakeapi._state.typed.ordering import partial_object_metadata
from fakeapi.errors import APIError

__all__ = ["MAX_REQUEST_BODY_BYTES", "answer_for", "pretty", "read_body", "respond", "served", "served_encoding"]

MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024


async def read_body(request: web.BaseRequest) -> bytes:
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
    request[BODY_BYTES] = len(body)
    entry = request.get(ENTRY)
    if entry is not None:
        request[JOURNAL].keep_body(entry, body, request.content_length)
    if len(body) > MAX_REQUEST_BODY_BYTES:
        raise APIError.too_large(f"limit is {MAX_REQUEST_BODY_BYTES}")
    return body


def served(rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """The object at the version the request asked for (CRD conversion ``None``: only apiVersion)."""
    if obj.get("apiVersion") == rtype.api_version:
        return obj
    return {**obj, "apiVersion": rtype.api_version}


def served_encoding(rtype: ResourceType, obj: dict[str, Any]) -> bytes:
    """Go's encoding of a stored object as :func:`served` shows it: the kept bytes at its own version."""
    shown = served(rtype, obj)
    in_order = rtype.struct_order
    return encode_kept(obj, in_order=in_order) if shown is obj else encode(shown, in_order=in_order)


def answer_for(request: web.BaseRequest) -> Answer:
    return negotiate_answer(request.headers.get("Accept"))


def pretty(request: web.BaseRequest) -> bool:
    return wants_pretty(request.query, request.headers.get("User-Agent", ""))


def respond(
    request: web.BaseRequest,
    state: ServerState,
    rtype: ResourceType,
    obj: dict[str, Any],
    answer: Answer,
    *,
    status: int = 200,
    warnings: tuple[str, ...] | list[str] = (),
) -> web.Response:
    if answer.transform == "Table":
        from fakeapi._state.tables import table_for

        table = table_for(
            rtype,
            [obj],
            list_metadata={"resourceVersion": metadata_of(obj).get("resourceVersion", "")},
            include_object=request.query.get("includeObject", ""),
            now=state.clock.now(),
        )
        return object_response(
            table, status=status, media_type=answer.media_type, pretty=pretty(request), warnings=warnings, ordered=True
        )
    if answer.transform == "PartialObjectMetadata":
        partial = partial_object_metadata(obj, f"meta.k8s.io/{answer.table_version}")
        return object_response(
            partial,
            status=status,
            media_type=answer.media_type,
            pretty=pretty(request),
            warnings=warnings,
            ordered=True,
        )
    indented = pretty(request)
    # A stored object is read again and again (GETs, polling): its encoding is kept for a while.
    body = served_encoding(rtype, obj) + b"\n" if answer.media_type == JSON and not indented else None
    return object_response(
        served(rtype, obj),
        status=status,
        media_type=answer.media_type,
        pretty=indented,
        warnings=warnings,
        body=body,
        ordered=rtype.struct_order,
    )
