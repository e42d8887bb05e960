"""A large write pauses so that other requests are served meanwhile, and answers the same bytes as
one that never pauses (docs/http-limits.md, "One request among others").

Where a write pauses is set by the slice budget (``SLICE_UNITS``, in elements visited): the same
requests are sent with a budget of one element (a pause nearly everywhere a pause can be), the
server's own, and one that is never spent, and every answer must be the same bytes.
"""

from __future__ import annotations

import asyncio
import gc
import gzip
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from fakeapi import WebhookAnswer, WebhookCall
from fakeapi._http.slicing import SLICED_FROM, in_slices
from fakeapi._patching import slices
from fakeapi._state.field_ownership import entries
from fakeapi.server import FakeAPIServer
from tests.admission.conftest import configuration, webhook
from tests.conftest import RawClient, Reply

pytestmark = pytest.mark.asyncio

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"
KEYS = 3000
NEVER = 10**12


def _keys(count: int) -> list[str]:
    # A fixed order that is not sorted: the decoder's and managedFields' sorts have work to do.
    return [f"key{(index * 7919) % count:06d}" for index in range(count)]


def big_configmap(name: str, count: int = KEYS, *, value: str = "v") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "labels": {f"label-{index}": "x" for index in range(200)},
            "annotations": {f"example.com/note-{index}": "y" for index in range(200)},
        },
        "data": {key: value for key in _keys(count)},
    }


async def _answers() -> list[tuple[int, bytes]]:
    """One fixed sequence of large writes and reads on a new server; each answer's status and bytes."""
    answers: list[tuple[int, bytes]] = []
    async with (
        FakeAPIServer(seed=7, clock=lambda: 1_700_000_000.0) as server,
        aiohttp.ClientSession(auto_decompress=False) as session,
    ):
        client = RawClient(session, server.url)

        async def record(reply: Reply) -> None:
            answers.append((reply.status, reply.body))

        await record(await client.post(f"{CONFIGMAPS}?dryRun=All", big_configmap("big")))
        await record(await client.post(CONFIGMAPS, big_configmap("big")))
        created = json.loads(answers[-1][1])
        replaced = {**big_configmap("big", value="w"), "metadata": {**created["metadata"], "managedFields": None}}
        await record(await client.put(f"{CONFIGMAPS}/big", replaced))
        merge = {"data": {key: "m" for key in _keys(KEYS)[::3]}}
        await record(await client.patch(f"{CONFIGMAPS}/big", merge, "application/merge-patch+json"))
        operations = [{"op": "replace", "path": f"/data/{key}", "value": "j"} for key in _keys(KEYS)[::5]]
        await record(await client.patch(f"{CONFIGMAPS}/big", operations))
        applied = json.dumps(big_configmap("big", 1500, value="a")).encode()
        await record(
            await client.patch(
                f"{CONFIGMAPS}/big?fieldManager=tests&force=true", applied, "application/apply-patch+yaml"
            )
        )
        await record(await client.get(f"{CONFIGMAPS}/big"))
    return answers


async def test_large_writes_answer_the_same_bytes_wherever_they_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    default = await _answers()
    assert [status for status, _ in default] == [201, 201, 200, 200, 200, 200, 200]
    stored = json.loads(default[-1][1])
    assert len(stored["data"]) == KEYS
    assert len(stored["metadata"]["managedFields"]) == 2  # the updates' manager and the apply's
    monkeypatch.setattr(slices, "SLICE_UNITS", 1)
    assert await _answers() == default
    monkeypatch.setattr(slices, "SLICE_UNITS", NEVER)
    assert await _answers() == default


async def test_large_field_sets_decoded_afresh_and_freed_in_slices_answer_the_same_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A stored entry's set larger than the kept size is decoded again by each write and emptied in
    # slices once used; with nothing kept, every write of the sequence takes that path.
    default = await _answers()
    monkeypatch.setattr(entries, "_CACHED_UP_TO", 0)
    monkeypatch.setattr(slices, "SLICE_UNITS", 64)
    assert await _answers() == default


async def test_the_collector_runs_again_once_a_large_write_is_done(server: FakeAPIServer, client: RawClient) -> None:
    assert gc.isenabled()
    created = await client.post(CONFIGMAPS, big_configmap("big", 20_000))
    assert created.status == 201
    assert len(created.json()["data"]) == 20_000
    assert gc.isenabled()


async def test_a_collector_the_process_turned_off_stays_off(server: FakeAPIServer, client: RawClient) -> None:
    gc.disable()
    try:
        assert (await client.post(CONFIGMAPS, big_configmap("big", 20_000))).status == 201
        assert not gc.isenabled()
    finally:
        gc.enable()


async def test_a_stage_cancelled_while_paused_gives_the_collector_back() -> None:
    paused = asyncio.Event()

    def stage() -> None:
        for _ in range(1000):
            slices.pause(slices.SLICE_UNITS)

    async def run() -> None:
        paused.set()
        await in_slices(SLICED_FROM, stage)

    task = asyncio.ensure_future(run())
    await paused.wait()
    await asyncio.sleep(0)  # the stage has started and paused once
    assert not gc.isenabled()  # held while it works
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert gc.isenabled()


async def test_a_large_answer_gzipped_in_pieces_is_the_answer(server: FakeAPIServer) -> None:
    body = big_configmap("big", 40_000)
    async with aiohttp.ClientSession(auto_decompress=False) as session:
        async with session.post(server.url + CONFIGMAPS, json=body, headers={"Accept-Encoding": "gzip"}) as response:
            assert response.status == 201
            assert response.headers["Content-Encoding"] == "gzip"
            compressed = await response.read()
        async with session.get(server.url + f"{CONFIGMAPS}/big", headers={"Accept-Encoding": "identity"}) as response:
            plain = await response.read()
    assert len(plain) > 4 * 256 * 1024  # several pieces
    assert compressed[:10] == bytes((0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 4, 255))
    assert gzip.decompress(compressed) == plain


class FirstCreateProbe:
    """A mutating webhook that, when the large ConfigMap's create reaches it, sends a GET of that
    ConfigMap on a connection of its own and allows the create at once."""

    def __init__(self, client: RawClient) -> None:
        self.client = client
        self.probe: asyncio.Future[Reply] | None = None

    async def __call__(self, call: WebhookCall) -> WebhookAnswer:
        request = json.loads(call.body)["request"]
        if request["name"] == "big" and self.probe is None:
            self.probe = asyncio.ensure_future(self.client.get(f"{CONFIGMAPS}/big"))
        review = {
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "response": {"uid": request["uid"], "allowed": True},
        }
        return WebhookAnswer(200, "application/json", json.dumps(review).encode())


@pytest_asyncio.fixture
async def probe_client(server: FakeAPIServer) -> AsyncIterator[RawClient]:
    async with aiohttp.ClientSession() as session:
        yield RawClient(session, server.url)


async def test_a_read_is_answered_while_a_large_create_is_planned(
    server: FakeAPIServer, client: RawClient, probe_client: RawClient
) -> None:
    probe = FirstCreateProbe(probe_client)
    server.set_webhook_caller(probe)
    config = configuration(
        "MutatingWebhookConfiguration",
        "m",
        webhook("m.example.com", {"url": "https://hooks.example/"}, operations=["CREATE"]),
    )
    assert (await client.post(MUTATING, config)).status == 201
    assert (await probe_client.get("/healthz")).status == 200  # its connection is open and idle
    created = await client.post(CONFIGMAPS, big_configmap("big", 50_000))
    assert created.status == 201
    assert probe.probe is not None
    # Mutating admission is the last step before the create is planned, and nothing of the create
    # is stored until its plan is committed: a 404 was answered while the create was being planned.
    seen = await probe.probe
    assert seen.status == 404
    assert seen.json()["reason"] == "NotFound"
    assert (await client.get(f"{CONFIGMAPS}/big")).status == 200
