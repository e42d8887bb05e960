"""A webhook's ``clientConfig``, as k8s.io/apiserver ``pkg/util/webhook/validation.go`` checks it.

``ValidateWebhookURL`` (called with ``forceHttps``) parses the URL with Go's ``url.Parse`` and then
wants the ``https`` scheme, a host, no user information, no fragment and no query; each problem is one
error at ``clientConfig.url``, the parse error ``Required value: url must be a valid URL: parse
"<url>": <why>; desired format: https://host[/path]``. :func:`go_url_parse` is the part of
``url.Parse`` those checks see: the control characters, the scheme (lower-cased), an opaque rest, the
authority split into user information and host (``parseAuthority``, ``parseHost``), the escapes, and
Go's error texts.

``ValidateWebhookService`` wants a name, a namespace, a valid port and a path of DNS-subdomain segments.
The webhook validation calls it with the service's name where the function takes the namespace and the
namespace where it takes the name, so a missing name is reported at ``service.namespace`` (``service
namespace is required``) and a missing namespace at ``service.name``: the apiserver does exactly that.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakeapi._patching.gostrconv import quote
from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError, GoText
from fakeapi._state.validation.names import is_dns1123_subdomain

__all__ = ["GoURL", "GoURLError", "go_url_parse", "validate_webhook_service", "validate_webhook_url"]

_FORM = "; desired format: https://host[/path]"
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
# ``shouldEscape(c, encodeHost)`` is false for these besides letters and digits.
_HOST_KEPT = frozenset("!$&'()*+,;=:[]<>\"-_.~")
# ``validUserinfo``: what user information may hold besides letters and digits.
_USERINFO = frozenset("-._:~!$&'()*+,;=%@")
# ``shouldEscape(c, encodeUserPassword)`` is false for these besides letters and digits.
_USER_KEPT = frozenset("-_.~$&+,;=")


class GoURLError(ValueError):
    """``url.Parse``'s error: ``parse "<url>": <why>``."""


@dataclass(frozen=True, slots=True)
class GoURL:
    scheme: str
    host: str
    user: str | None
    raw_query: str
    # ``URL.Fragment``: unescaped, so possibly bytes that are not UTF-8.
    fragment: bytes


def _quote_bytes(data: bytes) -> str:
    """``%q`` of a Go string that may hold bytes that are not UTF-8: each such byte is written ``\\xNN``."""
    parts: list[str] = []
    rest = data
    while rest:
        try:
            parts.append(quote(rest.decode())[1:-1])
            break
        except UnicodeDecodeError as error:
            parts.append(quote(rest[: error.start].decode())[1:-1])
            parts.append(f"\\x{rest[error.start]:02x}")
            rest = rest[error.start + 1 :]
    return '"' + "".join(parts) + '"'


def _unescape(text: str, host: bool) -> bytes:
    """``unescape``: Go's escape checks (``invalid URL escape``, ``invalid character in host name``)."""
    data = text.encode()
    position = 0
    while position < len(data):
        byte = data[position]
        if byte == 0x25:
            digits = data[position + 1 : position + 3]
            if len(digits) < 2 or not all(chr(digit) in _HEX for digit in digits):
                raise GoURLError(f"invalid URL escape {_quote_bytes(data[position : position + 3])}")
            if host and int(chr(digits[0]), 16) < 8 and data[position : position + 3] != b"%25":
                raise GoURLError(f"invalid URL escape {_quote_bytes(data[position : position + 3])}")
            position += 3
            continue
        if host and byte < 0x80 and chr(byte) not in _ALNUM and chr(byte) not in _HOST_KEPT:
            raise GoURLError(f"invalid character {quote(chr(byte))} in host name")
        position += 1
    return _decoded(text)


def _decoded(text: str) -> bytes:
    """The bytes an escaped text stands for (its escapes already checked)."""
    data = text.encode()
    out = bytearray()
    position = 0
    while position < len(data):
        if data[position] == 0x25:
            out.append(int(data[position + 1 : position + 3], 16))
            position += 3
        else:
            out.append(data[position])
            position += 1
    return bytes(out)


def _valid_optional_port(port: str) -> bool:
    return port == "" or (port.startswith(":") and all("0" <= char <= "9" for char in port[1:]))


def _parse_host(host: str) -> str:
    """``parseHost``: a bracketed IPv6 literal with an optional port, or a name with an optional port."""
    if host.startswith("["):
        end = host.rfind("]")
        if end < 0:
            raise GoURLError("missing ']' in host")
        port = host[end + 1 :]
        if not _valid_optional_port(port):
            raise GoURLError(f"invalid port {quote(port)} after host")
    elif (colon := host.rfind(":")) >= 0 and not _valid_optional_port(host[colon:]):
        raise GoURLError(f"invalid port {quote(host[colon:])} after host")
    _unescape(host, host=True)
    return host


def _escape_user(data: bytes) -> str:
    """``escape(s, encodeUserPassword)``, as ``Userinfo.String`` writes each part."""
    return "".join(chr(byte) if chr(byte) in _ALNUM or chr(byte) in _USER_KEPT else f"%{byte:02X}" for byte in data)


def _parse_authority(authority: str) -> tuple[str | None, str]:
    """``parseAuthority``: the user information as ``Userinfo.String`` writes it, and the host."""
    at = authority.rfind("@")
    host = _parse_host(authority[at + 1 :])
    if at < 0:
        return None, host
    userinfo = authority[:at]
    if not all(char in _ALNUM or char in _USERINFO for char in userinfo):
        raise GoURLError("net/url: invalid userinfo")
    if ":" not in userinfo:
        return _escape_user(_unescape(userinfo, host=False)), host
    username, _, password = userinfo.partition(":")
    return f"{_escape_user(_unescape(username, host=False))}:{_escape_user(_unescape(password, host=False))}", host


def _scheme(text: str) -> tuple[str, str]:
    """``getScheme``."""
    for position, char in enumerate(text):
        if char.isascii() and char.isalpha():
            continue
        if char.isascii() and (char.isdigit() or char in "+-."):
            if position == 0:
                return "", text
            continue
        if char == ":":
            if position == 0:
                raise GoURLError("missing protocol scheme")
            return text[:position], text[position + 1 :]
        return "", text
    return "", text


def _parse(text: str) -> GoURL:
    """``parse(rawURL, viaRequest=false)`` of the text before the fragment."""
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in text):
        raise GoURLError("net/url: invalid control character in URL")
    if text == "*":
        return GoURL("", "", None, "", b"")
    scheme, rest = _scheme(text)
    scheme = scheme.lower()
    if rest.endswith("?") and rest.count("?") == 1:
        rest, raw_query = rest[:-1], ""
    else:
        rest, _, raw_query = rest.partition("?")
    if not rest.startswith("/"):
        if scheme:
            return GoURL(scheme, "", None, raw_query, b"")
        if ":" in rest.partition("/")[0]:
            raise GoURLError("first path segment in URL cannot contain colon")
    user, host = None, ""
    if (scheme or not rest.startswith("///")) and rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        rest = slash + path
        user, host = _parse_authority(authority)
    _unescape(rest, host=False)
    return GoURL(scheme, host, user, raw_query, b"")


def go_url_parse(text: str) -> GoURL:
    """``url.Parse``: the parts the webhook checks read, or :class:`GoURLError` with Go's text."""
    before, hashed, fragment = text.partition("#")
    try:
        parsed = _parse(before)
    except GoURLError as error:
        raise GoURLError(f"parse {quote(before)}: {error}") from None
    if not hashed or not fragment:
        return parsed
    try:
        unescaped = _unescape(fragment, host=False)
    except GoURLError as error:
        raise GoURLError(f"parse {quote(text)}: {error}") from None
    return GoURL(parsed.scheme, parsed.host, parsed.user, parsed.raw_query, unescaped)


def validate_webhook_url(url: str, path: str) -> list[FieldError]:
    """``ValidateWebhookURL(fldPath, URL, forceHttps=true)``."""
    try:
        parsed = go_url_parse(url)
    except GoURLError as error:
        return [field.required(path, f"url must be a valid URL: {error}{_FORM}")]
    errors: list[FieldError] = []
    if parsed.scheme != "https":
        errors.append(field.invalid(path, parsed.scheme, "'https' is the only allowed URL scheme" + _FORM))
    if not parsed.host:
        errors.append(field.invalid(path, parsed.host, "host must be specified" + _FORM))
    if parsed.user is not None:
        errors.append(field.invalid(path, parsed.user, "user information is not permitted in the URL"))
    if parsed.fragment:
        fragment = GoText(_quote_bytes(parsed.fragment))
        errors.append(field.invalid(path, fragment, "fragments are not permitted in the URL"))
    if parsed.raw_query:
        errors.append(field.invalid(path, parsed.raw_query, "query parameters are not permitted in the URL"))
    return errors


def validate_webhook_service(service: Mapping[str, Any], path: str) -> list[FieldError]:
    """``ValidateWebhookService(fldPath, service.Name, service.Namespace, service.Path, service.Port)``.

    The function's parameters are ``(namespace, name)``: the call gives them the other way round.
    """
    as_namespace = service.get("name") if isinstance(service.get("name"), str) else ""
    as_name = service.get("namespace") if isinstance(service.get("namespace"), str) else ""
    errors: list[FieldError] = []
    if not as_name:
        errors.append(field.required(field.child(path, "name"), "service name is required"))
    if not as_namespace:
        errors.append(field.required(field.child(path, "namespace"), "service namespace is required"))
    port = service.get("port")
    if isinstance(port, int) and not 1 <= port <= 65535:
        errors.append(
            field.invalid(field.child(path, "port"), port, "port is not valid: must be between 1 and 65535, inclusive")
        )
    url_path = service.get("path")
    if not isinstance(url_path, str) or url_path in ("", "/"):
        return errors
    where = field.child(path, "path")
    if url_path == "//":
        return [*errors, field.invalid(where, url_path, "segment[0] may not be empty")]
    if not url_path.startswith("/"):
        errors.append(field.invalid(where, url_path, "must start with a '/'"))
    to_check = url_path[1:]
    if to_check.endswith("/"):
        to_check = to_check[:-1]
    for number, step in enumerate(to_check.split("/")):
        if not step:
            errors.append(field.invalid(where, url_path, f"segment[{number}] may not be empty"))
            continue
        errors.extend(
            field.invalid(where, url_path, f"segment[{number}]: {problem}") for problem in is_dns1123_subdomain(step)
        )
    return errors
