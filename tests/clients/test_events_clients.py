"""Real clients over the one set of Events (docs/events.md): kubectl lists through core/v1 what was
written through events.k8s.io/v1, and kubernetes_asyncio's EventsV1Api and CoreV1Api see the same
objects, each in its own shape.

The kubectl tests share ``test_kubectl``'s session (one ``fakeapi serve`` per module).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from kubernetes_asyncio import client as async_client
from kubernetes_asyncio import config as async_config
from kubernetes_asyncio import watch as async_watch

from fakeapi.server import FakeAPIServer
from tests.clients.test_kubectl import Kubectl, kubectl, table

__all__ = ["kubectl"]

EVENT = {
    "apiVersion": "events.k8s.io/v1",
    "kind": "Event",
    "metadata": {"name": "scaled.1", "namespace": "default"},
    "eventTime": "2024-01-01T10:00:00.000000Z",
    "reportingController": "example.com/scaler",
    "reportingInstance": "scaler-0",
    "action": "Scale",
    "reason": "ScaledUp",
    "regarding": {"kind": "Deployment", "namespace": "default", "name": "web", "apiVersion": "apps/v1"},
    "note": "replicas 1 -> 3",
    "type": "Normal",
}


def test_kubectl_lists_through_core_v1_an_event_written_through_events_k8s_io(kubectl: Kubectl) -> None:
    kubectl.ok("create", "-f", "-", stdin=json.dumps(EVENT))
    rows = table(kubectl.ok("get", "events", "-n", "default", "--field-selector", "reason=ScaledUp"))
    assert rows[0].split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert rows[1].split()[1:] == ["Normal", "ScaledUp", "deployment/web", "replicas", "1", "->", "3"]
    core = json.loads(kubectl.ok("get", "events", "scaled.1", "-n", "default", "-o", "json"))
    assert (core["apiVersion"], core["message"], core["involvedObject"]["name"]) == ("v1", "replicas 1 -> 3", "web")
    assert core["reportingComponent"] == "example.com/scaler"
    new = json.loads(kubectl.ok("get", "events.v1.events.k8s.io", "scaled.1", "-n", "default", "-o", "json"))
    assert (new["apiVersion"], new["note"]) == ("events.k8s.io/v1", "replicas 1 -> 3")
    assert new["metadata"]["uid"] == core["metadata"]["uid"]
    assert new["metadata"]["resourceVersion"] == core["metadata"]["resourceVersion"]
    rows = table(kubectl.ok("events", "-n", "default", "--for", "deployment/web"))
    assert rows[0].split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert rows[1].split()[1:] == ["Normal", "ScaledUp", "Deployment/web", "replicas", "1", "->", "3"]
    kubectl.ok("delete", "events.v1.events.k8s.io", "scaled.1", "-n", "default")
    assert "scaled.1" not in kubectl.ok("get", "events", "-n", "default", "-o", "name")


@pytest.mark.asyncio
async def test_kubernetes_asyncio_events_v1_create_then_core_v1_list_and_read(tmp_path: Path) -> None:
    async with FakeAPIServer() as server:
        kubeconfig = server.kubeconfig(tmp_path / "config")
        api_client = await async_config.new_client_from_config(config_file=str(kubeconfig))
        async with api_client:
            events = async_client.EventsV1Api(api_client)
            core = async_client.CoreV1Api(api_client)
            created = await events.create_namespaced_event("default", EVENT)
            assert created.note == "replicas 1 -> 3"
            listed = await core.list_namespaced_event("default", field_selector="involvedObject.name=web")
            assert [(e.metadata.name, e.message, e.reporting_component) for e in listed.items] == [
                ("scaled.1", "replicas 1 -> 3", "example.com/scaler")
            ]
            read = await core.read_namespaced_event("scaled.1", "default")
            assert read.metadata.uid == created.metadata.uid
            assert read.involved_object.kind == "Deployment"
            patched = await core.patch_namespaced_event("scaled.1", "default", {"count": 2})
            assert patched.metadata.resource_version == str(int(created.metadata.resource_version) + 1)
            again = await events.read_namespaced_event("scaled.1", "default")
            assert (again.deprecated_count, again.metadata.resource_version) == (2, patched.metadata.resource_version)
            found = await events.list_namespaced_event("default", field_selector="regarding.name=web")
            assert [e.metadata.name for e in found.items] == ["scaled.1"]


@pytest.mark.asyncio
async def test_kubernetes_asyncio_watch_on_events_v1_sees_a_core_v1_create(tmp_path: Path) -> None:
    async with FakeAPIServer() as server:
        kubeconfig = server.kubeconfig(tmp_path / "config")
        api_client = await async_config.new_client_from_config(config_file=str(kubeconfig))
        async with api_client:
            events = async_client.EventsV1Api(api_client)
            core = async_client.CoreV1Api(api_client)

            async def first_event() -> tuple[str, Any]:
                watching = async_watch.Watch()
                async for event in watching.stream(events.list_namespaced_event, "default", timeout_seconds=10):
                    watching.stop()
                    return event["type"], event["object"]
                raise AssertionError("the watch ended without an event")

            task = asyncio.create_task(first_event())
            while not server._state.store.hub.watchers:
                await asyncio.sleep(0.001)
            # The client's EventsV1Event refuses a null eventTime, so the core Event carries one (and
            # then the reporting fields core/v1 requires with it).
            core_event = {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": "pulled.1"},
                "involvedObject": {"kind": "Pod", "namespace": "default", "name": "p"},
                "reason": "Pulled",
                "message": "image pulled",
                "source": {"component": "kubelet", "host": "node-1"},
                "count": 1,
                "type": "Normal",
                "eventTime": "2024-01-01T10:00:00.000000Z",
                "action": "Pull",
                "reportingComponent": "kubelet",
                "reportingInstance": "node-1",
            }
            await core.create_namespaced_event("default", core_event)
            kind, seen = await task
            assert kind == "ADDED"
            assert (seen.note, seen.regarding.name, seen.deprecated_source.component, seen.deprecated_count) == (
                "image pulled",
                "p",
                "kubelet",
                1,
            )
            assert seen.reporting_controller == "kubelet"
