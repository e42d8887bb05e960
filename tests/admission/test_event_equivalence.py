"""Admission of Events written through either group (docs/events.md): core/v1 and events.k8s.io/v1
Events are equivalent resources, so a webhook or policy for one is called, under
``matchPolicy: Equivalent``, for writes through the other, with the object converted to the version
it matched."""

from __future__ import annotations

from typing import Any

import pytest

from tests.admission.conftest import WebhookServer, configuration, json_patch, webhook
from tests.admission.policy_objects import binding, install, policy, rule
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

CORE = "/api/v1/namespaces/default/events"
EVENTS = "/apis/events.k8s.io/v1/namespaces/default/events"
MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"


def new_event(name: str = "e1", note: str = "up") -> dict[str, Any]:
    return {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "eventTime": "2024-01-01T10:00:00.000000Z",
        "reportingController": "example.com/ctl",
        "reportingInstance": "ctl-0",
        "action": "Scale",
        "reason": "Scaled",
        "regarding": {"kind": "Deployment", "namespace": "default", "name": "web"},
        "note": note,
        "type": "Normal",
    }


QUIET = {"expression": "!has(object.message) || object.message != 'secret'", "message": "no secrets"}


async def test_a_policy_on_core_events_sees_events_k8s_io_writes_in_core_shape(client: RawClient) -> None:
    await install(
        client,
        policy("quiet", QUIET, rules=[rule(["events"], apiVersions=["v1"])]),
        binding("quiet-b", "quiet"),
    )
    assert (await client.post(EVENTS, new_event("e1"))).status == 201
    refused = await client.post(EVENTS, new_event("e2", note="secret"))
    assert refused.status == 422
    assert refused.json()["message"] == (
        'events.events.k8s.io "e2" is forbidden: '
        "ValidatingAdmissionPolicy 'quiet' with binding 'quiet-b' denied request: no secrets"
    )
    assert (await client.get(f"{CORE}/e2")).status == 404


async def test_an_exact_match_policy_is_not_called_for_the_other_group(client: RawClient) -> None:
    exact = policy("quiet", QUIET, rules=[rule(["events"], apiVersions=["v1"])])
    exact["spec"]["matchConstraints"]["matchPolicy"] = "Exact"
    await install(client, exact, binding("quiet-b", "quiet"))
    assert (await client.post(EVENTS, new_event("e2", note="secret"))).status == 201


async def test_a_mutating_webhook_on_core_events_patches_an_events_k8s_io_write(
    client: RawClient, hooks: WebhookServer
) -> None:
    hooks.answers["/m"] = json_patch([{"op": "replace", "path": "/message", "value": "rewritten"}])
    hook = webhook("m.example.com", hooks.client_config("/m"), resources=["events"], operations=["CREATE"])
    created = await client.post(MUTATING, configuration("MutatingWebhookConfiguration", "m", hook))
    assert created.status == 201
    reply = await client.post(EVENTS, new_event())
    assert reply.status == 201
    assert reply.json()["note"] == "rewritten"
    ((_, review, _),) = hooks.received
    request = review["request"]
    assert (request["kind"], request["requestKind"]) == (
        {"group": "", "version": "v1", "kind": "Event"},
        {"group": "events.k8s.io", "version": "v1", "kind": "Event"},
    )
    assert (request["object"]["apiVersion"], request["object"]["message"]) == ("v1", "up")
    assert (await client.get(f"{CORE}/e1")).json()["message"] == "rewritten"
