"""Stepped controllers: the kubelet's stop of a deleted pod and its final delete are two steps of the
pod's worker (docs/graceful-deletion.md, docs/controllers.md)."""

from __future__ import annotations

import pytest

from fakeapi import FakeAPIServer
from fakeapi.errors import APIError

START = 1_700_000_000.0
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web"},
    "spec": {"containers": [{"name": "main", "image": "nginx"}]},
}


def settle(server: FakeAPIServer) -> None:
    while pending := server.controller_writes():
        server.step_controller(pending[0].controller, pending[0].worker)


def test_the_kubelet_stops_then_deletes_in_two_steps_of_its_pod_worker() -> None:
    server = FakeAPIServer(seed=5, clock=lambda: START)
    server.set_controllers("all", stepped=True)
    server.load(POD)
    settle(server)
    assert server.get("v1", "Pod", "web")["status"]["phase"] == "Running"
    server.delete("v1", "Pod", "web")
    kubelet = [w for w in server.controller_writes() if w.controller == "kubelet"]
    assert [w.describe() for w in kubelet] == ["kubelet/default/web: update pods/status default/web"]
    server.step_controller("kubelet", "default/web")
    assert server.get("v1", "Pod", "web")["status"]["phase"] == "Succeeded"
    kubelet = [w for w in server.controller_writes() if w.controller == "kubelet"]
    assert [w.describe() for w in kubelet] == ["kubelet/default/web: delete pods default/web"]
    written = server.step_controller("kubelet", "default/web")
    assert written is not None and written.verb == "delete" and not written.refused
    with pytest.raises(APIError) as gone:
        server.get("v1", "Pod", "web")
    assert gone.value.code == 404
    assert [w for w in server.controller_writes() if w.controller == "kubelet"] == []
