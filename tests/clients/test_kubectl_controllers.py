"""kubectl against a server whose simulated controllers run on the wall clock (``fakeapi serve
--controllers all``): ``kubectl wait`` sees a Job complete, ``kubectl get pods`` shows its pod
Completed, with no status written by hand (docs/controllers.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fakeapi import FakeAPIServer, OutcomeRule
from tests.cli.serving import ServeProcess, home_env
from tests.clients.local import run_kubectl, threaded_server


@pytest.fixture
def server() -> Iterator[FakeAPIServer]:
    rules = [OutcomeRule("succeed after 1s", image="busybox"), OutcomeRule("exit 3 after 1s", image="failing")]
    with threaded_server(controllers="all", real_time=True, outcomes=rules) as running:
        yield running


def kubectl(server: FakeAPIServer, home: Path, *args: str) -> tuple[int, str, str]:
    return run_kubectl(server.kubeconfig(home / "kubeconfig"), home, *args)


def test_kubectl_waits_for_a_job_to_complete(server: FakeAPIServer, tmp_path: Path) -> None:
    assert kubectl(server, tmp_path, "create", "job", "report", "--image=busybox")[0] == 0
    code, out, err = kubectl(server, tmp_path, "wait", "--for=condition=complete", "job/report", "--timeout=60s")
    assert (code, out, err) == (0, "job.batch/report condition met\n", "")
    code, out, _ = kubectl(server, tmp_path, "get", "pods", "--no-headers", "-o", "custom-columns=STATUS:.status.phase")
    assert (code, out) == (0, "Succeeded\n")
    code, out, _ = kubectl(server, tmp_path, "get", "pods")
    header, row = out.splitlines()
    assert header.split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert row.split()[0].startswith("report-") and row.split()[1:4] == ["0/1", "Completed", "0"]
    ready = "jsonpath={.status.conditions[?(@.type=='Ready')].reason}"
    assert kubectl(server, tmp_path, "get", "node", "node-1", "-o", ready)[1] == "KubeletReady"


def test_kubectl_waits_for_a_job_to_fail(server: FakeAPIServer, tmp_path: Path) -> None:
    manifest = tmp_path / "job.yaml"
    manifest.write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: broken}\nspec:\n  backoffLimit: 0\n  template:\n"
        "    spec:\n      restartPolicy: Never\n      containers: [{name: main, image: failing}]\n"
    )
    assert kubectl(server, tmp_path, "create", "-f", str(manifest))[0] == 0
    code, out, _ = kubectl(server, tmp_path, "wait", "--for=condition=failed", "job/broken", "--timeout=60s")
    assert (code, out) == (0, "job.batch/broken condition met\n")
    code, out, _ = kubectl(server, tmp_path, "get", "pods", "--no-headers")
    assert out.split()[1:4] == ["0/1", "Error", "0"]


def test_a_job_completes_with_the_defaults_of_fakeapi_serve(tmp_path: Path) -> None:
    """No outcome rule: a Job's pod succeeds a second after it starts (docs/cluster-defaults.md)."""
    kubeconfig = tmp_path / "kubeconfig"
    flags = ("--port", "0", "--controllers", "all", "--kubeconfig", str(kubeconfig))
    with ServeProcess(*flags, env=home_env(tmp_path)):
        code, out, err = run_kubectl(kubeconfig, tmp_path, "create", "job", "x", "--image=busybox", "--", "true")
        assert (code, out, err) == (0, "job.batch/x created\n", "")
        code, out, err = run_kubectl(kubeconfig, tmp_path, "wait", "--for=condition=complete", "job/x", "--timeout=60s")
        assert (code, out, err) == (0, "job.batch/x condition met\n", "")
        code, out, _ = run_kubectl(kubeconfig, tmp_path, "get", "pods", "--no-headers")
        assert code == 0 and out.split()[1:4] == ["0/1", "Completed", "0"]
