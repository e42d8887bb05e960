"""The Deployment and ReplicaSet controllers on the fake clock, as a client sees them: ReplicaSets
named by the pod-template-hash, status and conditions, Events, managedFields (docs/controllers.md)."""

from __future__ import annotations

import copy
import json
from typing import Any

import aiohttp
import pytest

from fakeapi import FakeAPIServer, OutcomeRule
from fakeapi._cluster.podhash import compute_hash
from tests.conftest import RawClient
from tests.controllers.conftest import START

pytestmark = pytest.mark.asyncio

RULES = [OutcomeRule("never-ready", image="shy*")]
NOW = "2023-11-14T22:13:20Z"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
REPLICASETS = "/apis/apps/v1/namespaces/default/replicasets"
PODS = "/api/v1/namespaces/default/pods"

# The template `kubectl create deployment nginx --image=nginx` stores on a 1.32 cluster, whose
# ReplicaSet a published `kubectl describe deployment nginx` names nginx-5869d7778c.
NGINX_TEMPLATE: dict[str, Any] = {
    "metadata": {"creationTimestamp": None, "labels": {"app": "nginx"}},
    "spec": {
        "containers": [
            {
                "name": "nginx",
                "image": "nginx",
                "resources": {},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "imagePullPolicy": "Always",
            }
        ],
        "restartPolicy": "Always",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "securityContext": {},
        "schedulerName": "default-scheduler",
    },
}


@pytest.fixture
def server_options() -> dict[str, Any]:
    return {"outcomes": RULES}


def deployment(name: str = "nginx", replicas: int = 3, image: str = "nginx", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "nginx", "image": image}]},
            },
            **spec,
        },
    }


async def get(client: RawClient, path: str) -> dict[str, Any]:
    reply = await client.get(path)
    assert reply.status == 200, reply.json()
    result: dict[str, Any] = reply.json()
    return result


async def replicasets(client: RawClient) -> dict[str, dict[str, Any]]:
    items = (await get(client, REPLICASETS))["items"]
    return {rs["metadata"]["name"]: rs for rs in items}


async def sizes(client: RawClient) -> dict[str, int]:
    return {name: rs["spec"]["replicas"] for name, rs in (await replicasets(client)).items()}


async def events(client: RawClient, reason: str) -> list[str]:
    items = (await get(client, "/api/v1/namespaces/default/events"))["items"]
    return [e["message"] for e in items if e["reason"] == reason]


async def watch_events(client: RawClient, path: str, since: str, count: int) -> list[dict[str, Any]]:
    url = f"{client.base}{path}?watch=1&resourceVersion={since}"
    found: list[dict[str, Any]] = []
    async with client.session.get(url) as response:
        while len(found) < count:
            found.append(json.loads(await response.content.readline()))
    return found


async def merge_patch(client: RawClient, path: str, patch: dict[str, Any]) -> None:
    reply = await client.patch(path, patch, "application/merge-patch+json")
    assert reply.status == 200, reply.json()


async def set_image(client: RawClient, name: str, image: str) -> None:
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": image}]}}}}
    reply = await client.patch(f"{DEPLOYMENTS}/{name}", patch, "application/strategic-merge-patch+json")
    assert reply.status == 200, reply.json()


async def test_the_pod_template_hash_is_the_one_a_real_cluster_computes() -> None:
    assert compute_hash(NGINX_TEMPLATE) == "5869d7778c"
    assert compute_hash(NGINX_TEMPLATE, 1) != "5869d7778c"
    other = copy.deepcopy(NGINX_TEMPLATE)
    other["spec"]["containers"][0]["image"] = "nginx:1.27"
    assert compute_hash(other) != "5869d7778c"


async def test_a_deployment_rolls_out_its_first_replicaset(server: FakeAPIServer, client: RawClient) -> None:
    created = await client.post(DEPLOYMENTS, deployment())
    assert created.status == 201
    server.advance(0)
    [rs] = (await replicasets(client)).values()
    meta = rs["metadata"]
    assert meta["name"] == "nginx-5869d7778c"
    assert meta["labels"] == {"app": "nginx", "pod-template-hash": "5869d7778c"}
    assert meta["annotations"] == {
        "deployment.kubernetes.io/desired-replicas": "3",
        "deployment.kubernetes.io/max-replicas": "4",
        "deployment.kubernetes.io/revision": "1",
    }
    assert meta["ownerReferences"] == [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": "nginx",
            "uid": created.json()["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert rs["spec"]["selector"] == {"matchLabels": {"app": "nginx", "pod-template-hash": "5869d7778c"}}
    assert rs["status"] == {
        "replicas": 3,
        "fullyLabeledReplicas": 3,
        "readyReplicas": 3,
        "availableReplicas": 3,
        "observedGeneration": 1,
    }
    pods = (await get(client, PODS))["items"]
    assert len(pods) == 3
    for pod in pods:
        assert pod["metadata"]["name"].startswith("nginx-5869d7778c-") and len(pod["metadata"]["name"]) == 22
        assert pod["metadata"]["labels"] == {"app": "nginx", "pod-template-hash": "5869d7778c"}
        assert pod["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet"
        assert pod["metadata"]["ownerReferences"][0]["blockOwnerDeletion"] is True
        assert pod["status"]["phase"] == "Running"
    names = sorted(pod["metadata"]["name"] for pod in pods)
    assert sorted(await events(client, "SuccessfulCreate")) == [f"Created pod: {name}" for name in names]
    assert await events(client, "ScalingReplicaSet") == ["Scaled up replica set nginx-5869d7778c from 0 to 3"]

    d = await get(client, f"{DEPLOYMENTS}/nginx")
    assert d["metadata"]["annotations"] == {"deployment.kubernetes.io/revision": "1"}
    assert d["status"] == {
        "observedGeneration": 1,
        "replicas": 3,
        "updatedReplicas": 3,
        "readyReplicas": 3,
        "availableReplicas": 3,
        "conditions": [
            {
                "type": "Available",
                "status": "True",
                "lastUpdateTime": NOW,
                "lastTransitionTime": NOW,
                "reason": "MinimumReplicasAvailable",
                "message": "Deployment has minimum availability.",
            },
            {
                "type": "Progressing",
                "status": "True",
                "lastUpdateTime": NOW,
                "lastTransitionTime": NOW,
                "reason": "NewReplicaSetAvailable",
                "message": 'ReplicaSet "nginx-5869d7778c" has successfully progressed.',
            },
        ],
    }
    managers = {(m["manager"], m["operation"], m.get("subresource")) for m in d["metadata"]["managedFields"]}
    assert ("kube-controller-manager", "Update", "status") in managers
    rs_managers = {(m["manager"], m.get("subresource")) for m in rs["metadata"]["managedFields"]}
    assert rs_managers == {("kube-controller-manager", None), ("kube-controller-manager", "status")}
    all_events = (await get(client, "/api/v1/namespaces/default/events"))["items"]
    sources = {e["reason"]: e["source"] for e in all_events if e["reason"] in ("ScalingReplicaSet", "SuccessfulCreate")}
    assert sources == {
        "ScalingReplicaSet": {"component": "deployment-controller"},
        "SuccessfulCreate": {"component": "replicaset-controller"},
    }


async def test_a_name_taken_by_another_replicaset_bumps_the_collision_count(
    server: FakeAPIServer, client: RawClient
) -> None:
    squatter = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "nginx-5869d7778c"},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "other"}},
            "template": {
                "metadata": {"labels": {"app": "other"}},
                "spec": {"containers": [{"name": "c", "image": "x"}]},
            },
        },
    }
    assert (await client.post(REPLICASETS, squatter)).status == 201
    await client.post(DEPLOYMENTS, deployment(replicas=1))
    server.advance(0)
    d = await get(client, f"{DEPLOYMENTS}/nginx")
    assert d["status"]["collisionCount"] == 1
    second = f"nginx-{compute_hash(d['spec']['template'], 1)}"
    assert sorted(await sizes(client)) == sorted(["nginx-5869d7778c", second])
    assert (await replicasets(client))[second]["metadata"]["ownerReferences"][0]["name"] == "nginx"
    assert d["status"]["availableReplicas"] == 1


async def test_pods_that_never_become_ready_leave_it_unavailable(server: FakeAPIServer, client: RawClient) -> None:
    created = await client.post(DEPLOYMENTS, deployment(image="shy"))
    since = created.json()["metadata"]["resourceVersion"]
    server.advance(0)
    [name] = await sizes(client)
    first, second = (e["object"] for e in await watch_events(client, DEPLOYMENTS, since, 2))
    assert first["metadata"]["annotations"] == {"deployment.kubernetes.io/revision": "1"}
    assert first["status"] == {
        "conditions": [
            {
                "type": "Progressing",
                "status": "True",
                "lastUpdateTime": NOW,
                "lastTransitionTime": NOW,
                "reason": "NewReplicaSetCreated",
                "message": f'Created new replica set "{name}"',
            }
        ]
    }
    assert [c["reason"] for c in second["status"]["conditions"]] == [
        "NewReplicaSetCreated",
        "MinimumReplicasUnavailable",
    ]
    assert second["status"]["observedGeneration"] == 1
    d = await get(client, f"{DEPLOYMENTS}/nginx")
    assert d["status"]["conditions"] == [
        {
            "type": "Available",
            "status": "False",
            "lastUpdateTime": NOW,
            "lastTransitionTime": NOW,
            "reason": "MinimumReplicasUnavailable",
            "message": "Deployment does not have minimum availability.",
        },
        {
            "type": "Progressing",
            "status": "True",
            "lastUpdateTime": NOW,
            "lastTransitionTime": NOW,
            "reason": "ReplicaSetUpdated",
            "message": f'ReplicaSet "{name}" is progressing.',
        },
    ]
    assert (d["status"]["replicas"], d["status"]["updatedReplicas"], d["status"]["unavailableReplicas"]) == (3, 3, 3)
    assert "availableReplicas" not in d["status"] and "readyReplicas" not in d["status"]


async def test_a_refused_pod_sets_replica_failure_until_pods_can_be_created(
    server: FakeAPIServer, client: RawClient
) -> None:
    broken = deployment(replicas=2)
    broken["spec"]["template"]["spec"]["serviceAccountName"] = "robot"
    await client.post(DEPLOYMENTS, broken)
    server.advance(0)
    [name] = await sizes(client)
    refusal = (
        f'pods "{name}-" is forbidden: error looking up service account default/robot: serviceaccount "robot" not found'
    )
    assert await events(client, "FailedCreate") == [f"Error creating: {refusal}"]
    failed = (await get(client, f"{REPLICASETS}/{name}"))["status"]
    assert failed == {
        "replicas": 0,
        "observedGeneration": 1,
        "conditions": [
            {
                "type": "ReplicaFailure",
                "status": "True",
                "lastTransitionTime": NOW,
                "reason": "FailedCreate",
                "message": refusal,
            }
        ],
    }
    d = await get(client, f"{DEPLOYMENTS}/nginx")
    assert d["status"]["conditions"][-1] == {
        "type": "ReplicaFailure",
        "status": "True",
        "lastUpdateTime": NOW,
        "lastTransitionTime": NOW,
        "reason": "FailedCreate",
        "message": refusal,
    }
    server.advance(5)
    assert len(await events(client, "FailedCreate")) == 1
    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}}
    assert (await client.post("/api/v1/namespaces/default/serviceaccounts", account)).status == 201
    server.advance(0)
    rs = (await get(client, f"{REPLICASETS}/{name}"))["status"]
    assert "conditions" not in rs and rs["availableReplicas"] == 2
    d = await get(client, f"{DEPLOYMENTS}/nginx")
    assert [c["type"] for c in d["status"]["conditions"]] == ["Available", "Progressing"]


async def test_a_replicaset_the_apiserver_refuses_sets_progressing_false(
    server: FakeAPIServer, client: RawClient
) -> None:
    name = "d" * 250  # valid for the Deployment, too long for <name>-<hash>
    long = deployment(name=name, replicas=1)
    long["metadata"]["labels"] = long["spec"]["selector"]["matchLabels"] = {"app": "long"}
    long["spec"]["template"]["metadata"]["labels"] = {"app": "long"}
    assert (await client.post(DEPLOYMENTS, long)).status == 201
    server.advance(0)
    server.advance(1)
    assert await sizes(client) == {}
    d = await get(client, f"{DEPLOYMENTS}/{name}")
    progressing = next(c for c in d["status"]["conditions"] if c["type"] == "Progressing")
    assert (progressing["status"], progressing["reason"]) == ("False", "ReplicaSetCreateError")
    assert progressing["message"].startswith(f'Failed to create new replica set "{name}-')
    assert progressing["message"].endswith(": must be no more than 253 characters")
    # the Warning Event's name, <deployment>.<hex>, is longer than 253 characters, which a core/v1
    # Event may be (its name need only be a path segment, docs/events.md): it is recorded
    assert await events(client, "ReplicaSetCreateError") == [progressing["message"]]


async def test_a_rolling_update_rounds_surge_up_and_unavailable_down(server: FakeAPIServer, client: RawClient) -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}
    await client.post(DEPLOYMENTS, deployment(replicas=10, strategy=strategy))
    server.advance(0)
    await set_image(client, "nginx", "shy")
    server.advance(0)
    rs = await replicasets(client)
    old, new = sorted(rs, key=lambda name: rs[name]["metadata"]["annotations"]["deployment.kubernetes.io/revision"])
    # surge ceil(2.5) = 3 above 10, at most floor(2.5) = 2 unavailable: the new pods never become ready
    assert await sizes(client) == {old: 8, new: 5}
    assert rs[new]["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] == "13"
    assert await events(client, "ScalingReplicaSet") == [
        f"Scaled up replica set {old} from 0 to 10",
        f"Scaled up replica set {new} from 0 to 3",
        f"Scaled down replica set {old} from 10 to 8",
        f"Scaled up replica set {new} from 3 to 5",
    ]
    d = await get(client, f"{DEPLOYMENTS}/nginx")
    assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert (d["status"]["replicas"], d["status"]["updatedReplicas"], d["status"]["availableReplicas"]) == (13, 5, 8)
    assert d["status"]["unavailableReplicas"] == 5


async def test_integer_surge_and_unavailable(server: FakeAPIServer, client: RawClient) -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}
    await client.post(DEPLOYMENTS, deployment(replicas=3, strategy=strategy))
    server.advance(0)
    await set_image(client, "nginx", "nginx:1.27")
    server.advance(0)
    rs = await replicasets(client)
    assert sorted((await sizes(client)).values()) == [0, 3]
    old = next(name for name, r in rs.items() if r["spec"]["replicas"] == 0)
    new = next(name for name in rs if name != old)
    # no surge: every step removes one old pod before the new ReplicaSet grows by one
    assert await events(client, "ScalingReplicaSet") == [
        f"Scaled up replica set {old} from 0 to 3",
        f"Scaled down replica set {old} from 3 to 2",
        f"Scaled up replica set {new} from 0 to 1",
        f"Scaled down replica set {old} from 2 to 1",
        f"Scaled up replica set {new} from 1 to 2",
        f"Scaled down replica set {old} from 1 to 0",
        f"Scaled up replica set {new} from 2 to 3",
    ]


async def test_recreate_deletes_the_old_pods_before_creating_new_ones(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(DEPLOYMENTS, deployment(replicas=2, strategy={"type": "Recreate"}))
    server.advance(0)
    old_pods = {pod["metadata"]["name"] for pod in (await get(client, PODS))["items"]}
    await set_image(client, "nginx", "nginx:1.27")
    server.advance(0)
    rs = await replicasets(client)
    old, new = sorted(rs, key=lambda name: rs[name]["metadata"]["annotations"]["deployment.kubernetes.io/revision"])
    assert await sizes(client) == {old: 0, new: 2}
    assert await events(client, "ScalingReplicaSet") == [
        f"Scaled up replica set {old} from 0 to 2",
        f"Scaled down replica set {old} from 2 to 0",
        f"Scaled up replica set {new} from 0 to 2",
    ]
    assert sorted(await events(client, "SuccessfulDelete")) == [f"Deleted pod: {name}" for name in sorted(old_pods)]
    assert rs[new]["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] == "2"


async def test_recreate_waits_for_old_pods_to_be_gone(server: FakeAPIServer, client: RawClient) -> None:
    held = deployment(replicas=1, strategy={"type": "Recreate"})
    held["spec"]["template"]["metadata"]["finalizers"] = ["example.com/hold"]
    held["spec"]["template"]["spec"]["nodeName"] = "elsewhere"  # no simulated kubelet kills it
    await client.post(DEPLOYMENTS, held)
    server.advance(0)
    [pod] = (await get(client, PODS))["items"]
    assert pod["metadata"]["finalizers"] == ["example.com/hold"]
    await set_image(client, "nginx", "nginx:1.27")
    server.advance(0)
    [old] = await sizes(client)
    assert await sizes(client) == {old: 0}
    marked = (await get(client, f"{PODS}/{pod['metadata']['name']}"))["metadata"]
    # Deleted gracefully: the pod's 30 s grace period (docs/graceful-deletion.md).
    assert (marked["deletionTimestamp"], marked["deletionGracePeriodSeconds"]) == ("2023-11-14T22:13:50Z", 30)
    await merge_patch(client, f"{PODS}/{pod['metadata']['name']}", {"metadata": {"finalizers": None}})
    server.advance(0)
    assert await sizes(client) == {old: 0}  # no kubelet ends its grace period
    forced = await client.delete(f"{PODS}/{pod['metadata']['name']}?gracePeriodSeconds=0")
    assert forced.status == 200
    server.advance(0)
    assert sorted((await sizes(client)).values()) == [0, 1]


async def test_the_progress_deadline_passes_on_the_fake_clock(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(DEPLOYMENTS, deployment(image="shy", progressDeadlineSeconds=30))
    server.advance(0)
    [name] = await sizes(client)
    server.advance(30)
    progressing = next(
        c for c in (await get(client, f"{DEPLOYMENTS}/nginx"))["status"]["conditions"] if c["type"] == "Progressing"
    )
    assert progressing["reason"] == "ReplicaSetUpdated"
    server.advance(1)
    d = await get(client, f"{DEPLOYMENTS}/nginx")
    progressing = next(c for c in d["status"]["conditions"] if c["type"] == "Progressing")
    assert progressing == {
        "type": "Progressing",
        "status": "False",
        "lastUpdateTime": "2023-11-14T22:13:51Z",
        "lastTransitionTime": "2023-11-14T22:13:51Z",
        "reason": "ProgressDeadlineExceeded",
        "message": f'ReplicaSet "{name}" has timed out progressing.',
    }


async def test_min_ready_seconds_delays_availability(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(DEPLOYMENTS, deployment(replicas=2, minReadySeconds=10))
    server.advance(0)
    [rs] = (await replicasets(client)).values()
    assert rs["spec"]["minReadySeconds"] == 10
    assert (rs["status"]["readyReplicas"], rs["status"].get("availableReplicas")) == (2, None)
    available = next(
        c for c in (await get(client, f"{DEPLOYMENTS}/nginx"))["status"]["conditions"] if c["type"] == "Available"
    )
    assert available["status"] == "False"
    server.advance(9)
    assert "availableReplicas" not in (await replicasets(client))[rs["metadata"]["name"]]["status"]
    server.advance(1)
    assert (await replicasets(client))[rs["metadata"]["name"]]["status"]["availableReplicas"] == 2
    d = await get(client, f"{DEPLOYMENTS}/nginx")
    assert d["status"]["availableReplicas"] == 2
    assert {c["type"]: c["reason"] for c in d["status"]["conditions"]} == {
        "Available": "MinimumReplicasAvailable",
        "Progressing": "NewReplicaSetAvailable",
    }


async def test_scaling_down_deletes_the_cheapest_then_the_newest_pods(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(DEPLOYMENTS, deployment(replicas=2))
    server.advance(0)
    first = sorted(pod["metadata"]["name"] for pod in (await get(client, PODS))["items"])
    server.advance(100)
    await merge_patch(client, f"{DEPLOYMENTS}/nginx", {"spec": {"replicas": 4}})
    server.advance(0)
    later = sorted({pod["metadata"]["name"] for pod in (await get(client, PODS))["items"]} - set(first))
    cost = {"metadata": {"annotations": {"controller.kubernetes.io/pod-deletion-cost": "-5"}}}
    await merge_patch(client, f"{PODS}/{first[1]}", cost)
    await merge_patch(client, f"{DEPLOYMENTS}/nginx", {"spec": {"replicas": 1}})
    server.advance(0)
    deleted = await events(client, "SuccessfulDelete")
    assert deleted[0] == f"Deleted pod: {first[1]}"
    assert sorted(deleted[1:]) == [f"Deleted pod: {name}" for name in later]
    assert [pod["metadata"]["name"] for pod in (await get(client, PODS))["items"]] == [first[0]]
    assert (await events(client, "ScalingReplicaSet"))[-1].endswith("from 4 to 1")


async def test_old_replicasets_beyond_the_history_limit_are_deleted(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(DEPLOYMENTS, deployment(replicas=1, revisionHistoryLimit=1))
    server.advance(0)
    for image in ("nginx:1.26", "nginx:1.27"):
        await set_image(client, "nginx", image)
        server.advance(0)
    rs = await replicasets(client)
    revisions = sorted(r["metadata"]["annotations"]["deployment.kubernetes.io/revision"] for r in rs.values())
    assert revisions == ["2", "3"]
    assert (await get(client, f"{DEPLOYMENTS}/nginx"))["metadata"]["annotations"] == {
        "deployment.kubernetes.io/revision": "3"
    }


async def test_a_paused_deployment_scales_but_does_not_roll_out(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(DEPLOYMENTS, deployment(replicas=2))
    server.advance(0)
    [name] = await sizes(client)
    await merge_patch(client, f"{DEPLOYMENTS}/nginx", {"spec": {"paused": True}})
    server.advance(0)
    progressing = next(
        c for c in (await get(client, f"{DEPLOYMENTS}/nginx"))["status"]["conditions"] if c["type"] == "Progressing"
    )
    assert (progressing["status"], progressing["reason"], progressing["message"]) == (
        "Unknown",
        "DeploymentPaused",
        "Deployment is paused",
    )
    await set_image(client, "nginx", "nginx:1.27")
    await merge_patch(client, f"{DEPLOYMENTS}/nginx", {"spec": {"replicas": 3}})
    server.advance(0)
    assert await sizes(client) == {name: 3}
    rs = (await replicasets(client))[name]
    assert rs["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] == "3"
    await merge_patch(client, f"{DEPLOYMENTS}/nginx", {"spec": {"paused": False}})
    server.advance(0)
    d = await get(client, f"{DEPLOYMENTS}/nginx")
    assert len(await sizes(client)) == 2
    assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    reasons = {c["type"]: c["reason"] for c in d["status"]["conditions"]}
    assert reasons == {"Available": "MinimumReplicasAvailable", "Progressing": "NewReplicaSetAvailable"}


async def test_scaling_a_rollout_shares_replicas_in_proportion(server: FakeAPIServer, client: RawClient) -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 3, "maxUnavailable": 2}}
    await client.post(DEPLOYMENTS, deployment(replicas=10, strategy=strategy))
    server.advance(0)
    await set_image(client, "nginx", "shy")
    server.advance(0)
    before = await sizes(client)
    assert sorted(before.values()) == [5, 8]
    await merge_patch(client, f"{DEPLOYMENTS}/nginx", {"spec": {"replicas": 20}})
    server.advance(0)
    after = await sizes(client)
    # 23 allowed, 13 held: 10 more shared by max-replicas (13) shares: 8*23/13 -> 14, 5*23/13 -> 9
    assert sorted(after.values()) == [9, 14]
    assert all(
        r["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] == "20"
        for r in (await replicasets(client)).values()
    )


class Interrupted(Exception):
    """Raised out of the store right after one write, as if the controller process died there."""


def interrupt_after(server: FakeAPIServer, writes: int) -> list[int]:
    """Make the ``writes``-th store write from now on raise once it is done; returns the write counter."""
    store = server._simulation.store  # type: ignore[union-attr]
    counter = [0]
    for method in ("create", "update", "delete"):
        original = getattr(store, method)

        def wrapped(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            result = _original(*args, **kwargs)
            counter[0] += 1
            if counter[0] == writes:
                raise Interrupted
            return result

        setattr(store, method, wrapped)
    return counter


async def rollout_outcome(client: RawClient) -> tuple[Any, ...]:
    d = await get(client, f"{DEPLOYMENTS}/nginx")
    rs = await replicasets(client)
    pods = (await get(client, PODS))["items"]
    return (
        d["metadata"]["annotations"],
        {key: value for key, value in d["status"].items() if key != "conditions"},
        [(c["type"], c["status"], c["reason"], c["message"]) for c in d["status"]["conditions"]],
        # how many steps the rollout took depends on what each sync saw, so not the ReplicaSets' generations
        {
            name: (r["spec"]["replicas"], {k: v for k, v in r["status"].items() if k != "observedGeneration"})
            for name, r in rs.items()
        },
        {name: r["metadata"]["annotations"] for name, r in rs.items()},
        sorted((p["metadata"]["labels"]["pod-template-hash"], p["status"]["phase"]) for p in pods),
    )


@pytest.mark.parametrize("writes", range(1, 40, 3))
async def test_a_rollout_interrupted_after_any_write_finishes_the_same(writes: int) -> None:
    async def run(interrupt: int | None) -> tuple[Any, ...]:
        async with (
            FakeAPIServer(controllers="all", clock=lambda: START, seed=7) as running,
            aiohttp.ClientSession(auto_decompress=False) as session,
        ):
            client = RawClient(session, running.url)
            await client.post(DEPLOYMENTS, deployment(replicas=4))
            running.advance(0)
            await set_image(client, "nginx", "nginx:1.27")
            if interrupt is not None:
                counter = interrupt_after(running, interrupt)
                with pytest.raises(Interrupted):
                    running.advance(0)
                assert counter[0] == interrupt
                counter[0] = -(10**9)
            running.advance(0)
            return await rollout_outcome(client)

    assert await run(writes) == await run(None)
