"""The pytest plugin: a faithful apiserver for each test, registered through the ``pytest11`` entry point.

``pip install fakeapi-k8s`` is all an operator repo needs; its conftest stays empty. One server per
session (one per xdist worker) serves from a background thread, so sync tests and async tests of
any event loop and pytest-asyncio mode can use it. Before every test it goes back to the new
cluster it started as (a snapshot restored, well under a millisecond on an idle machine, not a
server start), resourceVersions included: a test sees the same versions whichever tests ran before
it, on whichever worker. Nothing is imported until a test asks for a fixture, so a session that
never uses it pays nothing.

Fixtures
    ``fakeapi``
        A :class:`FakeAPI`: the running server, new for this test (no CRDs, no objects but what a
        new control plane writes at boot, docs/bootstrap.md: the system namespaces, the
        ``default/kubernetes`` Service, each namespace's ``default`` ServiceAccount and
        ``kube-root-ca.crt``, the system PriorityClasses; an empty journal) except for what the ``fakeapi`` marker preloads. It has ``.url``, ``.kubeconfig()``, ``.load()``, ``.apply()``,
        ``.get()``, ``.find()``, ``.journal``, ``.errors``, ``.requests()`` and, for everything
        else, ``.server`` (the :class:`~fakeapi.server.FakeAPIServer`). Its methods are plain
        calls, usable from async tests too: the server runs on its own loop in its own thread.
        A failure inside the server while it serves the test (a fakeapi bug, answered with a 500)
        fails the test at teardown with the request and the traceback; a test about such
        failures clears ``fakeapi.errors`` itself.
    ``fakeapi_kubeconfig``
        The path of a kubeconfig for the server, with ``KUBECONFIG`` pointing at it for the test,
        so code that loads kubeconfig the usual way talks to the fake: kubectl, kopf's login,
        ``kubernetes.config.load_kube_config()`` and ``kubernetes_asyncio.config.load_kube_config()``
        (both of which read ``KUBECONFIG`` once, at import, so their remembered default is
        pointed at the fake for the test as well).
    ``kube_api_client``
        A kubernetes_asyncio ``ApiClient`` configured for the server, closed after the test: an
        async fixture for async tests in either pytest-asyncio mode. It lives in the event loop
        pytest-asyncio gives fixtures (``asyncio_default_fixture_loop_scope``); a test that runs in
        a wider loop than that builds its own client from ``fakeapi_kubeconfig``.
    ``fakeapi_server``
        The session's :class:`~fakeapi.server.FakeAPIServer` itself, for session fixtures that
        need its URL; what they load there is gone once a test takes ``fakeapi``.
        ``fakeapi_server_options`` (session scope, ``{}`` by default) holds the keyword arguments
        it is built with; override it in a conftest to change them (``enable_admission_plugins``,
        ``disable_admission_plugins`` and ``webhook_services`` are kube-apiserver's admission
        switches and where Services' webhooks listen: docs/admission.md).

Settings (ini)
    ``fakeapi_namespace_controllers`` (bool, true by default): whether every namespace gets the
    ``default`` ServiceAccount and ``kube-root-ca.crt``, as kube-controller-manager gives them.
    False is ``FakeAPIServer(namespace_controllers=False)``; a ``namespace_controllers`` key in
    ``fakeapi_server_options`` wins over it.
    ``fakeapi_kube_version`` (``1.32`` by default, or ``1.33``, ``1.34``): the Kubernetes release the
    session's server is (``FakeAPIServer(kube_version=...)``: its built-in kinds' fields, the
    resources discovery serves, ``/version``); a ``kube_version`` key in ``fakeapi_server_options``
    wins over it.

Marker
    ``@pytest.mark.fakeapi(crds=[...], objects=[...])`` preloads CRDs, then objects, before the
    test: dicts, lists of dicts, or paths of YAML/JSON files and folders (multi-document, ``List``
    kinds unpacked); a relative path is relative to the rootdir. Markers on the module, class and
    function all apply, farthest first. Preloading writes to the store directly: it leaves the
    journal empty and the test sees only its own requests.
    ``@pytest.mark.fakeapi(authorization="RBAC")`` authorizes the test's requests from the RBAC
    objects in the store (docs/rbac.md); the kubeconfigs of ``fakeapi.kubeconfig(service_account=
    "ns/name")`` (or ``user=``, ``groups=``) authenticate as the identity to judge, the default
    kubeconfig as ``admin`` in ``system:masters``; ``fakeapi.permissions(service_account=...)``
    reports what the identity used, was refused and was granted in vain. Other tests run
    with the session's ``authorization`` (``AlwaysAllow`` unless ``fakeapi_server_options`` says).
    ``@pytest.mark.fakeapi(kube_version="1.34")`` runs the test against a server of that release:
    the session's when it is that release, otherwise one started for it on the first such test and
    kept for the session (with the session's other options), reset before every test like the first.

    ``@pytest.mark.fakeapi(controllers="all", outcomes=[OutcomeRule("succeed after 5s", image="busybox*")])``
    runs simulated controllers for the test (docs/controllers.md): ``controllers`` is ``all`` (the
    default once ``nodes`` or ``outcomes`` is given) or some of ``nodes``, ``scheduler``, ``kubelet``,
    ``job`` and the workload controllers; ``nodes`` names the fake nodes; ``outcomes`` is a list of
    rules or the path of a YAML file of them (docs/controllers.md); ``kube-system`` then holds what a new
    kind cluster's does, its control plane's pods running, unless ``control_plane_pods=False``
    (docs/control-plane-pods.md). The clock is then fake and the test moves it:
    ``fakeapi.advance(seconds)`` runs, in order, every controller step that falls due; nothing runs
    between advances. A test whose operator runs in the background calls
    ``fakeapi.follow_wall_clock(speed=10)`` instead: the fake clock then moves with the wall clock,
    ten times as fast, and the controllers act on their own until the test ends
    (docs/cluster-defaults.md). Other tests run with the session's controllers (none unless
    ``fakeapi_server_options`` says).

The journal, as assertions
    ``fakeapi.requests(**criteria)`` is the journal's requests that match, oldest first, as
    :class:`Requests`. The criteria (all optional, all exact) are ``verb`` (``get``, ``list``,
    ``watch``, ``create``, ``update``, ``patch``, ``delete``, ``deletecollection``), ``method``,
    ``group``, ``version``, ``resource``, ``subresource`` (``""`` selects the main resource only),
    ``namespace``, ``name`` (from the path, or for a create the name of the object created),
    ``content_type`` (the media type sent, parameters ignored), ``status`` (the code answered),
    ``actor`` (the bearer token) and ``committed`` (whether the request was a write that persisted).
    Narrow by what was done, then assert how it went; a failure lists the requests it looked at::

        patches = fakeapi.requests(verb="patch", resource="jobs", name="job-1")
        claim = patches.assert_one(content_type="application/json-patch+json", status=200)
        patches.assert_none(status=409)
        assert claim.json()["status"]["phase"] == "Done"     # the object it returned

    ``AssertionError: requests(verb='patch', resource='jobs', name='job-1').assert_one(
    content_type='application/json-patch+json', status=200): 0 of 2 requests match`` is followed by
    one line per request looked at: sequence, method, path, content type, status, and the reason and
    message of an error. ``assert_count(n, **criteria)``, ``where(predicate, **criteria)``,
    ``statuses``, ``request_bodies()`` and ``response_bodies()`` complete it; entries are
    :class:`~fakeapi.server.JournalEntry` (``.body`` as sent, ``.json()`` of the answer). The journal
    keeps the first 64 KiB of each body (``body_length`` and ``response_length`` say how long it
    was); decoding a body cut there raises ``ValueError`` saying so.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

import pytest

if TYPE_CHECKING:
    from fakeapi._state.admission import WebhookCaller
    from fakeapi._state.journal import Journal
    from fakeapi.server import FakeAPIServer, JournalEntry, Permissions, StoreSnapshot

__all__ = [
    "FakeAPI",
    "Requests",
    "fakeapi",
    "fakeapi_kubeconfig",
    "fakeapi_server",
    "fakeapi_server_options",
    "kube_api_client",
]

_MARKER_KEYS = (
    "crds",
    "objects",
    "authorization",
    "kube_version",
    "controllers",
    "nodes",
    "outcomes",
    "control_plane_pods",
)
_CONTROLLER_KEYS = ("controllers", "nodes", "outcomes", "control_plane_pods")
# The kubeconfig default each client library computes from KUBECONFIG once, when it is imported.
_KUBECONFIG_DEFAULTS = {
    "kubernetes.config.kube_config": "~/.kube/config",
    "kubernetes_asyncio.config.kube_config": (Path.home() / ".kube/config").as_posix(),
}
_DEFAULT_LOCATION = "KUBE_CONFIG_DEFAULT_LOCATION"
_CRITERIA = (
    "method",
    "verb",
    "group",
    "version",
    "resource",
    "subresource",
    "namespace",
    "name",
    "content_type",
    "status",
    "actor",
    "committed",
)
_MESSAGE_LENGTH = 160


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "fakeapi_namespace_controllers",
        "give every namespace the 'default' ServiceAccount and the 'kube-root-ca.crt' ConfigMap, as "
        "kube-controller-manager does (default: true)",
        type="bool",
        default=True,
    )
    parser.addini(
        "fakeapi_kube_version",
        "the Kubernetes release the session's fake apiserver is: 1.32, 1.33 or 1.34 (default: 1.32)",
        default="1.32",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fakeapi(crds=[...], objects=[...], authorization=..., kube_version=...): preload CRDs and objects "
        "(dicts, or YAML/JSON files and folders relative to the rootdir) into the fakeapi server before the "
        "test; authorize its requests as AlwaysAllow or RBAC; run it against a server of that Kubernetes release",
    )


# -- the journal as queries -----------------------------------------------------------------------


def _media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def _created_name(entry: JournalEntry) -> str:
    for body in (entry.response_body, entry.body):
        try:
            document = json.loads(body) if body else None
        except ValueError:
            continue
        if isinstance(document, dict) and document.get("kind") != "Status":
            name = (document.get("metadata") or {}).get("name")
            if isinstance(name, str) and name:
                return name
    return ""


def _matches(entry: JournalEntry, criteria: dict[str, Any]) -> bool:
    for key, wanted in criteria.items():
        if key == "content_type":
            actual: Any = _media_type(entry.content_type)
            wanted = _media_type(wanted)
        elif key == "committed":
            actual = entry.committed
        elif key == "name" and entry.verb == "create" and not entry.name:
            actual = _created_name(entry)
        else:
            actual = getattr(entry, key)
        if actual != wanted:
            return False
    return True


def _describe(entry: JournalEntry) -> str:
    """One line: what was asked, how, and what came back."""
    target = entry.path + (f"?{entry.query}" if entry.query else "")
    sent = f" [{_media_type(entry.content_type)}]" if entry.body else ""
    actor = f" as {entry.actor}" if entry.actor else ""
    if not entry.status:
        answer = "(no answer yet)"
    else:
        answer = str(entry.status)
        if entry.status >= 400:
            answer += " " + _error_summary(entry)
    return f"  #{entry.sequence} {entry.method} {target}{sent}{actor} -> {answer}".rstrip()


def _error_summary(entry: JournalEntry) -> str:
    try:
        status = json.loads(entry.response_body)
    except ValueError:
        text = entry.response_body.decode("utf-8", "replace").strip()
    else:
        if isinstance(status, dict):
            text = f"{status.get('reason', '')}: {status.get('message', '')}".strip(": ")
        else:
            text = ""
    return text if len(text) <= _MESSAGE_LENGTH else text[: _MESSAGE_LENGTH - 3] + "..."


def _call_text(name: str, criteria: dict[str, Any], extra: Sequence[str] = ()) -> str:
    arguments = [*extra, *(f"{key}={value!r}" for key, value in criteria.items())]
    return f"{name}({', '.join(arguments)})"


def _decode(entry: JournalEntry) -> Any:
    body, content_type = entry.body, entry.content_type
    if entry.body_truncated:
        raise ValueError(
            f"request #{entry.sequence}: only {len(body)} of its {entry.body_length} body bytes were kept "
            "(the journal's body limit, fakeapi_server_options' journal_body_limit)"
        )
    if not body:
        return None
    if "yaml" in _media_type(content_type):
        import yaml

        return yaml.safe_load(body)
    return json.loads(body)


class Requests(Sequence["JournalEntry"]):
    """Journal entries that matched a query, oldest first: narrow them, assert on them, read them.

    The assertions raise :class:`AssertionError` with the query as written and one line per
    request it looked at, so a failure says what happened instead of what did not.
    """

    def __init__(self, entries: Iterable[JournalEntry], query: str = "requests()") -> None:
        self._entries = list(entries)
        self.query = query

    @overload
    def __getitem__(self, index: int) -> JournalEntry: ...

    @overload
    def __getitem__(self, index: slice) -> Requests: ...

    def __getitem__(self, index: int | slice) -> JournalEntry | Requests:
        if isinstance(index, slice):
            return Requests(self._entries[index], f"{self.query}[{index.start}:{index.stop}]")
        return self._entries[index]

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return "\n".join([f"{self.query}: {len(self)} request(s)", *map(_describe, self._entries)])

    def where(self, predicate: Callable[[JournalEntry], bool] | None = None, **criteria: Any) -> Requests:
        """The entries that also match ``criteria`` (see the module docstring) and ``predicate``."""
        _check_criteria(criteria)
        extra = [getattr(predicate, "__name__", "predicate")] if predicate is not None else []
        return Requests(
            (e for e in self._entries if _matches(e, criteria) and (predicate is None or predicate(e))),
            f"{self.query}.{_call_text('where', criteria, extra)}",
        )

    def assert_count(self, count: int, **criteria: Any) -> Requests:
        """Exactly ``count`` of these match ``criteria``; returns those."""
        __tracebackhide__ = True
        matching = self._matching(criteria)
        if len(matching) != count:
            call = _call_text("assert_count", criteria, [str(count)])
            raise AssertionError(self._failure(call, f"expected {count}, {len(matching)} of {len(self)} match"))
        return Requests(matching, f"{self.query}.{_call_text('where', criteria)}")

    def assert_one(self, **criteria: Any) -> JournalEntry:
        """Exactly one of these matches ``criteria``; returns it."""
        __tracebackhide__ = True
        matching = self._matching(criteria)
        if len(matching) != 1:
            call = _call_text("assert_one", criteria)
            raise AssertionError(self._failure(call, f"{len(matching)} of {len(self)} requests match"))
        return matching[0]

    def assert_none(self, **criteria: Any) -> None:
        """None of these matches ``criteria``."""
        __tracebackhide__ = True
        matching = self._matching(criteria)
        if matching:
            call = _call_text("assert_none", criteria)
            raise AssertionError(self._failure(call, f"{len(matching)} of {len(self)} requests match", matching))

    @property
    def statuses(self) -> list[int]:
        """The status codes answered (0 for a request still in flight, such as an open watch)."""
        return [entry.status for entry in self._entries]

    def request_bodies(self) -> list[Any]:
        """The bodies sent, decoded (JSON, or YAML for an apply patch); ``None`` where there was none."""
        return [_decode(entry) for entry in self._entries]

    def response_bodies(self) -> list[Any]:
        """The bodies answered, decoded; ``None`` where there was none (a watch, a request in flight)."""
        return [entry.json() for entry in self._entries]

    def _matching(self, criteria: dict[str, Any]) -> list[JournalEntry]:
        _check_criteria(criteria)
        return [entry for entry in self._entries if _matches(entry, criteria)]

    def _failure(self, call: str, summary: str, shown: Sequence[JournalEntry] | None = None) -> str:
        entries = self._entries if shown is None else shown
        lines = [f"{self.query}.{call}: {summary}"]
        if not self._entries:
            lines.append("  (the query matched no request at all)")
        lines.extend(_describe(entry) for entry in entries)
        return "\n".join(lines)


def _check_criteria(criteria: dict[str, Any]) -> None:
    unknown = sorted(set(criteria) - set(_CRITERIA))
    if unknown:
        raise TypeError(f"unknown journal criteria {unknown}; known: {', '.join(_CRITERIA)}")


# -- what a test holds ----------------------------------------------------------------------------


class FakeAPI:
    """The ``fakeapi`` fixture: the session's server, reset for this test, and its journal as queries."""

    def __init__(self, server: FakeAPIServer, kubeconfig_folder: Callable[[], Path]) -> None:
        self.server = server
        self._kubeconfig_folder = kubeconfig_folder

    def __repr__(self) -> str:
        return f"<FakeAPI {self.url}, {len(self.server.journal)} requests>"

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def journal(self) -> Journal:
        """Every request this test sent, in the order they arrived."""
        return self.server.journal

    @property
    def errors(self) -> list[str]:
        """Server-side failures while serving this test; any left at teardown fail the test."""
        return self.server.errors

    def kubeconfig(
        self,
        path: str | Path | None = None,
        *,
        token: str | None = None,
        context: str = "fakeapi",
        user: str | None = None,
        groups: Iterable[str] = (),
        service_account: str | None = None,
    ) -> Path:
        """A kubeconfig for the server (written once per session unless ``path`` is given).

        ``token`` makes the requests of clients using it carry that bearer token, which the journal
        records as their ``actor``. ``service_account="namespace/name"``, or ``user`` with ``groups``,
        makes them authenticate as that identity (what RBAC authorization judges them as).
        """
        groups = tuple(groups)
        if path is None:
            who = "-".join(filter(None, (token, user, *groups, service_account)))
            suffix = "-" + re.sub(r"[^A-Za-z0-9_.-]", "_", who) if who else ""
            path = self._kubeconfig_folder() / f"{context}{suffix}.kubeconfig"
            if Path(path).exists():
                return Path(path)
        return self.server.kubeconfig(
            path, token=token, context=context, user=user, groups=groups, service_account=service_account
        )

    def permissions(
        self,
        actor: str | None = None,
        *,
        user: str | None = None,
        service_account: str | None = None,
        granted: Iterable[dict[str, Any]] | None = None,
    ) -> Permissions:
        """What one identity's requests in this test needed against what it is granted
        (:meth:`FakeAPIServer.permissions`): ``print(fakeapi.permissions(service_account="ns/op"))``."""
        return self.server.permissions(actor, user=user, service_account=service_account, granted=granted)

    def load(self, *sources: str | Path | dict[str, Any] | Iterable[Any]) -> list[dict[str, Any]]:
        """Create objects (CRDs first) from dicts or YAML/JSON files and folders; returns them as stored."""
        return self.server.load(*sources)

    def apply(self, *sources: str | Path | dict[str, Any] | Iterable[Any]) -> list[dict[str, Any]]:
        """Like :meth:`load`, but an object that exists already is replaced."""
        return self.server.apply(*sources)

    def get(self, api_version: str, kind: str, name: str, namespace: str = "default") -> dict[str, Any]:
        """The stored object; raises :class:`~fakeapi.errors.APIError` (404) if there is none."""
        return self.server.get(api_version, kind, name, namespace)

    def find(self, api_version: str, kind: str, name: str, namespace: str = "default") -> dict[str, Any] | None:
        """The stored object, or ``None``."""
        return self.server.find(api_version, kind, name, namespace)

    def advance(self, seconds: float = 0.0) -> None:
        """Move the server's fake clock forward and let the simulated controllers do what falls due
        (:meth:`FakeAPIServer.advance`); needs controllers (the ``fakeapi`` marker's ``controllers=``)."""
        self.server.advance(seconds)

    def follow_wall_clock(self, speed: float = 1.0) -> None:
        """Let the fake clock move with the wall clock, ``speed`` times as fast, for the rest of the
        test (:meth:`FakeAPIServer.follow_wall_clock`): for an operator running in the background,
        instead of a loop of :meth:`advance` calls."""
        self.server.follow_wall_clock(speed)

    def append_log(self, pod: str, *lines: str, container: str = "", namespace: str = "default") -> None:
        """A running container of ``pod`` writes ``lines`` to its log now (:meth:`FakeAPIServer.append_log`)."""
        self.server.append_log(pod, *lines, container=container, namespace=namespace)

    def script_exec(self, pod: str, command: Sequence[str], **result: Any) -> None:
        """What ``command`` run in ``pod`` prints and exits with: ``exit_code``, ``stdout``, ``stderr``,
        ``container``, ``namespace`` (:meth:`FakeAPIServer.script_exec`); forgotten at the next test."""
        self.server.script_exec(pod, command, **result)

    def forward_port(self, pod: str, port: int, address: str, *, namespace: str = "default") -> None:
        """A port-forward to ``port`` of ``pod`` connects to ``address`` (:meth:`FakeAPIServer.forward_port`)."""
        self.server.forward_port(pod, port, address, namespace=namespace)

    def set_webhook_services(self, services: dict[str, str]) -> None:
        """Where the webhooks of Services listen for this test: ``{"namespace/name[:port]": "host:port"}``
        (:meth:`FakeAPIServer.set_webhook_services`); back to ``fakeapi_server_options``' at the next test."""
        self.server.set_webhook_services(services)

    def set_webhook_caller(self, caller: WebhookCaller | None) -> None:
        """Answer this test's webhook calls with ``caller`` instead of HTTP (:meth:`FakeAPIServer.set_webhook_caller`)."""
        self.server.set_webhook_caller(caller)

    def requests(self, **criteria: Any) -> Requests:
        """The journal's requests matching ``criteria`` (see the module docstring), oldest first."""
        _check_criteria(criteria)
        return Requests((e for e in self.server.journal if _matches(e, criteria)), _call_text("requests", criteria))


# -- fixtures -------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def fakeapi_server_options() -> dict[str, Any]:
    """Keyword arguments for the session's :class:`~fakeapi.server.FakeAPIServer`; override to change them."""
    return {}


# Every fixture a test's fixtures depend on, however deep, costs that test a lookup, and every one
# that takes ``request`` (``pytestconfig`` and ``tmp_path_factory`` do) a little more: the session
# fixtures below read the ini through ``request`` and take nothing else they can do without.


@pytest.fixture(scope="session")
def fakeapi_server(fakeapi_server_options: dict[str, Any], request: pytest.FixtureRequest) -> Iterator[FakeAPIServer]:
    """The session's server (one per xdist worker), not reset; tests use ``fakeapi``, which resets it."""
    from fakeapi.server import FakeAPIServer

    options = {
        "namespace_controllers": request.config.getini("fakeapi_namespace_controllers"),
        "kube_version": request.config.getini("fakeapi_kube_version"),
        **fakeapi_server_options,
    }
    server = FakeAPIServer(**options).start_in_thread()
    try:
        yield server
    finally:
        server.stop_thread()


class _ReleaseServers:
    """The session's servers by Kubernetes release, each with the new cluster it resets to, and the
    folder of the session's kubeconfigs."""

    def __init__(self, first: FakeAPIServer, options: dict[str, Any]) -> None:
        self._options = options
        self._servers: dict[str, tuple[FakeAPIServer, StoreSnapshot]] = {first.kube_version: (first, _pristine(first))}
        self._started: list[FakeAPIServer] = []
        self._kubeconfigs: Path | None = None

    def kubeconfig_folder(self, request: pytest.FixtureRequest) -> Path:
        """``fakeapi`` in the session's base temporary directory, looked up by the first test that
        writes a kubeconfig (the others pay nothing for ``tmp_path_factory``)."""
        if self._kubeconfigs is None:
            factory: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
            self._kubeconfigs = factory.getbasetemp() / "fakeapi"
        return self._kubeconfigs

    def get(self, kube_version: str) -> tuple[FakeAPIServer, StoreSnapshot]:
        from fakeapi.server import FakeAPIServer, parse_kube_version

        try:
            kube_version = parse_kube_version(kube_version)
        except ValueError as error:
            pytest.fail(f"@pytest.mark.fakeapi(kube_version=...): {error}", pytrace=False)
        found = self._servers.get(kube_version)
        if found is None:
            server = FakeAPIServer(**{**self._options, "kube_version": kube_version}).start_in_thread()
            self._started.append(server)
            found = self._servers[kube_version] = (server, _pristine(server))
        return found

    def stop(self) -> None:
        for server in self._started:
            server.stop_thread()


def _marker_sources(markers: Sequence[pytest.Mark], rootdir: Path) -> tuple[list[Any], list[Any]]:
    crds: list[Any] = []
    objects: list[Any] = []
    for marker in reversed(markers):
        unknown = sorted(set(marker.kwargs) - set(_MARKER_KEYS))
        if marker.args or unknown:
            given = [repr(arg) for arg in marker.args] + unknown
            pytest.fail(
                "@pytest.mark.fakeapi takes only crds=[...], objects=[...], authorization=..., kube_version=..., "
                "controllers=..., nodes=[...] and outcomes=[...], "
                f"not {', '.join(given)}"
            )
        for key, target in (("crds", crds), ("objects", objects)):
            value = marker.kwargs.get(key) or []
            for source in [value] if isinstance(value, (str, Path, dict)) else value:
                target.append(rootdir / source if isinstance(source, (str, Path)) else source)
    return crds, objects


def _marker_authorization(markers: Sequence[pytest.Mark]) -> str | None:
    """The ``authorization`` the closest ``fakeapi`` marker asks for, if any."""
    for marker in markers:
        if "authorization" in marker.kwargs:
            return str(marker.kwargs["authorization"])
    return None


def _marker_controllers(markers: Sequence[pytest.Mark]) -> dict[str, Any] | None:
    """The simulated controllers the closest ``fakeapi`` marker naming them asks for, if any."""
    for marker in markers:
        if any(key in marker.kwargs for key in _CONTROLLER_KEYS):
            return {
                "controllers": marker.kwargs.get("controllers", "all"),
                "nodes": marker.kwargs.get("nodes"),
                "outcomes": _outcome_rules(marker.kwargs.get("outcomes", ())),
                "control_plane_pods": bool(marker.kwargs.get("control_plane_pods", True)),
            }
    return None


def _outcome_rules(outcomes: Any) -> Any:
    """The marker's ``outcomes``: rules as given, or the path of a rules file to load them from."""
    if isinstance(outcomes, str | os.PathLike):
        from fakeapi._cluster.outcome_files import load_outcome_rules

        return load_outcome_rules(os.fspath(outcomes))
    return outcomes


def _marker_kube_version(markers: Sequence[pytest.Mark]) -> str | None:
    """The ``kube_version`` the closest ``fakeapi`` marker asks for, if any."""
    for marker in markers:
        if "kube_version" in marker.kwargs:
            return str(marker.kwargs["kube_version"])
    return None


def _pristine(server: FakeAPIServer) -> StoreSnapshot:
    """The new cluster every test starts from, captured once: restoring it is cheaper than rebuilding it."""
    server.reset()
    return server.snapshot()


@pytest.fixture(scope="session")
def _fakeapi_servers(
    fakeapi_server: FakeAPIServer, fakeapi_server_options: dict[str, Any]
) -> Iterator[_ReleaseServers]:
    # The session's server was made from the ini and the options: the others share its settings.
    options = {"namespace_controllers": fakeapi_server.namespace_controllers, **fakeapi_server_options}
    servers = _ReleaseServers(fakeapi_server, options)
    try:
        yield servers
    finally:
        servers.stop()


@pytest.fixture
def fakeapi(
    request: pytest.FixtureRequest, fakeapi_server: FakeAPIServer, _fakeapi_servers: _ReleaseServers
) -> Iterator[FakeAPI]:
    """The running fake apiserver, empty for this test but for what the ``fakeapi`` marker preloads."""
    # The markers closest first, walked once: every test pays for what the fixture does here.
    markers = list(request.node.iter_markers("fakeapi"))
    server, pristine = _fakeapi_servers.get(_marker_kube_version(markers) or fakeapi_server.kube_version)
    server.set_gate(None)
    server.set_webhook_caller(None)
    server.set_webhook_services(server.configured_webhook_services)
    controllers = _marker_controllers(markers)
    if controllers is not None or server.controllers:
        wanted = controllers or server.configured_controllers
        # The same controllers as the last test's: the restore alone rewinds their clock and puts
        # back the state they settled the pristine cluster to.
        if not server.runs_controllers(**wanted):
            server.set_controllers(**wanted)
    # The restore and the authorization mode in one hand-over to the server's thread.
    server.restore(pristine, authorization=_marker_authorization(markers) or server.configured_authorization)
    crds, objects = _marker_sources(markers, request.config.rootpath)
    if crds:
        server.load(*crds)
    if objects:
        server.load(*objects)
    yield FakeAPI(server, lambda: _fakeapi_servers.kubeconfig_folder(request))
    server.stop_following_wall_clock()
    errors = list(server.errors)
    if errors:
        count = f"{len(errors)} server-side error" + ("s" if len(errors) > 1 else "")
        pytest.fail(f"fakeapi failed while serving this test ({count}):\n\n" + "\n".join(errors), pytrace=False)


@pytest.fixture
def fakeapi_kubeconfig(fakeapi: FakeAPI, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A kubeconfig for the server, with ``KUBECONFIG`` (and the client libraries' default) pointing at it."""
    path = fakeapi.kubeconfig()
    original = os.environ.get("KUBECONFIG")
    monkeypatch.setenv("KUBECONFIG", str(path))
    preloaded = {name for name in _KUBECONFIG_DEFAULTS if name in sys.modules}
    for name in preloaded:
        monkeypatch.setattr(sys.modules[name], _DEFAULT_LOCATION, str(path))
    yield path
    # A library first imported during the test read the fake's path; give it the one it would have read.
    for name, default in _KUBECONFIG_DEFAULTS.items():
        module = sys.modules.get(name)
        if name not in preloaded and module is not None and getattr(module, _DEFAULT_LOCATION, None) == str(path):
            setattr(module, _DEFAULT_LOCATION, original if original is not None else default)


try:
    import pytest_asyncio
except ImportError:  # pragma: no cover - only async tests need it, and they need pytest-asyncio anyway
    pass
else:

    @pytest_asyncio.fixture
    async def kube_api_client(fakeapi_kubeconfig: Path) -> AsyncIterator[Any]:
        """A kubernetes_asyncio ``ApiClient`` configured for the server (async tests)."""
        try:
            from kubernetes_asyncio import config
        except ModuleNotFoundError as error:
            raise ModuleNotFoundError(
                "the kube_api_client fixture needs kubernetes_asyncio: pip install 'fakeapi-k8s[scenarios]' "
                "(or kubernetes_asyncio itself)",
                name="kubernetes_asyncio",
            ) from error

        client = await config.new_client_from_config(config_file=str(fakeapi_kubeconfig))
        async with client:
            yield client
