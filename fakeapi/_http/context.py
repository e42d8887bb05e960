"""What every handler works with: the store, the journal, the settings and the optional gate.

One :class:`ServerState` per fake apiserver; handlers receive it with the parsed request. The
gate is the hook the scenarios engine uses to hold and release requests; without one, requests
run as they come.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from fakeapi._cluster.kubelet_endpoints import KubeletEndpoints
from fakeapi._http.authentication import Authentication
from fakeapi._http.authorizing import Authorization
from fakeapi._http.connections import DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT
from fakeapi._http.webhook_client import WebhookClient
from fakeapi._http.webhook_transport import HttpsTransport
from fakeapi._state.admission import AdmissionChain, WebhookCaller, enabled_plugins
from fakeapi._state.clock import Clock
from fakeapi._state.flow_classification import FlowClassifier
from fakeapi._state.journal import DEFAULT_BODY_LIMIT, DEFAULT_MAX_BYTES, Journal
from fakeapi._state.releases import DEFAULT_KUBE_VERSION
from fakeapi._state.store import Store
from fakeapi._state.watching import DEFAULT_HISTORY_BYTES, Watcher
from fakeapi._state.webhook_client import DEFAULT_TIMEOUT_SECONDS, HookTransport
from fakeapi.errors import APIError

__all__ = ["Gate", "GateDecision", "GateRequest", "ServerConfig", "ServerState", "WatchValve"]


@dataclass
class ServerConfig:
    """The server's settings; the bounds are explained in docs/limits.md."""

    bookmark_interval: float = 60.0
    history_window: int = 10000
    seed: int = 0
    journal_limit: int = 10000
    journal_body_limit: int = DEFAULT_BODY_LIMIT
    journal_max_bytes: int = DEFAULT_MAX_BYTES
    watch_queue_limit: int = 10000
    history_max_bytes: int = DEFAULT_HISTORY_BYTES
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT
    token_auth: bool = False
    authorization: str = "AlwaysAllow"
    kube_version: str = DEFAULT_KUBE_VERSION
    # The admission plugins on (``--enable-admission-plugins``/``--disable-admission-plugins`` applied).
    admission_plugins: frozenset[str] = field(default_factory=lambda: enabled_plugins())
    # Services whose webhooks listen somewhere on this machine: (namespace, name, port) -> (host, port).
    webhook_services: dict[tuple[str, str, int], tuple[str, int]] = field(default_factory=dict)
    # The conversion webhook client's timeout in seconds (docs/conversion.md).
    webhook_timeout: float = DEFAULT_TIMEOUT_SECONDS


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
    activity: str = ""
    """What the client says it is doing, from its ``X-Fakeapi-Activity`` header (docs/scenarios-operators.md);
    the server answers as if the header were not there, as the apiserver ignores headers it does
    not know."""

    @property
    def is_read(self) -> bool:
        return self.verb in ("get", "list", "watch")


class WatchValve:
    """Holds back the events a watch stream would send after it started, until they are let through.

    Give one to a watch request in :attr:`GateDecision.valve`: the stream still sends what its start
    point makes it send at once (the ADDED events of a watch without resourceVersion, the changes
    after a resourceVersion it resumes from), then every later event waits in the valve until
    :meth:`let_one_through`. An engine that orders what each client sees uses it to decide when a
    watcher sees another client's write. ``on_event`` is called whenever an event starts waiting.
    """

    def __init__(self, request: GateRequest) -> None:
        self.request = request
        self.on_event: Callable[[], None] | None = None
        self.closed = False
        self._watcher: Watcher | None = None

    @property
    def waiting(self) -> list[tuple[str, dict[str, Any]]]:
        """The ``(type, object)`` events held back, oldest first."""
        return self._watcher.held if self._watcher is not None and not self.closed else []

    def let_one_through(self) -> None:
        if self._watcher is None or not self.waiting:
            raise RuntimeError("no event is waiting in this valve")
        self._watcher.allow(1)

    def _attach(self, watcher: Watcher) -> None:
        """Meter ``watcher`` from now on (called by the watch handler once its start is sent)."""
        self._watcher = watcher
        watcher.allowance = len(watcher.events)
        watcher.on_queued = self._queued

    def detach(self) -> None:
        self.closed = True

    def _queued(self) -> None:
        if self.on_event is not None:
            self.on_event()


@dataclass
class GateDecision:
    """What a gate says about a request it held.

    ``fail_before``: answer with this error (its Status, and a ``Retry-After`` header when it has
    ``retry_after``) and commit nothing.
    ``drop_response``: run the request, commit it, then cut the connection instead of answering.
    ``drop_before``: cut the connection without running the request (a timeout before commit).
    ``stale_revision``: serve a GET or LIST from the state at this revision, as a watch cache that
    lags may (a GET of an object that did not exist then is 404).
    ``after_run``: called once the request has run (committed or refused), before its answer is
    sent or cut: the moment a client process that dies after the server answered dies.
    ``valve``: for a watch, hold its later events in this :class:`WatchValve`.
    """

    fail_before: APIError | None = None
    drop_response: bool = False
    drop_before: bool = False
    stale_revision: int | None = None
    after_run: Callable[[], None] | None = None
    valve: WatchValve | None = None


Gate = Callable[[GateRequest], Awaitable[GateDecision | None]]


class ServerState:
    def __init__(self, config: ServerConfig | None = None, clock: Clock | None = None) -> None:
        self.config = config or ServerConfig()
        self.clock = clock or Clock()
        self.store = Store(
            clock=self.clock,
            history_window=self.config.history_window,
            seed=self.config.seed,
            watch_queue_limit=self.config.watch_queue_limit,
            history_max_bytes=self.config.history_max_bytes,
            kube_version=self.config.kube_version,
        )
        self.store.admission_plugins = self.config.admission_plugins
        self.webhook_client = WebhookClient()
        self.admission = AdmissionChain(
            self.store, self.webhook_client, self.config.webhook_services, seed=self.config.seed
        )
        self.journal = Journal(
            self.config.journal_limit,
            body_limit=self.config.journal_body_limit,
            max_bytes=self.config.journal_max_bytes,
        )
        self.authentication = Authentication(
            token_auth=self.config.token_auth, store=self.store, authorizing=self.config.authorization == "RBAC"
        )
        self.authorization = Authorization(self.config.authorization, self.store)
        self.flow_classifier = FlowClassifier(self.store)
        self.admission.decide = self.authorization.decide
        self.gate: Gate | None = None
        # CRD conversion webhooks are called through the admission webhooks' client, and reach a
        # Service at ``admission.service_addresses`` as they do.
        self.webhook_transport: HookTransport = HttpsTransport(self.webhook_client)
        self.server_address = "127.0.0.1:0"
        self.server_scheme = "http"
        self.errors: list[str] = []
        self.request_log: Callable[[str], None] | None = None
        # The simulated kubelet's logs, exec and attach, when the simulated controllers run one.
        self.kubelet: KubeletEndpoints | None = None
        # The simulated controllers that run: what componentstatuses probes (docs/control-plane-pods.md).
        self.running_controllers: frozenset[str] = frozenset()

    def set_webhook_caller(self, caller: WebhookCaller | None) -> None:
        """Make webhook calls through ``caller`` (a test's or the scenarios engine's); None restores HTTP."""
        self.admission.caller = caller or self.webhook_client
