"""Graceful pod deletion as kubectl and kubernetes_asyncio see it: without a kubelet a scheduled pod
stays Terminating; with the simulated kubelet on the wall clock ``kubectl delete`` returns once the
pod is gone, and the pods of a deleted Job go too (docs/graceful-deletion.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from kubernetes_asyncio import client as async_client
from kubernetes_asyncio import config as async_config

from fakeapi import FakeAPIServer, OutcomeRule
from tests.clients.local import run_kubectl, threaded_server

BOUND_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: bound}
spec:
  nodeName: node-1
  containers: [{name: main, image: nginx}]
"""


@pytest.fixture
def bare() -> Iterator[FakeAPIServer]:
    with threaded_server() as running:
        yield running


@pytest.fixture
def simulated() -> Iterator[FakeAPIServer]:
    # A Job's container would exit 1 s after it started (docs/cluster-defaults.md): under load the pod
    # could be Succeeded before `kubectl wait` first looks, and never be seen Running.
    with threaded_server(controllers="all", real_time=True, outcomes=[OutcomeRule("run", image="busybox")]) as running:
        yield running


def kubectl(server: FakeAPIServer, home: Path, *args: str) -> tuple[int, str, str]:
    return run_kubectl(server.kubeconfig(home / "kubeconfig"), home, *args)


def test_without_a_kubelet_a_scheduled_pod_stays_terminating(bare: FakeAPIServer, tmp_path: Path) -> None:
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(BOUND_POD)
    assert kubectl(bare, tmp_path, "apply", "-f", str(manifest))[0] == 0
    code, out, err = kubectl(bare, tmp_path, "delete", "pod", "bound", "--wait=false")
    assert (code, out) == (0, 'pod "bound" deleted\n'), err
    code, out, _ = kubectl(bare, tmp_path, "get", "pod", "bound", "-o", "yaml")
    meta = yaml.safe_load(out)["metadata"]
    assert code == 0 and meta["deletionGracePeriodSeconds"] == 30 and "deletionTimestamp" in meta
    code, out, _ = kubectl(bare, tmp_path, "get", "pod", "bound", "--no-headers")
    assert code == 0 and out.split()[2] == "Terminating"
    code, out, err = kubectl(bare, tmp_path, "delete", "pod", "bound", "--grace-period=0", "--force")
    assert code == 0 and out == 'pod "bound" force deleted\n', (out, err)
    assert "Immediate deletion does not wait for confirmation" in err
    assert kubectl(bare, tmp_path, "get", "pod", "bound")[0] == 1


def test_an_unscheduled_pod_goes_at_once_and_kubectl_delete_returns(bare: FakeAPIServer, tmp_path: Path) -> None:
    assert kubectl(bare, tmp_path, "run", "web", "--image=nginx")[0] == 0
    code, out, err = kubectl(bare, tmp_path, "delete", "pod", "web")
    assert (code, out) == (0, 'pod "web" deleted\n'), err
    assert kubectl(bare, tmp_path, "get", "pod", "web")[0] == 1


def test_with_the_kubelet_kubectl_delete_waits_for_the_pod_to_go(simulated: FakeAPIServer, tmp_path: Path) -> None:
    assert kubectl(simulated, tmp_path, "run", "web", "--image=nginx")[0] == 0
    code, _, err = kubectl(
        simulated, tmp_path, "wait", "--for=jsonpath={.status.phase}=Running", "pod/web", "--timeout=30s"
    )
    assert code == 0, err
    code, out, err = kubectl(simulated, tmp_path, "delete", "pod", "web")
    assert (code, out) == (0, 'pod "web" deleted\n'), err
    assert kubectl(simulated, tmp_path, "get", "pod", "web")[0] == 1


def test_the_pods_of_a_deleted_job_go(simulated: FakeAPIServer, tmp_path: Path) -> None:
    code, _, err = kubectl(simulated, tmp_path, "create", "job", "r1", "--image=busybox", "--", "sleep", "3600")
    assert code == 0, err
    code, _, err = kubectl(
        simulated, tmp_path, "wait", "--for=jsonpath={.status.phase}=Running", "pod", "-l", "job-name=r1",
        "--timeout=30s",
    )  # fmt: skip
    assert code == 0, err
    code, out, err = kubectl(simulated, tmp_path, "delete", "job", "r1")
    assert (code, out) == (0, 'job.batch "r1" deleted\n'), err
    code, _, err = kubectl(simulated, tmp_path, "wait", "--for=delete", "pod", "-l", "job-name=r1", "--timeout=30s")
    assert code == 0, err
    code, out, err = kubectl(simulated, tmp_path, "get", "pods", "-l", "job-name=r1", "-o", "name")
    assert (code, out) == (0, ""), err


@pytest.mark.asyncio
async def test_kubernetes_asyncio_sees_the_grace_period(tmp_path: Path) -> None:
    async with FakeAPIServer() as server:
        server.load(yaml.safe_load(BOUND_POD))
        api_client = await async_config.new_client_from_config(config_file=str(server.kubeconfig(tmp_path / "c")))
        async with api_client:
            core = async_client.CoreV1Api(api_client)
            answer = await core.delete_namespaced_pod("bound", "default", grace_period_seconds=10)
            assert answer.metadata.deletion_grace_period_seconds == 10
            assert answer.metadata.deletion_timestamp is not None
            shortened = await core.delete_namespaced_pod(
                "bound", "default", body=async_client.V1DeleteOptions(grace_period_seconds=0)
            )
            assert shortened.metadata.deletion_grace_period_seconds == 0
            with pytest.raises(async_client.ApiException) as gone:
                await core.read_namespaced_pod("bound", "default")
            assert gone.value.status == 404
