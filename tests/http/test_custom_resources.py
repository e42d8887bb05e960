"""Custom resources over HTTP: the store semantics a client observes (docs/writes.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio

JOBS = "/apis/example.com/v1/namespaces/default/jobs"


def job(name: str = "job-1", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": name}, "spec": spec or {"a": 1}}


async def setup(client: RawClient, **options: Any) -> None:
    reply = await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd(**options))
    assert reply.status == 201, reply.body


async def test_create_sets_system_metadata_and_drops_status(client: RawClient) -> None:
    await setup(client)
    reply = await client.post(JOBS, {**job(), "status": {"phase": "x"}})
    assert reply.status == 201
    created = reply.json()
    meta = created["metadata"]
    assert meta["generation"] == 1
    assert meta["namespace"] == "default"
    assert len(meta["uid"]) == 36
    assert meta["creationTimestamp"].endswith("Z")
    assert "status" not in created
    assert reply.body.endswith(b"}\n")


async def test_every_write_takes_the_next_global_revision(client: RawClient) -> None:
    await setup(client)
    first = (await client.post(JOBS, job("a"))).json()["metadata"]["resourceVersion"]
    config = await client.post(
        "/api/v1/namespaces/default/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    )
    second = (await client.post(JOBS, job("b"))).json()["metadata"]["resourceVersion"]
    assert int(config.json()["metadata"]["resourceVersion"]) == int(first) + 1
    assert int(second) == int(first) + 2


async def test_a_write_that_changes_nothing_keeps_the_resource_version(client: RawClient) -> None:
    await setup(client)
    created = (await client.post(JOBS, job())).json()
    for body, content_type in (
        ([], "application/json-patch+json"),
        (b"null", "application/json-patch+json"),
        ([{"op": "test", "path": "/spec/a", "value": 1}], "application/json-patch+json"),
        ({}, "application/merge-patch+json"),
    ):
        reply = await client.patch(f"{JOBS}/job-1", body, content_type=content_type)
        assert reply.status == 200, reply.body
        assert reply.json()["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    same = await client.put(f"{JOBS}/job-1", created)
    assert same.json()["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


async def test_stale_resource_version_conflicts_and_missing_one_is_invalid(client: RawClient) -> None:
    await setup(client)
    created = (await client.post(JOBS, job())).json()
    await client.patch(f"{JOBS}/job-1", {"spec": {"a": 2}}, content_type="application/merge-patch+json")
    stale = await client.put(f"{JOBS}/job-1", created)
    assert stale.status == 409
    assert stale.body == (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled '
        b'on jobs.example.com \\"job-1\\": the object has been modified; please apply your changes to the latest '
        b'version and try again","reason":"Conflict","details":{"name":"job-1","group":"example.com","kind":"jobs"},'
        b'"code":409}\n'
    )
    missing = await client.put(f"{JOBS}/job-1", job())
    assert missing.status == 422
    assert missing.json()["message"] == (
        'jobs.example.com "job-1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update'
    )
    merge_stale = await client.patch(
        f"{JOBS}/job-1",
        {"metadata": {"resourceVersion": created["metadata"]["resourceVersion"]}},
        content_type="application/merge-patch+json",
    )
    assert merge_stale.status == 409


async def test_a_failed_json_patch_is_the_generic_422_byte_for_byte(client: RawClient) -> None:
    await setup(client)
    await client.post(JOBS, job())
    reply = await client.patch(f"{JOBS}/job-1", [{"op": "test", "path": "/spec/a", "value": 2}])
    assert reply.status == 422
    assert reply.body == (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server rejected our '
        b'request due to an error in our request","reason":"Invalid","details":{},"code":422}\n'
    )


async def test_the_claim_patch_lets_exactly_one_racer_win(client: RawClient) -> None:
    await setup(client)
    created = (await client.post(JOBS, job(command='sh -c "echo hi > /tmp/x"'))).json()
    claim = [
        {"op": "test", "path": "/metadata/uid", "value": created["metadata"]["uid"]},
        {"op": "test", "path": "/metadata/resourceVersion", "value": created["metadata"]["resourceVersion"]},
        {"op": "add", "path": "/status", "value": {"completed": True}},
    ]
    first = await client.patch(f"{JOBS}/job-1/status", claim)
    second = await client.patch(f"{JOBS}/job-1/status", claim)
    assert (first.status, second.status) == (200, 422)
    assert int(first.json()["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])


async def test_a_test_of_a_python_spelled_string_fails_and_says_why(client: RawClient) -> None:
    await setup(client)
    await client.post(JOBS, job(command='sh -c "echo hi > /tmp/x"'))
    body = b'[{"op":"test","path":"/spec/command","value":"sh -c \\"echo hi > /tmp/x\\""}]'
    reply = await client.patch(f"{JOBS}/job-1", body)
    assert reply.status == 422
    assert len(reply.warnings) == 1
    assert "failed only because of spelling" in reply.warnings[0]
    go_spelled = body.replace(b">", b"\\u003e")
    assert (await client.patch(f"{JOBS}/job-1", go_spelled)).status == 200


async def test_generation_moves_with_the_spec_only(client: RawClient) -> None:
    await setup(client)
    await client.post(JOBS, job())
    labels = await client.patch(
        f"{JOBS}/job-1", {"metadata": {"labels": {"a": "b"}}}, content_type="application/merge-patch+json"
    )
    assert labels.json()["metadata"]["generation"] == 1
    status = await client.patch(
        f"{JOBS}/job-1/status", {"status": {"phase": "Running"}}, content_type="application/merge-patch+json"
    )
    assert status.json()["metadata"]["generation"] == 1
    spec = await client.patch(f"{JOBS}/job-1", {"spec": {"a": 5}}, content_type="application/merge-patch+json")
    assert spec.json()["metadata"]["generation"] == 2


async def test_status_subresource_splits_status_from_the_rest(client: RawClient) -> None:
    await setup(client)
    await client.post(JOBS, job())
    main = await client.patch(f"{JOBS}/job-1", {"status": {"phase": "x"}}, content_type="application/merge-patch+json")
    assert main.status == 200 and "status" not in main.json()
    status = await client.patch(
        f"{JOBS}/job-1/status",
        {"spec": {"a": 9}, "metadata": {"labels": {"x": "y"}}, "status": {"phase": "Running"}},
        content_type="application/merge-patch+json",
    )
    assert status.json()["status"] == {"phase": "Running"}
    assert status.json()["spec"] == {"a": 1}
    assert "labels" not in status.json()["metadata"]


async def test_status_of_a_kind_without_the_subresource_is_not_found(client: RawClient) -> None:
    await setup(client, status=False)
    await client.post(JOBS, job())
    reply = await client.get(f"{JOBS}/job-1/status")
    assert reply.status == 404
    assert reply.json()["message"] == 'jobs.example.com "job-1" not found'


async def test_finalizers_hold_a_deleted_object_until_the_last_one_goes(client: RawClient) -> None:
    await setup(client)
    created = (
        await client.post(JOBS, {**job(), "metadata": {"name": "job-1", "finalizers": ["example.com/hold"]}})
    ).json()
    deleting = await client.delete(f"{JOBS}/job-1")
    assert deleting.status == 200
    marked = deleting.json()
    assert marked["metadata"]["deletionTimestamp"]
    assert marked["metadata"]["deletionGracePeriodSeconds"] == 0
    assert marked["metadata"]["generation"] == 2
    assert int(marked["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])
    again = await client.delete(f"{JOBS}/job-1")
    assert again.json()["metadata"]["resourceVersion"] == marked["metadata"]["resourceVersion"]
    added = await client.patch(
        f"{JOBS}/job-1", [{"op": "add", "path": "/metadata/finalizers/-", "value": "example.com/more"}]
    )
    assert added.status == 422
    assert "no new finalizers can be added if the object is being deleted" in added.json()["message"]
    released = await client.patch(f"{JOBS}/job-1", [{"op": "remove", "path": "/metadata/finalizers"}])
    assert released.status == 200
    assert (await client.get(f"{JOBS}/job-1")).status == 404


async def test_delete_without_finalizers_answers_a_success_status(client: RawClient) -> None:
    await setup(client)
    uid = (await client.post(JOBS, job())).json()["metadata"]["uid"]
    reply = await client.delete(f"{JOBS}/job-1")
    assert reply.body == (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"job-1",'
        b'"group":"example.com","kind":"jobs","uid":"' + uid.encode() + b'"}}\n'
    )


async def test_delete_preconditions_conflict(client: RawClient) -> None:
    await setup(client)
    await client.post(JOBS, job())
    reply = await client.delete(f"{JOBS}/job-1", {"preconditions": {"resourceVersion": "1"}})
    assert reply.status == 409
    assert "the ResourceVersion in the precondition (1) does not match" in reply.json()["message"]


async def test_generate_name_makes_a_unique_name(client: RawClient) -> None:
    await setup(client)
    reply = await client.post(
        JOBS, {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"generateName": "job-"}}
    )
    name = reply.json()["metadata"]["name"]
    assert reply.status == 201
    assert name.startswith("job-") and len(name) == 9


async def test_list_pages_with_continue_tokens(client: RawClient) -> None:
    await setup(client)
    for index in range(5):
        await client.post(JOBS, job(f"job-{index}"))
    first = (await client.get(f"{JOBS}?limit=2")).json()
    assert [item["metadata"]["name"] for item in first["items"]] == ["job-0", "job-1"]
    assert first["metadata"]["remainingItemCount"] == 3
    token = first["metadata"]["continue"]
    second = (await client.get(f"{JOBS}?limit=2&continue={token}")).json()
    assert [item["metadata"]["name"] for item in second["items"]] == ["job-2", "job-3"]
    bad = await client.get(f"{JOBS}?continue=%21%21%21")
    assert bad.status == 400
    assert bad.json()["message"].startswith("invalid continue token: continue key is not valid:")


async def test_lists_between_writes_show_every_object_as_last_written_in_key_order(client: RawClient) -> None:
    """A list after an update, a delete and a create: etcd's key order across namespaces
    (``a-b/x`` before ``a/x``), each object at its latest resourceVersion."""
    await setup(client)
    for namespace in ("a", "a-b"):
        await client.post(
            "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
        )
    for namespace, name in (("a", "x"), ("a-b", "x"), ("a", "y")):
        reply = await client.post(f"/apis/example.com/v1/namespaces/{namespace}/jobs", job(name))
        assert reply.status == 201, reply.body
    everywhere = "/apis/example.com/v1/jobs"

    def seen(listing: dict[str, Any]) -> list[tuple[str, str, Any]]:
        return [
            (item["metadata"]["namespace"], item["metadata"]["name"], item["spec"]["a"]) for item in listing["items"]
        ]

    assert seen((await client.get(everywhere)).json()) == [("a-b", "x", 1), ("a", "x", 1), ("a", "y", 1)]
    patched = await client.patch(
        "/apis/example.com/v1/namespaces/a/jobs/x", [{"op": "replace", "path": "/spec/a", "value": 2}]
    )
    assert patched.status == 200, patched.body
    listing = (await client.get(everywhere)).json()
    assert seen(listing) == [("a-b", "x", 1), ("a", "x", 2), ("a", "y", 1)]
    assert listing["items"][1]["metadata"]["resourceVersion"] == patched.json()["metadata"]["resourceVersion"]
    in_a = (await client.get("/apis/example.com/v1/namespaces/a/jobs")).json()
    assert seen(in_a) == [("a", "x", 2), ("a", "y", 1)]
    assert (await client.delete("/apis/example.com/v1/namespaces/a-b/jobs/x")).status == 200
    assert (await client.post("/apis/example.com/v1/namespaces/a/jobs", job("w"))).status == 201
    assert seen((await client.get(everywhere)).json()) == [("a", "w", 1), ("a", "x", 2), ("a", "y", 1)]


async def test_label_selectors_filter_lists(client: RawClient) -> None:
    await setup(client)
    await client.post(JOBS, {**job("a"), "metadata": {"name": "a", "labels": {"tier": "web"}}})
    await client.post(JOBS, {**job("b"), "metadata": {"name": "b", "labels": {"tier": "db"}}})
    selected = (await client.get(f"{JOBS}?labelSelector=tier%20in%20(web)")).json()
    assert [item["metadata"]["name"] for item in selected["items"]] == ["a"]
    bad = await client.get(f"{JOBS}?labelSelector=tier%20%3D%3D%3D")
    assert bad.status == 400


async def test_deleting_the_crd_removes_its_objects_and_its_endpoints(client: RawClient) -> None:
    await setup(client)
    await client.post(JOBS, job())
    reply = await client.delete("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/jobs.example.com")
    assert reply.status == 200
    gone = await client.get(JOBS)
    assert gone.status == 404
    assert gone.body == b"404 page not found\n"


@pytest.mark.parametrize("size", [10, 100_000])
async def test_a_patch_answers_the_very_bytes_a_get_then_reads(client: RawClient, size: int) -> None:
    """The answer is spliced from the no-op check's encoding (kept for objects up to 64 KiB)."""
    await setup(client)
    body = {**job("big"), "spec": {"text": "<&>" * size, "n": 1}}
    assert (await client.post(JOBS, body)).status == 201
    patched = await client.patch(f"{JOBS}/big", [{"op": "replace", "path": "/spec/n", "value": 2.5}])
    assert patched.status == 200, patched.body
    read = await client.get(f"{JOBS}/big")
    assert patched.body == read.body
    assert b'"n":2.5' in read.body and b"\\u003c\\u0026\\u003e" in read.body
