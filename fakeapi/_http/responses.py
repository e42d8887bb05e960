"""Answers on the wire: objects in Go's JSON spelling with a trailing newline, Status errors, warnings.

The apiserver writes objects with ``json.Encoder.Encode``: compact, keys sorted for custom
resources, HTML-escaped, then ``\\n``. Built-in objects and Status keep their struct field order.
YAML is always written with sorted keys: the serializer turns that JSON into YAML through a
generic map (sigs.k8s.io/yaml ``JSONToYAML``), which loses the struct's order. ``?pretty=true``
or a User-Agent that starts with ``curl``, ``Wget`` or ``Mozilla/5.0`` gets 2-space indentation
(``negotiate.go isPrettyPrint``). Warnings are ``Warning: 299 - "<text>"`` headers, one per
distinct text (``net.NewWarningHeader``, ``filters/warning.go``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from aiohttp import web

from fakeapi._http.compression import SERIALIZED
from fakeapi._http.negotiation import status_media_type
from fakeapi._patching.goencode import encode, encode_in_order, format_float, indent
from fakeapi._patching.gofloat import GoFloat
from fakeapi._patching.gostrconv import quote
from fakeapi.errors import APIError

__all__ = ["encode_body", "error_response", "object_response", "wants_pretty", "warn_first", "warning_header_value"]

JSON = "application/json"
_PRETTY_AGENTS = ("curl", "Wget", "Mozilla/5.0")
_WARNINGS_TOTAL_LIMIT = 4096
_WARNING_TRUNCATED_LENGTH = 256


def wants_pretty(query: Mapping[str, str], user_agent: str) -> bool:
    pretty = query.get("pretty")
    if pretty is not None:
        return pretty.lower() not in ("0", "false")
    return user_agent.startswith(_PRETTY_AGENTS)


def _pretty_default(value: Any) -> Any:
    if isinstance(value, GoFloat):
        return orjson.Fragment(format_float(value))
    raise TypeError


def encode_body(value: Any, *, media_type: str = JSON, pretty: bool = False, ordered: bool = False) -> bytes:
    """One answer body: compact Go JSON + newline, indented JSON, or YAML."""
    if media_type == "application/yaml":
        import yaml  # only YAML answers pay for loading it

        return yaml.safe_dump(_plain(value), sort_keys=True, default_flow_style=False, allow_unicode=True).encode()
    if pretty:
        option = orjson.OPT_INDENT_2 | (0 if ordered else orjson.OPT_SORT_KEYS)
        try:
            text = orjson.dumps(value, default=_pretty_default, option=option)
        except orjson.JSONEncodeError:  # deeper than orjson goes: Go indents its compact encoding
            return indent(encode_in_order(value) if ordered else encode(value))
        for raw, escaped in ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026")):
            text = text.replace(raw, escaped)
        return text  # json.MarshalIndent output, with nothing after it
    return (encode_in_order(value) if ordered else encode(value)) + b"\n"


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, GoFloat):
        return float(value)
    return value


_QUOTED = re.compile(r'(["\\])')
_NEWLINE = re.compile(r"[\r\n]")
# What aiohttp refuses to write in a header value (RFC 9110 section 5.5): C0 controls but tab, DEL.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def warning_header_value(text: str) -> str | None:
    """``net.NewWarningHeader(299, "-", text)`` as ``net/http`` writes it; None where Go drops it.

    Go quotes the text (backslash and ``"`` escaped), refuses text that is not valid UTF-8 (a lone
    surrogate here), and its server turns CR and LF into spaces. It writes other control bytes
    raw, which aiohttp refuses and Go's own client cannot read, so they are spelled as Go's
    ``strconv.Quote`` spells them (``\\x7f``); docs/http-limits.md says so.
    """
    if _SURROGATE.search(text):
        return None
    text = _NEWLINE.sub(" ", text)
    if _CONTROL.search(text):
        text = _CONTROL.sub(lambda match: quote(match.group())[1:-1], text)
    return '299 - "' + _QUOTED.sub(r"\\\1", text) + '"'


def _add_warnings(response: web.StreamResponse, warnings: Iterable[str]) -> None:
    seen: list[str] = []
    total = 0
    truncating = False
    for text in warnings:
        if text in seen:
            continue
        seen.append(text)
        total += len(text)
        if total > _WARNINGS_TOTAL_LIMIT:
            if truncating:
                break
            truncating = True
            text = text[:_WARNING_TRUNCATED_LENGTH]
        header = warning_header_value(text)
        if header is not None:
            response.headers.add("Warning", header)


def warn_first(response: web.StreamResponse, text: str) -> None:
    """``AddWarningsHandler``: the endpoint's warning goes out before any the handler added (once)."""
    header = warning_header_value(text)
    if header is None:
        return
    others = [value for value in response.headers.getall("Warning", ()) if value != header]
    response.headers.popall("Warning", None)
    for value in (header, *others):
        response.headers.add("Warning", value)


def object_response(
    value: Any,
    *,
    status: int = 200,
    media_type: str = JSON,
    pretty: bool = False,
    warnings: Iterable[str] = (),
    ordered: bool = False,
    body: bytes | None = None,
) -> web.Response:
    response = web.Response(
        body=body if body is not None else encode_body(value, media_type=media_type, pretty=pretty, ordered=ordered),
        status=status,
        content_type=media_type,
    )
    response[SERIALIZED] = True
    _add_warnings(response, warnings)
    return response


def error_response(
    error: APIError, *, pretty: bool = False, warnings: Iterable[str] = (), accept: str | None = None
) -> web.Response:
    """The error's Status in the type ``accept`` negotiates (``ErrorNegotiated``); when none can
    be, ``WriteRawJSON``: ``json.MarshalIndent`` of it, with nothing after it."""
    media_type = status_media_type(accept)
    if media_type is None:
        body = encode_body(error.status(), pretty=True, ordered=True)
    else:
        body = encode_body(error.status(), media_type=media_type, pretty=pretty, ordered=True)
    response = web.Response(body=body, status=error.code, content_type=media_type or JSON)
    response[SERIALIZED] = True
    if error.retry_after:
        response.headers["Retry-After"] = str(error.retry_after)
    _add_warnings(response, warnings)
    return response
