"""Actors: who races (:class:`Actor`), and at run time the context a tick gets, the clients it may
use, and the loop of its ticks.

Each actor has its own kubeconfig whose bearer token names the actor (its name itself, or a token
the server issued for it and for the ServiceAccount it acts as), so the server knows whose request
it holds whatever library sent it. The engine makes the clients once per exploration and
reuses them across runs (a run restores the store, not the clients). Handler code that loads
kubeconfig itself finds the running actor's: while an actor runs, ``KUBECONFIG`` and the cached
default location of kubernetes_asyncio and kubernetes point at its file; only one actor runs at a
time, so this is never ambiguous.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import ctypes
import inspect
import os
import re
import ssl
import sys
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

__all__ = [
    "Actor",
    "ActorClients",
    "ActorCrashed",
    "ActorRuntime",
    "ActorThreads",
    "KubeconfigPointer",
    "SetupContext",
    "SetupHook",
    "Tick",
    "TickContext",
    "describe_error",
]

_CLIENT_MODULES = ("kubernetes_asyncio.config.kube_config", "kubernetes.config.kube_config")
_DEFAULT_LOCATION = "KUBE_CONFIG_DEFAULT_LOCATION"

Tick = Callable[["TickContext"], Awaitable[None] | None]
SetupHook = Callable[["SetupContext"], Awaitable[None]]


@dataclass(frozen=True)
class Actor:
    """One racer: it runs ``tick`` up to ``ticks`` times in a row, and survives up to ``restarts`` crashes.

    ``service_account`` (``namespace/name``) is who its requests authenticate as, which matters when
    the scenario authorizes with RBAC; by default a user named after the actor.
    """

    name: str
    tick: Tick
    ticks: int = 1
    restarts: int = 1
    writer: bool = False
    service_account: str = ""


class KubeconfigPointer:
    """Points kubeconfig discovery at one file, and puts everything back when done."""

    def __init__(self) -> None:
        self._saved_env = os.environ.get("KUBECONFIG")
        self._saved_modules: dict[str, Any] = {}
        self.current: Path | None = None

    def point(self, path: Path) -> None:
        if self.current == path:
            return
        self.current = path
        os.environ["KUBECONFIG"] = str(path)
        for name in _CLIENT_MODULES:
            module = sys.modules.get(name)
            if module is not None and hasattr(module, _DEFAULT_LOCATION):
                self._saved_modules.setdefault(name, getattr(module, _DEFAULT_LOCATION))
                setattr(module, _DEFAULT_LOCATION, str(path))

    def restore(self) -> None:
        if self._saved_env is None:
            os.environ.pop("KUBECONFIG", None)
        else:
            os.environ["KUBECONFIG"] = self._saved_env
        for name, value in self._saved_modules.items():
            module = sys.modules.get(name)
            if module is not None:
                setattr(module, _DEFAULT_LOCATION, value)
        self.current = None


class ActorClients:
    """One actor's clients, made once and reused across runs."""

    def __init__(self, name: str, kubeconfig: Path, url: str, token: str | None) -> None:
        self.name = name
        self.kubeconfig = kubeconfig
        self.url = url
        self.token = token
        self._api: Any = None
        self._session: aiohttp.ClientSession | None = None
        self._sync_api: Any = None

    async def open(self) -> None:
        from kubernetes_asyncio import client, config

        configuration = client.Configuration()
        await config.load_kube_config(config_file=str(self.kubeconfig), client_configuration=configuration)
        self._api = client.ApiClient(configuration)
        # kubernetes_asyncio's session trusts the environment, which costs two thread hops per request
        # (netrc and proxy lookups); a loopback server needs neither.
        self._api.rest_client.pool_manager._trust_env = False
        self.url = str(configuration.host)
        self._session = _session_for(configuration)

    @property
    def api(self) -> Any:
        return self._api

    @property
    def session(self) -> aiohttp.ClientSession:
        assert self._session is not None, "clients are opened by the engine"
        return self._session

    @property
    def sync_api(self) -> Any:
        if self._sync_api is None:
            from kubernetes import client, config

            configuration = client.Configuration()
            load: Any = config.load_kube_config
            load(config_file=str(self.kubeconfig), client_configuration=configuration)
            self._sync_api = client.ApiClient(configuration)
        return self._sync_api

    async def close(self) -> None:
        if self._api is not None:
            await self._api.close()
        if self._session is not None:
            await self._session.close()
        if self._sync_api is not None:
            self._sync_api.close()


def _session_for(configuration: Any) -> aiohttp.ClientSession:
    """A plain aiohttp session that authenticates as the kubeconfig says (token, client certificate, CA)."""
    headers = {}
    token = (configuration.api_key or {}).get("BearerToken") or (configuration.api_key or {}).get("authorization")
    if token:
        headers["Authorization"] = token if token.lower().startswith("bearer ") else f"Bearer {token}"
    connector = None
    if configuration.host.startswith("https"):
        context = ssl.create_default_context(cafile=configuration.ssl_ca_cert)
        if configuration.cert_file:
            context.load_cert_chain(configuration.cert_file, keyfile=configuration.key_file)
        if not configuration.verify_ssl:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        connector = aiohttp.TCPConnector(ssl=context)
    return aiohttp.ClientSession(base_url=configuration.host, headers=headers, connector=connector)


class ActorCrashed(BaseException):
    """Raised where an actor's code stands when its process dies (a BaseException: ``except Exception``
    in the tick does not stop it)."""


class ActorThreads:
    """The threads running an actor's blocking code (a synchronous tick, ``ctx.blocking``), so that a
    crash can stop them where they stand: :class:`ActorCrashed` is raised in each at its next Python
    instruction, which for a thread waiting on a held request is the moment its socket read returns."""

    def __init__(self, executor: concurrent.futures.Executor | None = None) -> None:
        self._executor = executor
        self._lock = threading.Lock()
        self._running: set[int] = set()
        self._futures: set[concurrent.futures.Future[Any]] = set()

    async def run(self, function: Callable[..., Any], *args: Any) -> Any:
        running, lock = self._running, self._lock

        def body() -> Any:
            ident = threading.get_ident()
            with lock:
                running.add(ident)
            try:
                return function(*args)
            finally:
                with lock:
                    running.discard(ident)

        if self._executor is None:
            return await asyncio.to_thread(body)
        future = self._executor.submit(body)
        self._futures.add(future)
        future.add_done_callback(self._futures.discard)
        return await asyncio.wrap_future(future)

    @property
    def busy(self) -> bool:
        """Whether a thread is running this actor's code right now (or waiting inside it)."""
        with self._lock:
            return bool(self._running)

    def interrupt(self) -> None:
        with self._lock:
            for ident in self._running:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(ActorCrashed))

    async def join(self) -> None:
        """Until every thread started for this actor has returned (or raised)."""
        for future in list(self._futures):
            await asyncio.gather(asyncio.wrap_future(future), return_exceptions=True)


@dataclass
class ActorRuntime:
    """An actor's life within one run.

    ``effects_since_request``: side effects declared since its last request, in this tick; a crash
    point only differs from one already offered when something observable happened since.
    """

    actor: Actor
    incarnation: int = 0
    ticks_done: int = 0
    restarts_left: int = 0
    requests: int = 0
    last_step: int = 0
    effects_since_request: int = 0
    dying: bool = False
    memory: dict[str, Any] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None
    threads: ActorThreads = field(default_factory=ActorThreads)

    @property
    def asynchronous(self) -> bool:
        """Whether the tick runs on the event loop (cancelled to crash) or in a thread (interrupted)."""
        return inspect.iscoroutinefunction(self.actor.tick)


class TickContext:
    """What a tick works with: its clients, its memory, and ``effect`` to declare a non-idempotent step."""

    def __init__(
        self, runtime: ActorRuntime, clients: ActorClients, record: Callable[[str, str], None], namespace: str
    ) -> None:
        self.actor = runtime.actor.name
        self.incarnation = runtime.incarnation
        self.tick = runtime.ticks_done
        self.memory = runtime.memory
        self.namespace = namespace
        self._clients = clients
        self._record = record
        self._threads = runtime.threads

    @property
    def kubeconfig(self) -> Path:
        """A kubeconfig whose bearer token names this actor."""
        return self._clients.kubeconfig

    @property
    def url(self) -> str:
        return self._clients.url

    @property
    def token(self) -> str | None:
        return self._clients.token

    @property
    def api(self) -> Any:
        """A kubernetes_asyncio ``ApiClient`` for this actor."""
        return self._clients.api

    @property
    def custom(self) -> Any:
        from kubernetes_asyncio import client

        return client.CustomObjectsApi(self._clients.api)

    @property
    def core(self) -> Any:
        from kubernetes_asyncio import client

        return client.CoreV1Api(self._clients.api)

    @property
    def session(self) -> aiohttp.ClientSession:
        """A plain aiohttp session with this actor's bearer token (paths relative to the server)."""
        return self._clients.session

    @property
    def sync_api(self) -> Any:
        """A ``kubernetes`` (synchronous) ``ApiClient``: use it from a synchronous tick or ``ctx.blocking``."""
        return self._clients.sync_api

    async def blocking(self, function: Callable[..., Any], *args: Any) -> Any:
        """Run blocking client code (the ``kubernetes`` package) off the event loop the server shares."""
        return await self._threads.run(function, *args)

    def effect(self, name: str, key: str) -> None:
        """Declare that the non-idempotent step ``name`` happened for ``key`` (checked for exactly-once)."""
        self._record(name, key)


@dataclass
class SetupContext:
    """What a scenario's setup hook gets: an admin kubernetes_asyncio client, before the snapshot."""

    api: Any
    namespace: str = "default"


async def run_tick(runtime: ActorRuntime, context: TickContext) -> None:
    """One tick, async or not: blocking ticks run in a thread so the server keeps serving."""
    tick = runtime.actor.tick
    if inspect.iscoroutinefunction(tick):
        await tick(context)
        return
    result = await runtime.threads.run(tick, context)
    if inspect.isawaitable(result):
        await result


_ADDRESS = re.compile(r"(https?://)?(127\.0\.0\.1|localhost|\[::1\]):\d+")


def describe_error(error: BaseException) -> str:
    """A one-line, replay-stable account of an exception (no ports, no dates, no headers)."""
    status = getattr(error, "status", None)
    reason = getattr(error, "reason", None)
    if isinstance(status, int) and status and hasattr(error, "body"):
        message = _status_message(getattr(error, "body", None))
        text = f"{type(error).__name__} {status} {reason}" + (f": {message}" if message else "")
    else:
        text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return _ADDRESS.sub("apiserver", text.splitlines()[0] if text else text)


def _status_message(body: Any) -> str:
    import json

    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if not isinstance(body, str):
        return ""
    try:
        status = json.loads(body)
    except ValueError:
        return ""
    return str(status.get("message", "")) if isinstance(status, dict) else ""
