"""The openapi-gen markers of the built-in API at one Kubernetes version, loaded on first use.

openapi-gen writes two comment markers of ``k8s.io/api`` into the published schemas (kube-openapi
``pkg/generators``): ``+enum`` on a string type gives its fields ``enum`` and "Possible enum values"
in their description (``enum.go``), ``+default=`` on a field its ``default`` (``openapi.go``).
``data/markers-<version>.json`` is recorded from ``k8s.io/api`` by ``tools/gostructs/markers.py``;
types are named as :mod:`.structs` names them (``apps/v1.DeploymentStrategyType``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from typing import Any

import orjson

from fakeapi._state.typed.structs import DEFAULT_KUBE_VERSION

__all__ = ["GoMarkers", "go_markers"]


@dataclass(frozen=True)
class GoMarkers:
    # Each enum type's (value, comment) pairs, by value.
    enums: dict[str, tuple[tuple[str, str], ...]]
    # Each struct's ``+default`` values by JSON field name.
    defaults: dict[str, dict[str, Any]]


@functools.cache
def go_markers(version: str = DEFAULT_KUBE_VERSION) -> GoMarkers:
    """The markers of ``version`` (``"1.32"``); ``FileNotFoundError`` for a version without data."""
    data = orjson.loads(
        resources.files("fakeapi._state.typed").joinpath("data", f"markers-{version}.json").read_bytes()
    )
    enums = {name: tuple((value, comment) for value, comment in pairs) for name, pairs in data["enums"].items()}
    return GoMarkers(enums=enums, defaults=data["defaults"])
