"""PriorityClasses validated, and honoured by the Priority admission plugin: one global default, pods resolved."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import RawClient
from tests.http.test_builtin_validation import assert_rejected, status_422

pytestmark = pytest.mark.asyncio

CLASSES = "/apis/scheduling.k8s.io/v1/priorityclasses"
PODS = "/api/v1/namespaces/default/pods"


def priority_class(name: str, value: int, **fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        **fields,
    }


def pod(name: str = "p", **spec: Any) -> dict[str, Any]:
    containers = [{"name": "main", "image": "busybox:1.36"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": containers, **spec}}


def forbidden_403(resource: str, group: str, name: str, problem: str) -> bytes:
    subject = f"{resource}.{group}" if group else resource
    details = {"name": name, **({"group": group} if group else {}), "kind": resource}
    return (
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
        + json.dumps(f'{subject} "{name}" is forbidden: {problem}')
        + ',"reason":"Forbidden","details":'
        + json.dumps(details, separators=(",", ":"))
        + ',"code":403}\n'
    ).encode()


async def test_a_pod_without_a_class_gets_the_global_default(client: RawClient) -> None:
    plain = await client.post(PODS, pod("before"))
    assert (plain.json()["spec"]["priority"], plain.json()["spec"].get("priorityClassName")) == (0, None)
    assert (await client.post(CLASSES, priority_class("low", 100, globalDefault=True))).status == 201
    admitted = await client.post(PODS, pod())
    assert admitted.status == 201
    spec = admitted.json()["spec"]
    assert (spec["priorityClassName"], spec["priority"], spec["preemptionPolicy"]) == (
        "low",
        100,
        "PreemptLowerPriority",
    )


async def test_a_second_global_default_is_forbidden(client: RawClient) -> None:
    assert (await client.post(CLASSES, priority_class("low", 100, globalDefault=True))).status == 201
    expected = forbidden_403(
        "priorityclasses",
        "scheduling.k8s.io",
        "high",
        "PriorityClass low is already marked as default. Only one default can exist",
    )
    before = await client.get(CLASSES)
    reply = await client.post(CLASSES, priority_class("high", 1000, globalDefault=True))
    assert (reply.status, reply.body) == (403, expected)
    assert (await client.get(CLASSES)).json()["items"] == before.json()["items"]
    assert (await client.post(CLASSES, priority_class("high", 1000))).status == 201
    marked = await client.put(f"{CLASSES}/high", priority_class("high", 1000, globalDefault=True))
    assert (marked.status, marked.body) == (403, expected)
    again = await client.put(f"{CLASSES}/low", priority_class("low", 100, globalDefault=True, description="d"))
    assert again.status == 200


async def test_a_pod_naming_an_unknown_class_or_another_priority_is_forbidden(client: RawClient) -> None:
    reply = await client.post(PODS, pod(priorityClassName="nope"))
    assert (reply.status, reply.body) == (
        403,
        forbidden_403("pods", "", "p", "no PriorityClass with name nope was found"),
    )
    assert (await client.post(CLASSES, priority_class("batch", 50))).status == 201
    reply = await client.post(PODS, pod(priorityClassName="batch", priority=7))
    problem = (
        "the integer value of priority (7) must not be provided in pod spec; "
        "priority admission controller computed 50 from the given PriorityClass name"
    )
    assert (reply.status, reply.body) == (403, forbidden_403("pods", "", "p", problem))
    assert (await client.get(PODS)).json()["items"] == []
    admitted = await client.post(PODS, pod(priorityClassName="batch"))
    assert admitted.json()["spec"]["priority"] == 50


async def test_a_priority_class_value_is_bounded_and_immutable(client: RawClient) -> None:
    expected = status_422(
        "PriorityClass.scheduling.k8s.io",
        "huge",
        "PriorityClass",
        "scheduling.k8s.io",
        [("FieldValueForbidden", "Forbidden: maximum allowed value of a user defined priority is 1000000000", "value")],
    )
    await assert_rejected(client, CLASSES, priority_class("huge", 1_000_000_001), expected)
    assert (await client.post(CLASSES, priority_class("batch", 50))).status == 201
    expected = status_422(
        "PriorityClass.scheduling.k8s.io",
        "batch",
        "PriorityClass",
        "scheduling.k8s.io",
        [("FieldValueForbidden", "Forbidden: may not be changed in an update.", "value")],
    )
    await assert_rejected(client, f"{CLASSES}/batch", priority_class("batch", 60), expected, method="PUT")
