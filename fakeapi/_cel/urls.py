"""URLs for CEL (k8s.io/apiserver ``pkg/cel/library/urls.go``), split as Go's ``net/url`` splits them.

``url(s)`` accepts what ``url.ParseRequestURI`` accepts (an absolute URL, or an absolute path) and keeps what
``url.Parse`` makes of it: scheme, authority (host and port), path, query, fragment. The errors are Go's
``parse "<s>": <why>``: ``net/url: invalid control character in URL``, ``missing protocol scheme``,
``first path segment in URL cannot contain colon``, ``invalid URI for request``, ``invalid port ":x" after
host``. Two URLs are equal when their texts are (``URL.String()``).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote_plus

from fakeapi._patching.gostrconv import quote

__all__ = ["ParsedURL", "URLError", "escaped_path", "parse_request_url", "query_of"]


class URLError(ValueError):
    """A text Go's net/url refuses, with Go's message."""


_UNRESERVED = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")
# What ``escape(s, encodePath)`` leaves alone besides the unreserved characters.
_PATH_KEPT = set("$&+,/:;=@")
# What ``validEncoded(s, encodePath)`` accepts besides those: a written path with only these stays as written.
_PATH_VALID = set("!$&'()*+,;=:@[]%")


def _unescape_path(text: str) -> str:
    data = bytearray()
    index = 0
    raw = text.encode()
    while index < len(raw):
        if (
            raw[index] == 0x25
            and index + 2 < len(raw) + 0
            and all(chr(c) in "0123456789abcdefABCDEF" for c in raw[index + 1 : index + 3])
        ):
            data.append(int(raw[index + 1 : index + 3], 16))
            index += 3
        else:
            data.append(raw[index])
            index += 1
    return data.decode("utf-8", "replace")


def escaped_path(written: str) -> str:
    """``URL.EscapedPath``: the path as written when that is a valid encoding, else Go's escaping of it."""
    if all(char in _UNRESERVED or char in _PATH_KEPT or char in _PATH_VALID for char in written):
        return written
    path = _unescape_path(written)
    out = []
    for byte in path.encode():
        char = chr(byte)
        out.append(char if char in _UNRESERVED or char in _PATH_KEPT else f"%{byte:02X}")
    return "".join(out)


@dataclass(frozen=True)
class ParsedURL:
    scheme: str
    host: str
    # As written: what ``EscapedPath`` gives back for a path that needed no escaping.
    path: str
    raw_query: str
    text: str

    def hostname(self) -> str:
        host = self.host
        if host.startswith("["):
            end = host.find("]")
            return host[1:end] if end > 0 else host[1:]
        return host.rsplit(":", 1)[0] if ":" in host else host

    def port(self) -> str:
        host = self.host
        if host.startswith("["):
            end = host.find("]")
            rest = host[end + 1 :] if end > 0 else ""
            return rest[1:] if rest.startswith(":") else ""
        return host.rsplit(":", 1)[1] if ":" in host else ""


def _error(text: str, why: str) -> URLError:
    return URLError(f"parse {quote(text)}: {why}")


def _scheme(text: str) -> tuple[str, str]:
    """``getScheme``: the scheme and the rest, or no scheme when the text does not start with one."""
    for index, char in enumerate(text):
        if char.isascii() and char.isalpha():
            continue
        if char.isascii() and (char.isdigit() or char in "+-.") and index > 0:
            continue
        if char == ":":
            if index == 0:
                raise URLError("missing protocol scheme")
            return text[:index], text[index + 1 :]
        return "", text
    return "", text


def _check_host(text: str, host: str) -> None:
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            raise _error(text, "missing ']' in host")
        port = host[end + 1 :]
        if port and (not port.startswith(":") or (not port[1:].isdigit() and port != ":")):
            raise _error(text, f"invalid port {quote(port)} after host")
        return
    colon = host.rfind(":")
    if colon >= 0:
        port = host[colon:]
        if port != ":" and not port[1:].isdigit():
            raise _error(text, f"invalid port {quote(port)} after host")


def parse_request_url(text: str) -> ParsedURL:
    """``url.ParseRequestURI`` then ``url.Parse``, as ``url()`` calls them."""
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in text):
        raise _error(text, "net/url: invalid control character in URL")
    try:
        scheme, rest = _scheme(text)
    except URLError as error:
        raise _error(text, str(error)) from None
    if not scheme and not rest.startswith("/"):
        raise _error(text, "invalid URI for request")
    fragmentless = rest.split("#", 1)[0]
    path_and_query, _, raw_query = fragmentless.partition("?")
    host = ""
    path = path_and_query
    if (scheme or path_and_query.startswith("//")) and path_and_query.startswith("//"):
        authority_end = path_and_query.find("/", 2)
        authority = path_and_query[2:] if authority_end < 0 else path_and_query[2:authority_end]
        path = "" if authority_end < 0 else path_and_query[authority_end:]
        host = authority.rsplit("@", 1)[-1]
        _check_host(text, host)
    return ParsedURL(scheme.lower(), host, path, raw_query, text)


def query_of(url: ParsedURL) -> dict[str, list[str]]:
    """``URL.Query()``: each key's values, in order; a pair with a ``;`` is dropped, as Go drops it."""
    values: dict[str, list[str]] = {}
    for pair in url.raw_query.split("&"):
        if not pair or ";" in pair:
            continue
        key, _, value = pair.partition("=")
        values.setdefault(unquote_plus(key), []).append(unquote_plus(value))
    return values
