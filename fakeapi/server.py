"""``FakeAPIServer``: a fake kube-apiserver on a local port, in your event loop or in a thread.

It serves the Kubernetes REST API over HTTP (or HTTPS with a CA of its own), starts with what a new
control plane writes at boot (the system namespaces and PriorityClasses, the ``default/kubernetes``
Service pointing at the server, each namespace's ``default`` ServiceAccount and
``kube-root-ca.crt``: docs/bootstrap.md), and can be reset to that state between tests in
microseconds. Objects and CRDs can be preloaded from dicts or YAML files;
a kubeconfig written for it makes any client (kubectl, kubernetes_asyncio, kopf) talk to it. The
request journal and the gate hook are what the scenarios engine builds on.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web

from fakeapi._cluster import (
    ControllerOptions,
    ControllerWrite,
    FakeTime,
    NodeSpec,
    Outcome,
    OutcomeRule,
    ReadFootprint,
    Simulation,
    parse_controllers,
)
from fakeapi._cluster.container_processes import ContainerProcesses
from fakeapi._cluster.kubelet_endpoints import ExecResult, KubeletEndpoints
from fakeapi._cluster.wall_clock import WallClockFollower
from fakeapi._http.app import build_server
from fakeapi._http.authentication import Identity
from fakeapi._http.authorizing import journal_observations
from fakeapi._http.bodies import decode_object_body
from fakeapi._http.certificates import ServingCertificates, generate_certificates
from fakeapi._http.connections import DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT
from fakeapi._http.context import Gate, GateDecision, GateRequest, ServerConfig, ServerState, WatchValve
from fakeapi._patching.godecode import normalize
from fakeapi._patching.goencode import encode
from fakeapi._state.admission import HTTPAnswer as WebhookAnswer
from fakeapi._state.admission import TransportError as WebhookTransportError
from fakeapi._state.admission import WebhookCall, WebhookCaller, enabled_plugins
from fakeapi._state.admission.calling import parse_webhook_services
from fakeapi._state.authorization import UserInfo, permissions_report, service_account_username
from fakeapi._state.bootstrap import bootstrap, publish_kubernetes_service
from fakeapi._state.clock import Clock
from fakeapi._state.journal import DEFAULT_BODY_LIMIT, DEFAULT_MAX_BYTES, Journal, JournalEntry
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of
from fakeapi._state.permission_reports import granted_roles, render_report
from fakeapi._state.releases import DEFAULT_KUBE_VERSION, KUBE_VERSIONS, parse_kube_version
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.store import StoreSnapshot
from fakeapi._state.typed import GoStructs
from fakeapi._state.watching import DEFAULT_HISTORY_BYTES
from fakeapi.errors import APIError

__all__ = [
    "CERTIFICATE_ADMIN",
    "DEFAULT_BODY_LIMIT",
    "DEFAULT_HEADER_TIMEOUT",
    "DEFAULT_HISTORY_BYTES",
    "DEFAULT_IDLE_TIMEOUT",
    "DEFAULT_KUBE_VERSION",
    "DEFAULT_MAX_BYTES",
    "KUBE_VERSIONS",
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
    "new_event_loop",
    "parse_kube_version",
]

CERTIFICATE_ADMIN = ("kubernetes-admin", ("kubeadm:cluster-admins", "system:masters"))
"""Who a certificate kubeconfig authenticates as by default: the user and group of kind's (kubeadm
1.29 and later's ``admin.conf``), and ``system:masters``, since the ClusterRoleBinding kubeadm gives
that group is not among what kube-apiserver writes at boot (docs/authentication.md)."""

_LOOPBACK_FOR = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}
# How often the real-time controller loop of ``fakeapi serve`` looks for new writes.
_CONTROLLER_POLL_SECONDS = 0.05
T = TypeVar("T")


def _documents(source: str | Path | dict[str, Any] | Iterable[Any]) -> Iterator[dict[str, Any]]:
    """Objects from a dict, a list of dicts, a YAML/JSON file or a folder of them (multi-document).

    Each comes out as a copy ready to store: the caller's dicts are never kept nor changed.
    """
    if isinstance(source, dict):
        if source.get("kind", "").endswith("List") and isinstance(source.get("items"), list):
            yield from (normalize(copy.deepcopy(item)) for item in source["items"] if isinstance(item, dict))
        else:
            yield normalize(copy.deepcopy(source))
        return
    if isinstance(source, (str, Path)):
        path = Path(source)
        files = (
            sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml", ".json")) if path.is_dir() else [path]
        )
        import yaml  # loaded when manifests are, not with the server

        for file in files:
            text = file.read_text(encoding="utf-8")
            # A JSON file is read as JSON: YAML refuses the tabs that JSON allows as indentation.
            loaded = [json.loads(text)] if file.suffix == ".json" else yaml.safe_load_all(text)
            for document in loaded:
                if isinstance(document, dict):
                    yield from _documents(document)
        return
    for item in source:
        yield from _documents(item)


def _decoded(rtype: ResourceType, document: dict[str, Any], structs: GoStructs) -> dict[str, Any]:
    """The object as the apiserver decodes a create of it with ``fieldValidation=Strict`` (kubectl apply's):
    a custom resource pruned and defaulted by its schema, metadata typed; an unknown field is an error."""
    return decode_object_body(rtype, encode(document), "application/json", "Strict", structs).obj


def load_rank(document: dict[str, Any]) -> int:
    """Where an object goes when a folder is loaded: what others need first, file order otherwise.

    Namespaces, then CustomResourceDefinitions (a CRD is served once stored), then the other
    built-in kinds, then custom resources: the order in which ``kubectl apply -f DIR`` succeeds
    whatever the files are called.
    """
    kind, api_version = document.get("kind"), document.get("apiVersion") or ""
    if kind == "Namespace" and api_version == "v1":
        return 0
    if kind == "CustomResourceDefinition":
        return 1
    group, _, version = str(api_version).rpartition("/")
    try:
        builtin_type(group, version, str(kind))
    except KeyError:
        return 3
    return 2


class Permissions:
    """A permissions report (:meth:`FakeAPIServer.permissions`): ``str()`` is for a person; ``data``
    (``used``, ``required``, ``missing``, ``unused``) for a test; ``required_manifests()`` and
    ``missing_manifests()`` the Role and ClusterRole documents that would grant them."""

    def __init__(self, user: str, data: dict[str, Any], text: str, report: Any) -> None:
        self.user = user
        self.data = data
        self.text = text
        self._report = report

    def __str__(self) -> str:
        return self.text

    def required_manifests(self) -> list[dict[str, Any]]:
        return [entry.manifest(f"required-{entry.namespace or 'cluster'}") for entry in self._report.required]

    def missing_manifests(self) -> list[dict[str, Any]]:
        return [entry.manifest(f"missing-{entry.namespace or 'cluster'}") for entry in self._report.missing]


def _authorization_mode(mode: str) -> str:
    """``AlwaysAllow`` or ``RBAC``, as kube-apiserver's ``--authorization-mode`` spells them (any case,
    with or without a dash)."""
    spelled = {"alwaysallow": "AlwaysAllow", "always-allow": "AlwaysAllow", "rbac": "RBAC"}.get(mode.lower())
    if spelled is None:
        raise ValueError(f"authorization is AlwaysAllow or RBAC, not {mode!r}")
    return spelled


def _identity(user: str | None, groups: Iterable[str], service_account: str | None) -> Identity | None:
    if service_account is not None and (user is not None or tuple(groups)):
        raise ValueError("give a service_account, or a user (with groups), not both")
    if service_account is not None:
        return Identity(service_account=service_account)
    if user is not None or tuple(groups):
        return Identity(user=user or "", groups=tuple(groups))
    return None


def _controller_options(
    controllers: str | Iterable[str] | None,
    nodes: Sequence[NodeSpec | str] | None,
    outcomes: Sequence[OutcomeRule],
    control_plane_pods: bool,
) -> ControllerOptions:
    specs = tuple(NodeSpec(node) if isinstance(node, str) else node for node in nodes or ())
    enabled = parse_controllers(controllers)
    return ControllerOptions(enabled, specs or ControllerOptions().nodes, tuple(outcomes), control_plane_pods)


class _Raised:
    """What a function handed over to the server's loop raised, for the caller to raise."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


def new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop where it is installed (its sockets cost a request less), else asyncio's own loop."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


class FakeAPIServer:
    """A fake kube-apiserver. Use ``async with FakeAPIServer() as server`` in async code, or ``with
    FakeAPIServer() as server`` (it serves from a thread of its own) in sync code."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        bookmark_interval: float = 60.0,
        history_window: int = 10000,
        seed: int = 0,
        clock: Callable[[], float] | None = None,
        journal_limit: int = 10000,
        journal_body_limit: int = DEFAULT_BODY_LIMIT,
        journal_max_bytes: int = DEFAULT_MAX_BYTES,
        watch_queue_limit: int = 10000,
        history_max_bytes: int = DEFAULT_HISTORY_BYTES,
        header_timeout: float = DEFAULT_HEADER_TIMEOUT,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        tls: bool = False,
        token_auth: bool = False,
        authorization: str = "AlwaysAllow",
        namespace_controllers: bool = True,
        kube_version: str = DEFAULT_KUBE_VERSION,
        controllers: str | Iterable[str] | None = None,
        nodes: Sequence[NodeSpec | str] | None = None,
        outcomes: Sequence[OutcomeRule] = (),
        control_plane_pods: bool = True,
        real_time: bool = False,
        enable_admission_plugins: Iterable[str] = (),
        disable_admission_plugins: Iterable[str] = (),
        webhook_services: Mapping[str, str] | None = None,
        webhook_timeout: float = 30.0,
    ) -> None:
        """The bounds (docs/limits.md): the journal keeps ``journal_limit`` entries, at most
        ``journal_body_limit`` bytes of each body and ``journal_max_bytes`` of bodies in all; the
        change history that watches resume from keeps ``history_window`` changes and at most
        ``history_max_bytes`` of their objects; a watcher that falls ``watch_queue_limit`` events
        (or ``history_max_bytes``) behind is closed; a connection that has not sent its headers
        within ``header_timeout`` seconds, or sent nothing for ``idle_timeout`` seconds between
        requests, is closed (0 disables either timeout).

        ``tls`` serves HTTPS with a CA and serving certificate generated at start; kubeconfigs then
        carry the CA (:attr:`ca_certificate`). ``token_auth`` accepts only the bearer tokens the
        server issued (:meth:`token_for`), answering 401 otherwise (docs/authentication.md).
        ``authorization`` is ``AlwaysAllow`` (every request is allowed) or ``RBAC``: requests are
        authorized from the Roles, ClusterRoles and bindings in the store, as kube-apiserver's RBAC
        authorizer does (docs/rbac.md); RBAC implies ``token_auth``, since a token must say who asks.
        ``namespace_controllers`` (on by default) gives every namespace the ``default``
        ServiceAccount and the ``kube-root-ca.crt`` ConfigMap, as kube-controller-manager does
        (docs/bootstrap.md). ``kube_version`` (``1.32``, ``1.33`` or ``1.34``) is the Kubernetes release
        the server is: its built-in kinds' Go structs, the resources discovery serves, ``/version``
        (docs/kinds.md); any other is a ``ValueError``.

        ``controllers`` turns simulated controllers on (docs/controllers.md): ``"all"``, or some of
        ``nodes``, ``scheduler``, ``kubelet``, ``job``, ``statefulset``, ``daemonset`` and ``namespace``
        (a comma-separated string or a list; with ``namespace`` a deleted namespace stays terminating
        until the namespace controller's turn, docs/namespace-deletion.md). They
        run on ``nodes`` (names or :class:`NodeSpec`; one ``node-1`` by default) and give containers
        the first matching of ``outcomes`` (:class:`OutcomeRule`). With controllers ``kube-system`` holds
        what a new one-node kind cluster holds there (the control plane's mirror pods, CoreDNS,
        kube-proxy, kindnet: docs/control-plane-pods.md) unless ``control_plane_pods`` is False, and
        ``componentstatuses`` reports the simulated scheduler and controller-manager. With controllers the server's clock
        is fake: it stands still until :meth:`advance` moves it and runs what falls due; with
        ``real_time`` (``fakeapi serve``) it is the wall clock and the controllers run on their own.
        An outcome may name a program to run on this machine in place of a container's image
        (``Outcome.process``, docs/process-containers.md); the server kills every such program when
        it is reset, restored or stopped.

        ``enable_admission_plugins`` and ``disable_admission_plugins`` are kube-apiserver's switches
        (names, or comma-separated names); a name kube-apiserver 1.32 does not know is a
        ``ValueError`` with its text (docs/admission.md). ``webhook_services`` maps a Service a webhook
        configuration names, ``"namespace/name:port"`` (port 443 when left out), to the ``"host:port"``
        its webhook server listens on here, where a cluster would have routed to the Service; CRD
        conversion webhooks are reached through the same map. ``webhook_timeout`` is the conversion
        webhook client's timeout in seconds (30 upstream) (docs/conversion.md).
        """
        authorization = _authorization_mode(authorization)
        kube_version = parse_kube_version(kube_version)
        token_auth = token_auth or authorization == "RBAC"
        self.host = host
        self.port = port
        config = ServerConfig(
            bookmark_interval=bookmark_interval,
            history_window=history_window,
            seed=seed,
            journal_limit=journal_limit,
            journal_body_limit=journal_body_limit,
            journal_max_bytes=journal_max_bytes,
            watch_queue_limit=watch_queue_limit,
            history_max_bytes=history_max_bytes,
            header_timeout=header_timeout,
            idle_timeout=idle_timeout,
            token_auth=token_auth,
            authorization=authorization,
            kube_version=kube_version,
            admission_plugins=enabled_plugins(enable_admission_plugins, disable_admission_plugins),
            webhook_services=parse_webhook_services(webhook_services or {}),
            webhook_timeout=webhook_timeout,
        )
        self.tls = tls
        # The cluster's CA exists whether or not it serves HTTPS: kube-root-ca.crt publishes it.
        self._certificates: ServingCertificates = generate_certificates(host)
        self._state = ServerState(config, Clock(clock) if clock else None)
        self._state.store.namespace_controllers = namespace_controllers
        self._state.store.root_ca = self._certificates.ca_certificate.decode("ascii")
        self._runner: web.ServerRunner | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._serving_address: tuple[str, int] | None = None
        bootstrap(self._state.store)
        self._real_time = real_time
        self._wall_clock = clock or time.time
        self._fake_time: FakeTime | None = None
        self._simulation: Simulation | None = None
        # The last snapshot restored with controllers on, those controllers, and the state they left.
        self._settled_restore: tuple[StoreSnapshot, Simulation, StoreSnapshot] | None = None
        self._stepped = False
        self._controller_task: asyncio.Task[None] | None = None
        # The process supervisors of kubelets replaced by set_controllers: stop() waits for their reaping.
        self._retired_processes: list[ContainerProcesses] = []
        self._follower: WallClockFollower | None = None
        self.configured_webhook_services: dict[str, str] = dict(webhook_services or {})
        """The ``webhook_services`` the server was made with (what the pytest fixture returns to between tests)."""
        self.configured_controllers: dict[str, Any] = {
            "controllers": controllers,
            "nodes": nodes,
            "outcomes": outcomes,
            "control_plane_pods": control_plane_pods,
        }
        """The controllers the server was made with (what the pytest fixture returns to between tests)."""
        self.set_controllers(controllers, nodes=nodes, outcomes=outcomes, control_plane_pods=control_plane_pods)

    # -- lifecycle --------------------------------------------------------------------------------

    async def start(self) -> FakeAPIServer:
        """Serve in the running event loop."""
        self._loop = asyncio.get_running_loop()
        self._runner = web.ServerRunner(build_server(self._state), shutdown_timeout=0.5)
        await self._runner.setup()
        context = self._certificates.server_context() if self.tls else None
        site = web.TCPSite(self._runner, self.host, self.port, backlog=1024, ssl_context=context)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        address = self.host
        if sockets:
            address, self.port = sockets[0].getsockname()[:2]
        self._state.server_address = f"{self.host}:{self.port}"
        self._state.server_scheme = "https" if self.tls else "http"
        self._serving_address = (_LOOPBACK_FOR.get(address, address), self.port)
        publish_kubernetes_service(self._state.store, *self._serving_address)
        if self._real_time and self._simulation is not None:
            self._controller_task = asyncio.get_running_loop().create_task(self._run_controllers())
        if self._state.kubelet is not None:
            self._state.kubelet.processes.resume()
        return self

    async def _run_controllers(self) -> None:
        """The controllers on the wall clock: settle after every write and whenever a step falls due."""
        store = self._state.store
        seen, due_at = -1, None
        while self._simulation is not None:
            now = store.clock.now()
            if store.revision != seen or (due_at is not None and due_at <= now):
                try:
                    wait = self._simulation.due_in()
                except Exception:  # a fakeapi bug: reported like a failing request, the loop goes on
                    self._state.errors.append("simulated controllers:\n" + traceback.format_exc())
                    wait = None
                seen, due_at = store.revision, None if wait is None else now + wait
            await asyncio.sleep(_CONTROLLER_POLL_SECONDS)

    async def stop(self) -> None:
        self._stop_following()
        if self._controller_task is not None:
            self._controller_task.cancel()
            self._controller_task = None
        self._state.store.hub.close_all()
        # No process a container stood for outlives the server (docs/process-containers.md).
        supervisors, self._retired_processes = self._retired_processes, []
        if self._state.kubelet is not None:
            supervisors.append(self._state.kubelet.processes)
        for supervisor in supervisors:
            await supervisor.close()
        await self._state.webhook_client.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeAPIServer:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    def start_in_thread(self) -> FakeAPIServer:
        """Serve from a background thread with its own event loop (for synchronous code)."""
        ready: Future[None] = Future()

        def run() -> None:
            loop = new_event_loop()
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self.start())
            except BaseException as error:
                ready.set_exception(error)
                return
            ready.set_result(None)
            loop.run_forever()
            loop.run_until_complete(self.stop())
            loop.close()

        self._thread = threading.Thread(target=run, name="fakeapi", daemon=True)
        self._thread.start()
        ready.result()
        return self

    def stop_thread(self) -> None:
        if self._thread is None or self._loop is None:
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._thread = None

    def __enter__(self) -> FakeAPIServer:
        return self.start_in_thread()

    def __exit__(self, *exc_info: object) -> None:
        self.stop_thread()

    def _call(self, function: Callable[[], T]) -> T:
        """Run on the server's loop: directly from its own thread, handed over from any other.

        The hand-over is a callback and a lock, not a coroutine in a task: the pytest fixture makes
        one before every test, and a task with its two chained futures costs that test twice as much.
        """
        loop = self._loop
        if loop is None or not loop.is_running() or self._thread is None or threading.current_thread() is self._thread:
            return function()
        done = threading.Lock()
        done.acquire()
        outcome: list[Any] = []

        def run() -> None:
            try:
                outcome.append(function())
            except BaseException as error:
                outcome.append(_Raised(error))
                if isinstance(error, (KeyboardInterrupt, SystemExit)):
                    raise  # they stop the loop, as they do from a task
            finally:
                done.release()

        loop.call_soon_threadsafe(run)
        done.acquire()
        result = outcome.pop()
        if isinstance(result, _Raised):
            raise result.error
        return result  # type: ignore[no-any-return]

    # -- what tests use ---------------------------------------------------------------------------

    def set_webhook_caller(self, caller: WebhookCaller | None) -> None:
        """Make the admission webhook calls through ``caller`` instead of HTTP (None goes back to HTTP).

        ``caller`` is an async callable taking a :class:`fakeapi.WebhookCall` (where, what body, the
        timeout) and returning a :class:`fakeapi.WebhookAnswer`, or raising
        :class:`fakeapi.WebhookTransportError` with the dialler's words: a test or an engine can hold a
        call, fail it or answer it itself (docs/admission.md).
        """
        self._state.set_webhook_caller(caller)

    def set_webhook_services(self, services: Mapping[str, str]) -> None:
        """Replace the ``webhook_services`` map (``{"namespace/name[:port]": "host:port"}``), e.g. once
        a test's webhook server knows its port; a bad entry is a ``ValueError``."""
        self._state.admission.service_addresses = parse_webhook_services(services)

    @property
    def admission_plugins(self) -> frozenset[str]:
        """The admission plugins on (kube-apiserver's names)."""
        return self._state.store.admission_plugins

    @property
    def namespace_controllers(self) -> bool:
        """Whether every namespace gets the ``default`` ServiceAccount and ``kube-root-ca.crt``."""
        return self._state.store.namespace_controllers

    @property
    def kube_version(self) -> str:
        """The Kubernetes release the server is: ``"1.32"``, ``"1.33"`` or ``"1.34"``."""
        return self._state.store.registry.kube_version

    @property
    def url(self) -> str:
        """Where clients reach the server (loopback when it listens on every address)."""
        host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(self.host, self.host)
        host = f"[{host}]" if ":" in host else host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"

    @property
    def ca_certificate(self) -> bytes | None:
        """The PEM of the CA that signed the serving certificate (with ``tls``)."""
        return self._certificates.ca_certificate if self.tls else None

    def client_certificate(self, user: str, groups: Iterable[str] = ()) -> tuple[bytes, bytes]:
        """A client certificate and its key (PEM), signed by the server's CA, that authenticates as
        ``user`` (its common name) in ``groups`` (its organizations), as kube-apiserver reads one.
        Needs ``tls``: the CA exists from construction, but only an HTTPS server asks for a certificate."""
        if not self.tls:
            raise ValueError("client certificates need a server started with tls=True")
        return self._certificates.client_certificate(user, tuple(groups))

    @property
    def token_auth(self) -> bool:
        return self._state.authentication.token_auth

    def token_for(
        self,
        name: str = "admin",
        *,
        user: str | None = None,
        groups: Iterable[str] = (),
        service_account: str | None = None,
    ) -> str:
        """The bearer token that authenticates as ``name``, and names it as the journal's actor.

        Without ``token_auth`` that is the name itself; with it, a token the server issues for the
        name the first time it is asked, and accepts from then on. ``admin`` is in ``system:masters``.
        An identity makes the token authenticate as someone else while the journal and the gate still
        say ``name``: ``user`` (with ``groups``), or ``service_account="namespace/name"`` (the
        ServiceAccount's user and groups, as its own token would give them).
        """
        identity = _identity(user, groups, service_account)
        return self._call(lambda: self._state.authentication.token_for(name, identity))

    @property
    def authorization(self) -> str:
        """``AlwaysAllow`` or ``RBAC``."""
        return self._state.authorization.mode

    @property
    def configured_authorization(self) -> str:
        """The authorization mode the server was made with (what :meth:`set_authorization` returns to)."""
        return self._state.config.authorization

    def set_authorization(self, mode: str) -> None:
        """Switch the authorization mode of a running server (the pytest fixture does it per test).

        ``RBAC`` turns token checks on, as the constructor does; going back to ``AlwaysAllow``
        restores the token checks the server was made with. Tokens issued before stay valid.
        """
        spelled = _authorization_mode(mode)
        self._call(lambda: self._switch_authorization(spelled))

    def _switch_authorization(self, mode: str) -> None:
        self._state.authorization.mode = mode
        self._state.authentication.token_auth = self._state.config.token_auth or mode == "RBAC"
        self._state.authentication.authorizing = mode == "RBAC"

    def permissions(
        self,
        actor: str | None = None,
        *,
        user: str | None = None,
        service_account: str | None = None,
        granted: Iterable[dict[str, Any]] | None = None,
    ) -> Permissions:
        """What one identity's requests in the journal needed, and how that compares with what it is
        granted (docs/rbac.md): name it by ``service_account="namespace/name"``, by ``user`` (the
        name its requests acted as), or by ``actor`` (the journal's name for the sender). ``granted``
        are the Roles and ClusterRoles to compare with; by default those its bindings in the store
        grant it."""
        return self._call(lambda: self._permissions(actor, user, service_account, granted))

    def _permissions(
        self,
        actor: str | None,
        user: str | None,
        service_account: str | None,
        granted: Iterable[dict[str, Any]] | None,
    ) -> Permissions:
        if sum(value is not None for value in (actor, user, service_account)) != 1:
            raise ValueError("name the identity by one of actor, user or service_account")
        entries = list(self._state.journal)
        if service_account is not None:
            namespace, _, name = service_account.partition("/")
            user = service_account_username(namespace, name)
        elif actor is not None:
            user = next((entry.user for entry in entries if entry.actor == actor and entry.user), actor)
        assert user is not None
        groups = next((entry.groups for entry in entries if entry.user == user), ())
        source = self._state.authorization.source
        if granted is None:
            bindings = self._state.store.bucket(self.resource_type("rbac.authorization.k8s.io/v1", "RoleBinding"))
            namespaces = sorted({namespace for namespace, _ in bindings})
            granted = granted_roles(source, UserInfo(user, groups), namespaces)
        report = permissions_report(journal_observations(entries, user), list(granted))
        return Permissions(user, report.to_dict(), render_report(report, user), report)

    @property
    def journal(self) -> Journal:
        return self._state.journal

    @property
    def errors(self) -> list[str]:
        """Server-side failures (bugs in fakeapi) since the last reset."""
        return self._state.errors

    @property
    def revision(self) -> int:
        return self._state.store.revision

    def set_request_log(self, log: Callable[[str], None] | None) -> None:
        """Call ``log`` with one line for every request answered (method, path, status, the time it
        took, and what a JSON patch's ``test`` diagnosed), or stop when ``log`` is None."""
        self._state.request_log = log

    def set_gate(self, gate: Gate | None) -> None:
        """Hold every resource request at ``gate`` (see :class:`GateRequest`, :class:`GateDecision`)."""
        self._state.gate = gate

    def snapshot(self) -> StoreSnapshot:
        """The current state (objects, CRDs, revision, seeded name generator), to :meth:`restore` later."""
        return self._call(self._state.store.snapshot)

    def restore(self, snapshot: StoreSnapshot, *, authorization: str | None = None) -> None:
        """Go back to a snapshot: objects and revision as they were, watches closed, journal emptied.

        ``authorization``, if given, then switches the mode as :meth:`set_authorization` does, in the
        same hand-over to the server's thread (the pytest fixture's one before every test).
        """
        mode = _authorization_mode(authorization) if authorization is not None else None

        def restore_now() -> None:
            settled = self._settled_restore
            reused = settled is not None and settled[0] is snapshot and settled[1] is self._simulation
            if settled is not None and reused:
                # The controllers settle a snapshot on the fake clock's start the same way every time:
                # restore what they made of it last time, which is where they would stop again.
                self._state.store.restore(settled[2])
            else:
                self._state.store.restore(snapshot)
            self._state.journal.clear()
            self._state.errors.clear()
            self._restart_controllers(settled=reused)
            if not reused and self._simulation is not None and self._fake_time is not None:
                self._settled_restore = (snapshot, self._simulation, self._state.store.snapshot())
            if mode is not None:
                self._switch_authorization(mode)

        self._call(restore_now)

    def compact(self) -> None:
        """Forget the change history up to now, as etcd compaction does: a watch resuming from an
        older resourceVersion then gets the 410 Expired ERROR event and must list again, and a list
        continuing from an older page gets 410 Expired."""

        def compact_now() -> None:
            self._state.store.hub.compact(self._state.store.revision)

        self._call(compact_now)

    def close_watches(self) -> None:
        """End every open watch stream, as a dropped connection would."""
        self._call(self._state.store.hub.close_all)

    def reset(self) -> None:
        """Back to a new cluster: no CRDs, an empty journal, only what a control plane writes at boot."""

        def reset_now() -> None:
            self._state.store.clear()
            self._state.journal.clear()
            self._state.errors.clear()
            self._state.gate = None
            bootstrap(self._state.store)
            if self._serving_address is not None:
                publish_kubernetes_service(self._state.store, *self._serving_address)
            self._restart_controllers()

        self._call(reset_now)

    # -- simulated controllers ----------------------------------------------------------------------

    @property
    def controllers(self) -> frozenset[str]:
        """The simulated controllers that run (empty when none do)."""
        return self._simulation.options.enabled if self._simulation is not None else frozenset()

    def set_controllers(
        self,
        controllers: str | Iterable[str] | None,
        *,
        nodes: Sequence[NodeSpec | str] | None = None,
        outcomes: Sequence[OutcomeRule] = (),
        stepped: bool = False,
        control_plane_pods: bool = True,
    ) -> None:
        """Run these simulated controllers from now on (the pytest fixture does it per test).

        The fake clock goes back to the instant it started at, and the controllers act on what is
        due at once: the fake nodes are registered before this returns.

        ``stepped`` hands the order of the controllers' writes to the caller (the scenario engine):
        they never act by themselves, :meth:`controller_writes` says what each would write next,
        :meth:`step_controller` makes one such write and :meth:`advance_clock` moves the fake clock
        without running anything. Only the fake nodes are still registered at once. Stepped
        controllers refuse outcomes that name a local process (``ValueError``): a program exits
        when it does, not at a step the caller chooses (docs/process-containers.md).
        without running anything. Only the fake nodes are still registered at once, and a
        ``kube-system`` that lacks the control plane's objects gets them, settled, before the caller steps.

        ``control_plane_pods`` (True by default) puts what a new kind cluster's ``kube-system`` holds
        there once the nodes are registered (docs/control-plane-pods.md); False leaves it out.
        """
        if stepped and self._real_time:
            raise ValueError("stepped controllers need the fake clock, not real time")
        options = _controller_options(controllers, nodes, outcomes, control_plane_pods)
        enabled = options.enabled

        if stepped and any(rule.resolved().local_process is not None for rule in options.outcomes):
            raise ValueError(
                "stepped controllers cannot run process-backed containers: a local process exits when it "
                "does, not at a step a caller chooses (docs/process-containers.md)"
            )

        def switch() -> None:
            self._state.running_controllers = options.enabled
            kubelet = "kubelet" in options.enabled
            if self._state.kubelet is not None:
                self._state.kubelet.processes.kill_all()
                self._retired_processes.append(self._state.kubelet.processes)
            self._state.kubelet = (
                KubeletEndpoints((n.name for n in options.nodes), options.outcomes, self._state.clock.now)
                if kubelet
                else None
            )
            if self._state.kubelet is not None:
                self._state.kubelet.processes.on_exit = self._process_exited
            self._stop_following()
            if not enabled:
                if self._simulation is not None:
                    self._simulation.stop()
                self._simulation = None
                if self._fake_time is not None:
                    self._state.clock.set_source(self._wall_clock)
                    self._fake_time = None
                return
            if not self._real_time and self._fake_time is None:
                self._fake_time = FakeTime(self._wall_clock())
                self._state.clock.set_source(self._fake_time)
            simulation = self._simulation
            if simulation is None or simulation.options != options or self._stepped != stepped:
                # The same controllers keep their Simulation, so a restore of the same snapshot
                # reuses what they settled it to last time (restore()).
                simulation = self._simulation = Simulation(self._state.store, options)
            simulation.processes = self._state.kubelet.processes if self._state.kubelet is not None else None
            self._stepped = stepped
            self._restart_controllers()

        self._call(switch)

    def _process_exited(self) -> None:
        """A container's local process exited: its kubelet writes so at once, on either clock, as the
        controllers would at ``advance(0)`` (docs/process-containers.md)."""
        if self._simulation is None or self._stepped:
            return
        try:
            self._simulation.settle()
        except Exception:  # a fakeapi bug: reported like a failing request
            self._state.errors.append("simulated controllers:\n" + traceback.format_exc())

    def runs_controllers(
        self,
        controllers: str | Iterable[str] | None,
        *,
        nodes: Sequence[NodeSpec | str] | None = None,
        outcomes: Sequence[OutcomeRule] = (),
        control_plane_pods: bool = True,
    ) -> bool:
        """Whether the server already runs exactly these controllers, not stepped: :meth:`set_controllers`
        with them would change nothing but the clock, which :meth:`restore` rewinds too."""
        options = _controller_options(controllers, nodes, outcomes, control_plane_pods)
        if self._simulation is None:
            return not options.enabled
        return not self._stepped and self._simulation.options == options

    def _restart_controllers(self, *, settled: bool = False) -> None:
        """After a restore: the fake clock back at its start, the controllers acting on the new state
        (``settled``: a state they already settled at that instant, where they would write nothing)."""
        self._stop_following()
        if self._state.kubelet is not None:
            self._state.kubelet.clear()
        if self._simulation is None:
            return
        if self._fake_time is not None:
            self._fake_time.rewind()
        self._simulation.reset()
        if settled:
            return
        self._simulation.install()
        if not self._stepped:
            self._simulation.settle()
        elif "nodes" in self._simulation.options.enabled:
            while self._simulation.step("nodes") is not None:
                pass
        if self._simulation.install_control_plane():
            # The cluster as kind hands it over: its own pods already running, whoever steps next.
            self._simulation.settle()

    def advance(self, seconds: float = 0.0) -> None:
        """Move the fake clock forward by ``seconds`` and let the simulated controllers do, in order,
        everything that falls due meanwhile; ``advance(0)`` runs what is due now."""

        def advance_now() -> None:
            if self._simulation is None or self._fake_time is None:
                raise RuntimeError(
                    "advance() needs simulated controllers on the fake clock: "
                    "FakeAPIServer(controllers=...) or @pytest.mark.fakeapi(controllers=...)"
                )
            if self._stepped:
                raise RuntimeError(
                    "the controllers are stepped: step_controller() makes their writes, advance_clock() moves time"
                )
            self._simulation.advance(self._fake_time, seconds)

        self._call(advance_now)

    def follow_wall_clock(self, speed: float = 1.0) -> None:
        """Let the fake clock move with the wall clock, ``speed`` times as fast, the controllers acting
        after every write and whenever a step falls due, for an operator that runs in the background
        (docs/cluster-defaults.md). It goes on until :meth:`stop_following_wall_clock`, a restore, a
        reset or new controllers (the pytest fixture's next test); :meth:`advance` still works meanwhile."""

        def start() -> None:
            if self._simulation is None or self._fake_time is None or self._stepped:
                raise RuntimeError(
                    "follow_wall_clock() needs simulated controllers on the fake clock, not stepped: "
                    "FakeAPIServer(controllers=...) or @pytest.mark.fakeapi(controllers=...)"
                )
            if self._loop is None:
                raise RuntimeError("follow_wall_clock() needs a serving server: start it first")
            follower = WallClockFollower(self._simulation, self._fake_time, self._state.errors, speed)
            self._stop_following()
            self._follower = follower
            follower.start(self._loop)

        self._call(start)

    def stop_following_wall_clock(self) -> None:
        """The fake clock stands still again until :meth:`advance` moves it."""
        # Only follow_wall_clock() starts a follower, and it returns once the follower runs: a caller
        # that sees none has nothing to stop, and need not wait for the server's thread to say so.
        if self._follower is not None:
            self._call(self._stop_following)

    def _stop_following(self) -> None:
        if self._follower is not None:
            self._follower.stop()
            self._follower = None

    def append_log(self, pod: str, *lines: str, container: str = "", namespace: str = "default") -> None:
        """The running container ``container`` of ``pod`` (its only one when not named) writes ``lines``
        to its log now, as seen by ``pods/log`` and a follow or attach stream (docs/kubelet-endpoints.md)."""

        def append() -> None:
            kubelet = self._kubelet()
            found = self._state.store.find(builtin_type("", "v1", "Pod"), namespace, pod)
            if found is None:
                raise LookupError(f"no pod {namespace}/{pod}")
            kubelet.append_log(found, container, lines, self._state.clock.now())

        self._call(append)

    def script_exec(
        self,
        pod: str,
        command: Sequence[str],
        *,
        exit_code: int = 0,
        stdout: str | bytes = b"",
        stderr: str | bytes = b"",
        container: str = "",
        namespace: str = "default",
    ) -> None:
        """What ``command`` run in ``pod`` (in ``container``, or any of its containers) prints and exits
        with; an unscripted command exits 127 with a line on stderr (docs/kubelet-endpoints.md)."""
        if not 0 <= exit_code <= 255:
            raise ValueError(f"an exit code is 0 to 255, not {exit_code}")
        out, err = (text.encode() if isinstance(text, str) else text for text in (stdout, stderr))
        result = ExecResult(exit_code, out, err)
        self._call(lambda: self._kubelet().script(namespace, pod, container, command, result))

    def forward_port(self, pod: str, port: int, address: str, *, namespace: str = "default") -> None:
        """A port-forward to ``port`` of ``pod`` connects to ``address`` (``host:port``) on this machine;
        a port no test named refuses, as one nothing listens on does (docs/kubelet-endpoints.md)."""
        host, _, number = address.rpartition(":")
        if not host or not number.isdigit():
            raise ValueError(f"an address is host:port, not {address!r}")
        target = (host.strip("[]"), int(number))
        self._call(lambda: self._kubelet().forward(namespace, pod, port, target))

    def _kubelet(self) -> KubeletEndpoints:
        if self._state.kubelet is None:
            raise RuntimeError("no simulated kubelet runs: FakeAPIServer(controllers=...) with the kubelet")
        return self._state.kubelet

    def _stepped_simulation(self) -> tuple[Simulation, FakeTime]:
        if self._simulation is None or self._fake_time is None or not self._stepped:
            raise RuntimeError("no stepped controllers: set_controllers(..., stepped=True)")
        return self._simulation, self._fake_time

    def controller_writes(self) -> list[ControllerWrite]:
        """Stepped controllers: the write each would make next at the current instant (none for the idle ones).

        Nothing is written, and asking twice gives the same answer.
        """
        return self._call(lambda: self._stepped_simulation()[0].pending())

    def step_controller(self, name: str, worker: str = "") -> ControllerWrite | None:
        """Stepped controllers: let ``name`` make its next write, with the Events that go with it.

        For a controller with a worker per object (the kubelet's pod workers), ``worker`` says whose
        (``namespace/name``, as :attr:`ControllerWrite.worker` gives it)."""
        return self._call(lambda: self._stepped_simulation()[0].step(name, worker))

    def controller_reads(self) -> dict[str, frozenset[tuple[str, str]] | None]:
        """Each running controller's name, and the resources (group, plural) its decisions read (None: any)."""
        simulation = self._simulation
        return {} if simulation is None else {c.name: c.reads for c in simulation.controllers}

    def next_controller_due(self) -> float | None:
        """Stepped controllers: seconds from now until a timed step falls due (None: none is coming)."""

        def due() -> float | None:
            simulation, time = self._stepped_simulation()
            when = simulation.next_due_after(time.now)
            return None if when is None else when - time.now

        return self._call(due)

    def advance_clock(self, seconds: float) -> None:
        """Stepped controllers: move the fake clock forward, running nothing."""
        if seconds < 0:
            raise ValueError(f"cannot advance the clock by a negative time ({seconds})")

        def move() -> None:
            self._stepped_simulation()[1].now += seconds

        self._call(move)

    def resource_type(self, api_version: str, kind: str) -> ResourceType:
        group, _, version = api_version.rpartition("/")
        for rtype in self._state.store.registry.all_types():
            if rtype.group == group and rtype.version == version and rtype.kind == kind:
                return rtype
        raise LookupError(f"no resource of kind {kind} in {api_version}: create its CRD first")

    def load(
        self, *sources: str | Path | dict[str, Any] | Iterable[Any], manager: str = "fakeapi"
    ) -> list[dict[str, Any]]:
        """Create objects in :func:`load_rank` order, from dicts or YAML/JSON files and folders; returns them as stored."""
        documents = [document for source in sources for document in _documents(source)]
        documents.sort(key=load_rank)

        def load_now() -> list[dict[str, Any]]:
            created = []
            for document in documents:
                rtype = self.resource_type(document.get("apiVersion", ""), document.get("kind", ""))
                namespace = (metadata_of(document).get("namespace") or "default") if rtype.namespaced else ""
                if rtype.namespaced:
                    document = {**document, "metadata": {**metadata_of(document), "namespace": namespace}}
                document = _decoded(rtype, document, self._state.store.registry.structs)
                created.append(self._state.store.create(rtype, namespace, document, manager=manager).object)
            return created

        return self._call(load_now)

    def apply(self, *sources: str | Path | dict[str, Any] | Iterable[Any]) -> list[dict[str, Any]]:
        """Like :meth:`load`, but an object that exists already is replaced."""
        documents = [document for source in sources for document in _documents(source)]
        documents.sort(key=load_rank)

        def apply_now() -> list[dict[str, Any]]:
            results = []
            for document in documents:
                rtype = self.resource_type(document.get("apiVersion", ""), document.get("kind", ""))
                namespace = (metadata_of(document).get("namespace") or "default") if rtype.namespaced else ""
                name = metadata_of(document).get("name", "")
                if rtype.namespaced:
                    document = {**document, "metadata": {**metadata_of(document), "namespace": namespace}}
                document = _decoded(rtype, document, self._state.store.registry.structs)
                if self._state.store.find(rtype, namespace, name) is None:
                    results.append(self._state.store.create(rtype, namespace, document, manager="fakeapi").object)
                    continue

                def replace(current: dict[str, Any], document: dict[str, Any] = document) -> dict[str, Any]:
                    meta = {**metadata_of(document), "resourceVersion": metadata_of(current).get("resourceVersion")}
                    return {**document, "metadata": meta}

                results.append(self._state.store.update(rtype, namespace, name, replace, manager="fakeapi").object)
            return results

        return self._call(apply_now)

    def get(self, api_version: str, kind: str, name: str, namespace: str = "default") -> dict[str, Any]:
        rtype = self.resource_type(api_version, kind)
        return self._call(lambda: self._state.store.get(rtype, namespace if rtype.namespaced else "", name))

    def delete(self, api_version: str, kind: str, name: str, namespace: str = "default") -> dict[str, Any]:
        """Delete an object as a DELETE without options does: at once, or marked for deletion while
        finalizers remain or a pod's grace period runs (the object is returned as it is then;
        docs/graceful-deletion.md); a missing one raises the 404
        :class:`~fakeapi.errors.APIError`."""
        rtype = self.resource_type(api_version, kind)
        return self._call(lambda: self._state.store.delete(rtype, namespace if rtype.namespaced else "", name).object)

    def is_terminating(self, group: str, resource: str, namespace: str, name: str) -> bool:
        """Whether the object exists with a ``deletionTimestamp`` (held by finalizers until they go)."""

        def look() -> bool:
            store = self._state.store
            for rtype in store.registry.all_types():
                if rtype.group == group and rtype.plural == resource:
                    found = store.find(rtype, namespace if rtype.namespaced else "", name)
                    return found is not None and metadata_of(found).get("deletionTimestamp") is not None
            return False

        return self._call(look)

    def has_resource_quota(self, namespace: str) -> bool:
        """Whether ``namespace`` holds a ResourceQuota: a write there may then charge it too
        (docs/quota-disruption-autoscaling.md)."""

        def look() -> bool:
            rtype = self._state.store.registry.resolve("", "v1", "resourcequotas")
            return rtype is not None and bool(self._state.store.items(rtype, namespace))

        return self._call(look)

    def find(self, api_version: str, kind: str, name: str, namespace: str = "default") -> dict[str, Any] | None:
        try:
            return self.get(api_version, kind, name, namespace)
        except APIError:
            return None

    def kubeconfig(
        self,
        path: str | Path,
        *,
        token: str | None = None,
        context: str = "fakeapi",
        user: str | None = None,
        groups: Iterable[str] = (),
        service_account: str | None = None,
        certificate: bool = False,
    ) -> Path:
        """Write a kubeconfig for this server; ``token`` names the actor the requests come from.

        It authenticates with a bearer token (:meth:`token_for` of ``token``, or of ``admin``, with
        the identity ``user``/``groups`` or ``service_account="namespace/name"`` if given), never a
        username and password, and with ``tls`` it carries the server's CA. ``certificate`` (with
        ``tls``) writes a client certificate instead, as kind's kubeconfig has one: for ``user`` in
        ``groups`` (by default kind's ``kubernetes-admin`` in ``kubeadm:cluster-admins``, and in
        ``system:masters``, docs/authentication.md).
        """
        credentials: dict[str, Any]
        if certificate:
            name, member_of = (user, tuple(groups)) if user else CERTIFICATE_ADMIN
            cert, key = self.client_certificate(name, member_of)
            credentials = {
                "client-certificate-data": base64.b64encode(cert).decode(),
                "client-key-data": base64.b64encode(key).decode(),
            }
        else:
            actor = token or (service_account and f"system:serviceaccount:{service_account.replace('/', ':')}") or user
            credentials = {
                "token": self.token_for(actor or "admin", user=user, groups=groups, service_account=service_account)
            }
        cluster: dict[str, Any] = {"server": self.url}
        if self.ca_certificate is not None:
            cluster["certificate-authority-data"] = base64.b64encode(self.ca_certificate).decode()
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": context, "cluster": cluster}],
            "users": [{"name": context, "user": credentials}],
            "contexts": [{"name": context, "context": {"cluster": context, "user": context, "namespace": "default"}}],
            "current-context": context,
            "preferences": {},
        }
        import yaml

        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        return target
