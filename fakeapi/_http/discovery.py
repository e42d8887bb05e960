"""Discovery documents in the shapes real clients parse (docs/discovery.md).

``/version`` (indented, no trailing newline), ``/api``, ``/apis``, ``/apis/{g}``, ``/api/v1`` and
``/apis/{g}/{v}`` in the legacy formats: a plain ``application/json`` answer makes client-go fall
back from aggregated discovery. The OpenAPI documents are :mod:`.openapi_v3` and :mod:`.openapi_v2`.
"""

from __future__ import annotations

import json
from typing import Any

from fakeapi._state.registry import Registry
from fakeapi._state.releases import Release

__all__ = [
    "api_group",
    "api_group_list",
    "api_resource_list",
    "api_versions",
    "version_info",
]


def version_info(release: Release) -> bytes:
    """``WriteRawJSON`` of the release's ``version.Info``: indented with two spaces and no trailing newline.

    From 1.33 the apiserver states the version it emulates and the oldest it is compatible with
    (``version.Info``'s ``omitempty`` emulation fields; one minor back, as kube-apiserver's defaults are).
    """
    info: dict[str, str] = {"major": "1", "minor": str(release.minor)}
    if release.minor >= 33:
        info |= {
            "emulationMajor": "1",
            "emulationMinor": str(release.minor),
            "minCompatibilityMajor": "1",
            "minCompatibilityMinor": str(release.minor - 1),
        }
    info |= {
        "gitVersion": release.git_version,
        "gitCommit": release.git_commit,
        "gitTreeState": "clean",
        "buildDate": release.build_date,
        "goVersion": release.go_version,
        "compiler": "gc",
        "platform": "linux/amd64",
    }
    return json.dumps(info, indent=2).encode()


def api_versions(server_address: str) -> dict[str, Any]:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    }


def _group_versions(registry: Registry, group: str) -> list[dict[str, str]]:
    return [{"groupVersion": f"{group}/{version}", "version": version} for version in registry.versions_of(group)]


def api_group(registry: Registry, group: str) -> dict[str, Any] | None:
    versions = _group_versions(registry, group)
    if not versions:
        return None
    return {
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": group,
        "versions": versions,
        "preferredVersion": versions[0],
    }


def api_group_list(registry: Registry) -> dict[str, Any]:
    groups = []
    for group in registry.groups():
        if not group:
            continue
        versions = _group_versions(registry, group)
        groups.append({"name": group, "versions": versions, "preferredVersion": versions[0]})
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_resource_list(registry: Registry, group: str, version: str) -> dict[str, Any] | None:
    types = registry.types_in(group, version)
    if not types:
        return None
    resources: list[dict[str, Any]] = []
    if not any(rtype.custom for rtype in types):
        types = sorted(types, key=lambda rtype: rtype.plural)  # the installer sorts a group version's paths
    for rtype in types:
        resources.append(rtype.discovery_entry())
        resources.extend(rtype.subresource_entries())
    group_version = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources}
