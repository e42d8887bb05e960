"""A resource type: everything the fake knows of one resource at one version, in one place.

A :class:`ResourceType` is the descriptor of a kind as served, as the apiserver's registry keeps
each kind in one ``pkg/registry/<group>/<kind>`` folder (``strategy.go`` and ``storage.go``) over one
generic store (``registry/generic/registry/store.go``):

* what discovery advertises and routing resolves a URL to: group, version, plural, kind, scope,
  verbs, short names, categories, subresources (each with its verbs and response kind);
* what the store does around a write: the :class:`~fakeapi._state.strategy.Strategy` (prepare,
  validate, warnings, lifecycle hooks) and the defaulter of ``pkg/apis/<group>/v1/defaults.go``;
* how it is shown: the printer of its Tables. Its Go struct (for typed decoding, protobuf bodies
  and strategic merge patch metadata) is found by apiVersion and kind in
  :mod:`fakeapi._state.typed`, which holds every kind of the API.

The built-in kinds are declared in :mod:`fakeapi._state.kinds`, one module per API group; a custom
resource's descriptors are built from its CRD (:mod:`fakeapi._state.kinds.custom`).
"""

from __future__ import annotations

import base64
import copy
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fakeapi.errors import GroupResource

if TYPE_CHECKING:
    from fakeapi._state.tables.columns import Printer

__all__ = [
    "ALL_VERBS",
    "SUBRESOURCE_VERBS",
    "Defaulter",
    "ResourceType",
    "Subresource",
    "kube_version_sort_key",
    "storage_version_hash",
]

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
SUBRESOURCE_VERBS = ("get", "patch", "update")

# Fills in what the apiserver defaults, in place; the bool says which write this is (see
# :mod:`fakeapi._state.defaults`).
Defaulter = Callable[[dict[str, Any], "bool | None"], None]


@dataclass(frozen=True)
class Subresource:
    """One subresource as discovery lists it; the response kind is the parent's unless named."""

    name: str
    verbs: tuple[str, ...] = SUBRESOURCE_VERBS
    kind: str = ""
    group: str | None = None
    version: str | None = None
    # The fields a write through it may change (``pods/ephemeralcontainers`` changes
    # spec.ephemeralContainers); everything else is kept from the stored object.
    writes: tuple[tuple[str, ...], ...] = ()


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
    subresource_table: tuple[Subresource, ...] = ()
    custom: bool = False
    storage_version: str = ""
    selectable_fields: tuple[str, ...] = ()
    schema: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    preserve_unknown_fields: bool = False
    crd_name: str = ""
    scale_paths: tuple[str, str, str] = ("spec.replicas", "status.replicas", "")
    # Its :class:`~fakeapi._state.strategy.Strategy`, read through ``strategy_of``: the strategy's
    # hooks take resource types, so this module does not name the strategy's class.
    strategy: object = field(default=None, compare=False, hash=False, repr=False)
    defaulter: Defaulter | None = field(default=None, compare=False, hash=False, repr=False)
    printer: Printer | None = field(default=None, compare=False, hash=False, repr=False)
    # A custom resource's :class:`~fakeapi._state.conversion.CRDConversion` (its CRD's versions and
    # ``spec.conversion``), or a built-in's conversion from the shape it is stored in
    # (:class:`~fakeapi._state.conversion.events.EventConversion`), read through ``conversion_of``.
    conversion: object = field(default=None, compare=False, hash=False, repr=False)
    # The group, version and kind objects are stored as, where another resource's (events.k8s.io
    # Events are core/v1 Events in storage); discovery's storageVersionHash is computed from it.
    stored_as: tuple[str, str, str] | None = None
    # A kind of k8s.io/api: held as its Go struct, so stored and written in the struct's field order
    # (:mod:`fakeapi._state.typed`); custom resources and the kinds of other modules keep sorted keys.
    struct_order: bool = False
    # The first Kubernetes release whose kube-apiserver serves it by default ("1.33"); empty for
    # every release fakeapi knows (:mod:`fakeapi._state.releases`).
    since: str = ""
    # Its Go type's ``APILifecycleDeprecated`` ("1.33") and ``APILifecycleReplacement``
    # ("discovery.k8s.io/v1 EndpointSlice", in ``zz_generated.prerelease-lifecycle.go`` or
    # ``lifecycle.go``): from that release on, every request to it is warned (:meth:`deprecation`).
    deprecated_in: str = ""
    replacement: str = ""

    # The subresources' names, computed once: the write path asks for them on every write.
    subresources: frozenset[str] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "subresources", frozenset(sub.name for sub in self.subresource_table))

    def deprecation(self, kube_minor: int) -> str | None:
        """``deprecation.WarningMessage``, which the installer adds to every handler of the resource's
        path when ``IsDeprecated`` at the server's release; None before that release."""
        if not self.deprecated_in or int(self.deprecated_in.split(".")[1]) > kube_minor:
            return None
        text = f"{self.group_version} {self.kind} is deprecated in v{self.deprecated_in}+"
        return f"{text}; use {self.replacement}" if self.replacement else text

    def subresource(self, name: str) -> Subresource | None:
        return next((sub for sub in self.subresource_table if sub.name == name), None)

    def default(self, obj: dict[str, Any], *, creating: bool | None = None) -> dict[str, Any]:
        """The object as the apiserver's defaulting leaves it; the input is never mutated."""
        if self.defaulter is None:
            return obj
        out = copy.deepcopy(obj)
        self.defaulter(out, creating)
        return out

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
        """Objects are stored once per group and resource, whatever version they are served at; a
        resource stored as another group's (events.k8s.io Events) shares that group's objects."""
        return (self.stored_as[0] if self.stored_as else self.group, self.plural)

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
        stored_as = self.stored_as or (self.group, self.storage_version or self.version, self.kind)
        entry["storageVersionHash"] = storage_version_hash(*stored_as)
        return entry

    def subresource_entries(self) -> list[dict[str, Any]]:
        """The ``APIResource`` entries of its subresources, sorted by name as Go lists them."""
        entries: list[dict[str, Any]] = []
        for sub in sorted(self.subresource_table, key=lambda sub: sub.name):
            entry: dict[str, Any] = {
                "name": f"{self.plural}/{sub.name}",
                "singularName": "",
                "namespaced": self.namespaced,
            }
            if sub.group is not None:
                entry["group"] = sub.group
            if sub.version is not None:
                entry["version"] = sub.version
            entry["kind"] = sub.kind or self.kind
            entry["verbs"] = list(sub.verbs)
            entries.append(entry)
        return entries


def storage_version_hash(group: str, version: str, kind: str) -> str:
    """std base64 of the first 8 bytes of sha256("<group>/<version>/<Kind>") (storageversionhash.go)."""
    digest = hashlib.sha256(f"{group}/{version}/{kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


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
