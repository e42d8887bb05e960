"""What a 1.32 apiserver fills in on create for the kinds beyond pods and workloads: CronJobs,
autoscalers, volumes and claims, storage classes, network policies, ingress classes, endpoints,
webhook configurations, admission policies, nodes, limit ranges and replication controllers.
Each case POSTs a minimal body and reads the answer and a GET back."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

CONTAINER = {"name": "c", "image": "busybox:1.36"}
DEFAULTED_CONTAINER = {
    "name": "c",
    "image": "busybox:1.36",
    "resources": {},
    "terminationMessagePath": "/dev/termination-log",
    "terminationMessagePolicy": "File",
    "imagePullPolicy": "IfNotPresent",
}


def pod_spec(restart: str = "Always") -> dict[str, Any]:
    return {
        "containers": [DEFAULTED_CONTAINER],
        "restartPolicy": restart,
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "securityContext": {},
        "schedulerName": "default-scheduler",
    }


async def created(client: RawClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    reply = await client.post(path, body)
    assert reply.status == 201, reply.body
    answer: dict[str, Any] = reply.json()
    name = answer["metadata"]["name"]
    again = await client.get(f"{path}/{name}")
    assert again.json() == answer
    return answer


async def test_a_cron_job_gets_its_policies_and_a_defaulted_pod_template(client: RawClient) -> None:
    body = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "tick"},
        "spec": {
            "schedule": "*/5 * * * *",
            "jobTemplate": {"spec": {"template": {"spec": {"containers": [CONTAINER], "restartPolicy": "OnFailure"}}}},
        },
    }
    answer = await created(client, "/apis/batch/v1/namespaces/default/cronjobs", body)
    assert answer["spec"] == {
        "schedule": "*/5 * * * *",
        "concurrencyPolicy": "Allow",
        "suspend": False,
        "jobTemplate": {
            "metadata": {"creationTimestamp": None},
            "spec": {"template": {"metadata": {"creationTimestamp": None}, "spec": pod_spec("OnFailure")}},
        },
        "successfulJobsHistoryLimit": 3,
        "failedJobsHistoryLimit": 1,
    }
    assert answer["status"] == {}
    assert list(answer["spec"]) == [
        "schedule",
        "concurrencyPolicy",
        "suspend",
        "jobTemplate",
        "successfulJobsHistoryLimit",
        "failedJobsHistoryLimit",
    ]


async def test_an_autoscaler_gets_a_minimum_a_cpu_target_and_full_scaling_rules(client: RawClient) -> None:
    target = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    body = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": target,
            "maxReplicas": 5,
            "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}},
        },
    }
    answer = await created(client, "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", body)
    assert answer["spec"] == {
        "scaleTargetRef": target,
        "minReplicas": 1,
        "maxReplicas": 5,
        "metrics": [
            {
                "type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
            }
        ],
        "behavior": {
            "scaleUp": {
                "stabilizationWindowSeconds": 0,
                "selectPolicy": "Max",
                "policies": [
                    {"type": "Pods", "value": 4, "periodSeconds": 15},
                    {"type": "Percent", "value": 100, "periodSeconds": 15},
                ],
            },
            "scaleDown": {
                "stabilizationWindowSeconds": 60,
                "selectPolicy": "Max",
                "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
            },
        },
    }


async def test_volumes_and_claims_start_pending(client: RawClient) -> None:
    volume = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pv1"},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp"}},
        "status": {"phase": "Bound"},
    }
    answer = await created(client, "/api/v1/persistentvolumes", volume)
    assert answer["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert answer["spec"]["volumeMode"] == "Filesystem"
    assert answer["spec"]["hostPath"] == {"path": "/tmp", "type": ""}
    assert answer["status"] == {"phase": "Pending", "lastPhaseTransitionTime": answer["metadata"]["creationTimestamp"]}
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
        "status": {"phase": "Bound"},
    }
    answer = await created(client, "/api/v1/namespaces/default/persistentvolumeclaims", claim)
    assert answer["spec"]["volumeMode"] == "Filesystem"
    assert answer["status"] == {"phase": "Pending"}


async def test_storage_classes_and_network_objects(client: RawClient) -> None:
    storage_class = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "standard"},
        "provisioner": "example.com/disk",
    }
    answer = await created(client, "/apis/storage.k8s.io/v1/storageclasses", storage_class)
    assert (answer["reclaimPolicy"], answer["volumeBindingMode"]) == ("Delete", "Immediate")
    policy = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "np"},
        "spec": {"podSelector": {}, "egress": [{"ports": [{"port": 53}]}], "ingress": [{"ports": [{"port": 80}]}]},
    }
    answer = await created(client, "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies", policy)
    assert answer["spec"]["policyTypes"] == ["Ingress", "Egress"]
    assert answer["spec"]["ingress"] == [{"ports": [{"protocol": "TCP", "port": 80}]}]
    assert answer["spec"]["egress"] == [{"ports": [{"protocol": "TCP", "port": 53}]}]
    ingress_class = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "IngressClass",
        "metadata": {"name": "nginx"},
        "spec": {"controller": "k8s.io/ingress-nginx", "parameters": {"kind": "Config", "name": "c"}},
    }
    answer = await created(client, "/apis/networking.k8s.io/v1/ingressclasses", ingress_class)
    assert answer["spec"]["parameters"] == {"kind": "Config", "name": "c", "scope": "Cluster"}
    endpoints = {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "metadata": {"name": "web"},
        "subsets": [{"addresses": [{"ip": "10.0.0.1"}], "ports": [{"port": 80}]}],
    }
    answer = await created(client, "/api/v1/namespaces/default/endpoints", endpoints)
    assert answer["subsets"][0]["ports"] == [{"port": 80, "protocol": "TCP"}]
    endpoint_slice = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {"name": "web-1"},
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.0.0.1"]}],
        "ports": [{"port": 80}],
    }
    answer = await created(client, "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", endpoint_slice)
    assert answer["ports"] == [{"name": "", "protocol": "TCP", "port": 80}]


async def test_webhooks_and_admission_policies(client: RawClient) -> None:
    rule = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
    webhook = {
        "name": "check.example.com",
        "clientConfig": {"service": {"namespace": "default", "name": "hooks"}},
        "rules": [rule],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    }
    body = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": "mw"},
        "webhooks": [webhook],
    }
    answer = await created(client, "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", body)
    assert answer["webhooks"] == [
        {
            "name": "check.example.com",
            "clientConfig": {"service": {"namespace": "default", "name": "hooks", "port": 443}},
            "rules": [{**rule, "scope": "*"}],
            "failurePolicy": "Fail",
            "matchPolicy": "Equivalent",
            "namespaceSelector": {},
            "objectSelector": {},
            "sideEffects": "None",
            "timeoutSeconds": 10,
            "admissionReviewVersions": ["v1"],
            "reinvocationPolicy": "Never",
        }
    ]
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "replicas"},
        "spec": {
            "matchConstraints": {"resourceRules": [{**rule, "apiGroups": ["apps"], "resources": ["deployments"]}]},
            "validations": [{"expression": "object.spec.replicas <= 5"}],
        },
    }
    # Not ``created``: the status controller writes the policy's status after the create (docs/admission-policies.md).
    reply = await client.post("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", policy)
    assert reply.status == 201, reply.body
    answer = reply.json()
    assert answer["spec"]["failurePolicy"] == "Fail"
    constraints = answer["spec"]["matchConstraints"]
    assert (constraints["matchPolicy"], constraints["namespaceSelector"], constraints["objectSelector"]) == (
        "Equivalent",
        {},
        {},
    )
    assert constraints["resourceRules"][0]["scope"] == "*"


async def test_nodes_limit_ranges_and_replication_controllers(client: RawClient) -> None:
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1"},
        "status": {"capacity": {"cpu": "4", "pods": "110"}},
    }
    answer = await created(client, "/api/v1/nodes", node)
    assert answer["status"]["allocatable"] == {"cpu": "4", "pods": "110"}
    limits = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "limits"},
        "spec": {"limits": [{"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "64Mi"}}]},
    }
    answer = await created(client, "/api/v1/namespaces/default/limitranges", limits)
    assert answer["spec"]["limits"] == [
        {
            "type": "Container",
            "max": {"cpu": "2"},
            "min": {"memory": "64Mi"},
            "default": {"cpu": "2"},
            "defaultRequest": {"cpu": "2", "memory": "64Mi"},
        }
    ]
    controller = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "rc"},
        "spec": {"template": {"metadata": {"labels": {"app": "rc"}}, "spec": {"containers": [CONTAINER]}}},
    }
    answer = await created(client, "/api/v1/namespaces/default/replicationcontrollers", controller)
    assert answer["metadata"]["labels"] == {"app": "rc"}
    assert answer["spec"]["replicas"] == 1
    assert answer["spec"]["selector"] == {"app": "rc"}
    assert answer["spec"]["template"]["spec"] == pod_spec()
    assert answer["status"] == {"replicas": 0}


async def test_priority_and_fairness_objects(client: RawClient) -> None:
    level = {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": "workload"},
        "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Queue", "queuing": {}}}},
    }
    answer = await created(client, "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", level)
    assert answer["spec"]["limited"] == {
        "nominalConcurrencyShares": 30,
        "limitResponse": {"type": "Queue", "queuing": {"queues": 64, "handSize": 8, "queueLengthLimit": 50}},
        "lendablePercent": 0,
    }
    schema = {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "FlowSchema",
        "metadata": {"name": "workload"},
        "spec": {"priorityLevelConfiguration": {"name": "workload"}},
    }
    reply = await client.post("/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", schema)
    assert reply.status == 201, reply.body
    assert reply.json()["spec"]["matchingPrecedence"] == 1000
    assert reply.json()["status"] == {}
    # The config controller then writes its Dangling condition (docs/priority-and-fairness.md).
    again = (await client.get("/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/workload")).json()
    assert again["spec"] == reply.json()["spec"]
    assert [(c["type"], c["status"], c["reason"]) for c in again["status"]["conditions"]] == [
        ("Dangling", "False", "Found")
    ]
