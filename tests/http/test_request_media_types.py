"""What a request body's Content-Type must be: Go's ``mime.ParseMediaType`` for creates and updates,
the header cut at its first ``;`` and taken as it is for patches (docs/status-errors.md)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from fakeapi import FakeAPIServer
from tests.clients.local import threaded_server

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
BODY_TYPES = "application/json, application/yaml, application/vnd.kubernetes.protobuf"
PATCH_TYPES = (
    "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, "
    "application/apply-patch+yaml"
)


@pytest.fixture(scope="module")
def server() -> Iterator[FakeAPIServer]:
    with threaded_server() as running:
        yield running


def send(
    server: FakeAPIServer, method: str, path: str, content_type: str, body: bytes
) -> tuple[int, dict[str, object]]:
    url = urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=10)
    connection.request(method, path, body=body, headers={"Content-Type": content_type})
    response = connection.getresponse()
    answer = response.status, json.loads(response.read())
    connection.close()
    return answer


def config_map(name: str) -> bytes:
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}).encode()


def unsupported(types: str) -> dict[str, object]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f"the body of the request was in an unknown format - accepted media types include: {types}",
        "reason": "UnsupportedMediaType",
        "code": 415,
    }


@pytest.mark.parametrize(
    "content_type",
    [";", "application/json;;", "application/json; a=1; a=2", "application/json; =1", "*/*", "json", "a/b/c"],
)
def test_a_create_whose_content_type_go_does_not_parse_is_415(server: FakeAPIServer, content_type: str) -> None:
    assert send(server, "POST", CONFIGMAPS, content_type, config_map("never")) == (415, unsupported(BODY_TYPES))
    assert send(server, "GET", f"{CONFIGMAPS}/never", "", b"")[0] == 404


@pytest.mark.parametrize(
    ("number", "content_type"),
    [(1, " Application/JSON ; charset=utf-8"), (2, "application/json;"), (3, 'application/json; charset="utf-8"')],
)
def test_a_create_whose_content_type_go_parses_is_decoded(
    server: FakeAPIServer, number: int, content_type: str
) -> None:
    assert send(server, "POST", CONFIGMAPS, content_type, config_map(f"parsed-{number}"))[0] == 201


@pytest.mark.parametrize(
    "content_type",
    [
        ";",
        "Application/Merge-Patch+JSON",
        "application/merge-patch+json ;charset=utf-8",
    ],
)
def test_a_patch_type_is_the_header_before_its_first_semicolon_as_it_is(
    server: FakeAPIServer, content_type: str
) -> None:
    send(server, "POST", CONFIGMAPS, "application/json", config_map("patched"))

    assert send(server, "PATCH", f"{CONFIGMAPS}/patched", content_type, b'{"data":{"a":"b"}}') == (
        415,
        unsupported(PATCH_TYPES),
    )
    status, applied = send(
        server, "PATCH", f"{CONFIGMAPS}/patched", "application/merge-patch+json;charset=utf-8", b'{"data":{"a":"b"}}'
    )
    assert (status, applied.get("data")) == (200, {"a": "b"})
