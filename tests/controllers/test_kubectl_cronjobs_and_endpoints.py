"""kubectl against the simulated CronJob, EndpointSlice and Endpoints controllers: on the fake clock
(a server on a thread, advanced by the test) and on the wall clock (``fakeapi serve --controllers all``)
(docs/controllers.md)."""

from __future__ import annotations

from pathlib import Path

from fakeapi import FakeAPIServer, OutcomeRule
from tests.clients.local import run_kubectl, threaded_server

START = 1_700_000_000.0  # 2023-11-14T22:13:20Z
RULES = [OutcomeRule("succeed after 5s", image="busybox")]


def kubectl(server: FakeAPIServer, home: Path, *args: str) -> tuple[int, str, str]:
    return run_kubectl(server.kubeconfig(home / "kubeconfig"), home, *args)


def test_kubectl_lists_the_jobs_of_a_cron_job(tmp_path: Path) -> None:
    with threaded_server(controllers="all", clock=lambda: START, seed=7, outcomes=RULES) as server:
        assert (
            kubectl(server, tmp_path, "create", "cronjob", "hourly", "--image=busybox", "--schedule=0 * * * *")[0] == 0
        )
        server.advance(2 * 3600)
        code, out, err = kubectl(server, tmp_path, "get", "cronjobs,jobs")
    assert (code, err) == (0, "")
    assert out == (
        "NAME                   SCHEDULE    TIMEZONE   SUSPEND   ACTIVE   LAST SCHEDULE   AGE\n"
        "cronjob.batch/hourly   0 * * * *   <none>     False     0        13m             120m\n"
        "\n"
        "NAME                        STATUS     COMPLETIONS   DURATION   AGE\n"
        "job.batch/hourly-28333380   Complete   1/1           5s         73m\n"
        "job.batch/hourly-28333440   Complete   1/1           5s         13m\n"
    )


def test_kubectl_shows_the_endpoints_of_an_exposed_pod(tmp_path: Path) -> None:
    # Without CoreDNS's pods, the pod gets the node's first address.
    with threaded_server(controllers="all", control_plane_pods=False, clock=lambda: START, seed=7) as server:
        assert kubectl(server, tmp_path, "run", "web", "--image=nginx", "--port=8080")[0] == 0
        assert kubectl(server, tmp_path, "expose", "pod", "web", "--port=80", "--target-port=8080")[0] == 0
        server.advance(0)
        slices = kubectl(server, tmp_path, "get", "endpointslices", "-l", "kubernetes.io/service-name=web")
        endpoints = kubectl(server, tmp_path, "get", "endpoints", "web")
        described = kubectl(server, tmp_path, "describe", "service", "web")
    code, out, _ = slices
    assert code == 0
    header, row = out.splitlines()
    assert header.split() == ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]
    assert row.split()[0].startswith("web-") and row.split()[1:] == ["IPv4", "8080", "10.244.0.2", "0s"]
    assert endpoints[1] == "NAME   ENDPOINTS         AGE\nweb    10.244.0.2:8080   0s\n"
    assert "Endpoints:                10.244.0.2:8080\n" in described[1]


def test_kubectl_waits_for_a_ready_pod_to_be_an_endpoint(tmp_path: Path) -> None:
    with threaded_server(controllers="all", real_time=True) as server:
        assert kubectl(server, tmp_path, "run", "web", "--image=nginx", "--port=8080")[0] == 0
        assert kubectl(server, tmp_path, "expose", "pod", "web", "--port=80", "--target-port=8080")[0] == 0
        created = kubectl(server, tmp_path, "wait", "--for=create", "endpoints/web", "--timeout=60s")
        assert created[:2] == (0, "endpoints/web condition met\n")
        ready = "--for=jsonpath={.subsets[0].addresses[0].targetRef.name}=web"
        code, out, _ = kubectl(server, tmp_path, "wait", ready, "endpoints/web", "--timeout=60s")
        assert (code, out) == (0, "endpoints/web condition met\n")
        code, out, _ = kubectl(
            server, tmp_path, "get", "endpointslices", "-l", "kubernetes.io/service-name=web", "--no-headers",
            "-o", "custom-columns=READY:.endpoints[0].conditions.ready,POD:.endpoints[0].targetRef.name",
        )  # fmt: skip
        assert (code, out.split()) == (0, ["true", "web"])
