"""Built-in defaulting: the objects a 1.32 apiserver stores for minimal bodies, and what it leaves alone."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi._state.defaults import allocate_cluster_ip, allocate_node_ports
from fakeapi._state.kinds import builtin_type
from fakeapi._state.kinds.custom import types_from_crd


def apply_defaults(group: str, version: str, kind: str, obj: Any, *, creating: bool | None = None) -> Any:
    """What the kind's descriptor fills in, as the store applies it on a write."""
    return builtin_type(group, version, kind).default(obj, creating=creating)


UID = "6f1c1a3e-0000-4000-8000-000000000001"
TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
]
CONTAINER = {
    "name": "c",
    "image": "busybox:1.36",
    "imagePullPolicy": "IfNotPresent",
    "terminationMessagePath": "/dev/termination-log",
    "terminationMessagePolicy": "File",
    "resources": {},
}
TEMPLATE_SPEC = {
    "containers": [CONTAINER],
    "restartPolicy": "Never",
    "dnsPolicy": "ClusterFirst",
    "securityContext": {},
    "terminationGracePeriodSeconds": 30,
    "schedulerName": "default-scheduler",
}
JOB_LABELS = {
    "batch.kubernetes.io/controller-uid": UID,
    "batch.kubernetes.io/job-name": "j",
    "controller-uid": UID,
    "job-name": "j",
}

CASES: list[tuple[str, str, str, str, dict[str, Any], dict[str, Any]]] = [
    (
        "namespace",
        "",
        "v1",
        "Namespace",
        {"metadata": {"name": "team-a"}},
        {
            "metadata": {"name": "team-a", "labels": {"kubernetes.io/metadata.name": "team-a"}},
            "spec": {"finalizers": ["kubernetes"]},
            "status": {"phase": "Active"},
        },
    ),
    (
        "secret",
        "",
        "v1",
        "Secret",
        {"metadata": {"name": "s"}, "stringData": {"password": "hunter2"}},
        {"metadata": {"name": "s"}, "data": {"password": "aHVudGVyMg=="}, "type": "Opaque"},
    ),
    ("configmap", "", "v1", "ConfigMap", {"metadata": {"name": "c"}}, {"metadata": {"name": "c"}}),
    ("serviceaccount", "", "v1", "ServiceAccount", {"metadata": {"name": "sa"}}, {"metadata": {"name": "sa"}}),
    (
        "lease",
        "coordination.k8s.io",
        "v1",
        "Lease",
        {"metadata": {"name": "l"}},
        {"metadata": {"name": "l"}, "spec": {}},
    ),
    (
        "core event",
        "",
        "v1",
        "Event",
        {"metadata": {"name": "e"}, "reason": "Started"},
        {
            "metadata": {"name": "e"},
            "reason": "Started",
            "involvedObject": {},
            "source": {},
            "firstTimestamp": None,
            "lastTimestamp": None,
            "eventTime": None,
            "reportingComponent": "",
            "reportingInstance": "",
        },
    ),
    (
        "events.k8s.io event",
        "events.k8s.io",
        "v1",
        "Event",
        {"metadata": {"name": "e"}, "reason": "Started"},
        {
            "metadata": {"name": "e"},
            "reason": "Started",
            "regarding": {},
            "deprecatedSource": {},
            "eventTime": None,
            "deprecatedFirstTimestamp": None,
            "deprecatedLastTimestamp": None,
        },
    ),
    (
        "service",
        "",
        "v1",
        "Service",
        {"metadata": {"name": "web"}, "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}},
        {
            "metadata": {"name": "web"},
            "spec": {
                "selector": {"app": "web"},
                "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}],
                "sessionAffinity": "None",
                "type": "ClusterIP",
                "internalTrafficPolicy": "Cluster",
                "ipFamilyPolicy": "SingleStack",
                "ipFamilies": ["IPv4"],
            },
            "status": {"loadBalancer": {}},
        },
    ),
    (
        "headless selectorless service",
        "",
        "v1",
        "Service",
        {"metadata": {"name": "db"}, "spec": {"clusterIP": "None"}},
        {
            "metadata": {"name": "db"},
            "spec": {
                "clusterIP": "None",
                "clusterIPs": ["None"],
                "sessionAffinity": "None",
                "type": "ClusterIP",
                "internalTrafficPolicy": "Cluster",
                "ipFamilyPolicy": "RequireDualStack",
                "ipFamilies": ["IPv4", "IPv6"],
            },
            "status": {"loadBalancer": {}},
        },
    ),
    (
        "load balancer service",
        "",
        "v1",
        "Service",
        {"metadata": {"name": "lb"}, "spec": {"type": "LoadBalancer", "ports": [{"port": 443, "targetPort": "https"}]}},
        {
            "metadata": {"name": "lb"},
            "spec": {
                "type": "LoadBalancer",
                "ports": [{"port": 443, "targetPort": "https", "protocol": "TCP"}],
                "sessionAffinity": "None",
                "externalTrafficPolicy": "Cluster",
                "internalTrafficPolicy": "Cluster",
                "allocateLoadBalancerNodePorts": True,
                "ipFamilyPolicy": "SingleStack",
                "ipFamilies": ["IPv4"],
            },
            "status": {"loadBalancer": {}},
        },
    ),
    (
        "pod",
        "",
        "v1",
        "Pod",
        {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}},
        {
            "metadata": {"name": "p"},
            "spec": {
                "containers": [{**CONTAINER, "image": "nginx", "imagePullPolicy": "Always"}],
                "enableServiceLinks": True,
                "dnsPolicy": "ClusterFirst",
                "restartPolicy": "Always",
                "securityContext": {},
                "terminationGracePeriodSeconds": 30,
                "schedulerName": "default-scheduler",
                "priority": 0,
                "preemptionPolicy": "PreemptLowerPriority",
                "tolerations": TOLERATIONS,
            },
            "status": {"phase": "Pending", "qosClass": "BestEffort"},
        },
    ),
    (
        "deployment",
        "apps",
        "v1",
        "Deployment",
        {
            "metadata": {"name": "d"},
            "spec": {
                "selector": {"matchLabels": {"app": "d"}},
                "template": {
                    "metadata": {"labels": {"app": "d"}},
                    "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}], "restartPolicy": "Never"},
                },
            },
        },
        {
            "metadata": {"name": "d"},
            "spec": {
                "selector": {"matchLabels": {"app": "d"}},
                "template": {"metadata": {"labels": {"app": "d"}, "creationTimestamp": None}, "spec": TEMPLATE_SPEC},
                "replicas": 1,
                "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
                "revisionHistoryLimit": 10,
                "progressDeadlineSeconds": 600,
            },
            "status": {},
        },
    ),
    (
        "job",
        "batch",
        "v1",
        "Job",
        {
            "metadata": {"name": "j", "uid": UID},
            "spec": {
                "template": {"spec": {"containers": [{"name": "c", "image": "busybox:1.36"}], "restartPolicy": "Never"}}
            },
        },
        {
            "metadata": {"name": "j", "uid": UID, "labels": JOB_LABELS},
            "spec": {
                "template": {"metadata": {"creationTimestamp": None, "labels": JOB_LABELS}, "spec": TEMPLATE_SPEC},
                "completions": 1,
                "parallelism": 1,
                "backoffLimit": 6,
                "completionMode": "NonIndexed",
                "suspend": False,
                "podReplacementPolicy": "TerminatingOrFailed",
                "manualSelector": False,
                "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": UID}},
            },
            "status": {},
        },
    ),
]


@pytest.mark.parametrize(
    ("group", "version", "kind", "given", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_minimal_objects_are_defaulted(
    group: str, version: str, kind: str, given: dict[str, Any], expected: dict[str, Any]
) -> None:
    before = copy.deepcopy(given)
    assert apply_defaults(group, version, kind, given) == expected
    assert given == before


@pytest.mark.parametrize(
    ("group", "version", "kind", "given", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_defaulting_is_idempotent(
    group: str, version: str, kind: str, given: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert apply_defaults(group, version, kind, expected) == expected


SET_FIELDS: list[tuple[str, str, str, dict[str, Any], list[Any], Any]] = [
    ("apps", "v1", "Deployment", {"spec": {"replicas": 0}}, ["spec", "replicas"], 0),
    (
        "apps",
        "v1",
        "Deployment",
        {"spec": {"strategy": {"type": "Recreate"}}},
        ["spec", "strategy"],
        {"type": "Recreate"},
    ),
    (
        "apps",
        "v1",
        "Deployment",
        {"spec": {"strategy": {"rollingUpdate": {"maxSurge": 1}}}},
        ["spec", "strategy", "rollingUpdate"],
        {"maxSurge": 1, "maxUnavailable": "25%"},
    ),
    ("batch", "v1", "Job", {"spec": {"backoffLimit": 0}}, ["spec", "backoffLimit"], 0),
    ("batch", "v1", "Job", {"spec": {"suspend": True}}, ["spec", "suspend"], True),
    ("batch", "v1", "Job", {"spec": {"parallelism": 3}}, ["spec", "completions"], None),
    ("batch", "v1", "Job", {"spec": {"backoffLimitPerIndex": 1}}, ["spec", "backoffLimit"], 2**31 - 1),
    ("batch", "v1", "Job", {"spec": {"podFailurePolicy": {"rules": []}}}, ["spec", "podReplacementPolicy"], "Failed"),
    ("", "v1", "Secret", {"type": "kubernetes.io/tls"}, ["type"], "kubernetes.io/tls"),
    ("", "v1", "Service", {"spec": {"type": "NodePort"}}, ["spec", "type"], "NodePort"),
    ("", "v1", "Service", {"spec": {"internalTrafficPolicy": "Local"}}, ["spec", "internalTrafficPolicy"], "Local"),
    (
        "",
        "v1",
        "Service",
        {"spec": {"sessionAffinity": "ClientIP"}},
        ["spec", "sessionAffinityConfig"],
        {"clientIP": {"timeoutSeconds": 10800}},
    ),
    ("", "v1", "Pod", {"spec": {"restartPolicy": "Never"}}, ["spec", "restartPolicy"], "Never"),
    ("", "v1", "Pod", {"spec": {"terminationGracePeriodSeconds": 0}}, ["spec", "terminationGracePeriodSeconds"], 0),
    ("", "v1", "Pod", {"spec": {"enableServiceLinks": False}}, ["spec", "enableServiceLinks"], False),
    (
        "",
        "v1",
        "Pod",
        {"spec": {"containers": [{"image": "nginx:latest"}]}},
        ["spec", "containers", 0, "imagePullPolicy"],
        "Always",
    ),
    (
        "",
        "v1",
        "Pod",
        {"spec": {"containers": [{"image": "nginx", "imagePullPolicy": "Never"}]}},
        ["spec", "containers", 0, "imagePullPolicy"],
        "Never",
    ),
    (
        "",
        "v1",
        "Pod",
        {"spec": {"containers": [{"image": "reg.io:5000/app"}]}},
        ["spec", "containers", 0, "imagePullPolicy"],
        "Always",
    ),
    (
        "",
        "v1",
        "Pod",
        {"spec": {"containers": [{"image": "app@sha256:" + "a" * 64}]}},
        ["spec", "containers", 0, "imagePullPolicy"],
        "IfNotPresent",
    ),
    ("", "v1", "Pod", {"status": {"phase": "Running"}}, ["status", "phase"], "Running"),
    ("", "v1", "Pod", {"spec": {"priorityClassName": "system-node-critical"}}, ["spec", "priority"], 2000001000),
    (
        "",
        "v1",
        "Pod",
        {"spec": {"tolerations": [{"operator": "Exists"}]}},
        ["spec", "tolerations"],
        [{"operator": "Exists"}],
    ),
    ("", "v1", "Namespace", {"metadata": {"name": "a"}, "spec": {"finalizers": []}}, ["spec", "finalizers"], []),
    (
        "",
        "v1",
        "Namespace",
        {"metadata": {"name": "a"}, "status": {"phase": "Terminating"}},
        ["status", "phase"],
        "Terminating",
    ),
]


@pytest.mark.parametrize(("group", "version", "kind", "given", "path", "expected"), SET_FIELDS)
def test_fields_already_set_are_kept(
    group: str, version: str, kind: str, given: dict[str, Any], path: list[Any], expected: Any
) -> None:
    value: Any = apply_defaults(group, version, kind, given)
    for key in path:
        value = value.get(key) if isinstance(value, dict) else value[key]
    assert value == expected


def test_other_kinds_come_back_unchanged() -> None:
    custom = {"apiVersion": "example.com/v1", "kind": "Foo", "spec": {}}
    crd = {
        "metadata": {"name": "foos.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"plural": "foos", "kind": "Foo"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": True, "storage": True}],
        },
    }
    assert types_from_crd(crd)[0].default(custom) is custom
    assert apply_defaults("", "v1", "ConfigMap", custom) is custom


def test_creating_resets_what_the_strategy_resets() -> None:
    pod = {"spec": {"containers": [{"image": "nginx"}]}, "status": {"phase": "Running", "podIP": "10.0.0.1"}}
    assert apply_defaults("", "v1", "Pod", pod, creating=True)["status"] == {
        "phase": "Pending",
        "qosClass": "BestEffort",
    }
    assert apply_defaults("", "v1", "Pod", pod, creating=False)["status"] == pod["status"]
    namespace = {"metadata": {"name": "a"}, "spec": {"finalizers": ["example.com/x"]}}
    assert apply_defaults("", "v1", "Namespace", namespace, creating=True)["spec"] == {
        "finalizers": ["example.com/x", "kubernetes"]
    }
    assert apply_defaults("", "v1", "Namespace", {"metadata": {"name": "a"}}, creating=False)["spec"] == {}


def test_updates_do_not_generate_a_job_selector() -> None:
    job = apply_defaults("batch", "v1", "Job", {"metadata": {"name": "j", "uid": UID}, "spec": {}}, creating=False)
    assert "selector" not in job["spec"]


def test_manual_selector_keeps_the_template_labels() -> None:
    given = {
        "metadata": {"name": "j", "uid": UID},
        "spec": {
            "manualSelector": True,
            "selector": {"matchLabels": {"app": "x"}},
            "template": {"metadata": {"labels": {"app": "x"}}},
        },
    }
    job = apply_defaults("batch", "v1", "Job", given)
    assert job["spec"]["selector"] == {"matchLabels": {"app": "x"}}
    assert job["spec"]["template"]["metadata"]["labels"] == {"app": "x"}
    assert job["metadata"]["labels"] == {"app": "x"}


@pytest.mark.parametrize(
    ("resources", "qos"),
    [
        ([{}], "BestEffort"),
        ([{"requests": {"cpu": "0"}}], "BestEffort"),
        ([{"requests": {"cpu": "100m"}}], "Burstable"),
        ([{"limits": {"cpu": "1", "memory": "1Gi"}}], "Guaranteed"),
        ([{"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1000m", "memory": "1024Mi"}}], "Guaranteed"),
        ([{"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}], "Burstable"),
        ([{"limits": {"cpu": "1"}}], "Burstable"),
        ([{"limits": {"cpu": "1", "memory": "1Gi"}}, {}], "Burstable"),
        ([{"limits": {"cpu": 2, "memory": "2G", "nvidia.com/gpu": "1"}}], "Guaranteed"),
    ],
)
def test_qos_class_follows_compute_pod_qos(resources: list[dict[str, Any]], qos: str) -> None:
    containers = [{"name": f"c{i}", "image": "nginx", "resources": r} for i, r in enumerate(resources)]
    pod = apply_defaults("", "v1", "Pod", {"spec": {"containers": containers}})
    assert pod["status"]["qosClass"] == qos


def test_pod_requests_default_to_limits_but_templates_do_not() -> None:
    container = {"name": "c", "image": "nginx", "resources": {"limits": {"cpu": "1"}}}
    pod = apply_defaults("", "v1", "Pod", {"spec": {"containers": [container]}})
    assert pod["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}
    deployment = apply_defaults(
        "apps", "v1", "Deployment", {"spec": {"template": {"spec": {"containers": [container]}}}}
    )
    template = deployment["spec"]["template"]["spec"]
    assert template["containers"][0]["resources"] == {"limits": {"cpu": "1"}}
    assert "enableServiceLinks" not in template
    assert "tolerations" not in template


def test_pod_spec_parts_are_defaulted() -> None:
    spec = {
        "hostNetwork": True,
        "containers": [
            {
                "name": "c",
                "image": "nginx",
                "ports": [{"containerPort": 8080}],
                "env": [{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
                "livenessProbe": {"httpGet": {"port": 8080}},
                "readinessProbe": {"grpc": {"port": 9000}, "periodSeconds": 5},
            }
        ],
        "volumes": [
            {"name": "scratch"},
            {"name": "cfg", "configMap": {"name": "cfg"}},
            {"name": "host", "hostPath": {"path": "/var"}},
            {"name": "token", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
        ],
    }
    pod = apply_defaults("", "v1", "Pod", {"spec": spec})["spec"]
    container = pod["containers"][0]
    assert container["ports"] == [{"containerPort": 8080, "protocol": "TCP", "hostPort": 8080}]
    assert container["env"][0]["valueFrom"]["fieldRef"] == {"fieldPath": "spec.nodeName", "apiVersion": "v1"}
    assert container["livenessProbe"] == {
        "httpGet": {"port": 8080, "path": "/", "scheme": "HTTP"},
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }
    assert container["readinessProbe"]["grpc"] == {"port": 9000, "service": ""}
    assert container["readinessProbe"]["periodSeconds"] == 5
    assert pod["volumes"] == [
        {"name": "scratch", "emptyDir": {}},
        {"name": "cfg", "configMap": {"name": "cfg", "defaultMode": 420}},
        {"name": "host", "hostPath": {"path": "/var", "type": ""}},
        {
            "name": "token",
            "projected": {
                "sources": [{"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}}],
                "defaultMode": 420,
            },
        },
    ]


def test_cluster_ips_come_from_the_dynamic_band_and_requests_are_kept() -> None:
    service = apply_defaults("", "v1", "Service", {"metadata": {"name": "a"}, "spec": {"selector": {"a": "b"}}})
    first = allocate_cluster_ip(service, set())
    assert (first["spec"]["clusterIP"], first["spec"]["clusterIPs"]) == ("10.96.1.1", ["10.96.1.1"])
    second = allocate_cluster_ip(service, {"10.96.1.1"})
    assert second["spec"]["clusterIP"] == "10.96.1.2"
    assert "clusterIP" not in service["spec"]
    requested = allocate_cluster_ip({"spec": {"clusterIP": "10.96.0.10"}}, set())
    assert requested["spec"]["clusterIPs"] == ["10.96.0.10"]
    external = {"spec": {"type": "ExternalName", "externalName": "example.com"}}
    assert allocate_cluster_ip(external, set()) == external


def test_node_ports_are_shared_per_port_number() -> None:
    service = {
        "spec": {
            "type": "NodePort",
            "ports": [
                {"port": 53, "protocol": "UDP"},
                {"port": 53, "protocol": "TCP"},
                {"port": 80, "nodePort": 30500},
            ],
        }
    }
    ports = allocate_node_ports(service, {30086})["spec"]["ports"]
    assert [port["nodePort"] for port in ports] == [30087, 30087, 30500]
    no_ports = {"spec": {"type": "LoadBalancer", "allocateLoadBalancerNodePorts": False, "ports": [{"port": 80}]}}
    assert allocate_node_ports(no_ports, set())["spec"]["ports"] == [{"port": 80}]
    assert allocate_node_ports({"spec": {"type": "ClusterIP", "ports": [{"port": 80}]}}, set())["spec"]["ports"] == [
        {"port": 80}
    ]
