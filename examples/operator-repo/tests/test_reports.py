"""A report Job, run by fakeapi's simulated controllers: no status is written by hand.

The marker turns on the fake nodes, kube-scheduler, the kubelet and the Job controller for these
tests, and says what the report containers do. The clock is fake: ``fakeapi.advance(seconds)``
moves it, and the controllers do what falls due meanwhile, so the test waits on nothing real.
"""

from __future__ import annotations

import asyncio

import pytest
from fakeapi import OutcomeRule
from fakeapi.pytest_plugin import FakeAPI
from kubernetes_asyncio import client

from widget_operator.reports import start_report, wait_for_report

pytestmark = pytest.mark.fakeapi(
    controllers="all",
    outcomes=[
        OutcomeRule("succeed after 30s", image="reports/monthly:*"),
        OutcomeRule("exit 1 after 5s", image="reports/broken:*"),
    ],
)


async def test_a_report_job_runs_to_completion(fakeapi: FakeAPI, kube_api_client: client.ApiClient) -> None:
    await start_report(kube_api_client, "default", "monthly", image="reports/monthly:1.0")
    fakeapi.advance(29)
    status = fakeapi.get("batch/v1", "Job", "monthly")["status"]
    assert (status["active"], status.get("succeeded")) == (1, None)
    fakeapi.advance(1)
    assert await asyncio.wait_for(wait_for_report(kube_api_client, "default", "monthly"), 30) == "Complete"
    fakeapi.requests(verb="create", resource="pods").assert_count(0)  # the Job controller made the pod
    assert fakeapi.get("batch/v1", "Job", "monthly")["status"]["succeeded"] == 1


async def test_a_broken_report_job_fails(fakeapi: FakeAPI, kube_api_client: client.ApiClient) -> None:
    await start_report(kube_api_client, "default", "broken", image="reports/broken:1.0")
    fakeapi.advance(5)
    assert await asyncio.wait_for(wait_for_report(kube_api_client, "default", "broken"), 30) == "Failed"
