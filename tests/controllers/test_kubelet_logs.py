"""``pods/log`` of pods the simulated kubelet runs, as a client reads it (docs/kubelet-endpoints.md)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi import FakeAPIServer, Outcome, OutcomeRule
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

PODS = "/api/v1/namespaces/default/pods"
RULES = [
    OutcomeRule('succeed after 5s logs ["starting", "working"]', image="job"),
    OutcomeRule(Outcome.exit(1, after=2, logs=["crashing"]), image="crasher"),
    OutcomeRule(Outcome.run(logs=["serving"]), image="web"),
    OutcomeRule("image-pull-failure", image="missing"),
]


@pytest.fixture
def server_options() -> dict[str, Any]:
    return {"outcomes": RULES, "seed": 3}


def pod(name: str, *images: str, restart: str = "Never") -> dict[str, Any]:
    containers = [{"name": f"c{i}" if len(images) > 1 else "main", "image": image} for i, image in enumerate(images)]
    spec = {"restartPolicy": restart, "containers": containers}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


async def started(server: FakeAPIServer, client: RawClient, name: str, *images: str, restart: str = "Never") -> None:
    assert (await client.post(PODS, pod(name, *images, restart=restart))).status == 201
    server.advance(0)


async def test_a_log_is_the_outcome_lines_then_the_appended_ones_as_text_plain(
    server: FakeAPIServer, client: RawClient
) -> None:
    await started(server, client, "job", "job")
    server.advance(1)
    server.append_log("job", "one more", "and\nanother")
    reply = await client.get(f"{PODS}/job/log")
    assert reply.status == 200
    assert reply.headers["Content-Type"] == "text/plain"
    assert reply.body == b"starting\nworking\none more\nand\nanother\n"
    stamped = await client.get(f"{PODS}/job/log?timestamps=true")
    assert stamped.body == (
        b"2023-11-14T22:13:20Z starting\n2023-11-14T22:13:20Z working\n"
        b"2023-11-14T22:13:21Z one more\n2023-11-14T22:13:21Z and\n2023-11-14T22:13:21Z another\n"
    )


async def test_tail_since_and_limit_bytes_cut_the_log_as_the_kubelet_does(
    server: FakeAPIServer, client: RawClient
) -> None:
    await started(server, client, "job", "job")
    server.advance(2)
    server.append_log("job", "late")
    assert (await client.get(f"{PODS}/job/log?tailLines=2")).body == b"working\nlate\n"
    assert (await client.get(f"{PODS}/job/log?tailLines=0")).body == b""
    assert (await client.get(f"{PODS}/job/log?sinceSeconds=1")).body == b"late\n"
    assert (await client.get(f"{PODS}/job/log?sinceTime=2023-11-14T22:13:22Z")).body == b"late\n"
    assert (await client.get(f"{PODS}/job/log?sinceTime=2023-11-14T22:13:23Z")).body == b""
    assert (await client.get(f"{PODS}/job/log?limitBytes=12")).body == b"starting\nwor"
    # tailLines counts lines before the since filter drops any
    assert (await client.get(f"{PODS}/job/log?tailLines=2&sinceSeconds=1")).body == b"late\n"


async def test_the_container_must_be_named_in_a_pod_of_several(server: FakeAPIServer, client: RawClient) -> None:
    await started(server, client, "two", "web", "job")
    unnamed = await client.get(f"{PODS}/two/log")
    assert (unnamed.status, unnamed.json()["message"]) == (
        400,
        "a container name must be specified for pod two, choose one of: [c0 c1]",
    )
    assert (await client.get(f"{PODS}/two/log?container=c0")).body == b"serving\n"
    assert (await client.get(f"{PODS}/two/log?container=c1")).body == b"starting\nworking\n"


async def test_previous_reads_the_last_terminated_instance(server: FakeAPIServer, client: RawClient) -> None:
    await started(server, client, "crash", "crasher", restart="Always")
    none = await client.get(f"{PODS}/crash/log?previous=true")
    assert (none.status, none.json()["reason"], none.json()["message"]) == (
        400,
        "BadRequest",
        'previous terminated container "main" in pod "crash" not found',
    )
    server.advance(2)  # exits, restarts at once
    server.append_log("crash", "second run")
    assert (await client.get(f"{PODS}/crash/log?previous=true")).body == b"crashing\n"
    assert (await client.get(f"{PODS}/crash/log")).body == b"crashing\nsecond run\n"


async def test_a_container_that_never_started_has_no_log(server: FakeAPIServer, client: RawClient) -> None:
    await started(server, client, "pull", "missing")
    reply = await client.get(f"{PODS}/pull/log")
    assert (reply.status, reply.json()["message"]) == (
        400,
        'container "main" in pod "pull" is waiting to start: image can\'t be pulled',
    )
    server.advance(10)
    backoff = await client.get(f"{PODS}/pull/log")
    assert (
        backoff.json()["message"]
        == 'container "main" in pod "pull" is waiting to start: trying and failing to pull image'
    )


async def test_follow_streams_new_lines_and_ends_when_the_container_terminates(
    server: FakeAPIServer, client: RawClient
) -> None:
    await started(server, client, "job", "job")
    async with client.session.get(f"{client.base}{PODS}/job/log?follow=true&timestamps=true") as response:
        assert response.status == 200
        assert await response.content.readline() == b"2023-11-14T22:13:20Z starting\n"
        assert await response.content.readline() == b"2023-11-14T22:13:20Z working\n"
        server.advance(3)
        server.append_log("job", "almost")
        assert await response.content.readline() == b"2023-11-14T22:13:23Z almost\n"
        server.advance(2)  # the outcome: exit 0 five seconds after starting
        assert await response.content.read() == b""
    assert (await client.get(f"{PODS}/job/log")).body == b"starting\nworking\nalmost\n"


async def test_follow_of_a_terminated_container_reads_its_log_and_ends(
    server: FakeAPIServer, client: RawClient
) -> None:
    await started(server, client, "job", "job")
    server.advance(5)
    async with client.session.get(f"{client.base}{PODS}/job/log?follow=1") as response:
        assert await response.read() == b"starting\nworking\n"


async def test_follow_ends_when_the_pod_is_deleted_or_the_bytes_are_sent(
    server: FakeAPIServer, client: RawClient
) -> None:
    await started(server, client, "web", "web")
    async with client.session.get(f"{client.base}{PODS}/web/log?follow=true") as response:
        assert await response.content.readline() == b"serving\n"
        assert (await client.request("DELETE", f"{PODS}/web")).status == 200
        server.advance(0)  # its kubelet stops the container (docs/graceful-deletion.md)
        assert await response.content.read() == b""
    await started(server, client, "web2", "web")
    async with client.session.get(f"{client.base}{PODS}/web2/log?follow=true&limitBytes=10") as response:
        assert await response.content.readline() == b"serving\n"
        server.append_log("web2", "more")
        assert await response.content.read() == b"mo"


@pytest.mark.parametrize(
    ("query", "message", "causes"),
    [
        (
            "tailLines=-1",
            'PodLogOptions "job" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0',
            [{"reason": "FieldValueInvalid", "message": "Invalid value: -1: must be greater than or equal to 0",
              "field": "tailLines"}],
        ),
        (
            "limitBytes=0",
            'PodLogOptions "job" is invalid: limitBytes: Invalid value: 0: must be greater than 0',
            [{"reason": "FieldValueInvalid", "message": "Invalid value: 0: must be greater than 0",
              "field": "limitBytes"}],
        ),
        (
            "sinceSeconds=5&sinceTime=2023-11-14T22:13:20Z",
            'PodLogOptions "job" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
            [{"reason": "FieldValueForbidden",
              "message": "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"}],
        ),
        (
            "sinceSeconds=0&tailLines=-2",
            'PodLogOptions "job" is invalid: [tailLines: Invalid value: -2: must be greater than or equal to 0, '
            "sinceSeconds: Invalid value: 0: must be greater than 0]",
            [{"reason": "FieldValueInvalid", "message": "Invalid value: -2: must be greater than or equal to 0",
              "field": "tailLines"},
             {"reason": "FieldValueInvalid", "message": "Invalid value: 0: must be greater than 0",
              "field": "sinceSeconds"}],
        ),
    ],
)  # fmt: skip
async def test_bad_log_options_are_422_before_the_pod_is_looked_up(
    server: FakeAPIServer, client: RawClient, query: str, message: str, causes: list[dict[str, str]]
) -> None:
    for name in ("job", "missing"):
        reply = await client.get(f"{PODS}/{name}/log?{query}")
        body = reply.json()
        assert (reply.status, body["reason"], body["message"]) == (422, "Invalid", message.replace("job", name))
        assert body["details"] == {"name": name, "kind": "PodLogOptions", "causes": causes}
    unreadable = await client.get(f"{PODS}/job/log?tailLines=ten")
    assert (unreadable.status, unreadable.json()["message"]) == (
        400,
        'strconv.ParseInt: parsing "ten": invalid syntax',
    )


async def test_appended_lines_are_forgotten_with_the_cluster(server: FakeAPIServer, client: RawClient) -> None:
    snapshot = server.snapshot()
    await started(server, client, "web", "web")
    server.append_log("web", "before")
    server.restore(snapshot)
    await started(server, client, "web", "web")
    assert (await client.get(f"{PODS}/web/log")).body == b"serving\n"
    await started(server, client, "pull", "missing")
    with pytest.raises(ValueError, match=r"^pod default/pull: container \"main\" in pod \"pull\" is waiting to start"):
        server.append_log("pull", "never")
