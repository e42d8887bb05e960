"""A real kopf operator, ``kopf run --standalone`` in a subprocess, against the fake.

This module is also that operator: ``kopf run -m tests.clients.test_kopf`` imports it and registers
the handlers below (pytest imports it too, which registers them in a registry nobody runs here).
The operator watches Widgets, keeps kopf's finalizer, claims completion with a JSON patch that
tests the uid and the resourceVersion it read, posts one Event for the claim it won, writes the
phase through a merge patch on /status, and lets the object go when it is deleted.

The test checks what happened from the fake's journal and store, never from the operator's log
(the log only explains a failure). kopf is asynchronous, so the test waits on conditions it can
observe in the fake, within a deadline, while checking that the operator is still alive.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import kopf
import kubernetes
from kubernetes_asyncio import client, config
from kubernetes_asyncio.client.exceptions import ApiException

from fakeapi.pytest_plugin import FakeAPI, Requests
from tests.conftest import crd

GROUP, VERSION, PLURAL, KIND = "example.com", "v1", "widgets", "Widget"
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
FINALIZER = "kopf.zalando.org/KopfFinalizerMarker"
NAMES = ("alpha", "beta", "gamma")
REPOSITORY = Path(__file__).resolve().parents[2]
DEADLINE = 60.0
CLAIM_ATTEMPTS = 3


# -- the operator ---------------------------------------------------------------------------------


@kopf.on.startup()
async def connect(memo: kopf.Memo, settings: kopf.OperatorSettings, **_: Any) -> None:
    settings.posting.loggers = False  # the only Events are the ones this operator posts on purpose
    await config.load_kube_config()  # from KUBECONFIG, as kopf's own login did
    memo.api = client.ApiClient()


@kopf.on.cleanup()
async def disconnect(memo: kopf.Memo, **_: Any) -> None:
    await memo.api.close()


@kopf.on.create(GROUP, VERSION, PLURAL)
async def complete(
    name: str, namespace: str | None, body: kopf.Body, patch: kopf.Patch, memo: kopf.Memo, **_: Any
) -> None:
    """Claim completion; the Event is the side effect the claim guards, so only the winner posts it."""
    if await claim_completion(memo.api, namespace or "default", name):
        kopf.event(body, type="Normal", reason="Completed", message=f"{name} completed")
    patch.status["phase"] = "Completed"


@kopf.on.delete(GROUP, VERSION, PLURAL)
async def release(name: str, logger: kopf.Logger, **_: Any) -> None:
    """Nothing outside the cluster to clean up; having this handler is what makes kopf keep a finalizer."""
    logger.info("released %s", name)


async def claim_completion(api: client.ApiClient, namespace: str, name: str) -> bool:
    """Mark the widget completed unless it is already: True if this call made the claim."""
    custom = client.CustomObjectsApi(api)
    for _attempt in range(CLAIM_ATTEMPTS):
        widget = await custom.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name)
        status = widget.get("status") or {}
        if status.get("completedBy"):
            return False
        metadata = widget["metadata"]
        claim = [
            {"op": "test", "path": "/metadata/uid", "value": metadata["uid"]},
            {"op": "test", "path": "/metadata/resourceVersion", "value": metadata["resourceVersion"]},
            {"op": "add", "path": "/status/completedBy", "value": "kopf"}
            if status
            else {"op": "add", "path": "/status", "value": {"completedBy": "kopf"}},
        ]
        try:
            await custom.patch_namespaced_custom_object_status(
                GROUP, VERSION, namespace, PLURAL, name, claim, _content_type=JSON_PATCH
            )
        except ApiException as error:
            if error.status != 422:  # a failed test: the widget changed since it was read
                raise
            continue
        return True
    raise kopf.TemporaryError("the widget kept changing under the claim", delay=1)


# -- the test -------------------------------------------------------------------------------------


@contextmanager
def running_operator(log: Path) -> Iterator[subprocess.Popen[bytes]]:
    command = [sys.executable, "-m", "kopf", "run", "--standalone", "--namespace=default", "--verbose"]
    command += ["-m", "tests.clients.test_kopf"]
    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    with log.open("wb") as output:
        process = subprocess.Popen(command, cwd=REPOSITORY, env=environment, stdout=output, stderr=subprocess.STDOUT)
        try:
            yield process
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_for(condition: Callable[[], bool], what: str, operator: subprocess.Popen[bytes], log: Path) -> None:
    """Poll the fake until ``condition`` holds; fail at the deadline or as soon as the operator dies."""
    deadline = time.monotonic() + DEADLINE
    while not condition():
        try:
            code = operator.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; operator log:\n{log.read_text()}") from None
            continue
        raise AssertionError(f"the operator exited with {code} while waiting for {what}:\n{log.read_text()}")


def about(name: str) -> Callable[[Any], bool]:
    def involves(entry: Any) -> bool:
        return bool(json.loads(entry.body)["involvedObject"]["name"] == name)

    involves.__name__ = f"about_{name}"
    return involves


def finalizer_history(writes: Requests) -> list[bool]:
    """Whether the finalizer was on the object after each committed write, repeats collapsed."""
    history: list[bool] = []
    for answer in writes.response_bodies():
        present = FINALIZER in (answer["metadata"].get("finalizers") or [])
        if not history or history[-1] != present:
            history.append(present)
    return history


def test_kopf_operator_claims_each_widget_once_and_lets_it_go(
    fakeapi: FakeAPI, fakeapi_kubeconfig: Path, tmp_path: Path
) -> None:
    fakeapi.load(crd(PLURAL, KIND))
    widgets = kubernetes.client.CustomObjectsApi(kubernetes.config.new_client_from_config(str(fakeapi_kubeconfig)))
    log = tmp_path / "kopf.log"

    def phase(name: str) -> str | None:
        widget = fakeapi.find(f"{GROUP}/{VERSION}", KIND, name)
        return None if widget is None else (widget.get("status") or {}).get("phase")

    with running_operator(log) as operator:
        wait_for(
            lambda: len(fakeapi.requests(verb="watch", resource=PLURAL)) > 0, "kopf to watch widgets", operator, log
        )
        for name in NAMES:
            widget = {"apiVersion": f"{GROUP}/{VERSION}", "kind": KIND, "metadata": {"name": name}, "spec": {}}
            widgets.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, widget)
        wait_for(lambda: all(phase(name) == "Completed" for name in NAMES), "every phase Completed", operator, log)
        for name in NAMES:
            widgets.delete_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, name)
        wait_for(lambda: all(phase(name) is None for name in NAMES), "every widget gone", operator, log)
    assert operator.returncode == 0, log.read_text()

    events = fakeapi.requests(verb="create", resource="events")
    for name in NAMES:
        created = fakeapi.requests(verb="create", resource=PLURAL, name=name).assert_one(status=201).json()
        status_patches = fakeapi.requests(verb="patch", resource=PLURAL, name=name, subresource="status")

        claim = status_patches.assert_one(content_type=JSON_PATCH, status=200)
        tested = [op for op in json.loads(claim.body) if op["op"] == "test"]
        assert [op["path"] for op in tested] == ["/metadata/uid", "/metadata/resourceVersion"]
        assert tested[0]["value"] == created["metadata"]["uid"]
        assert claim.json()["status"]["completedBy"] == "kopf"

        event = events.where(about(name)).assert_one(status=201)
        assert json.loads(event.body)["reason"] == "Completed"

        phases = status_patches.where(content_type=MERGE_PATCH)
        assert phases.statuses and set(phases.statuses) == {200}
        assert phases.response_bodies()[-1]["status"] == {"completedBy": "kopf", "phase": "Completed"}

        writes = fakeapi.requests(resource=PLURAL, name=name, subresource="", committed=True)
        assert finalizer_history(writes) == [False, True, False]
        deletion = writes.assert_one(verb="delete", status=200)
        assert FINALIZER in deletion.json()["metadata"]["finalizers"]
        assert writes[-1].verb == "patch" and writes[-1].sequence > deletion.sequence
