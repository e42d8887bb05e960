"""The faults the engine can inject at a choice point, each a seeded, replayable choice.

A fault is an option beside plain release: the schedule that picked it replays it. What each one
reproduces on a real cluster:

* ``lost-response``: the write commits, then the connection drops before the answer (the client
  sees a connection error and cannot know whether it won).
* ``conflict``, ``throttle``, ``server-error``: the request fails before commit with 409, 429 (with
  ``Retry-After``) or 500, the Status bodies kube-apiserver sends.
* ``timeout``: the connection is cut before the request runs (a client-side timeout).
* ``stale-read``: a GET is served from the object's previous version, as a lagging watch cache does.
* ``watch-drop``: a watch connection is cut; ``watch-expire``: history is compacted first, so a watch
  resuming from an older resourceVersion gets the 410 Expired ERROR event.
* ``crash``: the actor dies before its request leaves and restarts with empty memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakeapi import GateDecision, GateRequest

__all__ = [
    "FAULTS",
    "SERVER_NEUTRAL_FAULTS",
    "Fault",
    "applicable",
    "decision_for",
    "validate_faults",
]

_WRITES = ("create", "update", "patch", "delete", "deletecollection")


@dataclass(frozen=True)
class Fault:
    name: str
    verbs: tuple[str, ...]
    summary: str


FAULTS: dict[str, Fault] = {
    fault.name: fault
    for fault in (
        Fault("lost-response", _WRITES, "the write commits, then the connection drops before the answer"),
        Fault("conflict", _WRITES, "fails before commit with 409 Conflict"),
        Fault("throttle", (*_WRITES, "get", "list"), "fails before commit with 429 and Retry-After: 1"),
        Fault("server-error", (*_WRITES, "get", "list"), "fails before commit with 500 InternalError"),
        Fault("timeout", (*_WRITES, "get", "list"), "the connection is cut before the request runs"),
        Fault("stale-read", ("get",), "served from the object's previous version (a lagging cache)"),
        Fault("watch-drop", ("watch",), "the watch connection is cut"),
        Fault("watch-expire", ("watch",), "history is compacted: a watch from an older resourceVersion gets 410"),
        Fault("crash", (), "the actor crashes before the request leaves and restarts with empty memory"),
    )
}

SERVER_NEUTRAL_FAULTS = frozenset({"conflict", "throttle", "server-error", "timeout", "watch-drop", "crash"})
"""Faults whose request never reaches the store: they commute with every other actor's step."""


def validate_faults(names: tuple[str, ...]) -> None:
    unknown = [name for name in names if name not in FAULTS]
    if unknown:
        raise ValueError(f"unknown fault(s) {', '.join(unknown)}; known: {', '.join(FAULTS)}")


def applicable(fault: str, request: GateRequest, *, stale_revision: int | None) -> bool:
    """Whether ``fault`` makes sense for this request (``crash`` is decided by the engine)."""
    if fault == "stale-read":
        return request.verb == "get" and bool(request.name) and stale_revision is not None
    return request.verb in FAULTS[fault].verbs


def _status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"code": code, "reason": reason, "message": message}
    if details is not None:
        status["details"] = details
    return status


def _conflict(request: GateRequest) -> dict[str, Any]:
    resource = f"{request.resource}.{request.group}" if request.group else request.resource
    return _status(
        409,
        "Conflict",
        f'Operation cannot be fulfilled on {resource} "{request.name}": the object has been modified; '
        "please apply your changes to the latest version and try again",
        {"name": request.name, "group": request.group, "kind": request.resource},
    )


def decision_for(fault: str | None, request: GateRequest, *, stale_revision: int | None) -> GateDecision | None:
    """The gate's answer for a released request (``watch-expire`` and ``crash`` need the engine too)."""
    if fault is None or fault == "watch-expire":
        return None
    if fault == "lost-response":
        return GateDecision(drop_response=True)
    if fault in ("timeout", "watch-drop", "crash"):
        return GateDecision(drop_before=True)
    if fault == "stale-read":
        return GateDecision(stale_revision=stale_revision)
    if fault == "conflict":
        return GateDecision(fail_before=_conflict(request))
    if fault == "throttle":
        status = _status(429, "TooManyRequests", "Too many requests, please try again later.", {"retryAfterSeconds": 1})
        status["retryAfterSeconds"] = 1
        return GateDecision(fail_before=status)
    if fault == "server-error":
        return GateDecision(
            fail_before=_status(
                500,
                "InternalError",
                "Internal error occurred: etcdserver: leader changed",
                {"causes": [{"message": "etcdserver: leader changed"}]},
            )
        )
    raise ValueError(f"unknown fault {fault!r}")
