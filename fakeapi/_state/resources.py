"""The resources the fake serves: the built-in kinds operators touch, and every established CRD.

A :class:`ResourceType` is what discovery advertises and what routing resolves a URL to: group,
version, plural, kind, scope, verbs, short names, categories, subresources. Built-ins are a fixed
table (their discovery entries match a 1.32 cluster); custom resources come from
CustomResourceDefinition objects (``customresource_discovery_controller.go``): one type per served
version, versions sorted kube-aware, ``storageVersionHash`` from the storage version.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from fakeapi.errors import GroupResource

__all__ = [
    "BUILTIN_TYPES",
    "CRD_TYPE",
    "NAMESPACE_TYPE",
    "ResourceType",
    "kube_version_sort_key",
    "storage_version_hash",
    "types_from_crd",
]

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
CRD_VERBS = ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch")
TERMINATING_CRD_VERBS = ("delete", "deletecollection", "get", "list", "watch")
SUBRESOURCE_VERBS = ("get", "patch", "update")


@dataclass(frozen=True)
class ResourceType:
    """One resource at one version, as served."""

    group: str
    version: str
    plural: str
    singular: str
    kind: str
    namespaced: bool
    verbs: tuple[str, ...] = ALL_VERBS
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: frozenset[str] = frozenset()
    custom: bool = False
    storage_version: str = ""
    printer_columns: tuple[dict[str, Any], ...] = ()
    selectable_fields: tuple[str, ...] = ()
    schema: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    preserve_unknown_fields: bool = False
    crd_name: str = ""
    scale_paths: tuple[str, str, str] = ("spec.replicas", "status.replicas", "")

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def api_version(self) -> str:
        return self.group_version

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"

    @property
    def group_resource(self) -> GroupResource:
        """``foos.example.com`` / ``pods``: how NotFound, Conflict and AlreadyExists name it."""
        return GroupResource(self.group, self.plural)

    @property
    def group_kind(self) -> GroupResource:
        """``Foo.example.com`` / ``Pod``: how Invalid names it."""
        return GroupResource(self.group, self.kind)

    @property
    def storage_key(self) -> tuple[str, str]:
        """Objects are stored once per group and resource, whatever version they are served at."""
        return (self.group, self.plural)

    def discovery_entry(self) -> dict[str, Any]:
        """The ``APIResource`` of ``/apis/{g}/{v}``, keys in the apiserver's order."""
        entry: dict[str, Any] = {
            "name": self.plural,
            "singularName": self.singular,
            "namespaced": self.namespaced,
            "kind": self.kind,
            "verbs": list(self.verbs),
        }
        if self.short_names:
            entry["shortNames"] = list(self.short_names)
        if self.categories:
            entry["categories"] = list(self.categories)
        entry["storageVersionHash"] = storage_version_hash(self.group, self.storage_version or self.version, self.kind)
        return entry

    def subresource_entries(self) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = []
        if "finalize" in self.subresources:
            # PUT only; Go lists a resource's subresources sorted, so finalize comes before status.
            entries.append(
                {
                    "name": f"{self.plural}/finalize",
                    "singularName": "",
                    "namespaced": self.namespaced,
                    "kind": self.kind,
                    "verbs": ["update"],
                }
            )
        if "status" in self.subresources:
            entries.append(
                {
                    "name": f"{self.plural}/status",
                    "singularName": "",
                    "namespaced": self.namespaced,
                    "kind": self.kind,
                    "verbs": list(SUBRESOURCE_VERBS),
                }
            )
        if "scale" in self.subresources:
            entries.append(
                {
                    "name": f"{self.plural}/scale",
                    "singularName": "",
                    "namespaced": self.namespaced,
                    "group": "autoscaling",
                    "version": "v1",
                    "kind": "Scale",
                    "verbs": list(SUBRESOURCE_VERBS),
                }
            )
        return entries


def storage_version_hash(group: str, version: str, kind: str) -> str:
    """std base64 of the first 8 bytes of sha256("<group>/<version>/<Kind>") (storageversionhash.go)."""
    digest = hashlib.sha256(f"{group}/{version}/{kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


def _builtin(
    group: str,
    version: str,
    plural: str,
    kind: str,
    namespaced: bool = True,
    *,
    verbs: tuple[str, ...] = ALL_VERBS,
    short_names: tuple[str, ...] = (),
    categories: tuple[str, ...] = (),
    subresources: tuple[str, ...] = (),
) -> ResourceType:
    return ResourceType(
        group=group,
        version=version,
        plural=plural,
        singular=kind.lower(),
        kind=kind,
        namespaced=namespaced,
        verbs=verbs,
        short_names=short_names,
        categories=categories,
        subresources=frozenset(subresources),
    )


BUILTIN_TYPES: tuple[ResourceType, ...] = (
    _builtin(
        "",
        "v1",
        "namespaces",
        "Namespace",
        False,
        verbs=("create", "delete", "get", "list", "patch", "update", "watch"),
        short_names=("ns",),
        subresources=("finalize", "status"),
    ),
    _builtin("", "v1", "configmaps", "ConfigMap", short_names=("cm",)),
    _builtin("", "v1", "secrets", "Secret"),
    _builtin("", "v1", "services", "Service", short_names=("svc",), categories=("all",), subresources=("status",)),
    _builtin("", "v1", "serviceaccounts", "ServiceAccount", short_names=("sa",)),
    _builtin("", "v1", "pods", "Pod", short_names=("po",), categories=("all",), subresources=("status",)),
    _builtin("", "v1", "events", "Event", short_names=("ev",)),
    _builtin("events.k8s.io", "v1", "events", "Event", short_names=("ev",)),
    _builtin("coordination.k8s.io", "v1", "leases", "Lease"),
    _builtin(
        "apps",
        "v1",
        "deployments",
        "Deployment",
        short_names=("deploy",),
        categories=("all",),
        subresources=("status", "scale"),
    ),
    _builtin("batch", "v1", "jobs", "Job", categories=("all",), subresources=("status",)),
    _builtin(
        "apiextensions.k8s.io",
        "v1",
        "customresourcedefinitions",
        "CustomResourceDefinition",
        False,
        short_names=("crd", "crds"),
        categories=("api-extensions",),
        subresources=("status",),
    ),
    _builtin(
        "authorization.k8s.io",
        "v1",
        "selfsubjectaccessreviews",
        "SelfSubjectAccessReview",
        False,
        verbs=("create",),
    ),
)


def _scale_paths(scale: Any) -> tuple[str, str, str]:
    if not isinstance(scale, dict):
        return ("spec.replicas", "status.replicas", "")
    return (
        str(scale.get("specReplicasPath", ".spec.replicas")).lstrip("."),
        str(scale.get("statusReplicasPath", ".status.replicas")).lstrip("."),
        str(scale.get("labelSelectorPath") or "").lstrip("."),
    )


NAMESPACE_TYPE = next(t for t in BUILTIN_TYPES if t.kind == "Namespace")
CRD_TYPE = next(t for t in BUILTIN_TYPES if t.kind == "CustomResourceDefinition")

_VERSION = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")


def kube_version_sort_key(version: str) -> tuple[int, int, int, str]:
    """Kube-aware version order, first is preferred: GA > beta > alpha > other, higher numbers first."""
    match = _VERSION.match(version)
    if match is None:
        return (3, 0, 0, version)
    major = int(match.group(1))
    stability = {None: 0, "beta": 1, "alpha": 2}[match.group(2)]
    minor = int(match.group(3) or 0)
    return (stability, -major, -minor, version)


def types_from_crd(crd: dict[str, Any], *, terminating: bool = False) -> list[ResourceType]:
    """The served resource types of one CRD, preferred version first."""
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    group = spec.get("group", "")
    plural = names.get("plural", "")
    kind = names.get("kind", "")
    versions = [v for v in spec.get("versions") or [] if v.get("served")]
    storage = next((v.get("name", "") for v in spec.get("versions") or [] if v.get("storage")), "")
    types = []
    for version in sorted(versions, key=lambda v: kube_version_sort_key(v.get("name", ""))):
        subresources = version.get("subresources") or {}
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        types.append(
            ResourceType(
                group=group,
                version=version.get("name", ""),
                plural=plural,
                singular=names.get("singular") or kind.lower(),
                kind=kind,
                namespaced=spec.get("scope") == "Namespaced",
                verbs=TERMINATING_CRD_VERBS if terminating else CRD_VERBS,
                short_names=tuple(names.get("shortNames") or ()),
                categories=tuple(names.get("categories") or ()),
                subresources=frozenset(name for name in ("status", "scale") if name in subresources),
                custom=True,
                storage_version=storage,
                printer_columns=tuple(version.get("additionalPrinterColumns") or ()),
                selectable_fields=tuple(
                    f.get("jsonPath", "").lstrip(".") for f in version.get("selectableFields") or ()
                ),
                schema=schema,
                preserve_unknown_fields=bool(spec.get("preserveUnknownFields")),
                crd_name=(crd.get("metadata") or {}).get("name", ""),
                scale_paths=_scale_paths(subresources.get("scale")),
            )
        )
    return types
