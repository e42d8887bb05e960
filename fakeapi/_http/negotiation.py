"""Content negotiation: which body formats a request may carry and which answers a client accepts.

Request bodies (``handlers/negotiation/negotiate.go``): an empty Content-Type on POST/PUT means
JSON; otherwise the header must parse as Go's ``mime.ParseMediaType`` parses it (``;`` alone, a
duplicate or malformed parameter are 415) and name JSON, YAML or protobuf; parameters such as
``charset`` are ignored. PATCH (``handlers/patch.go``) takes the header cut before its first ``;``,
as it is, and it must be one of its resource's patch types exactly. Answers: an empty Accept means JSON; clauses are tried in order; a
``as=Table;g=meta.k8s.io;v=v1`` clause asks for a Table; clauses we cannot serve are skipped;
nothing servable is 406.
"""

from __future__ import annotations

from dataclasses import dataclass

from fakeapi.errors import APIError

__all__ = [
    "BODY_MEDIA_TYPES",
    "PATCH_TYPES_BUILTIN",
    "PATCH_TYPES_CUSTOM",
    "Answer",
    "accept_clauses",
    "body_media_type",
    "go_media_type",
    "negotiate_answer",
    "patch_media_type",
    "status_media_type",
]

BODY_MEDIA_TYPES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES_CUSTOM = (JSON_PATCH, MERGE_PATCH, APPLY_PATCH)
PATCH_TYPES_BUILTIN = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)


def patch_media_type(content_type: str | None) -> str:
    """What ``handlers/patch.go`` takes as the patch type: the header cut before its first ``;``, as it is.

    Only a ``;`` past the first character cuts; nothing is trimmed or lowered, so ``;``,
    ``Application/Merge-Patch+JSON`` or a space before the ``;`` name no patch type (415).
    """
    text = content_type or ""
    cut = text.find(";")
    return text[:cut] if cut > 0 else text


_TSPECIALS = frozenset('()<>@,;:\\"/[]?=')


def _is_token_char(ch: str) -> bool:
    return " " < ch < "\x7f" and ch not in _TSPECIALS


def _token(text: str) -> tuple[str, str]:
    end = 0
    while end < len(text) and _is_token_char(text[end]):
        end += 1
    return text[:end], text[end:]


def _quoted_or_token(text: str) -> tuple[str, str] | None:
    """``consumeValue``: a token, or a quoted string with backslash escapes; ``None`` when neither."""
    if not text.startswith('"'):
        token, rest = _token(text)
        return (token, rest) if token else None
    index, value = 1, list[str]()
    while index < len(text):
        ch = text[index]
        if ch == '"':
            return "".join(value), text[index + 1 :]
        if ch == "\\" and index + 1 < len(text) and text[index + 1] in _TSPECIALS:
            value.append(text[index + 1])
            index += 2
            continue
        if ch in "\r\n":
            return None
        value.append(ch)
        index += 1
    return None


def go_media_type(content_type: str) -> str | None:
    """``mime.ParseMediaType``'s media type, lowered, or ``None`` where Go reports an error."""
    base = content_type.split(";", 1)[0]
    media = base.strip().lower()
    kind, rest = _token(media)
    if not kind:
        return None
    if rest:
        if not rest.startswith("/"):
            return None
        subtype, rest = _token(rest[1:])
        if not subtype or rest:
            return None
    names: set[str] = set()
    rest = content_type[len(base) :]
    while rest.lstrip():
        rest = rest.lstrip()
        if not rest.startswith(";"):
            return None
        after = rest[1:].lstrip()
        name, after = _token(after)
        after = after.lstrip()
        if not name or not after.startswith("="):
            if rest.strip() == ";":  # trailing semicolons are ignored
                break
            return None
        consumed = _quoted_or_token(after[1:].lstrip())
        if consumed is None:
            return None
        name = name.lower()
        if name in names:
            return None
        names.add(name)
        rest = consumed[1]
    return media


def body_media_type(content_type: str | None) -> str:
    """The type a create/update body is decoded as (``NegotiateInputSerializerForMediaType``); else 415."""
    if not content_type:
        return "application/json"
    media = go_media_type(content_type)
    if media in BODY_MEDIA_TYPES:
        return media
    raise APIError.unsupported_media_type(BODY_MEDIA_TYPES)


@dataclass(frozen=True)
class Answer:
    """How to answer: JSON or YAML, and as the object itself, a Table or partial metadata."""

    media_type: str = "application/json"
    transform: str = ""  # "", "Table", "PartialObjectMetadata", "PartialObjectMetadataList"
    table_version: str = "v1"


def accept_clauses(accept: str) -> list[tuple[str, dict[str, str]]]:
    clauses = []
    for raw in accept.split(","):
        pieces = [piece.strip() for piece in raw.split(";")]
        media = pieces[0].lower()
        if not media:
            continue
        params: dict[str, str] = {}
        for piece in pieces[1:]:
            if "=" in piece:
                key, _, value = piece.partition("=")
                params[key.strip().lower()] = value.strip().strip('"')
        clauses.append((media, params))
    return clauses


def status_media_type(accept: str | None) -> str | None:
    """The type an error's Status is written in (``ErrorNegotiated`` under the default endpoint
    restrictions), or ``None`` when no clause can carry it and ``WriteRawJSON`` writes indented JSON.

    A clause asking for a conversion (``as``, ``g``, ``v``) or a server version (``sv``) is not one
    a Status can be written as and is skipped. The apiserver serves a protobuf clause; answers here
    are never protobuf, so such a clause gets compact JSON (docs/status-errors.md).
    """
    if not accept or not accept.strip():
        return "application/json"
    for media, params in accept_clauses(accept):
        if {"as", "g", "v"} & params.keys() or params.get("sv"):
            continue
        if media == "application/yaml":
            return media
        if media in ("application/json", "application/*", "*/*", "application/vnd.kubernetes.protobuf"):
            return "application/json"
    return None


def negotiate_answer(accept: str | None, *, tables: bool = True) -> Answer:
    """The first Accept clause we can serve; 406 when there is none."""
    if not accept or not accept.strip():
        return Answer()
    for media, params in accept_clauses(accept):
        if media in ("application/json", "application/*", "*/*", "application/yaml"):
            served = "application/yaml" if media == "application/yaml" else "application/json"
            transform = params.get("as", "")
            if not transform:
                return Answer(served)
            group, version = params.get("g", ""), params.get("v", "")
            if transform == "Table" and tables and group == "meta.k8s.io" and version in ("v1", "v1beta1"):
                return Answer(served, "Table", version)
            partial = transform in ("PartialObjectMetadata", "PartialObjectMetadataList")
            if partial and group == "meta.k8s.io" and version in ("v1", "v1beta1"):
                return Answer(served, transform, version)
            continue
    raise APIError.not_acceptable(BODY_MEDIA_TYPES)
