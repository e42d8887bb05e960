"""The store as the code of one kind sees it: what strategies, controllers and admission may call.

The generic store (:mod:`fakeapi._state.store`, as ``registry/generic/registry/store.go``) calls
each kind's strategy around a write, and some hooks write back through it: a CRD's registration and
cleanup, a namespace's finalization, the garbage collector's cascade, ServiceAccount admission.
These Protocols name what that code uses of the store and of its registry, so it depends on this
module rather than on the store that depends on it, and imports go one way only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from fakeapi._state.clock import Clock
from fakeapi._state.encodings import RevisionSlot
from fakeapi._state.resources import ResourceType
from fakeapi._state.signing_keys import SigningKey
from fakeapi._state.watching import WatchHub

__all__ = ["Committed", "Key", "ObjectId", "RegistryView", "StoreView"]

Key = tuple[str, str]
"""An object's ``(namespace, name)`` in its resource's bucket."""
ObjectId = tuple[tuple[str, str], str, str]
"""Where an object is stored: its resource's storage key, namespace and name."""


@dataclass
class Committed:
    """What a write did: the object to answer with, and whether anything was persisted."""

    object: dict[str, Any]
    changed: bool
    deleted: bool = False
    warnings: tuple[str, ...] = ()


class RegistryView(Protocol):
    """The resource types served right now (:class:`~fakeapi._state.registry.Registry`)."""

    kube_version: str

    @property
    def namespaces(self) -> ResourceType: ...

    @property
    def customresourcedefinitions(self) -> ResourceType: ...

    def resolve(self, group: str, version: str, plural: str) -> ResourceType | None: ...

    def all_types(self) -> list[ResourceType]: ...

    def types_in(self, group: str, version: str) -> list[ResourceType]: ...

    def custom_types_of(self, crd_name: str) -> list[ResourceType]: ...

    def register_crd(self, crd: dict[str, Any]) -> None: ...

    def unregister_crd(self, name: str) -> None: ...


class StoreView(Protocol):
    """The objects, their revision counter and writes (:class:`~fakeapi._state.store.Store`)."""

    @property
    def clock(self) -> Clock: ...

    @property
    def registry(self) -> RegistryView: ...

    @property
    def hub(self) -> WatchHub: ...

    @property
    def objects(self) -> dict[tuple[str, str], dict[Key, dict[str, Any]]]: ...

    @property
    def finalizing(self) -> set[str]: ...

    @property
    def namespace_deletion_simulated(self) -> bool: ...

    @property
    def admission_plugins(self) -> frozenset[str]: ...

    @property
    def protected_storage(self) -> frozenset[str]: ...

    @property
    def revision(self) -> int: ...

    @property
    def changed_at(self) -> dict[tuple[str, str], int]: ...

    @property
    def epoch(self) -> int: ...

    @property
    def namespace_controllers(self) -> bool: ...

    @property
    def root_ca(self) -> str: ...

    @property
    def signing_key(self) -> SigningKey: ...

    def bucket(self, rtype: ResourceType) -> dict[Key, dict[str, Any]]: ...

    def find(self, rtype: ResourceType, namespace: str, name: str) -> dict[str, Any] | None: ...

    def get(self, rtype: ResourceType, namespace: str, name: str) -> dict[str, Any]: ...

    def in_struct_order(self, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]: ...

    def admit(self, rtype: ResourceType, namespace: str, obj: dict[str, Any]) -> dict[str, Any]: ...

    def items(self, rtype: ResourceType, namespace: str | None) -> list[dict[str, Any]]: ...

    def dependents_of(self, uid: str) -> list[ObjectId]: ...

    def generate_name(self, base: str) -> str: ...

    def persist(
        self,
        rtype: ResourceType,
        obj: dict[str, Any],
        change_type: str,
        previous: dict[str, Any] | None,
        slot: RevisionSlot | None = None,
    ) -> dict[str, Any]: ...

    def create(
        self,
        rtype: ResourceType,
        namespace: str,
        obj: dict[str, Any],
        *,
        dry_run: bool = False,
        manager: str = "",
        validate: bool = True,
        applied: dict[str, Any] | None = None,
    ) -> Committed: ...

    def update(
        self,
        rtype: ResourceType,
        namespace: str,
        name: str,
        compute: Callable[[dict[str, Any]], dict[str, Any]],
        *,
        subresource: str = "",
        dry_run: bool = False,
        manager: str = "",
        unconditional: bool = False,
        track_fields: bool = True,
    ) -> Committed: ...

    def delete(
        self,
        rtype: ResourceType,
        namespace: str,
        name: str,
        *,
        uid: str | None = None,
        resource_version: str | None = None,
        propagation: str | None = None,
        grace_period: int | None = None,
        dry_run: bool = False,
    ) -> Committed: ...

    def delete_now(self, rtype: ResourceType, current: dict[str, Any]) -> dict[str, Any]: ...
