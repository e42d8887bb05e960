"""The journal helpers: narrow by what was done, assert how it went, read a failure like a log."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from fakeapi import GateRequest
from fakeapi.pytest_plugin import FakeAPI
from tests.conftest import crd

WIDGETS = "/apis/example.com/v1/namespaces/default/widgets"
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"

pytestmark = pytest.mark.fakeapi(crds=[crd("widgets", "Widget")])


def send(
    fakeapi: FakeAPI,
    method: str,
    path: str,
    body: Any = None,
    content_type: str = "application/json",
    token: str | None = None,
) -> int:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(fakeapi.url + path, data=data, method=method)
    request.add_header("Content-Type", content_type)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def claim(resource_version: str) -> list[dict[str, Any]]:
    return [
        {"op": "test", "path": "/metadata/resourceVersion", "value": resource_version},
        {"op": "add", "path": "/status", "value": {"phase": "Done"}},
    ]


@pytest.fixture
def history(fakeapi: FakeAPI) -> FakeAPI:
    """A widget created, patched four ways, read and deleted: eight requests."""
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}}
    assert send(fakeapi, "POST", WIDGETS, widget, token="replica-a") == 201
    assert send(fakeapi, "PATCH", f"{WIDGETS}/w", {"spec": {"size": 2}}, f"{MERGE_PATCH}; charset=utf-8") == 200
    version = fakeapi.get("example.com/v1", "Widget", "w")["metadata"]["resourceVersion"]
    assert send(fakeapi, "PATCH", f"{WIDGETS}/w/status", claim(version), JSON_PATCH, token="replica-a") == 200
    assert send(fakeapi, "PATCH", f"{WIDGETS}/w/status", claim(version), JSON_PATCH, token="replica-b") == 422
    assert send(fakeapi, "PATCH", f"{WIDGETS}/w/status", {"status": {"seen": True}}, MERGE_PATCH) == 200
    assert send(fakeapi, "GET", f"{WIDGETS}/w") == 200
    assert send(fakeapi, "GET", f"{WIDGETS}/missing") == 404
    assert send(fakeapi, "DELETE", f"{WIDGETS}/w") == 200
    return fakeapi


def test_requests_narrow_by_what_was_done(history: FakeAPI) -> None:
    assert len(history.requests()) == 8
    assert history.requests(verb="patch", resource="widgets", name="w").statuses == [200, 200, 422, 200]
    assert history.requests(verb="patch", subresource="").statuses == [200]
    assert history.requests(verb="patch", subresource="status").statuses == [200, 422, 200]
    assert history.requests(verb="get", name="missing").statuses == [404]
    methods = [entry.method for entry in history.requests(name="w")]
    assert methods == ["POST", "PATCH", "PATCH", "PATCH", "PATCH", "GET", "DELETE"]


def test_criteria_about_how_and_by_whom(history: FakeAPI) -> None:
    merge_patches = history.requests(content_type=MERGE_PATCH)
    assert [entry.subresource for entry in merge_patches] == ["", "status"]
    assert history.requests(actor="replica-b").statuses == [422]
    assert [entry.verb for entry in history.requests(actor="replica-a")] == ["create", "patch"]
    assert [entry.verb for entry in history.requests(committed=False)] == ["patch", "get", "get"]
    assert history.requests(method="DELETE", group="example.com", version="v1", namespace="default").statuses == [200]


def test_assert_one_returns_the_request_it_found(history: FakeAPI) -> None:
    patches = history.requests(verb="patch", resource="widgets", name="w", subresource="status")
    won = patches.assert_one(content_type=JSON_PATCH, status=200)
    assert won.actor == "replica-a"
    assert won.json()["status"] == {"phase": "Done"}
    assert json.loads(won.body)[1] == {"op": "add", "path": "/status", "value": {"phase": "Done"}}
    lost = patches.assert_one(status=422)
    assert lost.actor == "replica-b"
    patches.assert_none(status=409)
    assert patches.assert_count(2, status=200).statuses == [200, 200]


def test_bodies_decoded(history: FakeAPI) -> None:
    patches = history.requests(verb="patch", subresource="status")
    version = history.requests(verb="patch", subresource="").response_bodies()[0]["metadata"]["resourceVersion"]
    assert patches.request_bodies() == [claim(version), claim(version), {"status": {"seen": True}}]
    answers = patches.response_bodies()
    assert [answer["kind"] for answer in answers] == ["Widget", "Status", "Widget"]
    assert answers[1]["reason"] == "Invalid"


def test_where_narrows_further_with_a_predicate(history: FakeAPI) -> None:
    def tests_the_resource_version(entry: Any) -> bool:
        return isinstance(body := json.loads(entry.body), list) and body[0]["op"] == "test"

    claims = history.requests(verb="patch").where(tests_the_resource_version, status=200)
    assert [entry.actor for entry in claims] == ["replica-a"]
    assert claims.query == ("requests(verb='patch').where(tests_the_resource_version, status=200)")


def _lines(error: pytest.ExceptionInfo[AssertionError]) -> list[str]:
    return str(error.value).splitlines()


def test_a_failed_assertion_lists_the_requests_it_looked_at(history: FakeAPI) -> None:
    patches = history.requests(verb="patch", resource="widgets", name="w", subresource="")
    with pytest.raises(AssertionError) as error:
        patches.assert_one(content_type=JSON_PATCH, status=200)
    (entry,) = patches
    assert _lines(error) == [
        "requests(verb='patch', resource='widgets', name='w', subresource='')"
        ".assert_one(content_type='application/json-patch+json', status=200): 0 of 1 requests match",
        f"  #{entry.sequence} PATCH {WIDGETS}/w [application/merge-patch+json] -> 200",
    ]


def test_an_error_answer_shows_its_reason_and_message(history: FakeAPI) -> None:
    with pytest.raises(AssertionError) as error:
        history.requests(verb="patch", subresource="status").assert_none(status=422)
    summary, line = _lines(error)
    assert summary == "requests(verb='patch', subresource='status').assert_none(status=422): 1 of 3 requests match"
    prefix = f"PATCH {WIDGETS}/w/status [{JSON_PATCH}] as replica-b -> 422 Invalid: "
    assert re.fullmatch(r"  #\d+ " + re.escape(prefix) + ".+", line), line


def test_an_empty_query_says_so(history: FakeAPI) -> None:
    with pytest.raises(AssertionError) as error:
        history.requests(verb="update").assert_count(1)
    assert _lines(error) == [
        "requests(verb='update').assert_count(1): expected 1, 0 of 0 match",
        "  (the query matched no request at all)",
    ]


def test_unknown_criteria_are_refused(fakeapi: FakeAPI) -> None:
    with pytest.raises(TypeError, match=r"unknown journal criteria \['kind'\]"):
        fakeapi.requests(kind="Widget")


def test_the_failure_a_user_sees(pytester: pytest.Pytester, ini: Callable[..., None]) -> None:
    ini()
    pytester.makepyfile(
        test_claims="""
        import urllib.request

        def test_claims_once(fakeapi):
            urllib.request.urlopen(fakeapi.url + "/api/v1/namespaces/default").read()
            fakeapi.requests(verb="patch", resource="namespaces").assert_one(status=200)
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            '>       fakeapi.requests(verb="patch", resource="namespaces").assert_one(status=200)',
            "E       AssertionError: requests(verb='patch', resource='namespaces').assert_one(status=200): "
            "0 of 0 requests match",
            "E         (the query matched no request at all)",
        ]
    )
    assert "pytest_plugin.py" not in result.stdout.str()


def test_a_watch_open_during_writes_is_not_a_committed_request(fakeapi: FakeAPI) -> None:
    def watch() -> None:
        with urllib.request.urlopen(f"{fakeapi.url}{WIDGETS}?watch=true") as stream:
            stream.read()

    watcher = threading.Thread(target=watch)
    watcher.start()
    wait_until(lambda: len(fakeapi.requests(verb="watch")) == 1)
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    assert send(fakeapi, "POST", WIDGETS, widget) == 201
    fakeapi.server.close_watches()
    watcher.join(timeout=10)
    wait_until(lambda: fakeapi.requests(verb="watch").statuses == [200])

    assert [entry.verb for entry in fakeapi.requests(committed=True)] == ["create"]
    assert [entry.verb for entry in fakeapi.requests(committed=False)] == ["watch"]


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """The server answers from its own thread: wait, within a deadline, for what it will record."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_write_that_fails_while_another_commits_is_not_committed(fakeapi: FakeAPI) -> None:
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    assert send(fakeapi, "POST", WIDGETS, widget) == 201
    version = fakeapi.get("example.com/v1", "Widget", "w")["metadata"]["resourceVersion"]
    slow_patch_admitted = threading.Event()

    async def gate(request: GateRequest) -> None:
        # The server goes straight from here to reading the body, which has not all arrived yet;
        # the other writer can only be served once that read is waiting.
        if request.actor == "slow":
            slow_patch_admitted.set()

    fakeapi.server.set_gate(gate)
    body = json.dumps(claim(version)).encode()
    head = (
        f"PATCH {WIDGETS}/w HTTP/1.1\r\nHost: fakeapi\r\nAuthorization: Bearer slow\r\n"
        f"Content-Type: {JSON_PATCH}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    host, port = fakeapi.url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(head + body[:10])
        assert slow_patch_admitted.wait(timeout=10)
        assert send(fakeapi, "PATCH", f"{WIDGETS}/w", {"spec": {"size": 2}}, MERGE_PATCH, token="fast") == 200
        connection.sendall(body[10:])
        answer = connection.makefile("rb").read()
    assert answer.startswith(b"HTTP/1.1 422 ")  # the claim's test op lost
    fakeapi.server.set_gate(None)

    slow = fakeapi.requests(actor="slow").assert_one(status=422)
    assert not slow.committed
    assert slow.revision_after > slow.revision_before  # the other writer moved the revision meanwhile
    fast = fakeapi.requests(actor="fast").assert_one(status=200, committed=True)
    assert fast.write_revisions == [slow.revision_after]
