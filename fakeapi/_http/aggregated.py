"""Aggregated discovery: ``/api`` and ``/apis`` as one ``APIGroupDiscoveryList`` each (docs/discovery.md).

client-go (kubectl 1.32 among them) asks for ``application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList``
first; the answer replaces the legacy group list and every group version's resource list.
Reproduced from ``k8s.io/apiserver/pkg/endpoints/discovery/aggregated`` (``handler.go``,
``etag.go``, ``negotiation.go``) and, for CRDs, ``customresource_discovery_controller.go``:

* one item per group (``/api``: the core group, unnamed), its versions preferred first, each with
  ``freshness: Current`` and its resources sorted by name: resource, responseKind (empty group and
  version for a built-in, the CRD's own for a custom resource), scope, singularResource, verbs,
  shortNames, categories, and subresources with their responseKind and verbs;
* ``v2`` and, up to 1.32, ``v2beta1`` (the same shape under its own apiVersion); from 1.33 the
  AggregatedDiscoveryRemoveBetaType gate is on by default, so a ``v2beta1`` clause of Accept is
  one the server cannot serve and negotiation moves on to the next;
* ``ETag`` is the quoted upper-case hex SHA-512 of the document's JSON, ``Vary: Accept``, and a
  matching ``If-None-Match`` is ``304 Not Modified``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from aiohttp import web

from fakeapi._http.compression import SERIALIZED
from fakeapi._http.negotiation import accept_clauses
from fakeapi._http.responses import encode_body
from fakeapi._state.registry import Registry
from fakeapi._state.releases import Release
from fakeapi._state.resources import ResourceType

__all__ = ["aggregated_version", "discovery_response"]

_GROUP = "apidiscovery.k8s.io"
_BETA_REMOVED_IN = 33


def aggregated_version(accept: str | None, release: Release) -> str | None:
    """``v2`` (or ``v2beta1`` before 1.33) when the first clause the server can serve asks for aggregated discovery."""
    served = ("v2",) if release.minor >= _BETA_REMOVED_IN else ("v2", "v2beta1")
    for media, params in accept_clauses(accept or ""):
        if media not in ("application/json", "application/*", "*/*"):
            continue
        if not params.get("as"):
            return None
        if params.get("as") == "APIGroupDiscoveryList" and params.get("g") == _GROUP and params.get("v") in served:
            return params["v"]
    return None


def _resource(rtype: ResourceType) -> dict[str, Any]:
    group, version = (rtype.group, rtype.version) if rtype.custom else ("", "")
    entry: dict[str, Any] = {
        "resource": rtype.plural,
        "responseKind": {"group": group, "version": version, "kind": rtype.kind},
        "scope": "Namespaced" if rtype.namespaced else "Cluster",
        "singularResource": rtype.singular,
        "verbs": list(rtype.verbs),
    }
    if rtype.short_names:
        entry["shortNames"] = list(rtype.short_names)
    if rtype.categories:
        entry["categories"] = list(rtype.categories)
    subresources = []
    for sub in sorted(rtype.subresource_table, key=lambda sub: sub.name):
        kind_group = sub.group if sub.group is not None else group
        kind_version = sub.version if sub.version is not None else version
        subresources.append(
            {
                "subresource": sub.name,
                "responseKind": {"group": kind_group, "version": kind_version, "kind": sub.kind or rtype.kind},
                "verbs": list(sub.verbs),
            }
        )
    if subresources:
        entry["subresources"] = subresources
    return entry


def _group(registry: Registry, group: str) -> dict[str, Any]:
    versions = []
    for version in registry.versions_of(group):
        types = registry.types_in(group, version)
        if not any(rtype.custom for rtype in types):
            types = sorted(types, key=lambda rtype: rtype.plural)
        versions.append(
            {"version": version, "resources": [_resource(rtype) for rtype in types], "freshness": "Current"}
        )
    metadata: dict[str, Any] = {"name": group, "creationTimestamp": None} if group else {"creationTimestamp": None}
    return {"metadata": metadata, "versions": versions}


def discovery_response(registry: Registry, *, core: bool, version: str, if_none_match: str | None) -> web.Response:
    groups = [""] if core else [group for group in registry.groups() if group]
    document = {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": f"{_GROUP}/{version}",
        "metadata": {},
        "items": [_group(registry, group) for group in groups],
    }
    body = encode_body(document, ordered=True)
    etag = '"' + hashlib.sha512(body.rstrip(b"\n")).hexdigest().upper() + '"'
    headers = {"Vary": "Accept", "ETag": etag}
    if if_none_match == etag:
        return web.Response(status=304, headers=headers)
    response = web.Response(body=body, status=200, headers=headers)
    response.headers["Content-Type"] = f"application/json;g={_GROUP};v={version};as=APIGroupDiscoveryList"
    # ServeHTTPWithETag answers through WriteObjectNegotiated, whose writer gzips a long document.
    response[SERIALIZED] = True
    return response
