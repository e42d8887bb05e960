"""The strategic merge patches of the corpus: what kubectl and operators send, then what breaks it.

Fragments are small patches aimed at one field of one kind (``kubectl set image``, ``scale``,
``label``, ``apply``'s directives, an operator's status conditions), then wrong types, unknown
fields, omitempty zeros and malformed directives. ``templates`` yields each fragment once per kind it
applies to; ``random_patches`` merges two or three fragments of a kind, seeded, so their keys
interact (directives beside plain fields, deletions beside additions).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from typing import Any

from objects import KINDS, POD_KINDS, pod_spec_path

__all__ = ["random_patches", "templates"]

Fragment = Callable[[], Any]


def _nest(path: tuple[str, ...], leaf: Any) -> dict[str, Any]:
    for key in reversed(path):
        leaf = {key: leaf}
    return leaf


def _metadata() -> dict[str, Fragment]:
    return {
        "label-add": lambda: {"metadata": {"labels": {"version": "v2"}}},
        "label-remove": lambda: {"metadata": {"labels": {"tier": None}}},
        "label-empty-value": lambda: {"metadata": {"labels": {"empty": ""}}},
        "label-number": lambda: {"metadata": {"labels": {"n": 1}}},
        "labels-string": lambda: {"metadata": {"labels": "a=b"}},
        "labels-null": lambda: {"metadata": {"labels": None}},
        "labels-empty": lambda: {"metadata": {"labels": {}}},
        "labels-replace": lambda: {"metadata": {"labels": {"$patch": "replace", "only": "this"}}},
        "annotation-null-value": lambda: {"metadata": {"annotations": {"note": None}}},
        "annotation-list": lambda: {"metadata": {"annotations": {"note": ["x"]}}},
        "annotations-delete": lambda: {"metadata": {"annotations": {"$patch": "delete"}}},
        "finalizer-add": lambda: {"metadata": {"finalizers": ["example.com/cleanup"]}},
        "finalizer-delete": lambda: {"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/cleanup"]}},
        "finalizer-order": lambda: {"metadata": {"$setElementOrder/finalizers": ["b", "a"], "finalizers": ["a", "b"]}},
        "finalizers-null": lambda: {"metadata": {"finalizers": None}},
        "finalizer-number": lambda: {"metadata": {"finalizers": [1]}},
        "owner-add": lambda: {
            "metadata": {
                "ownerReferences": [
                    {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "u-1", "controller": True}
                ]
            }
        },
        "owner-without-uid": lambda: {"metadata": {"ownerReferences": [{"name": "owner"}]}},
        "metadata-unknown": lambda: {"metadata": {"bogus": "x"}},
        "metadata-wrong-case": lambda: {"metadata": {"Labels": {"a": "b"}}},
        "generation-string": lambda: {"metadata": {"generation": "2"}},
        "creation-timestamp-bad": lambda: {"metadata": {"creationTimestamp": "yesterday"}},
        "creation-timestamp-number": lambda: {"metadata": {"creationTimestamp": 5}},
        "metadata-patch-unknown": lambda: {"metadata": {"$patch": "merge-all"}},
        "retain-keys-not-list": lambda: {"metadata": {"$retainKeys": "labels", "labels": {"a": "b"}}},
        "retain-keys-mismatch": lambda: {"metadata": {"$retainKeys": ["annotations"], "labels": {"a": "b"}}},
        "retain-keys-ok": lambda: {"metadata": {"$retainKeys": ["name", "labels"], "labels": {"a": "b"}}},
        "delete-list-bad-key": lambda: {"metadata": {"$deleteFromPrimitiveList": ["x"]}},
        "order-not-list": lambda: {"metadata": {"$setElementOrder/finalizers": "a"}},
        "order-unknown-field": lambda: {"metadata": {"$setElementOrder/bogus": ["a"]}},
        "order-mismatch": lambda: {"metadata": {"$setElementOrder/finalizers": ["a"], "finalizers": ["b", "a"]}},
    }


def _containers(rng: random.Random) -> dict[str, Fragment]:
    image = lambda: f"registry.example/app:{rng.randint(2, 9)}.{rng.randint(0, 9)}"  # noqa: E731
    return {
        "set-image": lambda: {"containers": [{"name": "app", "image": image()}]},
        "set-image-init": lambda: {"initContainers": [{"name": "init", "image": "busybox:2"}]},
        "add-container": lambda: {"containers": [{"name": "debug", "image": "busybox:1"}]},
        "add-container-ordered": lambda: {
            "$setElementOrder/containers": [{"name": "app"}, {"name": "debug"}, {"name": "sidecar"}],
            "containers": [{"name": "debug", "image": "busybox:1"}],
        },
        "delete-container": lambda: {"containers": [{"name": "sidecar", "$patch": "delete"}]},
        "replace-containers": lambda: {"containers": [{"$patch": "replace"}, {"name": "only", "image": "x:1"}]},
        "env-add": lambda: {"containers": [{"name": "app", "env": [{"name": "NEW", "value": "1"}]}]},
        "env-update": lambda: {"containers": [{"name": "app", "env": [{"name": "LEVEL", "value": "debug"}]}]},
        "env-delete": lambda: {"containers": [{"name": "app", "env": [{"name": "MODE", "$patch": "delete"}]}]},
        "env-value-from": lambda: {
            "containers": [
                {
                    "name": "app",
                    "env": [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                }
            ]
        },
        "env-empty-value": lambda: {"containers": [{"name": "app", "env": [{"name": "LEVEL", "value": ""}]}]},
        "env-number": lambda: {"containers": [{"name": "app", "env": [{"name": "N", "value": 1}]}]},
        "env-as-map": lambda: {"containers": [{"name": "app", "env": {"N": "1"}}]},
        "env-without-name": lambda: {"containers": [{"name": "app", "env": [{"value": "1"}]}]},
        "port-add": lambda: {"containers": [{"name": "app", "ports": [{"containerPort": 9090, "name": "metrics"}]}]},
        "port-float-key": lambda: {"containers": [{"name": "app", "ports": [{"containerPort": 8080.0}]}]},
        "port-string": lambda: {"containers": [{"name": "app", "ports": [{"containerPort": "8080"}]}]},
        "port-fraction": lambda: {"containers": [{"name": "app", "ports": [{"containerPort": 80.5}]}]},
        "ports-empty": lambda: {"containers": [{"name": "sidecar", "ports": []}]},
        "mount-add": lambda: {
            "containers": [{"name": "app", "volumeMounts": [{"name": "cache", "mountPath": "/cache"}]}]
        },
        "mount-readonly-false": lambda: {
            "containers": [{"name": "app", "volumeMounts": [{"mountPath": "/etc/app", "readOnly": False}]}]
        },
        "resources-canonical": lambda: {
            "containers": [
                {
                    "name": "app",
                    "resources": {
                        "limits": {"cpu": rng.choice(["1000m", "1.5", 2, 0.5, "2000m"])},
                        "requests": {"memory": rng.choice(["1024Mi", "0.5Gi", "1e3", "128974848", "129e6"])},
                    },
                }
            ]
        },
        "resources-bad": lambda: {"containers": [{"name": "app", "resources": {"limits": {"cpu": "lots"}}}]},
        "resources-remove": lambda: {"containers": [{"name": "app", "resources": {"limits": {"memory": None}}}]},
        "args-replace": lambda: {"containers": [{"name": "app", "args": ["--port=9090", "--verbose"]}]},
        "args-nested": lambda: {"containers": [{"name": "app", "args": [["--a"]]}]},
        "command-empty": lambda: {"containers": [{"name": "app", "command": []}]},
        "image-object": lambda: {"containers": [{"name": "app", "image": {"name": "x"}}]},
        "image-null": lambda: {"containers": [{"name": "app", "image": None}]},
        "policy-typo": lambda: {"containers": [{"name": "app", "imagePullPolicyy": "Always"}]},
        "security-false": lambda: {
            "containers": [{"name": "app", "securityContext": {"readOnlyRootFilesystem": False, "privileged": False}}]
        },
        "probe-intstr": lambda: {
            "containers": [
                {"name": "app", "readinessProbe": {"httpGet": {"path": "/", "port": rng.choice([8080, "http"])}}}
            ]
        },
        "probe-intstr-bad": lambda: {
            "containers": [{"name": "app", "readinessProbe": {"httpGet": {"port": rng.choice([True, 1.5])}}}]
        },
        "container-without-name": lambda: {"containers": [{"image": "x:1"}]},
        "containers-mixed": lambda: {"containers": [{"name": "app"}, "sidecar"]},
        "containers-nested": lambda: {"containers": [[{"name": "app"}]]},
        "containers-null-item": lambda: {"containers": [None]},
        "containers-merge-directive": lambda: {"containers": [{"$patch": "merge"}]},
        "containers-unknown-directive": lambda: {"containers": [{"name": "app", "$patch": "nope"}]},
        "containers-delete-no-key": lambda: {"containers": [{"$patch": "delete"}]},
        "containers-order-mismatch": lambda: {
            "$setElementOrder/containers": [{"name": "app"}],
            "containers": [{"name": "sidecar", "image": "x:1"}, {"name": "app", "image": "y:1"}],
        },
        "containers-order-no-key": lambda: {"$setElementOrder/containers": [{"image": "x"}]},
    }


def _pod_spec(rng: random.Random) -> dict[str, Fragment]:
    fragments = {f"containers/{name}": fragment for name, fragment in _containers(rng).items()}
    fragments.update(
        {
            "volume-retain-keys": lambda: {
                "volumes": [{"name": "config", "$retainKeys": ["name", "secret"], "secret": {"secretName": "s"}}]
            },
            "volume-switch-source": lambda: {"volumes": [{"name": "config", "secret": {"secretName": "s"}}]},
            "volume-add": lambda: {"volumes": [{"name": "tmp", "emptyDir": {"medium": "Memory"}}]},
            "volume-delete": lambda: {"volumes": [{"name": "cache", "$patch": "delete"}]},
            "volume-size": lambda: {"volumes": [{"name": "cache", "emptyDir": {"sizeLimit": rng.choice(["1Gi", 5])}}]},
            "tolerations-replace": lambda: {"tolerations": [{"key": "gpu", "operator": "Exists"}]},
            "tolerations-empty": lambda: {"tolerations": []},
            "tolerations-null": lambda: {"tolerations": None},
            "tolerations-delete-list": lambda: {"$deleteFromPrimitiveList/tolerations": [{"key": "dedicated"}]},
            "node-selector-add": lambda: {"nodeSelector": {"zone": "a"}},
            "node-selector-remove": lambda: {"nodeSelector": {"disk": None}},
            "pull-secret-add": lambda: {"imagePullSecrets": [{"name": "other"}]},
            "pull-secrets-empty": lambda: {"imagePullSecrets": []},
            "host-network-false": lambda: {"hostNetwork": False},
            "service-account": lambda: {"serviceAccountName": "web"},
            "termination-grace": lambda: {"terminationGracePeriodSeconds": rng.choice([0, 30, 4294967296, -1])},
            "host-aliases": lambda: {"hostAliases": [{"ip": "10.0.0.1", "hostnames": ["db"]}]},
            "spread": lambda: {"topologySpreadConstraints": [{"topologyKey": "zone", "maxSkew": 1}]},
            "spec-unknown": lambda: {"bogusField": True},
            "spec-replace": lambda: {"$patch": "replace", "containers": [{"name": "only", "image": "x:1"}]},
            "restart-policy-number": lambda: {"restartPolicy": 1},
            "dns-config": lambda: {
                "dnsConfig": {"nameservers": ["1.1.1.1"], "options": [{"name": "ndots", "value": "2"}]}
            },
        }
    )
    return fragments


_SPEC_FRAGMENTS: dict[str, dict[str, Fragment]] = {
    "Deployment": {
        "scale": lambda: {"spec": {"replicas": 5}},
        "scale-zero": lambda: {"spec": {"replicas": 0}},
        "scale-null": lambda: {"spec": {"replicas": None}},
        "scale-bool": lambda: {"spec": {"replicas": True}},
        "scale-string": lambda: {"spec": {"replicas": "3"}},
        "scale-fraction": lambda: {"spec": {"replicas": 1.5}},
        "scale-float": lambda: {"spec": {"replicas": 3.0}},
        "scale-wraps": lambda: {"spec": {"replicas": 4294967297}},
        "strategy-recreate": lambda: {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}},
        "strategy-surge": lambda: {"spec": {"strategy": {"rollingUpdate": {"maxSurge": 2}}}},
        "paused": lambda: {"spec": {"paused": True}},
        "paused-false": lambda: {"spec": {"paused": False}},
        "pause-string": lambda: {"spec": {"paused": "yes"}},
        "selector-expression": lambda: {
            "spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]}}
        },
        "restart-annotation": lambda: {
            "spec": {
                "template": {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": "2024-05-02T00:00:00Z"}}}
            }
        },
        "status-condition": lambda: {
            "status": {"conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"}]}
        },
        "spec-unknown": lambda: {"spec": {"bogus": 1}},
        "spec-string": lambda: {"spec": "nope"},
        "spec-list": lambda: {"spec": [1]},
    },
    "StatefulSet": {
        "scale": lambda: {"spec": {"replicas": 1}},
        "scale-string": lambda: {"spec": {"replicas": "1"}},
        "partition": lambda: {"spec": {"updateStrategy": {"rollingUpdate": {"partition": 2}}}},
        "on-delete": lambda: {"spec": {"updateStrategy": {"type": "OnDelete", "rollingUpdate": None}}},
        "claim-template": lambda: {
            "spec": {
                "volumeClaimTemplates": [{"metadata": {"name": "logs"}, "spec": {"accessModes": ["ReadWriteOnce"]}}]
            }
        },
        "claim-size": lambda: {
            "spec": {
                "volumeClaimTemplates": [
                    {"metadata": {"name": "data"}, "spec": {"resources": {"requests": {"storage": "2048Mi"}}}}
                ]
            }
        },
        "retention": lambda: {"spec": {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete"}}},
        "ordinals": lambda: {"spec": {"ordinals": {"start": 1}}},
        "status-condition": lambda: {"status": {"conditions": [{"type": "Ready", "status": "True"}]}},
        "spec-unknown": lambda: {"spec": {"serviceNames": "web"}},
    },
    "DaemonSet": {
        "surge": lambda: {"spec": {"updateStrategy": {"rollingUpdate": {"maxSurge": "10%"}}}},
        "on-delete": lambda: {"spec": {"updateStrategy": {"type": "OnDelete"}}},
        "min-ready": lambda: {"spec": {"minReadySeconds": 10}},
        "min-ready-bool": lambda: {"spec": {"minReadySeconds": False}},
        "replicas-unknown": lambda: {"spec": {"replicas": 3}},
        "status-condition": lambda: {"status": {"conditions": [{"type": "Ready", "status": "True"}]}},
    },
    "ReplicaSet": {
        "scale": lambda: {"spec": {"replicas": 0}},
        "scale-object": lambda: {"spec": {"replicas": {"n": 1}}},
        "min-ready": lambda: {"spec": {"minReadySeconds": 5}},
        "status-condition": lambda: {"status": {"conditions": [{"type": "ReplicaFailure", "status": "True"}]}},
    },
    "Job": {
        "suspend": lambda: {"spec": {"suspend": True}},
        "backoff": lambda: {"spec": {"backoffLimit": 0}},
        "deadline": lambda: {"spec": {"activeDeadlineSeconds": 60}},
        "ttl": lambda: {"spec": {"ttlSecondsAfterFinished": "60"}},
        "failure-policy": lambda: {
            "spec": {
                "podFailurePolicy": {
                    "rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]
                }
            }
        },
        "status-condition": lambda: {"status": {"conditions": [{"type": "Complete", "status": "True"}]}},
        "status-succeeded": lambda: {"status": {"succeeded": 1, "active": 0}},
    },
    "CronJob": {
        "suspend": lambda: {"spec": {"suspend": True}},
        "schedule": lambda: {"spec": {"schedule": "0 * * * *"}},
        "schedule-number": lambda: {"spec": {"schedule": 5}},
        "history": lambda: {"spec": {"successfulJobsHistoryLimit": 1, "failedJobsHistoryLimit": 0}},
        "timezone": lambda: {"spec": {"timeZone": "Etc/UTC"}},
        "job-backoff": lambda: {"spec": {"jobTemplate": {"spec": {"backoffLimit": 6}}}},
    },
    "ReplicationController": {
        "scale": lambda: {"spec": {"replicas": 3}},
        "selector-add": lambda: {"spec": {"selector": {"track": "stable"}}},
        "selector-number": lambda: {"spec": {"selector": {"track": 1}}},
        "status-condition": lambda: {"status": {"conditions": [{"type": "ReplicaFailure", "status": "False"}]}},
    },
    "Pod": {
        "status-condition": lambda: {"status": {"conditions": [{"type": "Ready", "status": "True"}]}},
        "status-pod-ip": lambda: {"status": {"podIPs": [{"ip": "10.1.0.5"}], "podIP": "10.1.0.5"}},
        "status-phase": lambda: {"status": {"phase": "Running"}},
        "status-container-statuses": lambda: {
            "status": {
                "containerStatuses": [{"name": "app", "ready": True, "restartCount": 0, "image": "x", "imageID": ""}]
            }
        },
        "priority": lambda: {"spec": {"priority": 10}},
        "node-name": lambda: {"spec": {"nodeName": "node-1"}},
    },
    "Service": {
        "port-add": lambda: {"spec": {"ports": [{"name": "metrics", "port": 9090, "targetPort": 9090}]}},
        "port-update": lambda: {"spec": {"ports": [{"port": 80, "targetPort": "http"}]}},
        "port-delete": lambda: {"spec": {"ports": [{"port": 443, "$patch": "delete"}]}},
        "port-float-key": lambda: {"spec": {"ports": [{"port": 80.0, "name": "web"}]}},
        "port-string": lambda: {"spec": {"ports": [{"port": "80"}]}},
        "port-node": lambda: {"spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": 30080}]}},
        "ports-replace": lambda: {"spec": {"ports": [{"$patch": "replace"}, {"port": 8443, "name": "alt"}]}},
        "ports-order": lambda: {"spec": {"$setElementOrder/ports": [{"port": 443}, {"port": 80}]}},
        "ports-no-key": lambda: {"spec": {"ports": [{"name": "nokey"}]}},
        "target-bool": lambda: {"spec": {"ports": [{"port": 80, "targetPort": True}]}},
        "selector-change": lambda: {"spec": {"selector": {"app": "web2", "tier": None}}},
        "selector-null": lambda: {"spec": {"selector": None}},
        "selector-number": lambda: {"spec": {"selector": {"app": 2}}},
        "external-ips": lambda: {"spec": {"externalIPs": ["1.2.3.4"]}},
        "cluster-ips": lambda: {"spec": {"clusterIPs": ["10.96.0.21"]}},
        "session-affinity": lambda: {
            "spec": {"sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 60}}}
        },
        "load-balancer": lambda: {"spec": {"type": "LoadBalancer", "loadBalancerSourceRanges": ["10.0.0.0/8"]}},
        "status-ingress": lambda: {"status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}},
        "status-condition": lambda: {
            "status": {
                "conditions": [
                    {
                        "type": "Ready",
                        "status": "True",
                        "lastTransitionTime": "2024-05-01T10:00:00Z",
                        "reason": "R",
                        "message": "m",
                    }
                ]
            }
        },
        "spec-unknown": lambda: {"spec": {"portz": []}},
        "publish-false": lambda: {"spec": {"publishNotReadyAddresses": False}},
    },
    "ConfigMap": {
        "data-add": lambda: {"data": {"new": "value"}},
        "data-remove": lambda: {"data": {"level": None}},
        "data-null": lambda: {"data": None},
        "data-empty": lambda: {"data": {}},
        "data-number": lambda: {"data": {"n": 1}},
        "data-object": lambda: {"data": {"n": {"a": "b"}}},
        "data-list": lambda: {"data": ["a"]},
        "data-replace": lambda: {"data": {"$patch": "replace", "only": "this"}},
        "data-delete": lambda: {"data": {"$patch": "delete"}},
        "binary-add": lambda: {"binaryData": {"more": "AQID"}},
        "binary-bad": lambda: {"binaryData": {"more": "not base64!"}},
        "binary-unpadded": lambda: {"binaryData": {"more": "AQI"}},
        "binary-newlines": lambda: {"binaryData": {"more": "AQ\nID"}},
        "binary-list": lambda: {"binaryData": {"more": [1, 2, 3]}},
        "immutable": lambda: {"immutable": True},
        "immutable-false": lambda: {"immutable": False},
        "immutable-string": lambda: {"immutable": "true"},
        "unknown": lambda: {"dataa": {"a": "b"}},
        "retain": lambda: {"$retainKeys": ["data"], "data": {"a": "b"}},
    },
    "Secret": {
        "data-add": lambda: {"data": {"token": "dG9rZW4="}},
        "data-bad": lambda: {"data": {"token": "not base64"}},
        "data-raw-text": lambda: {"data": {"token": "hunter2"}},
        "data-unpadded": lambda: {"data": {"token": "dG9rZW4"}},
        "data-remove": lambda: {"data": {"user": None}},
        "data-number": lambda: {"data": {"token": 5}},
        "string-data": lambda: {"stringData": {"plain": "text"}},
        "string-data-number": lambda: {"stringData": {"plain": 1}},
        "type-change": lambda: {"type": "kubernetes.io/basic-auth"},
        "type-number": lambda: {"type": 3},
        "immutable": lambda: {"immutable": True},
        "unknown": lambda: {"datas": {}},
    },
}


def kind_fragments(kind: str, rng: random.Random) -> dict[str, Fragment]:
    """Every fragment that applies to ``kind``, by name."""
    fragments = {f"metadata/{name}": fragment for name, fragment in _metadata().items()}
    path = pod_spec_path(kind)
    if path is not None:
        for name, fragment in _pod_spec(rng).items():
            fragments[f"podspec/{name}"] = (lambda f: lambda: _nest(path, f()))(fragment)
    fragments.update({f"spec/{name}": fragment for name, fragment in _SPEC_FRAGMENTS.get(kind, {}).items()})
    return fragments


def templates(seed: int) -> Iterator[tuple[str, str, Any]]:
    """``(kind, fragment name, patch)``: each fragment once per kind."""
    rng = random.Random(seed)
    for kind in KINDS:
        for name, fragment in kind_fragments(kind, rng).items():
            yield kind, name, fragment()


def _deep_merge(left: Any, right: Any) -> Any:
    if isinstance(left, dict) and isinstance(right, dict):
        merged = dict(left)
        for key, value in right.items():
            merged[key] = _deep_merge(left[key], value) if key in left else value
        return merged
    if isinstance(left, list) and isinstance(right, list):
        return left + right
    return copy.deepcopy(right)


def random_patches(seed: int, count: int) -> Iterator[tuple[str, str, Any]]:
    """``count`` combinations of two or three fragments of one kind, spread over the kinds."""
    rng = random.Random(seed)
    kinds = list(KINDS)
    weights = [3 if kind in POD_KINDS else 2 for kind in kinds]
    for _ in range(count):
        kind = rng.choices(kinds, weights)[0]
        fragments = kind_fragments(kind, rng)
        names = rng.sample(sorted(fragments), rng.choice([2, 2, 3]))
        patch: Any = {}
        for name in names:
            patch = _deep_merge(patch, fragments[name]())
        yield kind, "+".join(names), patch
