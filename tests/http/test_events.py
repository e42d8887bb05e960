"""One set of Events through core/v1 and events.k8s.io/v1 (docs/events.md): the same objects, each
group answering in its own shape, watches across groups, field selectors, validation by the
request's group-version, and managedFields named by the version each manager used."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from fakeapi.errors import APIError
from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

CORE = "/api/v1/namespaces/default/events"
EVENTS = "/apis/events.k8s.io/v1/namespaces/default/events"
MERGE = "application/merge-patch+json"
APPLY = "application/apply-patch+yaml"


def new_event(name: str = "e1", **changes: Any) -> dict[str, Any]:
    """An events.k8s.io/v1 Event as a client of the new API sends it."""
    event: dict[str, Any] = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "eventTime": "2024-01-01T10:00:00.123456Z",
        "reportingController": "example.com/ctl",
        "reportingInstance": "ctl-0",
        "action": "Scale",
        "reason": "Scaled",
        "regarding": {"kind": "Deployment", "namespace": "default", "name": "web", "apiVersion": "apps/v1"},
        "note": "up",
        "type": "Normal",
    }
    event.update(changes)
    return event


def legacy_event(name: str = "old", **changes: Any) -> dict[str, Any]:
    """A core/v1 Event as a legacy recorder sends it: no eventTime, source and counts instead."""
    event: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "p"},
        "reason": "Pulled",
        "message": "image pulled",
        "source": {"component": "kubelet", "host": "node-1"},
        "firstTimestamp": "2024-01-01T10:00:00Z",
        "lastTimestamp": "2024-01-01T10:05:00Z",
        "count": 3,
        "type": "Normal",
    }
    event.update(changes)
    return event


def managed_fields(event: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(e["manager"], e["apiVersion"], e["fieldsV1"]) for e in event["metadata"]["managedFields"]]


async def test_an_event_written_through_events_k8s_io_is_read_through_core_v1(client: RawClient) -> None:
    created = await client.post(EVENTS, new_event(), headers={"User-Agent": "recorder"})
    assert created.status == 201
    meta = created.json()["metadata"]
    uid, rv, at = meta["uid"], meta["resourceVersion"], meta["creationTimestamp"]
    managed = (
        f'"managedFields":[{{"manager":"recorder","operation":"Update","apiVersion":"events.k8s.io/v1",'
        f'"time":"{at}","fieldsType":"FieldsV1","fieldsV1":{{"f:action":{{}},"f:eventTime":{{}},"f:note":{{}},'
        f'"f:reason":{{}},"f:regarding":{{}},"f:reportingController":{{}},"f:reportingInstance":{{}},"f:type":{{}}}}}}]'
    )
    metadata = (
        f'"metadata":{{"name":"e1","namespace":"default","uid":"{uid}","resourceVersion":"{rv}",'
        f'"creationTimestamp":"{at}",{managed}}}'
    )
    regarding = '{"kind":"Deployment","namespace":"default","name":"web","apiVersion":"apps/v1"}'
    events_shape = (
        f'{{"kind":"Event","apiVersion":"events.k8s.io/v1",{metadata},"eventTime":"2024-01-01T10:00:00.123456Z",'
        '"reportingController":"example.com/ctl","reportingInstance":"ctl-0","action":"Scale","reason":"Scaled",'
        f'"regarding":{regarding},"note":"up","type":"Normal","deprecatedSource":{{}},'
        '"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}\n'
    ).encode()
    core_shape = (
        f'{{"kind":"Event","apiVersion":"v1",{metadata},"involvedObject":{regarding},"reason":"Scaled",'
        '"message":"up","source":{},"firstTimestamp":null,"lastTimestamp":null,"type":"Normal",'
        '"eventTime":"2024-01-01T10:00:00.123456Z","action":"Scale","reportingComponent":"example.com/ctl",'
        '"reportingInstance":"ctl-0"}\n'
    ).encode()
    assert created.body == events_shape
    assert (await client.get(f"{CORE}/e1")).body == core_shape
    assert (await client.get(f"{EVENTS}/e1")).body == events_shape
    listed = (await client.get(CORE)).json()
    assert [(item["metadata"]["uid"], item["message"]) for item in listed["items"]] == [(uid, "up")]


async def test_a_legacy_core_event_is_listed_through_events_k8s_io_with_its_deprecated_fields(
    client: RawClient,
) -> None:
    created = (await client.post(CORE, legacy_event())).json()
    listed = await client.get(EVENTS)
    assert listed.status == 200
    body = listed.json()
    assert (body["kind"], body["apiVersion"]) == ("EventList", "events.k8s.io/v1")
    (item,) = body["items"]
    assert {key: value for key, value in item.items() if key != "metadata"} == {
        "eventTime": None,
        "reason": "Pulled",
        "regarding": {"kind": "Pod", "namespace": "default", "name": "p"},
        "note": "image pulled",
        "type": "Normal",
        "deprecatedSource": {"component": "kubelet", "host": "node-1"},
        "deprecatedFirstTimestamp": "2024-01-01T10:00:00Z",
        "deprecatedLastTimestamp": "2024-01-01T10:05:00Z",
        "deprecatedCount": 3,
    }
    assert item["metadata"]["uid"] == created["metadata"]["uid"]
    assert item["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    read = await client.get(f"{EVENTS}/old")
    metadata = read.body[read.body.index(b'"metadata"') : read.body.index(b',"eventTime"')]
    assert read.body == (
        b'{"kind":"Event","apiVersion":"events.k8s.io/v1",' + metadata + b',"eventTime":null,"reason":"Pulled",'
        b'"regarding":{"kind":"Pod","namespace":"default","name":"p"},"note":"image pulled","type":"Normal",'
        b'"deprecatedSource":{"component":"kubelet","host":"node-1"},'
        b'"deprecatedFirstTimestamp":"2024-01-01T10:00:00Z","deprecatedLastTimestamp":"2024-01-01T10:05:00Z",'
        b'"deprecatedCount":3}\n'
    )


async def test_each_write_through_either_group_is_one_revision_of_the_same_object(client: RawClient) -> None:
    created = (await client.post(EVENTS, new_event())).json()
    rv = int(created["metadata"]["resourceVersion"])
    patched = await client.patch(f"{CORE}/e1", {"message": "down"}, content_type=MERGE)
    assert patched.status == 200
    assert patched.json()["metadata"]["resourceVersion"] == str(rv + 1)
    again = await client.patch(f"{EVENTS}/e1", {"note": "down"}, content_type=MERGE)
    assert again.status == 200  # nothing changes: no new revision
    assert again.json()["metadata"]["resourceVersion"] == str(rv + 1)
    assert again.json()["note"] == "down"
    replaced = {**(await client.get(f"{CORE}/e1")).json(), "reason": "Rescaled"}
    put = await client.put(f"{CORE}/e1", replaced)
    assert put.json()["metadata"]["resourceVersion"] == str(rv + 2)
    read = (await client.get(f"{EVENTS}/e1")).json()
    assert (read["reason"], read["metadata"]["uid"]) == ("Rescaled", created["metadata"]["uid"])
    deleted = await client.delete(f"{CORE}/e1")
    assert deleted.status == 200
    missing = await client.get(f"{EVENTS}/e1")
    assert missing.status == 404
    assert missing.json()["message"] == 'events.events.k8s.io "e1" not found'


async def watch_lines(server: FakeAPIServer, path: str, count: int) -> list[dict[str, Any]]:
    async with aiohttp.ClientSession() as session, session.get(f"{server.url}{path}?watch=true") as response:
        assert response.status == 200
        lines = []
        async with asyncio.timeout(10):
            async for line in response.content:
                lines.append(json.loads(line))
                if len(lines) == count:
                    break
        return lines


async def until_watching(server: FakeAPIServer, count: int) -> None:
    while len(server._state.store.hub.watchers) < count:
        await asyncio.sleep(0.001)


async def test_a_watch_on_each_group_sees_the_writes_made_through_the_other(
    server: FakeAPIServer, client: RawClient
) -> None:
    on_events = asyncio.create_task(watch_lines(server, EVENTS, 3))
    on_core = asyncio.create_task(watch_lines(server, CORE, 3))
    await until_watching(server, 2)
    await client.post(CORE, legacy_event())
    await client.post(EVENTS, new_event())
    await client.delete(f"{EVENTS}/old")
    seen_by_events, seen_by_core = await on_events, await on_core
    assert [
        (line["type"], line["object"]["apiVersion"], line["object"]["metadata"]["name"]) for line in seen_by_events
    ] == [
        ("ADDED", "events.k8s.io/v1", "old"),
        ("ADDED", "events.k8s.io/v1", "e1"),
        ("DELETED", "events.k8s.io/v1", "old"),
    ]
    assert seen_by_events[0]["object"]["note"] == "image pulled"
    assert [
        (line["type"], line["object"]["apiVersion"], line["object"]["metadata"]["name"]) for line in seen_by_core
    ] == [
        ("ADDED", "v1", "old"),
        ("ADDED", "v1", "e1"),
        ("DELETED", "v1", "old"),
    ]
    assert seen_by_core[1]["object"]["message"] == "up"
    assert seen_by_core[1]["object"]["reportingComponent"] == "example.com/ctl"


async def names(client: RawClient, path: str, selector: str) -> list[str]:
    reply = await client.get(f"{path}?fieldSelector={selector}")
    assert reply.status == 200, reply.body
    return [item["metadata"]["name"] for item in reply.json()["items"]]


async def test_field_selectors_name_the_fields_as_each_group_does(client: RawClient) -> None:
    await client.post(CORE, legacy_event())
    await client.post(EVENTS, new_event())
    assert await names(client, CORE, "involvedObject.name=web") == ["e1"]
    assert await names(client, EVENTS, "regarding.name=web") == ["e1"]
    assert await names(client, EVENTS, "regarding.kind=Pod,type=Normal") == ["old"]
    assert await names(client, CORE, "reportingComponent=example.com/ctl") == ["e1"]
    assert await names(client, EVENTS, "reportingController=example.com/ctl") == ["e1"]
    # ``source`` is the source component, or the reporting controller when there is none.
    assert await names(client, CORE, "source=kubelet") == ["old"]
    assert await names(client, EVENTS, "source=example.com/ctl") == ["e1"]
    refused = await client.get(f"{EVENTS}?fieldSelector=involvedObject.name=web")
    assert refused.status == 400
    assert refused.json()["message"] == "field label not supported: involvedObject.name"
    refused = await client.get(f"{CORE}?fieldSelector=regarding.name=web")
    assert refused.json()["message"] == "field label not supported: regarding.name"


async def test_events_k8s_io_creates_are_validated_strictly_and_core_ones_leniently(client: RawClient) -> None:
    bare = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "bare"}}
    refused = await client.post(EVENTS, bare)
    assert refused.status == 422
    assert refused.json()["message"] == (
        'Event "bare" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: ]'
    )
    assert refused.json()["details"]["kind"] == "Event" and "group" not in refused.json()["details"]
    deprecated = new_event("dep", deprecatedCount=2, deprecatedSource={"component": "kubelet"})
    refused = await client.post(EVENTS, deprecated)
    assert refused.json()["message"] == (
        'Event "dep" is invalid: [count: Invalid value: "": needs to be unset, '
        'source: Invalid value: "": needs to be unset]'
    )
    assert (await client.post(CORE, {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "bare"}})).status == 201
    with_time = legacy_event("timed", eventTime="2024-01-01T10:00:00.000000Z")
    refused = await client.post(CORE, with_time)
    assert refused.json()["message"] == (
        'Event "timed" is invalid: [reportingComponent: Required value, reportingComponent: Invalid value: "": '
        'name part must be non-empty, reportingComponent: Invalid value: "": name part must consist of '
        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), reportingInstance: Required value, action: Required value]"
    )
    listed = (await client.get(CORE)).json()
    assert [item["metadata"]["name"] for item in listed["items"]] == ["bare"]


async def test_events_k8s_io_updates_keep_the_event_immutable_but_core_updates_do_not(client: RawClient) -> None:
    await client.post(EVENTS, new_event())
    refused = await client.patch(f"{EVENTS}/e1", {"note": "changed", "action": "Other"}, content_type=MERGE)
    assert refused.status == 422
    assert refused.json()["message"] == (
        'Event "e1" is invalid: [message: Invalid value: "changed": field is immutable, '
        'action: Invalid value: "Other": field is immutable]'
    )
    series = {"series": {"count": 2, "lastObservedTime": "2024-01-01T10:01:00.000000Z"}}
    assert (await client.patch(f"{EVENTS}/e1", series, content_type=MERGE)).status == 200
    bad_series = {"series": {"count": 1, "lastObservedTime": "2024-01-01T10:02:00.000000Z"}}
    refused = await client.patch(f"{EVENTS}/e1", bad_series, content_type=MERGE)
    assert refused.json()["message"] == 'Event "e1" is invalid: series.count: Invalid value: "": should be at least 2'
    allowed = await client.patch(f"{CORE}/e1", {"message": "changed"}, content_type=MERGE)
    assert allowed.status == 200
    core = (await client.get(f"{CORE}/e1")).json()
    assert core["series"] == {"count": 2, "lastObservedTime": "2024-01-01T10:01:00.000000Z"}
    assert core["message"] == "changed"


async def test_managed_fields_are_named_by_the_version_each_manager_used(client: RawClient) -> None:
    await client.post(EVENTS, new_event(), headers={"User-Agent": "recorder"})
    patched = await client.patch(f"{CORE}/e1", {"message": "down"}, content_type=MERGE, headers={"User-Agent": "ops"})
    owned = {manager: (version, fields) for manager, version, fields in managed_fields(patched.json())}
    assert owned["recorder"][0] == "events.k8s.io/v1"
    assert "f:note" not in owned["recorder"][1] and "f:regarding" in owned["recorder"][1]
    assert owned["ops"] == ("v1", {"f:message": {}})


async def test_server_side_apply_conflicts_across_the_groups_name_the_owner_s_fields(client: RawClient) -> None:
    applied = await client.patch(f"{EVENTS}/e1?fieldManager=writer", new_event(), content_type=APPLY)
    assert applied.status == 201
    conflicting = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1"}, "message": "other"}
    refused = await client.patch(f"{CORE}/e1?fieldManager=ops", conflicting, content_type=APPLY)
    assert refused.status == 409
    assert refused.json()["message"] == 'Apply failed with 1 conflict: conflict with "writer": .note'
    forced = await client.patch(f"{CORE}/e1?fieldManager=ops&force=true", conflicting, content_type=APPLY)
    assert forced.status == 200
    owned = {manager: (version, fields) for manager, version, fields in managed_fields(forced.json())}
    assert "f:note" not in owned["writer"][1] and owned["writer"][0] == "events.k8s.io/v1"
    assert owned["ops"] == ("v1", {"f:message": {}})
    assert (await client.get(f"{EVENTS}/e1")).json()["note"] == "other"


async def test_tables_of_both_groups_show_the_same_rows(client: RawClient) -> None:
    await client.post(CORE, legacy_event())
    await client.post(EVENTS, new_event())
    accept = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
    core = (await client.get(CORE, headers=accept)).json()
    events = (await client.get(EVENTS, headers=accept)).json()
    assert [row["cells"][1:7] for row in events["rows"]] == [row["cells"][1:7] for row in core["rows"]]
    assert [row["cells"][3] for row in core["rows"]] == ["deployment/web", "pod/p"]


async def test_loaded_events_k8s_io_events_are_stored_as_core_v1_ones(server: FakeAPIServer, client: RawClient) -> None:
    (stored,) = server.load(new_event())
    assert (stored["apiVersion"], stored["message"]) == ("v1", "up")
    series = {"count": 2, "lastObservedTime": "2024-01-01T10:01:00.000000Z"}
    (replaced,) = server.apply(new_event(series=series))
    assert replaced["series"] == series
    assert int(replaced["metadata"]["resourceVersion"]) == int(stored["metadata"]["resourceVersion"]) + 1
    with pytest.raises(APIError, match=r'Event "e1" is invalid: message: Invalid value: "down": field is immutable'):
        server.apply(new_event(note="down"))
    read = (await client.get(f"{EVENTS}/e1")).json()
    assert (read["note"], read["series"], read["regarding"]["name"]) == ("up", series, "web")
    assert (await client.get(f"{CORE}/e1")).json()["involvedObject"]["name"] == "web"


async def test_a_delete_s_propagation_policy_leaves_no_finalizer_on_an_event(client: RawClient) -> None:
    await client.post(EVENTS, new_event())
    deleted = await client.delete(f"{EVENTS}/e1?propagationPolicy=Orphan")
    assert deleted.status == 200
    assert deleted.json()["status"] == "Success"
    assert (await client.get(f"{CORE}/e1")).status == 404


async def test_core_v1_event_names_need_only_be_path_segments(client: RawClient) -> None:
    assert (await client.post(CORE, legacy_event("Pulled_Image"))).status == 201
    refused = await client.post(EVENTS, new_event("Scaled_Up"))
    assert refused.status == 422
    assert refused.json()["message"] == (
        'Event "Scaled_Up" is invalid: metadata.name: Invalid value: "Scaled_Up": a lowercase RFC 1123 subdomain '
        "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    )
    refused = await client.post(CORE, legacy_event("a%b"))
    assert (
        refused.json()["message"]
        == 'Event "a%b" is invalid: metadata.name: Invalid value: "a%b": may not contain \'%\''
    )


async def test_names_are_shared_and_a_collection_delete_answers_in_its_group_s_shape(client: RawClient) -> None:
    await client.post(CORE, legacy_event("e1"))
    taken = await client.post(EVENTS, new_event("e1"))
    assert taken.status == 409
    assert taken.json()["message"] == 'events.events.k8s.io "e1" already exists'
    await client.post(EVENTS, new_event("e2"))
    deleted = await client.delete(f"{EVENTS}?fieldSelector=regarding.kind=Pod")
    assert deleted.status == 200
    body = deleted.json()
    assert (body["kind"], body["apiVersion"]) == ("EventList", "events.k8s.io/v1")
    assert [(item["metadata"]["name"], item["note"]) for item in body["items"]] == [("e1", "image pulled")]
    assert [item["metadata"]["name"] for item in (await client.get(CORE)).json()["items"]] == ["e2"]
