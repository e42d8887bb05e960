"""``kubectl get`` of the built-in kinds prints the columns and cells a 1.32 apiserver's Tables carry
(``pkg/printers/internalversion/printers.go``): replica counts, schedules, budgets, quotas, bindings,
volumes, classes and nodes, wide output included. The server's clock is pinned, so ages are exact."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fakeapi import FakeAPIServer
from tests.clients.local import run_kubectl, threaded_server

NOW = 1_767_225_600.0  # 2026-01-01T00:00:00Z: every object below is 10s old


@pytest.fixture(scope="module")
def server() -> Iterator[FakeAPIServer]:
    created = [NOW - 10]
    with threaded_server(clock=lambda: created[0]) as running:
        running.load(*OBJECTS)
        created[0] = NOW
        yield running


def rows(server: FakeAPIServer, home: Path, *args: str) -> list[list[str]]:
    code, out, err = run_kubectl(server.kubeconfig(home / "kubeconfig"), home, "get", *args)
    assert (code, err) == (0, "")
    # kubectl pads columns with at least three spaces; single spaces stay inside a cell.
    return [[cell.strip() for cell in line.split("   ") if cell.strip()] for line in out.splitlines()]


def template(labels: dict[str, str], **spec: Any) -> dict[str, Any]:
    return {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}], **spec}}


OBJECTS: list[dict[str, Any]] = [
    {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "rs1"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"a": "b"}}, "template": template({"a": "b"})},
    },
    {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "sts1"},
        "spec": {
            "replicas": 3,
            "serviceName": "sts1",
            "selector": {"matchLabels": {"a": "s"}},
            "template": template({"a": "s"}),
        },
    },
    {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "ds1"},
        "spec": {
            "selector": {"matchLabels": {"a": "d"}},
            "template": template({"a": "d"}, nodeSelector={"disk": "ssd"}),
        },
    },
    {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "tick"},
        "spec": {
            "schedule": "*/5 * * * *",
            "timeZone": "Etc/UTC",
            "suspend": True,
            "jobTemplate": {"spec": {"template": template({}, restartPolicy="OnFailure")}},
        },
    },
    {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web"},
        "spec": {"maxUnavailable": "25%", "selector": {"matchLabels": {"app": "web"}}},
    },
    {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "web"},
        "spec": {
            "tls": [{"hosts": ["a.example.com"]}],
            "rules": [{"host": host} for host in ("a.example.com", "b.example.com", "c.example.com", "d.example.com")],
        },
    },
    {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "np"},
        "spec": {"podSelector": {"matchLabels": {"app": "web"}}},
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "rb"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [
            {"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"},
            {"kind": "Group", "name": "devs", "apiGroup": "rbac.authorization.k8s.io"},
            {"kind": "ServiceAccount", "name": "default", "namespace": "default"},
        ],
    },
    {
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
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}},
                },
                {
                    "type": "Pods",
                    "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}},
                },
                {
                    "type": "Resource",
                    "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "1Gi"}},
                },
            ],
        },
    },
    {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pv1"},
        "spec": {
            "capacity": {"storage": "5Gi"},
            "accessModes": ["ReadOnlyMany", "ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Retain",
            "volumeMode": "Filesystem",
            "hostPath": {"path": "/tmp"},
            "storageClassName": "standard",
        },
    },
    {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "standard", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "rancher.io/local-path",
        "volumeBindingMode": "WaitForFirstConsumer",
    },
    {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1", "labels": {"node-role.kubernetes.io/control-plane": ""}},
        "spec": {"unschedulable": True},
        "status": {
            "conditions": [{"type": "Ready", "status": "True"}],
            "nodeInfo": {"kubeletVersion": "v1.32.0", "osImage": "Debian GNU/Linux 12", "kernelVersion": "6.1.0"},
            "addresses": [{"type": "InternalIP", "address": "10.0.0.5"}],
        },
    },
    {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "vw"},
    },
]


def test_workload_kinds(server: FakeAPIServer, tmp_path: Path) -> None:
    assert rows(server, tmp_path, "rs,sts,ds", "-o", "wide") == [
        ["NAME", "DESIRED", "CURRENT", "READY", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"],
        ["replicaset.apps/rs1", "2", "0", "0", "10s", "c", "busybox:1.36", "a=b"],
        [],
        ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
        ["statefulset.apps/sts1", "0/3", "10s", "c", "busybox:1.36"],
        [],
        [
            "NAME",
            "DESIRED",
            "CURRENT",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "NODE SELECTOR",
            "AGE",
            "CONTAINERS",
            "IMAGES",
            "SELECTOR",
        ],
        ["daemonset.apps/ds1", "0", "0", "0", "0", "0", "disk=ssd", "10s", "c", "busybox:1.36", "a=d"],
    ]
    assert rows(server, tmp_path, "cronjob") == [
        ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"],
        ["tick", "*/5 * * * *", "Etc/UTC", "True", "0", "<none>", "10s"],
    ]


def test_policy_and_access_kinds(server: FakeAPIServer, tmp_path: Path) -> None:
    assert rows(server, tmp_path, "pdb,netpol,rolebinding", "-o", "wide") == [
        ["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"],
        ["poddisruptionbudget.policy/web", "N/A", "25%", "0", "10s"],
        [],
        ["NAME", "POD-SELECTOR", "AGE"],
        ["networkpolicy.networking.k8s.io/np", "app=web", "10s"],
        [],
        ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"],
        ["rolebinding.rbac.authorization.k8s.io/rb", "ClusterRole/view", "10s", "alice", "devs", "default/default"],
    ]
    assert rows(server, tmp_path, "hpa") == [
        ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
        ["web", "Deployment/web", "cpu: <unknown>/50%, <unknown>/10 + 1 more...", "2", "5", "0", "10s"],
    ]
    assert rows(server, tmp_path, "ingress") == [
        ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
        ["web", "<none>", "a.example.com,b.example.com,c.example.com + 1 more...", "80, 443", "10s"],
    ]


def test_cluster_kinds(server: FakeAPIServer, tmp_path: Path) -> None:
    assert rows(server, tmp_path, "pv,sc") == [
        [
            "NAME",
            "CAPACITY",
            "ACCESS MODES",
            "RECLAIM POLICY",
            "STATUS",
            "CLAIM",
            "STORAGECLASS",
            "VOLUMEATTRIBUTESCLASS",
            "REASON",
            "AGE",
        ],
        ["persistentvolume/pv1", "5Gi", "RWO,ROX", "Retain", "Pending", "standard", "<unset>", "10s"],
        [],
        ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"],
        [
            "storageclass.storage.k8s.io/standard (default)",
            "rancher.io/local-path",
            "Delete",
            "WaitForFirstConsumer",
            "false",
            "10s",
        ],
    ]
    assert rows(server, tmp_path, "nodes", "-o", "wide") == [
        [
            "NAME",
            "STATUS",
            "ROLES",
            "AGE",
            "VERSION",
            "INTERNAL-IP",
            "EXTERNAL-IP",
            "OS-IMAGE",
            "KERNEL-VERSION",
            "CONTAINER-RUNTIME",
        ],
        [
            "n1",
            "Ready,SchedulingDisabled",
            "control-plane",
            "10s",
            "v1.32.0",
            "10.0.0.5",
            "<none>",
            "Debian GNU/Linux 12",
            "6.1.0",
            "<unknown>",
        ],
    ]
    assert rows(server, tmp_path, "validatingwebhookconfigurations") == [
        ["NAME", "WEBHOOKS", "AGE"],
        ["vw", "0", "10s"],
    ]
