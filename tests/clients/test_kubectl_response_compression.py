"""kubectl gets a long answer gzipped, as from kube-apiserver's response writer (docs/http-limits.md,
"Compressed answers"): ``Vary: Accept-Encoding`` on an answer over 128 KiB, none on a shorter one,
and the objects decoded whole. The raw exchanges show the negotiation kubectl does not show."""

from __future__ import annotations

import gzip
import http.client
import json
import random
import string
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from fakeapi import FakeAPIServer
from tests.clients.local import run_kubectl, threaded_server

NAMESPACE = "compressed"
LIST_PATH = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
# Three values of 50 KiB each: the list is over 128 KiB, one ConfigMap alone is not.
VALUE = "".join(random.Random(7).choices(string.ascii_letters + string.digits, k=50 * 1024))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeAPIServer]:
    home = tmp_path_factory.mktemp("compression")
    with threaded_server(namespace_controllers=False) as running:
        assert kubectl(running, home, "create", "namespace", NAMESPACE)[0] == 0
        for name in ("cm-one", "cm-two", "cm-three"):
            code, _, err = kubectl(
                running, home, "create", "configmap", name, "-n", NAMESPACE, f"--from-literal=somekey={VALUE}"
            )
            assert (code, err) == (0, "")
        yield running


def kubectl(server: FakeAPIServer, home: Path, *args: str) -> tuple[int, str, str]:
    return run_kubectl(server.kubeconfig(home / "kubeconfig"), home, *args)


def ask(server: FakeAPIServer, path: str, accept_encoding: str | None) -> tuple[http.client.HTTPResponse, bytes]:
    url = urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=10)
    headers = {"Accept": "application/json"}
    if accept_encoding is not None:
        headers["Accept-Encoding"] = accept_encoding
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response, body


def test_kubectl_reads_a_long_list_gzipped(server: FakeAPIServer, tmp_path: Path) -> None:
    code, out, err = kubectl(server, tmp_path, "get", "configmaps", "-n", NAMESPACE, "-o", "json", "-v=8")

    assert code == 0
    assert "Vary: Accept-Encoding" in err
    items = json.loads(out)["items"]
    assert [item["metadata"]["name"] for item in items] == ["cm-one", "cm-three", "cm-two"]
    assert all(item["data"] == {"somekey": VALUE} for item in items)


def test_kubectl_reads_a_short_answer_as_it_is(server: FakeAPIServer, tmp_path: Path) -> None:
    code, out, err = kubectl(server, tmp_path, "get", "configmap", "cm-one", "-n", NAMESPACE, "-o", "json", "-v=8")

    assert code == 0
    assert "Vary: Accept-Encoding" not in err
    assert json.loads(out)["data"] == {"somekey": VALUE}


def test_gzip_is_level_one_with_go_header_and_decodes_to_the_plain_answer(server: FakeAPIServer) -> None:
    plain, plain_body = ask(server, LIST_PATH, None)
    zipped, zipped_body = ask(server, LIST_PATH, "gzip")

    assert plain.getheader("Content-Encoding") is None
    assert plain.getheader("Vary") is None
    assert len(plain_body) > 128 * 1024
    assert zipped.getheader("Content-Encoding") == "gzip"
    assert zipped.getheader("Vary") == "Accept-Encoding"
    assert zipped.getheader("Content-Length") == str(len(zipped_body))
    # Magic, deflate, no flags, time zero, XFL 4 (BestSpeed), OS 255: the header Go writes.
    assert zipped_body[:10] == bytes.fromhex("1f8b08000000000004ff")
    assert gzip.decompress(zipped_body) == plain_body


@pytest.mark.parametrize(
    ("accept_encoding", "gzipped"),
    [("deflate, gzip", True), ("br,  gzip ", True), ("gzip;q=1.0", False), ("GZIP", False), ("identity", False)],
)
def test_only_an_exact_gzip_token_asks_for_gzip(server: FakeAPIServer, accept_encoding: str, gzipped: bool) -> None:
    response, _ = ask(server, LIST_PATH, accept_encoding)

    assert (response.getheader("Content-Encoding") == "gzip") is gzipped


def test_a_watch_is_never_gzipped(server: FakeAPIServer) -> None:
    response, body = ask(server, LIST_PATH + "?watch=true&timeoutSeconds=1", "gzip")

    assert response.getheader("Content-Encoding") is None
    assert body.count(b'"type":"ADDED"') == 3
