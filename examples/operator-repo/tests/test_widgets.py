"""The Widget operator against fakeapi: the claim alone, then the whole operator under kopf."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from fakeapi.pytest_plugin import FakeAPI
from kopf.testing import KopfRunner
from kubernetes_asyncio import client

from widget_operator.handlers import GROUP, JSON_PATCH, PLURAL, VERSION, claim_completion

WIDGET = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"size": 3}}


async def eventually(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Poll until ``condition`` holds; kopf handles events on its own schedule."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


@pytest.mark.fakeapi(crds=["deploy/crds"], objects=[WIDGET])
async def test_two_replicas_claim_one_widget_once(fakeapi: FakeAPI, kube_api_client: client.ApiClient) -> None:
    read = await client.CustomObjectsApi(kube_api_client).get_namespaced_custom_object(
        GROUP, VERSION, "default", PLURAL, "w1"
    )

    won = await claim_completion(kube_api_client, read, claimant="replica-a")
    lost = await claim_completion(kube_api_client, read, claimant="replica-b")

    assert (won, lost) == (True, False)
    assert fakeapi.get("example.com/v1", "Widget", "w1")["status"] == {"completedBy": "replica-a"}
    claims = fakeapi.requests(verb="patch", resource="widgets", name="w1", subresource="status")
    claims.assert_one(content_type=JSON_PATCH, status=200)
    claims.assert_one(content_type=JSON_PATCH, status=422)


@pytest.mark.fakeapi(crds=["deploy/crds"])
async def test_operator_completes_a_widget_and_lets_it_go(fakeapi: FakeAPI, kube_api_client: client.ApiClient) -> None:
    widgets = client.CustomObjectsApi(kube_api_client)

    def phase() -> Any:
        widget = fakeapi.find("example.com/v1", "Widget", "w1")
        return "gone" if widget is None else (widget.get("status") or {}).get("phase")

    arguments = ["run", "--standalone", "--namespace=default", "-m", "widget_operator.handlers"]
    with KopfRunner(arguments, timeout=30) as runner:
        await widgets.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, WIDGET)
        await eventually(lambda: phase() == "Completed", "the widget to complete")
        await widgets.delete_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "w1")
        await eventually(lambda: phase() == "gone", "the widget to go")

    assert runner.exit_code == 0, runner.output
    status_patches = fakeapi.requests(verb="patch", resource="widgets", name="w1", subresource="status")
    status_patches.assert_one(content_type=JSON_PATCH, status=200)
    status_patches.assert_one(content_type="application/merge-patch+json", status=200)
    fakeapi.requests(verb="delete", resource="widgets", name="w1").assert_one(status=200)
