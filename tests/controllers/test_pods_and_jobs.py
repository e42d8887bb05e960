"""Simulated controllers on the fake clock, as a client sees them: watch events, status bytes,
managedFields, Events (docs/controllers.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakeapi import FakeAPIServer, OutcomeRule
from tests.conftest import RawClient
from tests.controllers.conftest import START

pytestmark = pytest.mark.asyncio

RULES = [
    OutcomeRule("succeed after 5s", image="busybox*"),
    OutcomeRule("exit 2 after 3s", image="failing"),
    OutcomeRule("oom-killed after 1s", image="hungry"),
    OutcomeRule("image-pull-failure", image="missing"),
    OutcomeRule("never-ready", image="shy"),
]


@pytest.fixture
def server_options() -> dict[str, Any]:
    return {"outcomes": RULES}


def pod(name: str, image: str, restart: str = "Never") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"restartPolicy": restart, "containers": [{"name": "main", "image": image}]},
    }


async def watch_events(client: RawClient, path: str, since: str, count: int) -> list[dict[str, Any]]:
    url = f"{client.base}{path}?watch=1&resourceVersion={since}"
    events: list[dict[str, Any]] = []
    async with client.session.get(url) as response:
        while len(events) < count:
            events.append(json.loads(await response.content.readline()))
    return events


async def test_a_pod_is_bound_started_and_finished_with_one_watch_event_per_write(
    server: FakeAPIServer, client: RawClient
) -> None:
    created = await client.post("/api/v1/namespaces/default/pods", pod("p", "busybox"))
    assert created.status == 201
    since = created.json()["metadata"]["resourceVersion"]
    server.advance(0)
    server.advance(5)
    events = await watch_events(client, "/api/v1/namespaces/default/pods", since, 4)
    assert [e["type"] for e in events] == ["MODIFIED"] * 4
    bound, pending, running, done = (e["object"] for e in events)
    assert bound["spec"]["nodeName"] == "node-1"
    assert bound["status"]["conditions"] == [
        {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": "2023-11-14T22:13:20Z"}
    ]
    assert pending["status"]["phase"] == "Pending"
    assert pending["status"]["containerStatuses"][0]["state"] == {"waiting": {"reason": "ContainerCreating"}}
    assert running["status"]["phase"] == "Running"
    # The node's first two pod addresses are CoreDNS's (docs/control-plane-pods.md).
    assert running["status"]["podIP"] == "10.244.0.4"
    assert [c["type"] for c in running["status"]["conditions"]] == [
        "PodReadyToStartContainers",
        "Initialized",
        "Ready",
        "ContainersReady",
        "PodScheduled",
    ]
    assert done["status"]["phase"] == "Succeeded"
    terminated = done["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"], terminated["finishedAt"]) == (
        0,
        "Completed",
        "2023-11-14T22:13:25Z",
    )
    revisions = [int(e["object"]["metadata"]["resourceVersion"]) for e in events]
    assert revisions == sorted(revisions) and len(set(revisions)) == 4
    managers = [(m["manager"], m["operation"], m.get("subresource")) for m in done["metadata"]["managedFields"]]
    assert ("kubelet", "Update", "status") in managers


async def test_the_components_emit_their_events(server: FakeAPIServer, client: RawClient) -> None:
    await client.post("/api/v1/namespaces/default/pods", pod("p", "busybox"))
    server.advance(0)
    events = (await client.get("/api/v1/namespaces/default/events")).json()["items"]
    seen = [(e["reason"], e["message"], e["reportingComponent"]) for e in events]
    assert seen == [
        ("Scheduled", "Successfully assigned default/p to node-1", "default-scheduler"),
        ("Pulling", 'Pulling image "busybox"', "kubelet"),
        (
            "Pulled",
            'Successfully pulled image "busybox" in 0s (0s including waiting). Image size: 10319344 bytes.',
            "kubelet",
        ),
        ("Created", "Created container: main", "kubelet"),
        ("Started", "Started container main", "kubelet"),
    ]
    scheduled = events[0]
    assert scheduled["action"] == "Binding" and scheduled["eventTime"] == "2023-11-14T22:13:20.000000Z"
    assert scheduled["source"] == {} and scheduled["firstTimestamp"] is None
    started = events[-1]
    assert started["source"] == {"component": "kubelet", "host": "node-1"}
    assert started["involvedObject"]["fieldPath"] == "spec.containers{main}"
    assert len({e["metadata"]["name"] for e in events}) == 5


async def test_nothing_runs_between_advances(server: FakeAPIServer, client: RawClient) -> None:
    await client.post("/api/v1/namespaces/default/pods", pod("p", "busybox"))
    server.advance(0)
    server.advance(4)
    assert (await client.get("/api/v1/namespaces/default/pods/p")).json()["status"]["phase"] == "Running"
    server.advance(1)
    assert (await client.get("/api/v1/namespaces/default/pods/p")).json()["status"]["phase"] == "Succeeded"


async def test_a_crash_looping_container_restarts_with_back_off(server: FakeAPIServer, client: RawClient) -> None:
    await client.post("/api/v1/namespaces/default/pods", pod("p", "failing", restart="Always"))
    server.advance(3)  # started, exited 2, restarted at once
    status = (await client.get("/api/v1/namespaces/default/pods/p")).json()["status"]
    container = status["containerStatuses"][0]
    assert (status["phase"], container["restartCount"], list(container["state"])) == ("Running", 1, ["running"])
    assert container["lastState"]["terminated"]["exitCode"] == 2
    assert container["lastState"]["terminated"]["reason"] == "Error"
    server.advance(3)  # exited again: back-off 10s
    status = (await client.get("/api/v1/namespaces/default/pods/p")).json()["status"]
    container = status["containerStatuses"][0]
    uid = (await client.get("/api/v1/namespaces/default/pods/p")).json()["metadata"]["uid"]
    assert container["state"]["waiting"] == {
        "reason": "CrashLoopBackOff",
        "message": f"back-off 10s restarting failed container=main pod=p_default({uid})",
    }
    assert status["phase"] == "Running"
    server.advance(10)
    container = (await client.get("/api/v1/namespaces/default/pods/p")).json()["status"]["containerStatuses"][0]
    assert (container["restartCount"], list(container["state"])) == (2, ["running"])


async def test_oom_killed_and_never_ready_and_failed_pods(server: FakeAPIServer, client: RawClient) -> None:
    await client.post("/api/v1/namespaces/default/pods", pod("oom", "hungry"))
    await client.post("/api/v1/namespaces/default/pods", pod("shy", "shy"))
    await client.post("/api/v1/namespaces/default/pods", pod("bad", "failing"))
    server.advance(3)
    oom = (await client.get("/api/v1/namespaces/default/pods/oom")).json()["status"]
    assert oom["phase"] == "Failed"
    assert oom["containerStatuses"][0]["state"]["terminated"]["reason"] == "OOMKilled"
    assert oom["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 137
    assert {c["type"]: c.get("reason") for c in oom["conditions"]}["Ready"] == "PodFailed"
    shy = (await client.get("/api/v1/namespaces/default/pods/shy")).json()["status"]
    ready = next(c for c in shy["conditions"] if c["type"] == "Ready")
    assert (shy["phase"], ready["status"], ready["message"]) == (
        "Running",
        "False",
        "containers with unready status: [main]",
    )
    bad = (await client.get("/api/v1/namespaces/default/pods/bad")).json()["status"]
    assert (bad["phase"], bad["containerStatuses"][0]["state"]["terminated"]["exitCode"]) == ("Failed", 2)


async def test_an_image_that_cannot_be_pulled(server: FakeAPIServer, client: RawClient) -> None:
    await client.post("/api/v1/namespaces/default/pods", pod("p", "missing"))
    server.advance(0)
    state = (await client.get("/api/v1/namespaces/default/pods/p")).json()["status"]["containerStatuses"][0]["state"]
    assert state["waiting"]["reason"] == "ErrImagePull"
    server.advance(10)
    status = (await client.get("/api/v1/namespaces/default/pods/p")).json()["status"]
    assert status["phase"] == "Pending"
    assert status["containerStatuses"][0]["state"] == {
        "waiting": {"reason": "ImagePullBackOff", "message": 'Back-off pulling image "missing"'}
    }


async def test_an_image_reference_that_does_not_parse_is_an_invalid_image_name(
    server: FakeAPIServer, client: RawClient
) -> None:
    image = "registry.example.com/team/app:pr-1488&debug=1"
    await client.post("/api/v1/namespaces/default/pods", pod("p", image))
    server.advance(60)
    response = await client.get("/api/v1/namespaces/default/pods/p")
    message = (
        f'Failed to apply default image tag "{image}": couldn\'t parse image name "{image}": invalid reference format'
    )
    status = response.json()["status"]
    assert status["phase"] == "Pending"
    assert status["containerStatuses"][0]["state"] == {"waiting": {"reason": "InvalidImageName", "message": message}}
    assert b'pr-1488\\u0026debug=1\\": invalid reference format"' in response.body  # Go's spelling of &
    events = (await client.get("/api/v1/namespaces/default/events")).json()["items"]
    kubelet = [(e["type"], e["reason"], e["message"]) for e in events if e["source"].get("component") == "kubelet"]
    assert kubelet == [("Warning", "InspectFailed", message), ("Warning", "Failed", "Error: InvalidImageName")]


async def test_an_upper_case_repository_is_named_in_the_invalid_image_message(
    server: FakeAPIServer, client: RawClient
) -> None:
    await client.post("/api/v1/namespaces/default/pods", pod("p", "Busybox"))
    server.advance(0)
    state = (await client.get("/api/v1/namespaces/default/pods/p")).json()["status"]["containerStatuses"][0]["state"]
    assert state["waiting"]["message"].endswith(
        'couldn\'t parse image name "Busybox": invalid reference format: repository name (library/Busybox) must be lowercase'
    )


def job(name: str, image: str, **spec: Any) -> dict[str, Any]:
    template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": image}]}}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name}, "spec": {**spec, "template": template}}


async def test_a_job_runs_its_pods_to_completion(server: FakeAPIServer, client: RawClient) -> None:
    created = await client.post("/apis/batch/v1/namespaces/default/jobs", job("j", "busybox", completions=2))
    assert created.status == 201
    uid = created.json()["metadata"]["uid"]
    server.advance(0)
    pods = (await client.get("/api/v1/namespaces/default/pods")).json()["items"]
    assert len(pods) == 1
    meta = pods[0]["metadata"]
    assert meta["name"].startswith("j-") and len(meta["name"]) == 7
    assert meta["labels"]["batch.kubernetes.io/job-name"] == "j"
    assert meta["labels"]["batch.kubernetes.io/controller-uid"] == uid
    assert meta["finalizers"] == ["batch.kubernetes.io/job-tracking"]
    assert meta["ownerReferences"] == [
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "name": "j",
            "uid": uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    status = (await client.get("/apis/batch/v1/namespaces/default/jobs/j")).json()["status"]
    assert status == {
        "startTime": "2023-11-14T22:13:20Z",
        "active": 1,
        "terminating": 0,
        "uncountedTerminatedPods": {},
        "ready": 1,
    }
    server.advance(10)
    reply = await client.get("/apis/batch/v1/namespaces/default/jobs/j")
    condition = (
        '"status":"True","lastProbeTime":"2023-11-14T22:13:30Z","lastTransitionTime":"2023-11-14T22:13:30Z",'
        '"reason":"CompletionsReached","message":"Reached expected number of succeeded pods"}'
    )
    assert reply.body.endswith(
        b'"status":{"conditions":[{"type":"SuccessCriteriaMet",' + condition.encode() + b',{"type":"Complete",'
        + condition.encode() + b'],"startTime":"2023-11-14T22:13:20Z","completionTime":"2023-11-14T22:13:30Z",'
        b'"succeeded":2,"terminating":0,"uncountedTerminatedPods":{},"ready":0}}\n'
    )  # fmt: skip
    pods = (await client.get("/api/v1/namespaces/default/pods")).json()["items"]
    assert [(p["status"]["phase"], p["metadata"].get("finalizers")) for p in pods] == [("Succeeded", None)] * 2
    managers = {m["manager"] for m in reply.json()["metadata"]["managedFields"]}
    assert "kube-controller-manager" in managers
    reasons = [e["reason"] for e in (await client.get("/api/v1/namespaces/default/events")).json()["items"]
               if e["involvedObject"]["kind"] == "Job"]  # fmt: skip
    assert reasons == ["SuccessfulCreate", "SuccessfulCreate", "Completed"]


async def test_a_job_fails_past_its_backoff_limit(server: FakeAPIServer, client: RawClient) -> None:
    await client.post("/apis/batch/v1/namespaces/default/jobs", job("f", "failing", backoffLimit=1))
    server.advance(3)  # the first pod failed; the replacement waits out the 10s back-off
    status = (await client.get("/apis/batch/v1/namespaces/default/jobs/f")).json()["status"]
    assert (status.get("active"), status["failed"]) == (None, 1)
    server.advance(10)
    assert (await client.get("/apis/batch/v1/namespaces/default/jobs/f")).json()["status"]["active"] == 1
    server.advance(3)
    status = (await client.get("/apis/batch/v1/namespaces/default/jobs/f")).json()["status"]
    assert status["failed"] == 2
    assert [(c["type"], c["reason"], c["message"]) for c in status["conditions"]] == [
        ("FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit"),
        ("Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit"),
    ]
    assert "completionTime" not in status


async def test_fake_nodes_are_registered_by_the_kubelet(client: RawClient) -> None:
    node = (await client.get("/api/v1/nodes/node-1")).json()
    # kubeadm marks the first node as the control plane (docs/control-plane-pods.md).
    assert [m["manager"] for m in node["metadata"]["managedFields"]] == ["kubeadm", "kubelet"]
    assert [(c["type"], c["status"], c["reason"]) for c in node["status"]["conditions"]] == [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID"),
        ("Ready", "True", "KubeletReady"),
    ]
    assert node["status"]["nodeInfo"]["kubeletVersion"] == "v1.32.0"


async def test_without_controllers_there_is_no_clock_to_advance() -> None:
    async with FakeAPIServer() as plain:
        with pytest.raises(RuntimeError, match="advance"):
            plain.advance(1)
        assert plain.find("v1", "Node", "node-1", "") is None


async def test_unknown_controllers_and_outcomes_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown controllers bogus"):
        FakeAPIServer(controllers="nodes,bogus")
    with pytest.raises(ValueError, match="unknown outcome 'explode'"):
        OutcomeRule("explode").resolved()


async def test_every_restore_gives_the_same_registered_node_and_nothing_written_since() -> None:
    server = FakeAPIServer(seed=3, clock=lambda: START)
    pristine = server.snapshot()
    server.set_controllers("all")
    server.restore(pristine)
    first = server.get("v1", "Node", "node-1", "")
    server.load(pod("p", "busybox"))
    server.advance(30)
    server.restore(pristine)
    assert server.get("v1", "Node", "node-1", "") == first
    assert server.find("v1", "Pod", "p") is None
    server.load(pod("p", "busybox"))
    server.advance(0)
    assert server.get("v1", "Pod", "p")["spec"]["nodeName"] == "node-1"
