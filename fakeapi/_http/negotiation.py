"""Content negotiation: which body formats a request may carry and which answers a client accepts.

Request bodies (``handlers/negotiation/negotiate.go``): an empty Content-Type on POST/PUT means
JSON; ``application/json`` and ``application/yaml`` are decoded; parameters such as ``charset``
are ignored; anything else is 415 with the list of accepted types. PATCH takes only the patch
types of its resource. Answers: an empty Accept means JSON; clauses are tried in order; a
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
    "negotiate_answer",
    "request_media_type",
]

BODY_MEDIA_TYPES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES_CUSTOM = (JSON_PATCH, MERGE_PATCH, APPLY_PATCH)
PATCH_TYPES_BUILTIN = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)


def request_media_type(content_type: str | None) -> str:
    """The media type of a request body, parameters dropped (``""`` when the header is absent)."""
    if not content_type:
        return ""
    return content_type.split(";", 1)[0].strip().lower()


def body_media_type(content_type: str | None) -> str:
    """The type a create/update body is decoded as; raises 415 for anything else."""
    media = request_media_type(content_type)
    if media in ("", "application/json", "*/*"):
        return "application/json"
    if media == "application/yaml":
        return media
    if media == "application/vnd.kubernetes.protobuf":
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
