"""The Go structs of the built-in API at one Kubernetes version, loaded on first use.

Type names are qualified by package id: ``core/v1.Pod``, ``meta/v1.ObjectMeta``,
``resource.Quantity``; a Go type is written as in Go source with those names (``*core/v1.PodSpec``,
``[]core/v1.Container``, ``map[string]string``). Named non-struct types (``type RestartPolicy
string``) map to their underlying type. The data is recorded from ``k8s.io/api`` and
``k8s.io/apimachinery`` by ``tools/gostructs/generate.py``; loading it costs a few milliseconds,
paid by the first request that needs it, never by importing fakeapi.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from typing import Any

import orjson

from fakeapi._state.releases import DEFAULT_KUBE_VERSION

__all__ = ["DEFAULT_KUBE_VERSION", "GoField", "GoStructs", "go_structs"]


@dataclass(frozen=True, slots=True)
class GoField:
    """One struct field: its JSON name (empty when embedded inline), Go type and tags."""

    go_name: str
    json_name: str
    go_type: str
    omitempty: bool
    inline: bool
    proto: int
    patch_strategy: str
    patch_merge_key: str

    @property
    def pointer(self) -> bool:
        return self.go_type.startswith("*")


class GoStructs:
    """Every struct, named type and kind of one version."""

    def __init__(self, version: str, data: dict[str, Any]) -> None:
        self.version = version
        self.source: str = data["source"]
        self.named: dict[str, str] = data["named"]
        self.kinds: dict[str, str] = data["kinds"]
        self.structs: dict[str, tuple[GoField, ...]] = {
            name: tuple(_field(entry) for entry in fields) for name, fields in data["structs"].items()
        }
        self._in_order: dict[str, tuple[GoField, ...]] = {}
        self._by_name: dict[str, dict[str, GoField]] = {}

    def fields_in_order(self, struct: str) -> tuple[GoField, ...]:
        """The JSON fields of a struct in the order ``encoding/json`` writes them, inline structs in place."""
        found = self._in_order.get(struct)
        if found is None:
            ordered: list[GoField] = []
            for entry in self.structs.get(struct, ()):
                ordered.extend(self.fields_in_order(entry.go_type.removeprefix("*")) if entry.inline else [entry])
            found = self._in_order[struct] = tuple(ordered)
        return found

    def fields_by_name(self, struct: str) -> dict[str, GoField]:
        """The JSON fields of a struct by name; of two with one name, the outer or first wins."""
        found = self._by_name.get(struct)
        if found is None:
            found = {}
            for entry in self.structs.get(struct, ()):
                if entry.inline:
                    for name, inner in self.fields_by_name(entry.go_type.removeprefix("*")).items():
                        found.setdefault(name, inner)
                else:
                    found.setdefault(entry.json_name, entry)
            self._by_name[struct] = found
        return found

    def kind_struct(self, api_version: str, kind: str) -> str | None:
        """The struct of a kind (``apps/v1``, ``Deployment`` -> ``apps/v1.Deployment``), if the API has it."""
        return self.kinds.get(f"{api_version} {kind}")

    def underlying(self, go_type: str) -> str:
        """A named type's underlying type, through any chain of names; other types as they are."""
        while go_type in self.named:
            go_type = self.named[go_type]
        return go_type


def _field(entry: dict[str, Any]) -> GoField:
    return GoField(
        go_name=entry["go"],
        json_name=entry["json"],
        go_type=entry["type"],
        omitempty=bool(entry.get("omitempty")),
        inline=bool(entry.get("inline")),
        proto=int(entry.get("proto", 0)),
        patch_strategy=entry.get("patchStrategy", ""),
        patch_merge_key=entry.get("patchMergeKey", ""),
    )


@functools.cache
def go_structs(version: str = DEFAULT_KUBE_VERSION) -> GoStructs:
    """The structs of ``version`` (``"1.32"``); ``FileNotFoundError`` for a version without data."""
    data = resources.files("fakeapi._state.typed").joinpath("data", f"structs-{version}.json").read_bytes()
    return GoStructs(version, orjson.loads(data))
