"""What every handler works with: the store, the journal, the settings and the optional gate.

One :class:`ServerState` per fake apiserver; handlers receive it with the parsed request. The
gate is the hook the scenarios engine uses to hold and release requests; without one, requests
run as they come.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from fakeapi._state.clock import Clock
from fakeapi._state.journal import Journal
from fakeapi._state.store import Store

__all__ = ["Gate", "GateDecision", "GateRequest", "ServerConfig", "ServerState"]


@dataclass
class ServerConfig:
    bookmark_interval: float = 60.0
    history_window: int = 10000
    versions_kept: int = 32
    seed: int = 0
    journal_limit: int = 10000


@dataclass(frozen=True)
class GateRequest:
    """A request waiting at the gate: who sent it and what it asks for."""

    actor: str | None
    method: str
    path: str
    query: str
    verb: str
    group: str
    version: str
    resource: str
    subresource: str
    namespace: str
    name: str
    sequence: int

    @property
    def is_read(self) -> bool:
        return self.verb in ("get", "list", "watch")


@dataclass
class GateDecision:
    """What a gate says about a request it held.

    ``fail_before``: answer with this error Status (a dict with ``code``) and commit nothing.
    ``drop_response``: run the request, commit it, then cut the connection instead of answering.
    ``drop_before``: cut the connection without running the request (a timeout before commit).
    ``stale_revision``: serve a GET from the object's state at or before this revision.
    ``after_run``: called once the request has run (committed or refused), before its answer is
    sent or cut: the moment a client process that dies after the server answered dies.
    """

    fail_before: dict[str, Any] | None = None
    drop_response: bool = False
    drop_before: bool = False
    stale_revision: int | None = None
    after_run: Callable[[], None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


Gate = Callable[[GateRequest], Awaitable[GateDecision | None]]


class ServerState:
    def __init__(self, config: ServerConfig | None = None, clock: Clock | None = None) -> None:
        self.config = config or ServerConfig()
        self.clock = clock or Clock()
        self.store = Store(
            clock=self.clock,
            history_window=self.config.history_window,
            versions_kept=self.config.versions_kept,
            seed=self.config.seed,
        )
        self.journal = Journal(self.config.journal_limit)
        self.gate: Gate | None = None
        self.server_address = "127.0.0.1:0"
        self.errors: list[str] = []
        self.request_log: Callable[[str], None] | None = None
