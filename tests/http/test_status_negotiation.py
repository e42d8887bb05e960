"""An error's Status is written in the type the request's Accept negotiates, as ``ErrorNegotiated``
does, and in JSON when no clause can carry it (docs/status-errors.md, "The type of a Status")."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from fakeapi import FakeAPIServer
from tests.clients.local import threaded_server

NOT_FOUND_YAML = (
    b"apiVersion: v1\ncode: 404\ndetails:\n  kind: configmaps\n  name: nope\nkind: Status\n"
    b'message: configmaps "nope" not found\nmetadata: {}\nreason: NotFound\nstatus: Failure\n'
)
NOT_FOUND_JSON = (
    b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"nope\\" not found",'
    b'"reason":"NotFound","details":{"name":"nope","kind":"configmaps"},"code":404}\n'
)


@pytest.fixture(scope="module")
def server() -> Iterator[FakeAPIServer]:
    with threaded_server(token_auth=True) as running:
        yield running


def ask(
    server: FakeAPIServer, method: str, path: str, headers: dict[str, str], body: bytes | None = None
) -> tuple[int, str, bytes]:
    url = urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=10)
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    answer = response.status, response.getheader("Content-Type") or "", response.read()
    connection.close()
    return answer


def admin(server: FakeAPIServer, accept: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {server.token_for('admin')}", "Accept": accept}


@pytest.mark.parametrize(
    ("accept", "media_type", "body"),
    [
        ("application/yaml", "application/yaml", NOT_FOUND_YAML),
        # The Table clause cannot carry a Status: the next one is taken.
        ("application/json;as=Table;v=v1;g=meta.k8s.io,application/yaml", "application/yaml", NOT_FOUND_YAML),
        ("application/json;as=Table;v=v1;g=meta.k8s.io,application/json", "application/json", NOT_FOUND_JSON),
        ("", "application/json", NOT_FOUND_JSON),
    ],
)
def test_a_not_found_is_written_as_negotiated(server: FakeAPIServer, accept: str, media_type: str, body: bytes) -> None:
    answer = ask(server, "GET", "/api/v1/namespaces/default/configmaps/nope", admin(server, accept))

    assert answer == (404, media_type, body)


def test_a_refusal_by_authentication_is_written_as_negotiated(server: FakeAPIServer) -> None:
    status, media_type, body = ask(
        server, "GET", "/api/v1/namespaces", {"Authorization": "Bearer not-a-token", "Accept": "application/yaml"}
    )

    assert (status, media_type) == (401, "application/yaml")
    assert body == (
        b"apiVersion: v1\ncode: 401\nkind: Status\nmessage: Unauthorized\nmetadata: {}\nreason: Unauthorized\n"
        b"status: Failure\n"
    )


def test_an_invalid_object_is_written_as_negotiated(server: FakeAPIServer) -> None:
    headers = {**admin(server, "application/yaml"), "Content-Type": "application/json"}
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Bad_Name"}}'
    status, media_type, answer = ask(server, "POST", "/api/v1/namespaces/default/configmaps", headers, body)

    assert (status, media_type) == (422, "application/yaml")
    assert answer.startswith(b"apiVersion: v1\ncode: 422\ndetails:\n  causes:\n  - field: metadata.name\n")
    assert b"kind: Status\n" in answer and b"reason: Invalid\n" in answer


def test_a_status_no_clause_can_carry_is_written_raw_and_indented(server: FakeAPIServer) -> None:
    # A Table alone: the GET negotiates it, the 404 cannot be written as one (WriteRawJSON).
    status, media_type, body = ask(
        server,
        "GET",
        "/api/v1/namespaces/default/configmaps/nope",
        admin(server, "application/json;as=Table;v=v1;g=meta.k8s.io"),
    )

    assert (status, media_type) == (404, "application/json")
    assert body == (
        b'{\n  "kind": "Status",\n  "apiVersion": "v1",\n  "metadata": {},\n  "status": "Failure",\n'
        b'  "message": "configmaps \\"nope\\" not found",\n  "reason": "NotFound",\n  "details": {\n'
        b'    "name": "nope",\n    "kind": "configmaps"\n  },\n  "code": 404\n}'
    )


def test_an_accept_nothing_serves_is_a_raw_indented_406(server: FakeAPIServer) -> None:
    status, media_type, body = ask(server, "GET", "/api/v1/namespaces", admin(server, "text/html"))

    assert (status, media_type) == (406, "application/json")
    assert body.startswith(b'{\n  "kind": "Status",\n') and body.endswith(b'  "code": 406\n}')
