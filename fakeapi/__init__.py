"""fakeapi: a fake Kubernetes apiserver that behaves like kube-apiserver down to the bytes.

The public surface: :class:`FakeAPIServer` (start it, load objects, point clients at it), the
request journal it keeps (:class:`Journal` of :class:`JournalEntry`), the resources it serves
(:class:`ResourceType` and its :class:`Subresource` entries, from ``FakeAPIServer.resource_type``), and the gate hook (:class:`GateRequest`,
:class:`GateDecision`, :class:`WatchValve`) an engine such as ``scenarios`` uses to hold and release
requests and the events watchers see.

The names are imported on first use: the pytest plugin lives in this package, and a test session
that never asks for a fixture should not pay for importing the server and aiohttp.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakeapi.errors import APIError
    from fakeapi.server import (
        ControllerWrite,
        FakeAPIServer,
        GateDecision,
        GateRequest,
        Journal,
        JournalEntry,
        NodeSpec,
        Outcome,
        OutcomeRule,
        Permissions,
        ReadFootprint,
        ResourceType,
        StoreSnapshot,
        Subresource,
        WatchValve,
        WebhookAnswer,
        WebhookCall,
        WebhookTransportError,
    )

__version__ = "0.1.0"

__all__ = [
    "APIError",
    "ControllerWrite",
    "FakeAPIServer",
    "GateDecision",
    "GateRequest",
    "Journal",
    "JournalEntry",
    "NodeSpec",
    "Outcome",
    "OutcomeRule",
    "Permissions",
    "ReadFootprint",
    "ResourceType",
    "StoreSnapshot",
    "Subresource",
    "WatchValve",
    "WebhookAnswer",
    "WebhookCall",
    "WebhookTransportError",
    "__version__",
]

_HOMES = {
    "APIError": "fakeapi.errors",
    "ControllerWrite": "fakeapi.server",
    "FakeAPIServer": "fakeapi.server",
    "GateDecision": "fakeapi.server",
    "GateRequest": "fakeapi.server",
    "Journal": "fakeapi.server",
    "JournalEntry": "fakeapi.server",
    "NodeSpec": "fakeapi.server",
    "Outcome": "fakeapi.server",
    "OutcomeRule": "fakeapi.server",
    "Permissions": "fakeapi.server",
    "ReadFootprint": "fakeapi.server",
    "ResourceType": "fakeapi.server",
    "StoreSnapshot": "fakeapi.server",
    "Subresource": "fakeapi.server",
    "WatchValve": "fakeapi.server",
    "WebhookAnswer": "fakeapi.server",
    "WebhookCall": "fakeapi.server",
    "WebhookTransportError": "fakeapi.server",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'fakeapi' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
