"""What a simulated cluster does when no outcome rule says (docs/cluster-defaults.md): a pod that is
not restarted (a Job's) succeeds after a second, an image whose registry cannot exist fails to
pull, and an outcome can hold a container in ContainerCreating for a while."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from fakeapi import FakeAPIServer, Outcome, OutcomeRule
from fakeapi._cluster import parse_outcome
from fakeapi._cluster.outcome_files import load_outcome_rules
from tests.conftest import RawClient
from tests.controllers.conftest import START

pytestmark = pytest.mark.asyncio

PODS = "/api/v1/namespaces/default/pods"
JOBS = "/apis/batch/v1/namespaces/default/jobs"


def pod(name: str, image: str, restart: str = "Always", annotations: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, **({"annotations": annotations} if annotations else {})}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {"restartPolicy": restart, "containers": [{"name": "main", "image": image}]},
    }


async def status(client: RawClient, name: str) -> dict[str, Any]:
    reply = await client.get(f"{PODS}/{name}")
    assert reply.status == 200
    found: dict[str, Any] = reply.json()["status"]
    return found


async def test_a_jobs_pod_succeeds_a_second_after_it_starts(server: FakeAPIServer, client: RawClient) -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "x"},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "x", "image": "busybox", "command": ["true"]}],
                }
            }
        },
    }
    assert (await client.post(JOBS, job)).status == 201
    server.advance(0)
    [running] = (await client.get(PODS)).json()["items"]
    assert running["status"]["phase"] == "Running"
    server.advance(1)
    [done] = (await client.get(PODS)).json()["items"]
    assert done["status"]["phase"] == "Succeeded"
    assert done["status"]["containerStatuses"][0]["state"]["terminated"] == {
        "exitCode": 0,
        "reason": "Completed",
        "startedAt": "2023-11-14T22:13:20Z",
        "finishedAt": "2023-11-14T22:13:21Z",
        "containerID": running["status"]["containerStatuses"][0]["containerID"],
    }
    conditions = (await client.get(f"{JOBS}/x")).json()["status"]["conditions"]
    assert [(c["type"], c["status"]) for c in conditions] == [("SuccessCriteriaMet", "True"), ("Complete", "True")]


@pytest.mark.parametrize("restart", ["Never", "OnFailure"])
async def test_a_bare_pod_that_is_not_restarted_succeeds_too(
    server: FakeAPIServer, client: RawClient, restart: str
) -> None:
    await client.post(PODS, pod("p", "busybox", restart))
    server.advance(0)
    assert (await status(client, "p"))["phase"] == "Running"
    server.advance(1)
    assert (await status(client, "p"))["phase"] == "Succeeded"


async def test_a_restarted_pod_runs_until_deleted(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(PODS, pod("p", "busybox"))
    server.advance(3600)
    found = await status(client, "p")
    assert found["phase"] == "Running"
    assert found["containerStatuses"][0]["restartCount"] == 0


async def test_a_rule_wins_over_the_default() -> None:
    rules = [OutcomeRule("run", image="busybox")]
    server = FakeAPIServer(controllers="all", clock=lambda: START, outcomes=rules)
    async with server, aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        await client.post(PODS, pod("p", "busybox", "Never"))
        server.advance(3600)
        assert (await status(client, "p"))["phase"] == "Running"


REFUSED = [
    (
        "registry.invalid/team/app:1.0",
        "rpc error: code = Unknown desc = failed to pull and unpack image "
        '"registry.invalid/team/app:1.0": failed to resolve reference "registry.invalid/team/app:1.0": '
        'failed to do request: Head "https://registry.invalid/v2/team/app/manifests/1.0": '
        "dial tcp: lookup registry.invalid on 172.18.0.1:53: no such host",
    ),
    (
        "images.example:5000/app",
        "rpc error: code = Unknown desc = failed to pull and unpack image "
        '"images.example:5000/app:latest": failed to resolve reference "images.example:5000/app:latest": '
        'failed to do request: Head "https://images.example:5000/v2/app/manifests/latest": '
        "dial tcp: lookup images.example on 172.18.0.1:53: no such host",
    ),
    (
        "localhost:1/app",
        "rpc error: code = Unknown desc = failed to pull and unpack image "
        '"localhost:1/app:latest": failed to resolve reference "localhost:1/app:latest": '
        'failed to do request: Head "http://localhost:1/v2/app/manifests/latest": '
        "dial tcp 127.0.0.1:1: connect: connection refused",
    ),
]


@pytest.mark.parametrize(("image", "error"), REFUSED)
async def test_an_image_whose_registry_cannot_exist_fails_to_pull(
    server: FakeAPIServer, client: RawClient, image: str, error: str
) -> None:
    await client.post(PODS, pod("p", image, "Never"))
    server.advance(0)
    found = await status(client, "p")
    assert found["phase"] == "Pending"
    assert found["containerStatuses"][0]["state"] == {"waiting": {"reason": "ErrImagePull", "message": error}}
    events = [
        (e["type"], e["reason"], e["message"])
        for e in (await client.get("/api/v1/namespaces/default/events")).json()["items"]
    ]
    assert events[1:] == [
        ("Normal", "Pulling", f'Pulling image "{image}"'),
        ("Warning", "Failed", f'Failed to pull image "{image}": {error}'),
        ("Warning", "Failed", "Error: ErrImagePull"),
    ]
    server.advance(10)
    backoff = (await status(client, "p"))["containerStatuses"][0]["state"]
    assert backoff == {"waiting": {"reason": "ImagePullBackOff", "message": f'Back-off pulling image "{image}"'}}


@pytest.mark.parametrize("image", ["localhost:5000/app", "registry.example.com/app", "invalid/app", "busybox"])
async def test_other_registries_are_taken_to_serve_the_image(
    server: FakeAPIServer, client: RawClient, image: str
) -> None:
    await client.post(PODS, pod("p", image))
    server.advance(0)
    assert (await status(client, "p"))["phase"] == "Running"


async def test_a_delayed_start_is_visible_as_container_creating(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(PODS, pod("p", "busybox", annotations={"fakeapi.dev/outcome": "run starts after 3s"}))
    server.advance(0)
    waiting = await status(client, "p")
    assert waiting["phase"] == "Pending"
    assert waiting["containerStatuses"][0]["state"] == {"waiting": {"reason": "ContainerCreating"}}
    server.advance(2)
    assert (await status(client, "p"))["containerStatuses"][0]["state"] == {"waiting": {"reason": "ContainerCreating"}}
    assert "podIP" not in await status(client, "p")
    server.advance(1)
    running = await status(client, "p")
    assert running["phase"] == "Running"
    assert running["containerStatuses"][0]["state"] == {"running": {"startedAt": "2023-11-14T22:13:23Z"}}
    assert running["podIP"] == "10.244.0.4"  # CoreDNS's two pods hold .2 and .3 (docs/control-plane-pods.md)


async def test_a_delayed_pull_fails_when_the_delay_is_over(server: FakeAPIServer, client: RawClient) -> None:
    annotations = {"fakeapi.dev/outcome": "image-pull-failure starts after 5s"}
    await client.post(PODS, pod("p", "busybox", annotations=annotations))
    server.advance(4)
    assert (await status(client, "p"))["containerStatuses"][0]["state"] == {"waiting": {"reason": "ContainerCreating"}}
    server.advance(1)
    assert (await status(client, "p"))["containerStatuses"][0]["state"]["waiting"]["reason"] == "ErrImagePull"


async def test_the_default_completion_counts_from_a_delayed_start() -> None:
    rules = [OutcomeRule(Outcome.succeed(1).starting_after(2), image="busybox")]
    server = FakeAPIServer(controllers="all", clock=lambda: START, outcomes=rules)
    async with server, aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        await client.post(PODS, pod("p", "busybox", "Never"))
        server.advance(2)
        assert (await status(client, "p"))["phase"] == "Running"
        server.advance(1)
        terminated = (await status(client, "p"))["containerStatuses"][0]["state"]["terminated"]
        assert (terminated["startedAt"], terminated["finishedAt"]) == (
            "2023-11-14T22:13:22Z",
            "2023-11-14T22:13:23Z",
        )


async def test_the_text_form_of_a_delayed_start(tmp_path: Path) -> None:
    parsed = parse_outcome('succeed after 5s starts after 2.5s on-sigterm exit 143 after 1s logs ["hi"]')
    assert parsed == Outcome(exit_code=0, after=5, start_after=2.5, term_exit_code=143, term_after=1, logs=("hi",))
    assert parse_outcome("run starts after 3") == Outcome(start_after=3)
    with pytest.raises(ValueError, match="optionally followed by 'starts after Ns'"):
        parse_outcome("starts after 3s")
    with pytest.raises(ValueError, match="cannot start -1s before"):
        Outcome.run().starting_after(-1)
    rules = tmp_path / "rules.yaml"
    rules.write_text("- {outcome: 'never-ready starts after 4s', image: 'slow/*'}\n")
    assert load_outcome_rules(rules) == [OutcomeRule(Outcome(ready=False, start_after=4), image="slow/*")]


async def test_the_clock_follows_the_wall_clock_in_the_servers_own_loop() -> None:
    async with FakeAPIServer(controllers="all", clock=lambda: START) as server, aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        created = await client.post(PODS, pod("p", "busybox", "Never"))
        since = created.json()["metadata"]["resourceVersion"]
        server.follow_wall_clock(speed=20)
        phases = []
        url = f"{server.url}{PODS}?watch=1&resourceVersion={since}"
        async with session.get(url, timeout=aiohttp.ClientTimeout(total=60)) as response:
            async for line in response.content:
                phases.append(json.loads(line)["object"]["status"].get("phase"))
                if phases[-1] == "Succeeded":
                    break
        server.stop_following_wall_clock()
        assert phases == ["Pending", "Pending", "Running", "Succeeded"]  # bound, seen, started, done
        terminated = (await status(client, "p"))["containerStatuses"][0]["state"]["terminated"]
        assert (terminated["startedAt"], terminated["finishedAt"]) == ("2023-11-14T22:13:20Z", "2023-11-14T22:13:21Z")


async def test_following_the_wall_clock_needs_a_speed_and_controllers_that_are_not_stepped() -> None:
    async with FakeAPIServer(controllers="all") as server:
        with pytest.raises(ValueError, match="speed above 0, not 0"):
            server.follow_wall_clock(0)
        server.set_controllers("all", stepped=True)
        with pytest.raises(RuntimeError, match="not stepped"):
            server.follow_wall_clock()
    with pytest.raises(RuntimeError, match="needs simulated controllers"):
        FakeAPIServer().follow_wall_clock()


async def test_under_pull_policy_never_an_image_that_cannot_be_pulled_is_absent(
    server: FakeAPIServer, client: RawClient
) -> None:
    body = pod("p", "registry.invalid/app")
    body["spec"]["containers"][0]["imagePullPolicy"] = "Never"
    await client.post(PODS, body)
    server.advance(60)
    message = 'Container image "registry.invalid/app" is not present with pull policy of Never'
    state = (await status(client, "p"))["containerStatuses"][0]["state"]
    assert state == {"waiting": {"reason": "ErrImageNeverPull", "message": message}}
    events = [
        (e["type"], e["reason"], e["message"])
        for e in (await client.get("/api/v1/namespaces/default/events")).json()["items"]
    ]
    assert events[1:] == [("Warning", "ErrImageNeverPull", message), ("Warning", "Failed", "Error: ErrImageNeverPull")]
