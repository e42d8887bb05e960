"""Which resources exist right now: the built-ins, plus one entry per served version of each CRD.

A CRD is served the moment it is stored (the fake has no controller delay): its types appear in
discovery and routing, and disappear when the CRD is deleted. Discovery order follows the
apiserver: the core group first, then built-in groups, then CRD groups in creation order.
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.kinds import builtin_type, builtin_types
from fakeapi._state.kinds.custom import types_from_crd
from fakeapi._state.resources import ResourceType, kube_version_sort_key
from fakeapi._state.typed import DEFAULT_KUBE_VERSION, GoStructs, go_structs

__all__ = ["Registry"]


class Registry:
    namespaces = builtin_type("", "v1", "Namespace")
    customresourcedefinitions = builtin_type("apiextensions.k8s.io", "v1", "CustomResourceDefinition")

    def __init__(self, kube_version: str = DEFAULT_KUBE_VERSION) -> None:
        self.kube_version = kube_version
        self.builtin_types = builtin_types(kube_version)
        # The built-in group versions: a URL under one that names no resource is the installer's 404.
        self.builtin_group_versions = frozenset((t.group, t.version) for t in self.builtin_types)
        self._custom: dict[str, list[ResourceType]] = {}
        self._index: dict[tuple[str, str, str], ResourceType] | None = None

    @property
    def structs(self) -> GoStructs:
        """The built-in kinds' Go structs at this server's Kubernetes version (loaded on first use)."""
        return go_structs(self.kube_version)

    def go_struct(self, rtype: ResourceType) -> str | None:
        """The Go struct a resource's objects are held as, or None when they are kept as maps."""
        if not rtype.struct_order:
            return None
        return self.structs.kind_struct(rtype.api_version, rtype.kind)

    def _changed(self) -> None:
        self._index = None

    def snapshot(self) -> dict[str, list[ResourceType]]:
        return {name: list(types) for name, types in self._custom.items()}

    def restore(self, snapshot: dict[str, list[ResourceType]]) -> None:
        self._custom = {name: list(types) for name, types in snapshot.items()}
        self._changed()

    def all_types(self) -> list[ResourceType]:
        types = list(self.builtin_types)
        for crd_types in self._custom.values():
            types.extend(crd_types)
        return types

    def resolve(self, group: str, version: str, plural: str) -> ResourceType | None:
        if self._index is None:
            self._index = {(t.group, t.version, t.plural): t for t in reversed(self.all_types())}
        return self._index.get((group, version, plural))

    def versions_of(self, group: str) -> list[str]:
        """The served versions of a group, preferred first."""
        seen: list[str] = []
        for rtype in self.all_types():
            if rtype.group == group and rtype.version not in seen:
                seen.append(rtype.version)
        return sorted(seen, key=kube_version_sort_key)

    def groups(self) -> list[str]:
        """Every group with at least one served version, core ("") first, in discovery order."""
        seen: list[str] = []
        for rtype in self.all_types():
            if rtype.group not in seen:
                seen.append(rtype.group)
        return seen

    def types_in(self, group: str, version: str) -> list[ResourceType]:
        return [rtype for rtype in self.all_types() if rtype.group == group and rtype.version == version]

    def custom_types_of(self, crd_name: str) -> list[ResourceType]:
        return list(self._custom.get(crd_name, ()))

    def register_crd(self, crd: dict[str, Any]) -> None:
        name = (crd.get("metadata") or {}).get("name", "")
        terminating = (crd.get("metadata") or {}).get("deletionTimestamp") is not None
        self._custom[name] = types_from_crd(crd, terminating=terminating)
        self._changed()

    def unregister_crd(self, name: str) -> None:
        self._custom.pop(name, None)
        self._changed()
