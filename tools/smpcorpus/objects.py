"""The stored objects the strategic merge patch corpus patches: one realistic object per kind.

Each is written as the apiserver would hand it to the patch (typed, defaulted fields where an
operator's manifest would have them, server metadata set), so the original is what
``ToUnstructured`` of a stored object gives. The recorder still passes every one through kubectl's
typed round trip before use, so a field written here that Go would drop never reaches a case.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["KINDS", "POD_KINDS", "base_object", "pod_spec_path"]

_META = {
    "name": "web",
    "namespace": "default",
    "uid": "6f0bd8a5-7e6b-4f8e-9a51-6c3c1b3f2a10",
    "resourceVersion": "42",
    "creationTimestamp": "2024-05-01T10:00:00Z",
    "labels": {"app": "web", "tier": "frontend"},
    "annotations": {"owner": "team-a"},
}

_CONTAINERS = [
    {
        "name": "app",
        "image": "registry.example/app:1.0",
        "args": ["--port=8080"],
        "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
        "env": [{"name": "MODE", "value": "prod"}, {"name": "LEVEL", "value": "info"}],
        "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m"}},
        "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}],
        "imagePullPolicy": "IfNotPresent",
    },
    {"name": "sidecar", "image": "registry.example/proxy:2", "resources": {}},
]

_POD_SPEC = {
    "containers": _CONTAINERS,
    "initContainers": [{"name": "init", "image": "busybox:1", "command": ["sh", "-c", "true"], "resources": {}}],
    "volumes": [{"name": "config", "configMap": {"name": "web-config"}}, {"name": "cache", "emptyDir": {}}],
    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}],
    "nodeSelector": {"disk": "ssd"},
    "imagePullSecrets": [{"name": "registry"}],
    "restartPolicy": "Always",
}

_TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": _POD_SPEC}
_SELECTOR = {"matchLabels": {"app": "web"}}

POD_KINDS = {
    "Deployment": ("apps/v1", ("spec", "template", "spec")),
    "StatefulSet": ("apps/v1", ("spec", "template", "spec")),
    "DaemonSet": ("apps/v1", ("spec", "template", "spec")),
    "ReplicaSet": ("apps/v1", ("spec", "template", "spec")),
    "Job": ("batch/v1", ("spec", "template", "spec")),
    "CronJob": ("batch/v1", ("spec", "jobTemplate", "spec", "template", "spec")),
    "ReplicationController": ("v1", ("spec", "template", "spec")),
    "Pod": ("v1", ("spec",)),
}
KINDS = {
    **{kind: version for kind, (version, _) in POD_KINDS.items()},
    "Service": "v1",
    "ConfigMap": "v1",
    "Secret": "v1",
}


def _spec(kind: str) -> dict[str, Any]:
    template = copy.deepcopy(_TEMPLATE)
    job_template = copy.deepcopy(_TEMPLATE)
    job_template["spec"]["restartPolicy"] = "OnFailure"
    specs: dict[str, dict[str, Any]] = {
        "Deployment": {
            "replicas": 2,
            "selector": _SELECTOR,
            "template": template,
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
            "revisionHistoryLimit": 10,
        },
        "StatefulSet": {
            "replicas": 3,
            "selector": _SELECTOR,
            "template": template,
            "serviceName": "web",
            "podManagementPolicy": "OrderedReady",
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "data"},
                    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
                }
            ],
        },
        "DaemonSet": {
            "selector": _SELECTOR,
            "template": template,
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
        },
        "ReplicaSet": {"replicas": 2, "selector": _SELECTOR, "template": template},
        "Job": {"backoffLimit": 4, "completions": 1, "parallelism": 1, "template": job_template},
        "CronJob": {
            "schedule": "*/5 * * * *",
            "concurrencyPolicy": "Forbid",
            "jobTemplate": {"spec": {"backoffLimit": 2, "template": job_template}},
        },
        "ReplicationController": {"replicas": 1, "selector": {"app": "web"}, "template": template},
        "Pod": copy.deepcopy(_POD_SPEC),
    }
    return specs[kind]


def base_object(kind: str) -> dict[str, Any]:
    """The stored object of ``kind`` every case of that kind starts from (a fresh copy)."""
    obj: dict[str, Any] = {"apiVersion": KINDS[kind], "kind": kind, "metadata": copy.deepcopy(_META)}
    if kind in POD_KINDS:
        obj["spec"] = copy.deepcopy(_spec(kind))
    elif kind == "Service":
        obj["spec"] = {
            "type": "ClusterIP",
            "selector": {"app": "web"},
            "ports": [
                {"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"},
                {"name": "https", "port": 443, "targetPort": "https", "protocol": "TCP"},
            ],
            "clusterIP": "10.96.0.20",
            "clusterIPs": ["10.96.0.20"],
            "sessionAffinity": "None",
        }
    elif kind == "ConfigMap":
        obj["data"] = {"app.properties": "mode=prod\n", "level": "info"}
        obj["binaryData"] = {"blob": "AAEC"}
    elif kind == "Secret":
        obj["type"] = "Opaque"
        obj["data"] = {"password": "czNjcjN0", "user": "YWRtaW4="}
    return obj


def pod_spec_path(kind: str) -> tuple[str, ...] | None:
    """Where the pod spec sits in ``kind``, or None for a kind without one."""
    entry = POD_KINDS.get(kind)
    return entry[1] if entry else None
