"""The faults the engine can inject at a choice point, each one object: its name, where it applies,
whether the store sees it, and what the gate does with the request.

A fault is an option beside plain release: the schedule that picked it replays it. What each one
reproduces on a real cluster:

* ``lost-response``: the write commits, then the connection drops before the answer (the client
  sees a connection error and cannot know whether it won).
* ``conflict``, ``throttle``, ``server-error``: the request fails before commit with 409, 429 (with
  ``Retry-After``) or 500, the Status bodies kube-apiserver sends.
* ``timeout``: the connection is cut before the request runs, and so are the client library's
  automatic resends of it (aiohttp resends an idempotent request once, urllib3 up to three times):
  the tick sees the connection error, as it sees a client-side timeout.
* ``stale-read``: a read the apiserver may serve from its watch cache (a GET or LIST with
  ``resourceVersion=0``, or with a resourceVersion and ``NotOlderThan``) is served from the state
  before the last write this run made to what it reads, when that state is not older than the
  request allows. A read without a resourceVersion is a quorum read and is never stale.
  docs/scenarios-faults.md gives the upstream behaviour of each fault and what it cannot express.
* ``watch-drop``: a watch connection is cut; ``watch-expire``: history is compacted first, so a watch
  resuming from an older resourceVersion gets the 410 Expired ERROR event.
* ``crash``: the actor's process dies and restarts with empty memory, at every point a process can
  die between two observable actions of a tick (docs/scenarios-crash-model.md): before a request
  leaves (``crash``), after the server ran a write and before the actor acts on the answer
  (``crash-after``), and at the end of a tick whose last action was a side effect.
* ``webhook-down``: an admission webhook call of a write fails, the connection to the webhook refused
  (``webhook-down``) or its answer not back within ``timeoutSeconds`` (``webhook-timeout``). The
  apiserver then refuses the write (``failurePolicy: Fail``) or carries on without the webhook
  (``Ignore``); fakeapi's admission chain decides which and words the refusal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from fakeapi import APIError, GateDecision, GateRequest

__all__ = ["FAULTS", "USER_FAULTS", "Fault", "enabled_faults", "may_serve_stale", "validate_faults"]

_WRITES = ("create", "update", "patch", "delete", "deletecollection")
_READS = ("get", "list")
_MODIFICATIONS = ("update", "patch", "delete")
"""The writes a "the object has been modified" 409 can end: a create fails with AlreadyExists instead."""


@dataclass(frozen=True)
class Fault:
    """One fault an option can carry.

    ``reaches_store`` False: the request never reaches the store, so the step commutes with every
    other actor's. ``crash``: where the actor dies (``before`` its request leaves, ``after`` the server
    ran it, at a ``tick-end``); the engine does that part. ``part_of``: the user-facing fault that
    enables this one (``crash`` enables ``crash-after``). ``webhook``: how a webhook call fails
    (``refused``, ``timeout``): the fault strikes a held webhook call, never a request.
    """

    name: str
    summary: str
    client_view: str
    verbs: tuple[str, ...]
    reaches_store: bool
    crash: str | None = None
    part_of: str | None = None
    webhook: str | None = None

    def applies(self, request: GateRequest, *, stale_revision: int | None) -> bool:
        """Whether this fault can happen to the request on a real cluster (the engine adds the crash
        conditions). ``stale_revision``: the revision a stale read would be served at."""
        if self.name == "stale-read":
            return may_serve_stale(request, stale_revision)
        return request.verb in self.verbs

    def decision(self, request: GateRequest, *, stale_revision: int | None) -> GateDecision | None:
        """What the gate answers for the released request (crashes and compaction need the engine too)."""
        return _DECISIONS[self.name](request, stale_revision)


def may_serve_stale(request: GateRequest, revision: int | None) -> bool:
    """Whether kube-apiserver may answer this read from a watch cache that stands at ``revision``.

    A GET or LIST without a resourceVersion is a quorum read (etcd, or a cache first brought up to
    etcd's current revision); ``resourceVersionMatch=Exact``, a continue token, and a LIST with a
    limit, a resourceVersion and no match read etcd at exactly that revision. ``resourceVersion=0``
    takes any state the cache has; any other resourceVersion (``NotOlderThan``) a state at least that
    new. docs/scenarios-faults.md has the upstream sources.
    """
    if revision is None or request.verb not in _READS:
        return False
    if request.verb == "get" and not request.name:
        return False
    query = parse_qs(request.query, keep_blank_values=True)

    def last(name: str) -> str:
        return query.get(name, [""])[-1]

    version, match = last("resourceVersion"), last("resourceVersionMatch")
    if version == "" or match == "Exact" or last("continue"):
        return False
    if version == "0":
        return True
    if request.verb == "list" and not match and last("limit") not in ("", "0"):
        return False
    return version.isdigit() and revision >= int(version)


def _status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> APIError:
    return APIError(message, reason=reason, code=code, details=details)


def _conflict(request: GateRequest, _: int | None) -> GateDecision:
    resource = f"{request.resource}.{request.group}" if request.group else request.resource
    return GateDecision(
        fail_before=_status(
            409,
            "Conflict",
            f'Operation cannot be fulfilled on {resource} "{request.name}": the object has been modified; '
            "please apply your changes to the latest version and try again",
            {"name": request.name, "group": request.group, "kind": request.resource},
        )
    )


def _throttle(request: GateRequest, _: int | None) -> GateDecision:
    status = APIError(
        "Too many requests, please try again later.",
        reason="TooManyRequests",
        code=429,
        details={"retryAfterSeconds": 1},
        retry_after=1,
    )
    return GateDecision(fail_before=status)


def _server_error(request: GateRequest, _: int | None) -> GateDecision:
    return GateDecision(
        fail_before=_status(
            500,
            "InternalError",
            "Internal error occurred: etcdserver: leader changed",
            {"causes": [{"message": "etcdserver: leader changed"}]},
        )
    )


def _cut(request: GateRequest, _: int | None) -> GateDecision:
    return GateDecision(drop_before=True)


_DECISIONS: dict[str, Callable[[GateRequest, int | None], GateDecision | None]] = {
    "lost-response": lambda request, _: GateDecision(drop_response=True),
    "conflict": _conflict,
    "throttle": _throttle,
    "server-error": _server_error,
    "timeout": _cut,
    "stale-read": lambda request, stale: GateDecision(stale_revision=stale),
    "watch-drop": _cut,
    "watch-expire": lambda request, _: None,
    "crash": _cut,
    "crash-after": lambda request, _: GateDecision(drop_response=True),
    # A webhook fault is the engine's caller failing the call, not a gate decision.
    "webhook-down": lambda request, _: None,
    "webhook-timeout": lambda request, _: None,
}

FAULTS: dict[str, Fault] = {
    fault.name: fault
    for fault in (
        Fault(
            "lost-response",
            "the write commits, then the connection drops before the answer",
            "committed, but the client saw the connection drop",
            _WRITES,
            reaches_store=True,
        ),
        Fault(
            "conflict",
            "fails before commit with 409 Conflict (a writer outside the scenario won the race)",
            "",
            _MODIFICATIONS,
            reaches_store=False,
        ),
        Fault(
            "throttle",
            "fails before commit with 429 and Retry-After: 1",
            "",
            (*_WRITES, *_READS),
            reaches_store=False,
        ),
        Fault(
            "server-error", "fails before commit with 500 InternalError", "", (*_WRITES, *_READS), reaches_store=False
        ),
        Fault(
            "timeout",
            "the connection is cut before the request runs, and the client library's resends of it too",
            "cut before running: the client saw the connection drop",
            (*_WRITES, *_READS),
            reaches_store=False,
        ),
        Fault(
            "stale-read",
            "a read the watch cache may serve is served from the state before the last write to what it reads",
            "",
            _READS,
            reaches_store=True,
        ),
        Fault("watch-drop", "the watch connection is cut", "the watch connection was cut", ("watch",), False),
        Fault(
            "watch-expire",
            "history is compacted: a watch from an older resourceVersion gets 410",
            "",
            ("watch",),
            reaches_store=True,
        ),
        Fault(
            "crash",
            "the actor dies (before a request leaves, after a write ran, or at the end of a tick) and "
            "restarts with empty memory",
            "the actor crashed before this request left; it restarts with empty memory",
            (*_WRITES, *_READS, "watch"),
            reaches_store=False,
            crash="before",
        ),
        Fault(
            "crash-after",
            "the server ran the write, then the actor died before acting on the answer; it restarts with empty memory",
            "the server ran it, then the actor crashed before acting on the answer; it restarts with empty memory",
            _WRITES,
            reaches_store=True,
            crash="after",
            part_of="crash",
        ),
        Fault(
            "webhook-down",
            "an admission webhook call of a write is refused (nothing listens); the webhook's failurePolicy "
            "decides: Fail refuses the write with 500, Ignore lets it go on",
            "the webhook's connection was refused: Fail refused the write, Ignore let it through",
            (),
            reaches_store=True,
            webhook="refused",
        ),
        Fault(
            "webhook-timeout",
            "an admission webhook call of a write gets no answer within its timeoutSeconds; as webhook-down, "
            "failurePolicy decides",
            "the webhook did not answer in time: Fail refused the write, Ignore let it through",
            (),
            reaches_store=True,
            webhook="timeout",
            part_of="webhook-down",
        ),
    )
}

USER_FAULTS: tuple[str, ...] = tuple(name for name, fault in FAULTS.items() if fault.part_of is None)
"""The faults a scenario names; the others come with the one they are part of."""


def validate_faults(names: tuple[str, ...]) -> None:
    unknown = [name for name in names if name not in USER_FAULTS]
    if unknown:
        raise ValueError(f"unknown fault(s) {', '.join(unknown)}; known: {', '.join(USER_FAULTS)}")


def enabled_faults(names: tuple[str, ...]) -> tuple[Fault, ...]:
    """The faults a scenario's list enables, in the fixed order options list them."""
    chosen = set(names)
    return tuple(fault for fault in FAULTS.values() if (fault.part_of or fault.name) in chosen)
