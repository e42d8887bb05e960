"""What a request is about, read from its path and method as ``RequestInfoFactory`` reads it.

``/api/v1/namespaces/{ns}/{resource}/{name}/{subresource}`` and ``/apis/{group}/{version}/...``;
``namespaces/{name}/status`` and ``/finalize`` are subresources of the namespace itself; a GET
with no name is a list (or a watch with ``watch=true``), a DELETE with no name is a
deletecollection; the legacy ``/watch/`` prefix makes any GET a watch
(``apiserver/pkg/endpoints/request/requestinfo.go``). The path is split as ``splitPath`` splits
it: slashes trimmed at both ends, empty segments inside kept, so ``configmaps/%2F`` (decoded
``configmaps//``) is the collection and ``configmaps/%2Fa`` has an empty name (docs/routing.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["RequestInfo", "parse_request_info", "query_flag"]

_NAMESPACE_SUBRESOURCES = {"status", "finalize"}
_METHOD_VERBS = {"GET": "get", "HEAD": "get", "POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


@dataclass(frozen=True)
class RequestInfo:
    is_resource_request: bool
    path: str
    verb: str = ""
    group: str = ""
    version: str = ""
    namespace: str = ""
    resource: str = ""
    name: str = ""
    subresource: str = ""
    legacy_watch: bool = False
    # The segments from the resource on (``Parts`` upstream): what go-restful's routes must match.
    parts: tuple[str, ...] = ()
    # A ``namespaces/{namespace}/`` prefix was present, even with an empty namespace.
    namespace_segment: bool = False

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


def query_flag(query: Mapping[str, str], name: str) -> bool:
    """A boolean query parameter: present and not ``0``/``false`` means true."""
    value = query.get(name)
    return value is not None and value.lower() not in ("0", "false")


def _split_path(path: str) -> list[str]:
    trimmed = path.strip("/")
    return trimmed.split("/") if trimmed else []


def parse_request_info(method: str, path: str, query: Mapping[str, str]) -> RequestInfo:
    parts = _split_path(path)
    if len(parts) < 3 or parts[0] not in ("api", "apis"):
        return RequestInfo(False, path)
    if parts[0] == "api":
        group, version, rest = "", parts[1], parts[2:]
    else:
        if len(parts) < 4:
            return RequestInfo(False, path)
        group, version, rest = parts[1], parts[2], parts[3:]
    verb = _METHOD_VERBS.get(method, method.lower())
    legacy_watch = False
    if rest[0] == "watch" and len(rest) > 1:
        legacy_watch = True
        verb = "watch"
        rest = rest[1:]
    namespace = ""
    namespace_segment = False
    if rest[0] == "namespaces" and len(rest) > 1:
        namespace = rest[1]
        if len(rest) > 2 and rest[2] not in _NAMESPACE_SUBRESOURCES:
            rest = rest[2:]
            namespace_segment = True
    resource = rest[0]
    name = rest[1] if len(rest) >= 2 else ""
    subresource = rest[2] if len(rest) >= 3 else ""
    if not name and verb == "get":
        verb = "watch" if query_flag(query, "watch") else "list"
    if not name and verb == "delete":
        verb = "deletecollection"
    return RequestInfo(
        True,
        path,
        verb=verb,
        group=group,
        version=version,
        namespace=namespace,
        resource=resource,
        name=name,
        subresource=subresource,
        legacy_watch=legacy_watch,
        parts=tuple(rest),
        namespace_segment=namespace_segment,
    )
