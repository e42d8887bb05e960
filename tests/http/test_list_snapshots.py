"""Lists read at a past revision, as etcd serves them: continue pages and ``resourceVersionMatch=Exact``.

Every page of a paginated list shows the collection as it was when the first page was read, however
it changed in between; ``Exact`` (and a ``limit`` with a resourceVersion, the legacy form) reads at
the given revision. Once the changes since that revision are compacted, the answer is 410 Expired
with etcd's texts, and an expired continue carries a token that reads the rest at the latest state.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio

JOBS = "/apis/example.com/v1/namespaces/default/jobs"
INCONSISTENT_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. You can start a new list "
    "without the continue parameter, or use the continue token in this response to retrieve the remainder of the "
    "results. Continuing with the provided token results in an inconsistent list - objects that were created, "
    "modified, or deleted between the time the first chunk was returned and now may show up in the list."
)


def job(name: str, a: int = 1) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": name}, "spec": {"a": a}}


async def _with_jobs(client: RawClient, names: list[str]) -> dict[str, str]:
    reply = await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd())
    assert reply.status == 201, reply.body
    revisions = {}
    for name in names:
        created = await client.post(JOBS, job(name))
        assert created.status == 201, created.body
        revisions[name] = created.json()["metadata"]["resourceVersion"]
    return revisions


def _seen(listing: dict[str, Any]) -> list[tuple[str, int]]:
    return [(item["metadata"]["name"], item["spec"]["a"]) for item in listing["items"]]


async def _change_everything(client: RawClient) -> None:
    """Modify a listed and an unlisted object, delete one, create one between the others."""
    for name, value in (("job-0", 5), ("job-3", 9)):
        reply = await client.patch(f"{JOBS}/{name}", [{"op": "replace", "path": "/spec/a", "value": value}])
        assert reply.status == 200, reply.body
    assert (await client.delete(f"{JOBS}/job-2")).status == 200
    assert (await client.post(JOBS, job("job-25", 7))).status == 201


async def test_every_page_shows_the_collection_as_the_first_page_saw_it(client: RawClient) -> None:
    revisions = await _with_jobs(client, [f"job-{index}" for index in range(5)])
    first = (await client.get(f"{JOBS}?limit=2")).json()
    listed_at = first["metadata"]["resourceVersion"]
    assert _seen(first) == [("job-0", 1), ("job-1", 1)]
    await _change_everything(client)

    second = (await client.get(f"{JOBS}?limit=2&continue={first['metadata']['continue']}")).json()
    assert _seen(second) == [("job-2", 1), ("job-3", 1)]
    assert [item["metadata"]["resourceVersion"] for item in second["items"]] == [revisions["job-2"], revisions["job-3"]]
    assert second["metadata"]["resourceVersion"] == listed_at
    third = (await client.get(f"{JOBS}?limit=2&continue={second['metadata']['continue']}")).json()
    assert _seen(third) == [("job-4", 1)]
    assert third["metadata"]["continue"] == ""

    latest = (await client.get(JOBS)).json()
    assert _seen(latest) == [("job-0", 5), ("job-1", 1), ("job-25", 7), ("job-3", 9), ("job-4", 1)]


async def test_exact_and_legacy_limited_lists_read_at_the_resource_version(client: RawClient) -> None:
    await _with_jobs(client, [f"job-{index}" for index in range(5)])
    listed_at = (await client.get(JOBS)).json()["metadata"]["resourceVersion"]
    await _change_everything(client)
    before = [("job-0", 1), ("job-1", 1), ("job-2", 1), ("job-3", 1), ("job-4", 1)]

    exact = (await client.get(f"{JOBS}?resourceVersion={listed_at}&resourceVersionMatch=Exact")).json()
    assert _seen(exact) == before
    assert exact["metadata"]["resourceVersion"] == listed_at
    legacy = (await client.get(f"{JOBS}?resourceVersion={listed_at}&limit=3")).json()
    assert _seen(legacy) == before[:3]
    assert legacy["metadata"]["resourceVersion"] == listed_at
    # Without a limit, a resourceVersion is a lower bound that the watch cache's latest state meets.
    not_older = (await client.get(f"{JOBS}?resourceVersion={listed_at}")).json()
    assert _seen(not_older) == [("job-0", 5), ("job-1", 1), ("job-25", 7), ("job-3", 9), ("job-4", 1)]
    assert int(not_older["metadata"]["resourceVersion"]) > int(listed_at)


@pytest_asyncio.fixture
async def short_history() -> AsyncIterator[tuple[FakeAPIServer, RawClient]]:
    async with FakeAPIServer(history_window=4) as server, aiohttp.ClientSession() as session:
        yield server, RawClient(session, server.url)


async def test_a_compacted_continue_is_410_with_a_token_for_the_rest_at_the_latest_state(
    short_history: tuple[FakeAPIServer, RawClient],
) -> None:
    server, client = short_history
    await _with_jobs(client, [f"job-{index}" for index in range(5)])
    first = (await client.get(f"{JOBS}?limit=2")).json()
    await _change_everything(client)
    await _change_everything_again(client)
    revision = server.revision

    expired = await client.get(f"{JOBS}?limit=2&continue={first['metadata']['continue']}")
    assert expired.status == 410
    status = expired.json()
    assert (status["reason"], status["code"], status["message"]) == ("Expired", 410, INCONSISTENT_CONTINUE)
    token = status["metadata"]["continue"]
    decoded = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    assert decoded == {"v": "meta.k8s.io/v1", "rv": -1, "start": "job-1\u0000"}
    assert server.revision == revision

    rest = (await client.get(f"{JOBS}?limit=10&continue={token}")).json()
    assert _seen(rest) == [("job-25", 8), ("job-3", 10), ("job-4", 1)]
    assert rest["metadata"]["resourceVersion"] == str(revision)


async def _change_everything_again(client: RawClient) -> None:
    for name, value in (("job-25", 8), ("job-3", 10)):
        reply = await client.patch(f"{JOBS}/{name}", [{"op": "replace", "path": "/spec/a", "value": value}])
        assert reply.status == 200, reply.body


async def test_an_exact_list_at_a_compacted_revision_is_410(short_history: tuple[FakeAPIServer, RawClient]) -> None:
    _, client = short_history
    revisions = await _with_jobs(client, [f"job-{index}" for index in range(5)])
    await _change_everything(client)
    reply = await client.get(f"{JOBS}?resourceVersion={revisions['job-0']}&resourceVersionMatch=Exact")
    assert reply.status == 410
    status = reply.json()
    assert (status["reason"], status["message"]) == ("Expired", "The resourceVersion for the provided list is too old.")


async def test_a_bad_token_is_reported_before_a_resource_version_next_to_it(client: RawClient) -> None:
    await _with_jobs(client, ["job-0", "job-1", "job-2"])
    first = (await client.get(f"{JOBS}?limit=1")).json()
    with_version = await client.get(f"{JOBS}?continue={first['metadata']['continue']}&resourceVersion=5")
    assert with_version.status == 400
    assert with_version.json()["message"] == "specifying resource version is not allowed when using continue"
    both_bad = await client.get(f"{JOBS}?continue=%21%21%21&resourceVersion=5")
    assert both_bad.status == 400
    assert both_bad.json()["message"].startswith("invalid continue token: continue key is not valid:")


async def test_an_exact_or_limited_list_at_a_future_revision_is_504_too_large(client: RawClient) -> None:
    await _with_jobs(client, ["job-0"])
    current = int((await client.get(JOBS)).json()["metadata"]["resourceVersion"])
    future = current + 10
    for query in (f"resourceVersion={future}&resourceVersionMatch=Exact", f"resourceVersion={future}&limit=5"):
        reply = await client.get(f"{JOBS}?{query}")
        assert reply.status == 504
        assert "Retry-After" not in reply.headers
        assert reply.json() == {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": f"Timeout: Too large resource version: {future}, current: {current}",
            "reason": "Timeout",
            "details": {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}]},
            "code": 504,
        }
