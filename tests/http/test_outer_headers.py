"""Every answer carries the headers of kube-apiserver's outer filters and no ``Server`` header
(docs/http-limits.md, "The headers of every answer")."""

from __future__ import annotations

import http.client
import re
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from fakeapi import FakeAPIServer
from tests.clients.local import threaded_server

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


@pytest.fixture(scope="module")
def server() -> Iterator[FakeAPIServer]:
    with threaded_server(token_auth=True) as running:
        yield running


def ask(server: FakeAPIServer, path: str, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
    url = urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=10)
    connection.request("GET", path, headers=headers or {})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def admin(server: FakeAPIServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {server.token_for('admin')}"}


@pytest.mark.parametrize(
    "path",
    ["/version", "/healthz", "/api/v1/namespaces", "/api/v1/namespaces/default/configmaps/missing", "/nothing-here"],
)
def test_an_answer_has_an_audit_id_and_no_cache_and_no_server_header(server: FakeAPIServer, path: str) -> None:
    response = ask(server, path, admin(server))

    assert response.getheader("Server") is None
    assert response.getheader("Cache-Control") == "no-cache, private"
    assert UUID4.match(response.getheader("Audit-Id") or "")


def test_a_refused_request_carries_them_too(server: FakeAPIServer) -> None:
    response = ask(server, "/api/v1/namespaces", {"Authorization": "Bearer not-a-token"})

    assert response.status == 401
    assert response.getheader("Server") is None
    assert response.getheader("Cache-Control") == "no-cache, private"
    assert UUID4.match(response.getheader("Audit-Id") or "")


def test_each_request_gets_its_own_audit_id(server: FakeAPIServer) -> None:
    ids = {ask(server, "/version").getheader("Audit-Id") for _ in range(5)}

    assert len(ids) == 5


def test_the_callers_audit_id_is_echoed_as_it_came(server: FakeAPIServer) -> None:
    response = ask(server, "/api/v1/namespaces", {**admin(server), "Audit-ID": "trace-42 as sent"})

    assert response.getheader("Audit-Id") == "trace-42 as sent"
    assert response.msg.get_all("Audit-Id") == ["trace-42 as sent"]


def test_a_watch_stream_carries_them(server: FakeAPIServer) -> None:
    url = urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=10)
    connection.request("GET", "/api/v1/namespaces?watch=true&timeoutSeconds=1", headers=admin(server))
    response = connection.getresponse()

    assert response.status == 200
    assert response.getheader("Server") is None
    assert response.getheader("Cache-Control") == "no-cache, private"
    assert UUID4.match(response.getheader("Audit-Id") or "")
    response.read()
    connection.close()


def test_audit_ids_replay_with_the_seed() -> None:
    def first_ids() -> list[str]:
        with threaded_server(seed=7) as running:
            return [ask(running, "/version").getheader("Audit-Id") or "" for _ in range(3)]

    first, second = first_ids(), first_ids()

    assert first == second
    assert all(str(uuid.UUID(value)) == value for value in first)


PF = ["X-Kubernetes-Pf-Flowschema-Uid", "X-Kubernetes-Pf-Prioritylevel-Uid"]


@pytest.mark.parametrize(
    ("path", "names"),
    [
        (
            "/api/v1/namespaces/default/configmaps/kube-root-ca.crt",
            ["Audit-Id", "Cache-Control", "Content-Type", *PF, "Date", "Content-Length"],
        ),
        (
            "/api/v1/namespaces/default/configmaps/missing",
            ["Audit-Id", "Cache-Control", "Content-Type", *PF, "Date", "Content-Length"],
        ),
        (
            "/api/v1/componentstatuses",
            ["Audit-Id", "Cache-Control", "Content-Type", "Warning", *PF, "Date", "Content-Length"],
        ),
        (
            "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1",
            ["Audit-Id", "Cache-Control", "Content-Type", *PF, "Transfer-Encoding", "Date"],
        ),
    ],
)
def test_headers_come_in_gos_order(server: FakeAPIServer, path: str, names: list[str]) -> None:
    """The handler's headers sorted by canonical name, then the server's own (docs/http-limits.md)."""
    response = ask(server, path, admin(server))
    assert [name for name, _ in response.getheaders()] == names
