"""kubectl against the quota, disruption and autoscaler controllers on the fake clock (a server on a
thread, advanced by the test): what ``create quota``, ``describe``, ``get`` and ``drain`` show
(docs/quota-disruption-autoscaling.md)."""

from __future__ import annotations

import json
from pathlib import Path

from fakeapi import FakeAPIServer
from tests.clients.local import run_kubectl, threaded_server

START = 1_700_000_000.0  # 2023-11-14T22:13:20Z


def kubectl(server: FakeAPIServer, home: Path, *args: str) -> tuple[int, str, str]:
    return run_kubectl(server.kubeconfig(home / "kubeconfig"), home, *args)


def requesting(cpu: str) -> str:
    return json.dumps(
        {"spec": {"containers": [{"name": "main", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]}}
    )


def test_kubectl_is_refused_past_a_quota_and_describes_its_usage(tmp_path: Path) -> None:
    with threaded_server(controllers="all", clock=lambda: START, seed=7) as server:
        hard = "--hard=pods=2,requests.cpu=1,count/deployments.apps=1"
        assert kubectl(server, tmp_path, "create", "quota", "compute", hard) == (
            0,
            "resourcequota/compute created\n",
            "",
        )
        server.advance(0)
        assert kubectl(server, tmp_path, "run", "a", "--image=nginx", "--overrides", requesting("600m"))[0] == 0
        refused = kubectl(server, tmp_path, "run", "b", "--image=nginx", "--overrides", requesting("600m"))
        second = kubectl(server, tmp_path, "create", "deployment", "web", "--image=nginx")
        third = kubectl(server, tmp_path, "create", "deployment", "api", "--image=nginx")
        described = kubectl(server, tmp_path, "describe", "quota", "compute")
    assert refused == (
        1,
        "",
        'Error from server (Forbidden): pods "b" is forbidden: exceeded quota: compute, requested: '
        "requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1\n",
    )
    assert second[0] == 0
    assert third == (
        1,
        "",
        'error: failed to create deployment: deployments.apps "api" is forbidden: exceeded quota: compute, '
        "requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1\n",
    )
    assert described == (
        0,
        "Name:                   compute\n"
        "Namespace:              default\n"
        "Resource                Used  Hard\n"
        "--------                ----  ----\n"
        "count/deployments.apps  1     1\n"
        "pods                    1     2\n"
        "requests.cpu            600m  1\n",
        "",
    )


def test_kubectl_drain_is_held_by_a_disruption_budget(tmp_path: Path) -> None:
    with threaded_server(controllers="all", clock=lambda: START, seed=7) as server:
        assert kubectl(server, tmp_path, "create", "deployment", "web", "--image=nginx", "--replicas=3")[0] == 0
        assert kubectl(server, tmp_path, "create", "pdb", "web", "--selector=app=web", "--min-available=3")[0] == 0
        server.advance(0)
        listed = kubectl(server, tmp_path, "get", "pdb")
        code, out, _ = kubectl(server, tmp_path, "get", "pods", "-o", "name")
        pods = sorted(line.removeprefix("pod/") for line in out.splitlines())
        drained = kubectl(server, tmp_path, "drain", "node-1", "--ignore-daemonsets", "--timeout=2s")
    assert listed == (
        0,
        "NAME   MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE\nweb    3               N/A               0                     0s\n",
        "",
    )
    assert code == 0 and len(pods) == 3
    status, out, err = drained
    assert status == 1
    assert out.startswith("node/node-1 cordoned\n")
    for pod in pods:
        assert (
            f'error when evicting pods/"{pod}" -n "default" (will retry after 5s): '
            "Cannot evict pod as it would violate the pod's disruption budget.\n"
        ) in err


def test_kubectl_shows_an_autoscaler_without_metrics(tmp_path: Path) -> None:
    manifest = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2,
            "maxReplicas": 5,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}},
                }
            ],
        },
    }
    (tmp_path / "hpa.json").write_text(json.dumps(manifest))
    with threaded_server(controllers="all", clock=lambda: START, seed=7) as server:
        assert kubectl(server, tmp_path, "create", "deployment", "web", "--image=nginx", "--replicas=2")[0] == 0
        assert kubectl(server, tmp_path, "create", "-f", str(tmp_path / "hpa.json"))[0] == 0
        server.advance(15)
        listed = kubectl(server, tmp_path, "get", "hpa")
        described = kubectl(server, tmp_path, "describe", "hpa", "web")
    assert listed == (
        0,
        "NAME   REFERENCE        TARGETS              MINPODS   MAXPODS   REPLICAS   AGE\n"
        "web    Deployment/web   cpu: <unknown>/60%   2         5         2          15s\n",
        "",
    )
    code, out, _ = described
    assert code == 0
    assert "  resource cpu on pods  (as a percentage of request):  <unknown> / 60%\n" in out
    assert "Deployment pods:                                       2 current / 0 desired\n" in out
    assert (
        "Conditions:\n"
        "  Type           Status  Reason                   Message\n"
        "  ----           ------  ------                   -------\n"
        "  AbleToScale    True    SucceededGetScale        the HPA controller was able to get the target's current scale\n"
        "  ScalingActive  False   FailedGetResourceMetric  the HPA was unable to compute the replica count: failed to "
        "get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics "
        "API: the server could not find the requested resource (get pods.metrics.k8s.io)\n"
    ) in out
