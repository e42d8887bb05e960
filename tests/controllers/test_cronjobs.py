"""The simulated CronJob controller on the fake clock: the Jobs it creates at each schedule time, its
status, the concurrency policies, missed schedules, history limits and its Events (docs/controllers.md)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi import FakeAPIServer, OutcomeRule
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

# A Job's pod succeeds after a second unless a rule says otherwise (docs/cluster-defaults.md).
RULES = [
    OutcomeRule("succeed after 5s", image="busybox"),
    OutcomeRule("exit 1 after 5s", image="failing"),
    OutcomeRule("run", image="forever"),
]
CRONJOBS = "/apis/batch/v1/namespaces/default/cronjobs"
JOBS = "/apis/batch/v1/namespaces/default/jobs"


@pytest.fixture
def server_options() -> dict[str, Any]:
    return {"outcomes": RULES}


def cron_job(name: str, schedule: str, image: str = "busybox", **spec: Any) -> dict[str, Any]:
    pod = {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": image}]}}
    template = {"metadata": {"labels": {"app": name}, "annotations": {"team": "a"}}, "spec": {"template": pod}}
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name},
        "spec": {"schedule": schedule, "jobTemplate": template, **spec},
    }


async def jobs(client: RawClient) -> list[dict[str, Any]]:
    return list((await client.get(JOBS)).json()["items"])


async def events(client: RawClient) -> list[tuple[str, str, str, str]]:
    items = (await client.get("/api/v1/namespaces/default/events")).json()["items"]
    return [
        (e["lastTimestamp"][11:19], e["type"], e["reason"], e["message"])
        for e in items
        if e["involvedObject"]["kind"] == "CronJob"
    ]


async def test_each_schedule_time_gets_its_job(server: FakeAPIServer, client: RawClient) -> None:
    created = (await client.post(CRONJOBS, cron_job("hourly", "0 * * * *"))).json()
    server.advance(3600)  # 22:13:20 to 23:13:20: one schedule time, 23:00
    [job] = await jobs(client)
    meta = job["metadata"]
    assert meta["name"] == "hourly-28333380"  # 23:00 UTC in minutes since the epoch
    assert meta["creationTimestamp"] == "2023-11-14T23:00:00Z"
    assert meta["labels"]["app"] == "hourly"
    assert meta["annotations"] == {
        "batch.kubernetes.io/cronjob-scheduled-timestamp": "2023-11-14T23:00:00Z",
        "team": "a",
    }
    assert meta["ownerReferences"] == [
        {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "name": "hourly",
            "uid": created["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert job["status"]["conditions"][-1]["type"] == "Complete"  # the Job controller ran it
    cron = (await client.get(f"{CRONJOBS}/hourly")).json()
    assert cron["status"] == {"lastScheduleTime": "2023-11-14T23:00:00Z", "lastSuccessfulTime": "2023-11-14T23:00:05Z"}
    managers = [(m["manager"], m.get("subresource")) for m in cron["metadata"]["managedFields"]]
    assert ("kube-controller-manager", "status") in managers
    assert await events(client) == [
        ("23:00:00", "Normal", "SuccessfulCreate", "Created job hourly-28333380"),
        ("23:00:05", "Normal", "SawCompletedJob", "Saw completed job: hourly-28333380, condition: Complete"),
    ]
    sources = {e["source"]["component"] for e in (await client.get("/api/v1/namespaces/default/events")).json()["items"]
               if e["involvedObject"]["kind"] == "CronJob"}  # fmt: skip
    assert sources == {"cronjob-controller"}


async def test_the_active_list_references_the_running_job(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(CRONJOBS, cron_job("c", "*/10 * * * *", image="forever"))
    server.advance(6 * 60 + 40)  # to 22:20:00
    [job] = await jobs(client)
    status = (await client.get(f"{CRONJOBS}/c")).json()["status"]
    assert status == {
        "active": [
            {
                "kind": "Job",
                "namespace": "default",
                "name": "c-28333340",
                "uid": job["metadata"]["uid"],
                "apiVersion": "batch/v1",
                "resourceVersion": status["active"][0]["resourceVersion"],
            }
        ],
        "lastScheduleTime": "2023-11-14T22:20:00Z",
    }
    assert int(status["active"][0]["resourceVersion"]) <= int(job["metadata"]["resourceVersion"])


async def test_forbid_skips_a_time_while_a_job_runs(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(CRONJOBS, cron_job("f", "* * * * *", image="forever", concurrencyPolicy="Forbid"))
    server.advance(40 + 120)  # 22:14, 22:15, 22:16
    assert [j["metadata"]["name"] for j in await jobs(client)] == ["f-28333334"]
    message = "Not starting job because prior execution is running and concurrency policy is Forbid"
    assert await events(client) == [
        ("22:14:00", "Normal", "SuccessfulCreate", "Created job f-28333334"),
        ("22:15:00", "Normal", "JobAlreadyActive", message),
        ("22:16:00", "Normal", "JobAlreadyActive", message),
    ]


async def test_replace_deletes_the_running_job(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(CRONJOBS, cron_job("r", "* * * * *", image="forever", concurrencyPolicy="Replace"))
    server.advance(40 + 60)  # 22:14, 22:15
    assert [j["metadata"]["name"] for j in await jobs(client)] == ["r-28333335"]
    assert await events(client) == [
        ("22:14:00", "Normal", "SuccessfulCreate", "Created job r-28333334"),
        ("22:15:00", "Normal", "SuccessfulDelete", "Deleted job r-28333334"),
        ("22:15:00", "Normal", "SuccessfulCreate", "Created job r-28333335"),
    ]
    status = (await client.get(f"{CRONJOBS}/r")).json()["status"]
    assert [ref["name"] for ref in status["active"]] == ["r-28333335"]
    pods = (await client.get("/api/v1/namespaces/default/pods")).json()["items"]
    deleting = {p["metadata"]["ownerReferences"][0]["name"]: "deletionTimestamp" in p["metadata"] for p in pods}
    # The garbage collector deletes the old pod, the Job controller releases its tracking finalizer
    # (its Job is gone) and the kubelet stops it: it is gone (docs/graceful-deletion.md).
    assert deleting == {"r-28333335": False}


async def test_allow_runs_jobs_side_by_side(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(CRONJOBS, cron_job("a", "* * * * *", image="forever"))
    server.advance(40 + 60)
    assert [j["metadata"]["name"] for j in await jobs(client)] == ["a-28333334", "a-28333335"]
    status = (await client.get(f"{CRONJOBS}/a")).json()["status"]
    assert [ref["name"] for ref in status["active"]] == ["a-28333334", "a-28333335"]


async def test_history_limits_delete_the_oldest_finished_jobs(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(CRONJOBS, cron_job("h", "* * * * *", successfulJobsHistoryLimit=1, failedJobsHistoryLimit=0))
    server.advance(40 + 120 + 10)  # jobs at 22:14, 22:15, 22:16, each complete 5s later
    assert [j["metadata"]["name"] for j in await jobs(client)] == ["h-28333336"]
    deletes = [e for e in await events(client) if e[2] == "SuccessfulDelete"]
    assert deletes == [
        ("22:15:05", "Normal", "SuccessfulDelete", "Deleted job h-28333334"),
        ("22:16:05", "Normal", "SuccessfulDelete", "Deleted job h-28333335"),
    ]
    await client.post(CRONJOBS, cron_job("bad", "* * * * *", image="failing", failedJobsHistoryLimit=0))
    await client.patch(f"{CRONJOBS}/bad", [{"op": "add", "path": "/spec/jobTemplate/spec/backoffLimit", "value": 0}])
    server.advance(60)  # 22:17 the Job starts; its pod fails at 22:17:05
    names = [j["metadata"]["name"] for j in await jobs(client)]
    assert not any(name.startswith("bad-") for name in names)
    assert ("22:17:05", "Normal", "SuccessfulDelete", "Deleted job bad-28333337") in await events(client)


async def test_a_suspended_cron_job_creates_nothing(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(CRONJOBS, cron_job("s", "* * * * *", suspend=True))
    server.advance(600)
    assert await jobs(client) == []
    assert (
        "status" not in (await client.get(f"{CRONJOBS}/s")).json()
        or not (await client.get(f"{CRONJOBS}/s")).json()["status"]
    )


async def test_resuming_after_many_missed_times_warns_and_runs_the_latest(
    server: FakeAPIServer, client: RawClient
) -> None:
    await client.post(CRONJOBS, cron_job("m", "* * * * *", suspend=True))
    server.advance(102 * 60)  # to 23:55:20: 102 minutes went by
    patch = [{"op": "replace", "path": "/spec/suspend", "value": False}]
    await client.patch(f"{CRONJOBS}/m", patch)
    server.advance(0)
    assert [j["metadata"]["name"] for j in await jobs(client)] == ["m-28333435"]  # 23:55, the latest
    assert await events(client) == [
        (
            "23:55:20",
            "Warning",
            "TooManyMissedTimes",
            "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
        ),
        ("23:55:20", "Normal", "SuccessfulCreate", "Created job m-28333435"),
    ]


async def test_a_starting_deadline_drops_a_time_missed_for_too_long(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(CRONJOBS, cron_job("d", "0 * * * *", suspend=True, startingDeadlineSeconds=60))
    await client.post(CRONJOBS, cron_job("e", "0 * * * *", suspend=True, startingDeadlineSeconds=600))
    server.advance(3600 - 800 + 120)  # to 23:02:00, two minutes after the 23:00 time
    patch = [{"op": "replace", "path": "/spec/suspend", "value": False}]
    await client.patch(f"{CRONJOBS}/d", patch)
    await client.patch(f"{CRONJOBS}/e", patch)
    server.advance(0)
    assert [j["metadata"]["name"] for j in await jobs(client)] == ["e-28333380"]
    server.advance(3600)
    names = [j["metadata"]["name"] for j in await jobs(client)]
    assert names == ["d-28333440", "e-28333380", "e-28333440"]


async def test_a_time_zone_moves_the_schedule(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(CRONJOBS, cron_job("tokyo", "0 9 * * *", timeZone="Asia/Tokyo"))
    server.advance(3600 * 2)  # 09:00 in Tokyo is 00:00 UTC
    [job] = await jobs(client)
    assert job["metadata"]["name"] == "tokyo-28333440"
    assert job["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] == (
        "2023-11-15T09:00:00+09:00"
    )
    assert job["metadata"]["creationTimestamp"] == "2023-11-15T00:00:00Z"


async def test_a_job_gone_from_the_active_list_is_reported_missing(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(CRONJOBS, cron_job("g", "*/30 * * * *", image="forever"))
    server.advance(60 * 17)  # 22:30
    await client.delete(f"{JOBS}/g-28333350")
    server.advance(0)
    assert (await events(client))[-1] == ("22:30:20", "Normal", "MissingJob", "Active job went missing: g-28333350")
    assert "active" not in (await client.get(f"{CRONJOBS}/g")).json()["status"]
