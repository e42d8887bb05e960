"""The built-in kinds, one descriptor each, grouped by API group as ``pkg/registry/<group>`` is.

Each group module declares its kinds' :class:`~fakeapi._state.resources.ResourceType`: names,
scope, verbs, short names, categories and subresources (as a 1.32 kube-apiserver's discovery lists
them), the strategy, the defaulter, the printer, the strategic merge patch struct and the protobuf
message. Adding a kind is one entry in one module; custom resources get theirs from their CRD
(:mod:`.custom`).
"""

from __future__ import annotations

from fakeapi._state.kinds import apiextensions, apps, authorization, batch, coordination, core, events
from fakeapi._state.resources import ResourceType

__all__ = ["BUILTIN_TYPES", "builtin_type", "protobuf_message_of"]

BUILTIN_TYPES: tuple[ResourceType, ...] = (
    *core.TYPES,
    *events.TYPES,
    *coordination.TYPES,
    *apps.TYPES,
    *batch.TYPES,
    *apiextensions.TYPES,
    *authorization.TYPES,
)

_BY_KIND = {(t.group, t.version, t.kind): t for t in reversed(BUILTIN_TYPES)}
_PROTOBUF = {(t.api_version, t.kind): t.protobuf_message for t in BUILTIN_TYPES if t.protobuf_message}


def builtin_type(group: str, version: str, kind: str) -> ResourceType:
    """The descriptor of a built-in kind; ``KeyError`` if the fake does not serve it."""
    return _BY_KIND[(group, version, kind)]


def protobuf_message_of(api_version: str, kind: str) -> str | None:
    """The protobuf message a body of this apiVersion and kind decodes as, if the kind is served."""
    return _PROTOBUF.get((api_version, kind))
