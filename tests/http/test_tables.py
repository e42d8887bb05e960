"""Table answers for ``kubectl get``: columns, cells, ages and row objects as a 1.32 apiserver writes them."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi._patching.goencode import encode_in_order
from fakeapi._state.kinds import BUILTIN_TYPES
from fakeapi._state.kinds.custom import types_from_crd
from fakeapi._state.resources import ResourceType
from fakeapi._state.tables import human_duration, invalid_include_object, table_for
from fakeapi.errors import APIError

NOW = 1_704_067_200.0  # 2024-01-01T00:00:00Z
CREATED = "2023-12-31T23:59:55Z"  # five seconds before NOW
TYPES = {(t.group, t.plural): t for t in BUILTIN_TYPES}


def builtin(group: str, plural: str) -> ResourceType:
    return TYPES[(group, plural)]


def cells(rtype: ResourceType, obj: dict[str, Any], now: float = NOW) -> list[Any]:
    table = table_for(rtype, [obj], list_metadata={"resourceVersion": "7"}, include_object="None", now=now)
    row: list[Any] = table["rows"][0]["cells"]
    return row


def meta(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "namespace": "default", "creationTimestamp": CREATED, **extra}


def crd(columns: list[dict[str, Any]] | None = None) -> ResourceType:
    version: dict[str, Any] = {"name": "v1", "served": True, "storage": True}
    if columns is not None:
        version["additionalPrinterColumns"] = columns
    definition = {
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [version],
        },
    }
    return types_from_crd(definition)[0]


# -- the Table ----------------------------------------------------------------------------------------


def test_table_keys_and_row_object_follow_the_typed_structs() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta("p", uid="u", labels={"b": "2", "a": "1"})}
    table = table_for(builtin("", "pods"), [pod], list_metadata={"resourceVersion": "7"}, include_object="", now=NOW)
    assert list(table) == ["kind", "apiVersion", "metadata", "columnDefinitions", "rows"]
    assert table["kind"] == "Table"
    assert table["apiVersion"] == "meta.k8s.io/v1"
    assert table["metadata"] == {"resourceVersion": "7"}
    row = table["rows"][0]
    assert list(row) == ["cells", "object"]
    assert encode_in_order(row["object"]) == (
        b'{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"p","namespace":"default",'
        b'"uid":"u","creationTimestamp":"2023-12-31T23:59:55Z","labels":{"a":"1","b":"2"}}}'
    )


@pytest.mark.parametrize(
    ("include", "expected"),
    [
        # ObjectMeta's creationTimestamp is a struct: a zero one is written as null.
        (
            "Metadata",
            {
                "kind": "PartialObjectMetadata",
                "apiVersion": "meta.k8s.io/v1",
                "metadata": {"name": "c", "creationTimestamp": None},
            },
        ),
        ("Object", {"apiVersion": "v1", "data": {"k": "v"}, "kind": "ConfigMap", "metadata": {"name": "c"}}),
        ("None", None),
    ],
)
def test_include_object(include: str, expected: Any) -> None:
    obj = {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "c"}, "data": {"k": "v"}}
    table = table_for(builtin("", "configmaps"), [obj], list_metadata={}, include_object=include, now=NOW)
    assert table["rows"][0]["object"] == expected


def test_bad_include_object_is_a_bad_request() -> None:
    message = (
        "Unable to convert to Table as requested: "
        "includeObject: Invalid value: \"x\": must be 'Metadata', 'Object', 'None', or empty"
    )
    assert invalid_include_object("x") == message
    assert invalid_include_object("") is None
    with pytest.raises(APIError) as raised:
        table_for(builtin("", "pods"), [], list_metadata={}, include_object="x", now=NOW)
    assert raised.value.code == 400
    assert raised.value.message == message


def test_watch_events_after_the_first_carry_no_headers() -> None:
    table = table_for(builtin("", "pods"), [], list_metadata={}, include_object="", now=NOW, headers=False)
    assert table["columnDefinitions"] is None
    assert table["rows"] == []


def test_list_metadata_drops_empty_fields_but_keeps_a_zero_count() -> None:
    given = {"resourceVersion": "9", "continue": "", "remainingItemCount": 0}
    table = table_for(crd(), [], list_metadata=given, include_object="", now=NOW)
    assert table["metadata"] == {"resourceVersion": "9", "remainingItemCount": 0}


# -- columns ------------------------------------------------------------------------------------------


def test_pod_column_definitions() -> None:
    table = table_for(builtin("", "pods"), [], list_metadata={}, include_object="", now=NOW)
    columns = table["columnDefinitions"]
    assert [(c["name"], c["type"], c["format"], c["priority"]) for c in columns] == [
        ("Name", "string", "name", 0),
        ("Ready", "string", "", 0),
        ("Status", "string", "", 0),
        ("Restarts", "string", "", 0),
        ("Age", "string", "", 0),
        ("IP", "string", "", 1),
        ("Node", "string", "", 1),
        ("Nominated Node", "string", "", 1),
        ("Readiness Gates", "string", "", 1),
    ]
    assert list(columns[0]) == ["name", "type", "format", "description", "priority"]
    assert columns[1]["description"] == "The aggregate readiness state of this pod for accepting traffic."


@pytest.mark.parametrize(
    ("group", "plural", "names"),
    [
        ("", "configmaps", ["Name", "Data", "Age"]),
        ("", "secrets", ["Name", "Type", "Data", "Age"]),
        ("", "namespaces", ["Name", "Status", "Age"]),
        ("", "serviceaccounts", ["Name", "Secrets", "Age"]),
        ("coordination.k8s.io", "leases", ["Name", "Holder", "Age"]),
        ("", "services", ["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"]),
        (
            "apps",
            "deployments",
            ["Name", "Ready", "Up-to-date", "Available", "Age", "Containers", "Images", "Selector"],
        ),
        ("batch", "jobs", ["Name", "Status", "Completions", "Duration", "Age", "Containers", "Images", "Selector"]),
        (
            "",
            "events",
            ["Last Seen", "Type", "Reason", "Object", "Subobject", "Source", "Message", "First Seen", "Count", "Name"],
        ),
        ("apiextensions.k8s.io", "customresourcedefinitions", ["Name", "Created At"]),
    ],
)
def test_builtin_column_names(group: str, plural: str, names: list[str]) -> None:
    table = table_for(builtin(group, plural), [], list_metadata={}, include_object="", now=NOW)
    assert [c["name"] for c in table["columnDefinitions"]] == names


def test_custom_resource_columns() -> None:
    rtype = crd(
        [
            {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
            {"name": "Phase", "type": "string", "jsonPath": ".status.phase", "description": "The phase", "priority": 1},
        ]
    )
    columns = table_for(rtype, [], list_metadata={}, include_object="", now=NOW)["columnDefinitions"]
    assert columns[0]["name"] == "Name" and columns[0]["format"] == "name"
    assert columns[1] == {
        "name": "Replicas",
        "type": "integer",
        "format": "",
        "description": "Custom resource definition column (in JSONPath format): .spec.replicas",
        "priority": 0,
    }
    assert columns[2] == {"name": "Phase", "type": "string", "format": "", "description": "The phase", "priority": 1}


def test_custom_resource_without_columns_gets_age() -> None:
    table = table_for(crd(), [{"metadata": meta("w")}], list_metadata={}, include_object="", now=NOW)
    assert [(c["name"], c["type"]) for c in table["columnDefinitions"]] == [("Name", "string"), ("Age", "date")]
    assert table["columnDefinitions"][1]["description"].startswith("CreationTimestamp is a timestamp")
    assert table["rows"][0]["cells"] == ["w", "5s"]


# -- custom resource cells ----------------------------------------------------------------------------

COLUMNS = [
    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
    {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status'},
    {"name": "Missing", "type": "string", "jsonPath": ".status.nothing.here"},
    {"name": "Started", "type": "date", "jsonPath": ".status.startedAt"},
    {"name": "Ratio", "type": "number", "jsonPath": ".spec.ratio"},
    {"name": "Paused", "type": "boolean", "jsonPath": ".spec.paused"},
    {"name": "Labels", "type": "string", "jsonPath": ".metadata.labels"},
    {"name": "Last", "type": "string", "jsonPath": ".spec.items[-1]"},
    {"name": "Nil", "type": "string", "jsonPath": ".spec.nothing"},
]


def test_custom_resource_cells() -> None:
    widget = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": meta("w", labels={"b": "2", "a": "1"}),
        "spec": {"replicas": 3, "ratio": 1, "paused": "yes", "items": ["x", "y", 2.5], "nothing": None},
        "status": {
            "conditions": [{"type": "Synced", "status": "False"}, {"type": "Ready", "status": "True"}],
            "startedAt": "2023-12-31T23:00:00Z",
        },
    }
    assert cells(crd(COLUMNS), widget) == ["w", 3, "True", None, "60m", 1.0, None, "map[a:1 b:2]", "2.5", "<no value>"]


@pytest.mark.parametrize(
    ("column", "spec", "cell"),
    [
        ({"type": "integer", "jsonPath": ".spec.v"}, {"v": 2.9}, 2),
        ({"type": "integer", "jsonPath": ".spec.v"}, {"v": "2"}, None),
        ({"type": "number", "jsonPath": ".spec.v"}, {"v": 0.25}, 0.25),
        ({"type": "boolean", "jsonPath": ".spec.v"}, {"v": True}, True),
        ({"type": "string", "jsonPath": ".spec.v"}, {"v": 1e6}, "1e+06"),
        ({"type": "string", "jsonPath": ".spec.v"}, {"v": 123456.0}, "123456"),
        ({"type": "string", "jsonPath": ".spec.v"}, {"v": [1, "a", None]}, "[1 a <nil>]"),
        ({"type": "string", "jsonPath": ".spec.v"}, {"v": False}, "false"),
        ({"type": "date", "jsonPath": ".spec.v"}, {"v": "yesterday"}, "<invalid>"),
        ({"type": "date", "jsonPath": ".spec.v"}, {"v": ""}, "<unknown>"),
        ({"type": "date", "jsonPath": ".spec.v"}, {"v": "2023-12-31T23:59:00.5+00:00"}, "59s"),
        ({"type": "date", "jsonPath": ".spec.v"}, {"v": 5}, None),
        ({"type": "string", "jsonPath": ".spec.v[*].n"}, {"v": [{"n": "first"}, {"n": "second"}]}, "first"),
        ({"type": "string", "jsonPath": ".spec.v[5]"}, {"v": [1]}, None),
        ({"type": "string", "jsonPath": ".spec.v[?(@.n > 1)].n"}, {"v": [{"n": 1}, {"n": 2}]}, "2"),
        ({"type": "string", "jsonPath": ".spec.v[?(@.n == 1)].n"}, {"v": [{"n": 1.0}]}, None),
        ({"type": "string", "jsonPath": ".spec['a.b']"}, {"a.b": "dotted"}, "dotted"),
        ({"type": "string", "jsonPath": r".spec.a\.b"}, {"a.b": "escaped"}, "escaped"),
        ({"type": "string", "jsonPath": ".spec..deep"}, {"x": {"deep": "found"}}, "found"),
    ],
)
def test_custom_resource_cell_types(column: dict[str, Any], spec: dict[str, Any], cell: Any) -> None:
    rtype = crd([{"name": "C", **column}])
    assert cells(rtype, {"metadata": meta("w"), "spec": spec})[1] == cell


# -- built-in cells -----------------------------------------------------------------------------------


def test_fresh_pod() -> None:
    pod = {"metadata": meta("p"), "spec": {"containers": [{"name": "c"}]}, "status": {"phase": "Pending"}}
    assert cells(builtin("", "pods"), pod) == ["p", "0/1", "Pending", "0", "5s", "<none>", "<none>", "<none>", "<none>"]


def test_running_pod_with_restarts_and_gates() -> None:
    pod = {
        "metadata": meta("p"),
        "spec": {
            "nodeName": "node-1",
            "containers": [{"name": "a"}, {"name": "b"}],
            "readinessGates": [{"conditionType": "example.com/lb"}],
        },
        "status": {
            "phase": "Running",
            "podIPs": [{"ip": "10.244.0.5"}],
            "conditions": [{"type": "example.com/lb", "status": "True"}],
            "containerStatuses": [
                {"name": "a", "ready": True, "restartCount": 2, "state": {"running": {}},
                 "lastState": {"terminated": {"finishedAt": "2023-12-31T23:55:00Z"}}},
                {"name": "b", "ready": False, "restartCount": 0, "state": {"waiting": {"reason": "CrashLoopBackOff"}}},
            ],
        },
    }  # fmt: skip
    assert cells(builtin("", "pods"), pod) == [
        "p", "1/2", "CrashLoopBackOff", "2 (5m ago)", "5s", "10.244.0.5", "node-1", "<none>", "1/1",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("status", "extra_meta", "expected"),
    [
        ({"phase": "Pending", "initContainerStatuses": [{"name": "i", "state": {"running": {}}}]}, {}, "Init:0/1"),
        (
            {"phase": "Pending", "initContainerStatuses": [{"name": "i", "state": {"terminated": {"exitCode": 3}}}]},
            {},
            "Init:ExitCode:3",
        ),
        ({"phase": "Running"}, {"deletionTimestamp": CREATED}, "Terminating"),
        ({"phase": "Failed", "reason": "Evicted"}, {}, "Evicted"),
        (
            {
                "phase": "Succeeded",
                "containerStatuses": [{"name": "c", "state": {"terminated": {"reason": "Completed"}}}],
            },
            {},
            "Completed",
        ),
        (
            {"phase": "Pending", "conditions": [{"type": "PodScheduled", "reason": "SchedulingGated"}]},
            {},
            "SchedulingGated",
        ),
    ],
)
def test_pod_status_column(status: dict[str, Any], extra_meta: dict[str, Any], expected: str) -> None:
    pod = {
        "metadata": meta("p", **extra_meta),
        "spec": {"initContainers": [{"name": "i"}], "containers": [{"name": "c"}]},
        "status": status,
    }
    assert cells(builtin("", "pods"), pod)[2] == expected


def test_finished_pods_carry_a_completed_condition() -> None:
    pod = {"metadata": meta("p"), "status": {"phase": "Succeeded"}}
    row = table_for(builtin("", "pods"), [pod], list_metadata={}, include_object="None", now=NOW)["rows"][0]
    assert list(row) == ["cells", "conditions", "object"]
    assert row["conditions"] == [
        {"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The pod has completed successfully."}
    ]


@pytest.mark.parametrize(
    ("group", "plural", "obj", "expected"),
    [
        ("", "configmaps", {"metadata": meta("c"), "data": {"a": "1"}, "binaryData": {"b": "AA=="}}, ["c", 2, "5s"]),
        ("", "secrets", {"metadata": meta("s"), "type": "Opaque", "data": {"a": "MQ=="}}, ["s", "Opaque", 1, "5s"]),
        ("", "namespaces", {"metadata": meta("n"), "status": {"phase": "Active"}}, ["n", "Active", "5s"]),
        ("", "serviceaccounts", {"metadata": meta("sa"), "secrets": [{"name": "t"}]}, ["sa", 1, "5s"]),
        ("coordination.k8s.io", "leases", {"metadata": meta("l"), "spec": {"holderIdentity": "me"}}, ["l", "me", "5s"]),
        ("", "configmaps", {"metadata": {"name": "old"}}, ["old", 0, "<unknown>"]),
        (
            "apiextensions.k8s.io",
            "customresourcedefinitions",
            {"metadata": {"name": "widgets.example.com", "creationTimestamp": "2024-01-01T02:00:00+02:00"}},
            ["widgets.example.com", "2024-01-01T00:00:00Z"],
        ),
    ],
)
def test_simple_builtin_cells(group: str, plural: str, obj: dict[str, Any], expected: list[Any]) -> None:
    assert cells(builtin(group, plural), obj) == expected


TCP_80 = {"port": 80, "protocol": "TCP"}
LB_INGRESS = {"loadBalancer": {"ingress": [{"hostname": "lb.example.com"}, {"ip": "203.0.113.9"}]}}
SERVICES: list[tuple[dict[str, Any], dict[str, Any], list[str]]] = [
    (
        {"type": "ClusterIP", "clusterIPs": ["10.96.1.1"], "ports": [TCP_80], "selector": {"b": "2", "a": "1"}},
        {},
        ["ClusterIP", "10.96.1.1", "<none>", "80/TCP", "a=1,b=2"],
    ),
    (
        {"type": "NodePort", "clusterIPs": ["10.96.1.2"], "ports": [{**TCP_80, "nodePort": 30080}]},
        {},
        ["NodePort", "10.96.1.2", "<none>", "80:30080/TCP", "<none>"],
    ),
    (
        {"type": "LoadBalancer", "ports": []},
        {"loadBalancer": {}},
        ["LoadBalancer", "<none>", "<pending>", "<none>", "<none>"],
    ),
    (
        {"type": "LoadBalancer", "externalIPs": ["1.2.3.4"]},
        LB_INGRESS,
        ["LoadBalancer", "<none>", "203.0.113.9,lb.example.com,1.2.3.4", "<none>", "<none>"],
    ),
    (
        {"type": "ExternalName", "externalName": "db.example.com"},
        {},
        ["ExternalName", "<none>", "db.example.com", "<none>", "<none>"],
    ),
]


@pytest.mark.parametrize(("spec", "status", "expected"), SERVICES)
def test_service_cells(spec: dict[str, Any], status: dict[str, Any], expected: list[Any]) -> None:
    row = cells(builtin("", "services"), {"metadata": meta("svc"), "spec": spec, "status": status})
    assert row == ["svc", *expected[:4], "5s", expected[4]]


def test_deployment_cells() -> None:
    deployment = {
        "metadata": meta("web"),
        "spec": {
            "replicas": 3,
            "selector": {
                "matchLabels": {"app": "web"},
                "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]}],
            },
            "template": {"spec": {"containers": [{"name": "a", "image": "nginx"}, {"name": "b", "image": "envoy:1"}]}},
        },
        "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2},
    }
    assert cells(builtin("apps", "deployments"), deployment) == [
        "web", "2/3", 3, 2, "5s", "a,b", "nginx,envoy:1", "app=web,tier in (a,b)",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "status", "extra_meta", "expected"),
    [
        ({"completions": 1, "parallelism": 1}, {}, {}, ["Running", "0/1", ""]),
        ({"parallelism": 3}, {"startTime": "2023-12-31T23:50:00Z"}, {}, ["Running", "0/1 of 3", "10m"]),
        (
            {"completions": 2},
            {
                "succeeded": 2,
                "startTime": "2023-12-31T23:00:00Z",
                "completionTime": "2023-12-31T23:01:05Z",
                "conditions": [{"type": "Complete", "status": "True"}],
            },
            {},
            ["Complete", "2/2", "65s"],
        ),
        ({"completions": 1}, {"conditions": [{"type": "Suspended", "status": "True"}]}, {}, ["Suspended", "0/1", ""]),
        ({"completions": 1}, {}, {"deletionTimestamp": CREATED}, ["Terminating", "0/1", ""]),
    ],
)
def test_job_cells(
    spec: dict[str, Any], status: dict[str, Any], extra_meta: dict[str, Any], expected: list[str]
) -> None:
    selector = {"matchLabels": {"batch.kubernetes.io/controller-uid": "u"}}
    job = {
        "metadata": meta("j", **extra_meta),
        "spec": {
            **spec,
            "selector": selector,
            "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}},
        },
        "status": status,
    }
    assert cells(builtin("batch", "jobs"), job) == [
        "j", *expected, "5s", "c", "busybox", "batch.kubernetes.io/controller-uid=u",
    ]  # fmt: skip


def test_core_event_cells() -> None:
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": meta("p.17a"),
        "involvedObject": {"kind": "Pod", "name": "p", "fieldPath": "spec.containers{c}"},
        "reason": "Pulled",
        "message": "  Successfully pulled image\n",
        "source": {"component": "kubelet", "host": "node-1"},
        "firstTimestamp": "2023-12-31T23:00:00Z",
        "lastTimestamp": "2023-12-31T23:58:00Z",
        "count": 4,
        "type": "Normal",
    }
    assert cells(builtin("", "events"), event) == [
        "2m", "Normal", "Pulled", "pod/p", "spec.containers{c}", "kubelet, node-1", "Successfully pulled image",
        "60m", 4, "p.17a",
    ]  # fmt: skip


def test_events_api_event_cells() -> None:
    event = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": meta("e"),
        "eventTime": "2023-12-31T23:59:00.000000Z",
        "regarding": {"kind": "Deployment", "name": "web"},
        "reason": "Scaled",
        "note": "up",
        "reportingController": "example.com/ctl",
        "reportingInstance": "ctl-0",
        "type": "Normal",
    }
    assert cells(builtin("events.k8s.io", "events"), event) == [
        "60s", "Normal", "Scaled", "deployment/web", "", "example.com/ctl, ctl-0", "up", "60s", 1, "e",
    ]  # fmt: skip


def test_empty_lists() -> None:
    for rtype in (builtin("", "pods"), crd()):
        assert table_for(rtype, [], list_metadata={}, include_object="", now=NOW)["rows"] == []
    crds = builtin("apiextensions.k8s.io", "customresourcedefinitions")
    assert table_for(crds, [], list_metadata={}, include_object="", now=NOW)["rows"] is None


# -- HumanDuration ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (-2, "<invalid>"),
        (-1.5, "0s"),
        (-1, "0s"),
        (0, "0s"),
        (0.9, "0s"),
        (119, "119s"),
        (120, "2m"),
        (121, "2m1s"),
        (599, "9m59s"),
        (600, "10m"),
        (3 * 3600 - 1, "179m"),
        (3 * 3600, "3h"),
        (3 * 3600 + 60, "3h1m"),
        (8 * 3600 - 1, "7h59m"),
        (8 * 3600, "8h"),
        (48 * 3600 - 1, "47h"),
        (48 * 3600, "2d"),
        (49 * 3600, "2d1h"),
        (8 * 86400 - 1, "7d23h"),
        (8 * 86400, "8d"),
        (730 * 86400 - 1, "729d"),
        (730 * 86400, "2y"),
        (731 * 86400, "2y1d"),
        (8 * 365 * 86400 - 1, "7y364d"),
        (8 * 365 * 86400, "8y"),
        (20 * 365 * 86400, "20y"),
    ],
)
def test_human_duration(seconds: float, text: str) -> None:
    assert human_duration(seconds) == text


def test_ages_use_the_given_now() -> None:
    configmap = {"metadata": meta("c")}
    assert cells(builtin("", "configmaps"), configmap, now=NOW - 6)[2] == "0s"
    assert cells(builtin("", "configmaps"), configmap, now=NOW - 7)[2] == "<invalid>"
    assert cells(builtin("", "configmaps"), configmap, now=NOW + 86400 * 3)[2] == "3d"


def test_hpa_targets_read_only_a_status_of_the_same_source() -> None:
    hpa = {
        "metadata": meta("web"),
        "spec": {
            "scaleTargetRef": {"kind": "Deployment", "name": "web"},
            "maxReplicas": 3,
            "metrics": [{"type": "External", "external": {"target": {"type": "Value", "value": "5"}}}],
        },
        "status": {"currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {}}}]},
    }
    row = cells(builtin("autoscaling", "horizontalpodautoscalers"), hpa)
    assert row[2] == "<unknown>/5"
