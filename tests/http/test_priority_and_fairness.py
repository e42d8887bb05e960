"""API Priority and Fairness as a client sees it (docs/priority-and-fairness.md): the FlowSchemas and
priority levels of a new 1.32 cluster, and the answers that name the ones a request was classified by."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from fakeapi import FakeAPIServer
from tests.clients.local import run_kubectl, threaded_server

FLOWCONTROL = "/apis/flowcontrol.apiserver.k8s.io/v1"
FLOW_SCHEMA_UID = "X-Kubernetes-Pf-Flowschema-Uid"
PRIORITY_LEVEL_UID = "X-Kubernetes-Pf-Prioritylevel-Uid"

NEW_CLUSTER_FLOW_SCHEMAS = {
    # name: (priority level, matching precedence, distinguisher method)
    "catch-all": ("catch-all", 10000, "ByUser"),
    "endpoint-controller": ("workload-high", 150, "ByUser"),
    "exempt": ("exempt", 1, None),
    "global-default": ("global-default", 9900, "ByUser"),
    "kube-controller-manager": ("workload-high", 800, "ByNamespace"),
    "kube-scheduler": ("workload-high", 800, "ByNamespace"),
    "kube-system-service-accounts": ("workload-high", 900, "ByNamespace"),
    "probes": ("exempt", 2, None),
    "service-accounts": ("workload-low", 9000, "ByUser"),
    "system-leader-election": ("leader-election", 100, "ByUser"),
    "system-node-high": ("node-high", 400, "ByUser"),
    "system-nodes": ("system", 500, "ByUser"),
    "workload-leader-election": ("leader-election", 200, "ByUser"),
}


@pytest.fixture(scope="module")
def server() -> Iterator[FakeAPIServer]:
    with threaded_server(token_auth=True) as running:
        yield running


@pytest.fixture
def fresh_server() -> Iterator[FakeAPIServer]:
    """A server of the test's own, for tests that change the configuration."""
    with threaded_server(token_auth=True) as running:
        yield running


def send(
    server: FakeAPIServer,
    path: str,
    token: str | None = None,
    *,
    method: str = "GET",
    body: Any = None,
    extra: dict[str, str] | None = None,
) -> tuple[http.client.HTTPResponse, Any]:
    url = urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=10)
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    headers.update(extra or {})
    payload = None
    if body is not None:
        payload = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    connection.request(method, path, body=payload, headers=headers)
    response = connection.getresponse()
    raw = response.read()
    connection.close()
    decoded = json.loads(raw) if raw and response.getheader("Content-Type") == "application/json" else raw
    return response, decoded


def admin(server: FakeAPIServer) -> str:
    return server.token_for("admin")


def account(server: FakeAPIServer, namespace: str, name: str) -> str:
    return server.token_for(f"{namespace}-{name}", service_account=f"{namespace}/{name}")


def uids(server: FakeAPIServer) -> tuple[dict[str, str], dict[str, str]]:
    """The uids of the FlowSchemas and of the PriorityLevelConfigurations, by name, as the API lists them."""
    _, schemas = send(server, f"{FLOWCONTROL}/flowschemas", admin(server))
    _, levels = send(server, f"{FLOWCONTROL}/prioritylevelconfigurations", admin(server))
    return (
        {item["metadata"]["name"]: item["metadata"]["uid"] for item in schemas["items"]},
        {item["metadata"]["name"]: item["metadata"]["uid"] for item in levels["items"]},
    )


def classified(response: http.client.HTTPResponse) -> tuple[str | None, str | None]:
    return response.getheader(FLOW_SCHEMA_UID), response.getheader(PRIORITY_LEVEL_UID)


def expect(server: FakeAPIServer, flow_schema: str, priority_level: str) -> tuple[str, str]:
    schemas, levels = uids(server)
    return schemas[flow_schema], levels[priority_level]


def test_a_new_cluster_holds_the_bootstrap_configuration(server: FakeAPIServer) -> None:
    _, schemas = send(server, f"{FLOWCONTROL}/flowschemas", admin(server))
    _, levels = send(server, f"{FLOWCONTROL}/prioritylevelconfigurations", admin(server))

    found = {
        item["metadata"]["name"]: (
            item["spec"]["priorityLevelConfiguration"]["name"],
            item["spec"]["matchingPrecedence"],
            (item["spec"].get("distinguisherMethod") or {}).get("type"),
        )
        for item in schemas["items"]
    }
    assert found == NEW_CLUSTER_FLOW_SCHEMAS
    assert [item["metadata"]["name"] for item in levels["items"]] == [
        "catch-all",
        "exempt",
        "global-default",
        "leader-election",
        "node-high",
        "system",
        "workload-high",
        "workload-low",
    ]
    for item in schemas["items"] + levels["items"]:
        assert item["metadata"]["annotations"] == {"apf.kubernetes.io/autoupdate-spec": "true"}
        managers = [(entry["manager"], entry["operation"]) for entry in item["metadata"]["managedFields"]]
        assert ("api-priority-and-fairness-config-producer-v1", "Update") in managers


def test_each_flow_schema_says_its_priority_level_exists(server: FakeAPIServer) -> None:
    _, schema = send(server, f"{FLOWCONTROL}/flowschemas/probes", admin(server))

    [condition] = schema["status"]["conditions"]
    assert {key: value for key, value in condition.items() if key != "lastTransitionTime"} == {
        "type": "Dangling",
        "status": "False",
        "reason": "Found",
        "message": 'This FlowSchema references the PriorityLevelConfiguration object named "exempt" and it exists',
    }
    [entry] = [e for e in schema["metadata"]["managedFields"] if e.get("subresource") == "status"]
    assert (entry["manager"], entry["operation"]) == ("api-priority-and-fairness-config-consumer-v1", "Apply")


def test_system_masters_is_exempt(server: FakeAPIServer) -> None:
    response, _ = send(server, "/api/v1/namespaces/default", admin(server))

    assert response.status == 200
    assert classified(response) == expect(server, "exempt", "exempt")


@pytest.mark.parametrize(
    ("namespace", "path", "flow_schema", "priority_level"),
    [
        ("default", "/api/v1/namespaces/default/configmaps", "service-accounts", "workload-low"),
        ("kube-system", "/api/v1/namespaces/kube-system/configmaps", "kube-system-service-accounts", "workload-high"),
        (
            "kube-system",
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/lock",
            "system-leader-election",
            "leader-election",
        ),
    ],
)
def test_a_service_account_gets_the_service_account_schemas(
    server: FakeAPIServer, namespace: str, path: str, flow_schema: str, priority_level: str
) -> None:
    response, _ = send(server, path, account(server, namespace, "robot"))

    assert response.status in (200, 404)
    assert classified(response) == expect(server, flow_schema, priority_level)


@pytest.mark.parametrize(
    ("method", "path", "status", "flow_schema", "priority_level"),
    [
        ("GET", "/version", 200, "global-default", "global-default"),
        ("GET", "/healthz", 200, "probes", "exempt"),
        ("GET", "/readyz", 200, "probes", "exempt"),
        ("GET", "/livez", 200, "probes", "exempt"),
        # ``probes`` names the verb ``get`` only; the authorizer, which runs after classification,
        # refuses the verb ``head`` (system:public-info-viewer allows ``get``).
        ("HEAD", "/healthz", 403, "global-default", "global-default"),
        ("GET", "/api/v1/namespaces", 403, "global-default", "global-default"),
    ],
)
def test_an_anonymous_request(
    server: FakeAPIServer, method: str, path: str, status: int, flow_schema: str, priority_level: str
) -> None:
    response, _ = send(server, path, method=method)

    assert response.status == status
    assert classified(response) == expect(server, flow_schema, priority_level)


def test_a_probe_path_covers_the_paths_below_it(server: FakeAPIServer) -> None:
    robot = account(server, "default", "robot")

    # ``rule.go`` reads every URL of a rule as covering itself and the paths below it.
    response, _ = send(server, "/livez/ping", robot)
    assert response.status == 200
    assert classified(response) == expect(server, "probes", "exempt")
    response, _ = send(server, "/livezz", robot)
    assert response.status == 404
    assert classified(response) == expect(server, "service-accounts", "workload-low")


def test_the_user_impersonated_is_the_one_classified(server: FakeAPIServer) -> None:
    node = {"Impersonate-User": "system:node:worker-1", "Impersonate-Group": "system:nodes"}

    response, _ = send(server, "/api/v1/nodes", admin(server), extra=node)
    assert response.status == 200
    assert classified(response) == expect(server, "system-node-high", "node-high")
    response, _ = send(server, "/api/v1/namespaces/default/pods", admin(server), extra=node)
    assert classified(response) == expect(server, "system-nodes", "system")


def test_a_refused_impersonation_is_not_classified() -> None:
    with threaded_server(token_auth=True, authorization="RBAC") as server:
        robot = account(server, "default", "robot")
        response, body = send(server, "/api/v1/nodes", robot, extra={"Impersonate-User": "someone"})

        assert response.status == 403
        assert "cannot impersonate" in body["message"]
        assert classified(response) == (None, None)


def test_a_watch_is_classified(server: FakeAPIServer) -> None:
    url = urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=10)
    token = account(server, "default", "robot")
    connection.request(
        "GET", "/api/v1/namespaces?watch=true&timeoutSeconds=1", headers={"Authorization": f"Bearer {token}"}
    )
    response = connection.getresponse()
    response.read()
    connection.close()

    assert response.status == 200
    assert classified(response) == expect(server, "service-accounts", "workload-low")


def test_other_long_running_requests_are_not(server: FakeAPIServer) -> None:
    for path in ("/api/v1/namespaces/default/pods/missing/log", "/api/v1/namespaces/default/pods/missing/exec"):
        response, _ = send(server, path, admin(server))

        assert response.status in (400, 404)
        assert classified(response) == (None, None)


def test_a_request_authentication_refused_is_not(server: FakeAPIServer) -> None:
    response, _ = send(server, "/api/v1/namespaces", "not-a-token")

    assert response.status == 401
    assert classified(response) == (None, None)


def test_the_authorizers_refusal_is_classified() -> None:
    with threaded_server(token_auth=True, authorization="RBAC") as server:
        response, body = send(server, "/api/v1/namespaces/default/secrets", account(server, "default", "robot"))

        assert response.status == 403
        assert body["reason"] == "Forbidden"
        assert classified(response) == expect(server, "service-accounts", "workload-low")


def flow_schema(name: str, level: str, precedence: int, user: str) -> dict[str, Any]:
    return {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "FlowSchema",
        "metadata": {"name": name},
        "spec": {
            "priorityLevelConfiguration": {"name": level},
            "matchingPrecedence": precedence,
            "rules": [
                {
                    "subjects": [{"kind": "User", "user": {"name": user}}],
                    "resourceRules": [
                        {"verbs": ["list"], "apiGroups": [""], "resources": ["configmaps"], "namespaces": ["default"]}
                    ],
                }
            ],
        },
    }


def test_a_flow_schema_a_user_writes_takes_over(fresh_server: FakeAPIServer) -> None:
    server = fresh_server
    robot = account(server, "default", "robot")
    configmaps = "/api/v1/namespaces/default/configmaps"
    created, _ = send(
        server,
        f"{FLOWCONTROL}/flowschemas",
        admin(server),
        method="POST",
        body=flow_schema("robot-first", "workload-high", 50, "system:serviceaccount:default:robot"),
    )
    assert created.status == 201

    response, _ = send(server, configmaps, robot)
    assert classified(response) == expect(server, "robot-first", "workload-high")
    # Its rules say ``list`` of configmaps in ``default``: anything else falls through.
    response, _ = send(server, "/api/v1/namespaces/default/secrets", robot)
    assert classified(response) == expect(server, "service-accounts", "workload-low")

    _, current = send(server, f"{FLOWCONTROL}/flowschemas/robot-first", admin(server))
    current["spec"]["priorityLevelConfiguration"]["name"] = "no-such-level"
    updated, _ = send(server, f"{FLOWCONTROL}/flowschemas/robot-first", admin(server), method="PUT", body=current)
    assert updated.status == 200
    _, dangling = send(server, f"{FLOWCONTROL}/flowschemas/robot-first", admin(server))
    [condition] = dangling["status"]["conditions"]
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "True",
        "NotFound",
        'This FlowSchema references the PriorityLevelConfiguration object named "no-such-level"'
        " but there is no such object",
    )
    response, _ = send(server, configmaps, robot)
    assert classified(response) == expect(server, "service-accounts", "workload-low")

    level = {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": "no-such-level"},
        "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}},
    }
    created, _ = send(server, f"{FLOWCONTROL}/prioritylevelconfigurations", admin(server), method="POST", body=level)
    assert created.status == 201
    response, _ = send(server, configmaps, robot)
    assert classified(response) == expect(server, "robot-first", "no-such-level")
    _, found = send(server, f"{FLOWCONTROL}/flowschemas/robot-first", admin(server))
    assert [c["reason"] for c in found["status"]["conditions"]] == ["Found"]

    deleted, _ = send(server, f"{FLOWCONTROL}/flowschemas/robot-first", admin(server), method="DELETE")
    assert deleted.status == 200
    response, _ = send(server, configmaps, robot)
    assert classified(response) == expect(server, "service-accounts", "workload-low")


def test_a_deleted_mandatory_flow_schema_is_imagined_without_a_uid(fresh_server: FakeAPIServer) -> None:
    server = fresh_server
    _, exempt_level = expect(server, "exempt", "exempt")
    deleted, _ = send(server, f"{FLOWCONTROL}/flowschemas/exempt", admin(server), method="DELETE")
    assert deleted.status == 200

    response, _ = send(server, "/api/v1/namespaces/default", admin(server))

    assert response.status == 200
    assert classified(response) == ("", exempt_level)


def masked_age(table: str) -> list[list[str]]:
    """kubectl's rows split into cells, with the AGE column (whatever it says) left out."""
    lines = table.splitlines()
    header = lines[0].split()
    age = header.index("AGE")
    return [[cell for index, cell in enumerate(line.split()) if index != age] for line in lines]


def test_kubectl_shows_what_a_new_cluster_shows(tmp_path: Path) -> None:
    with threaded_server(tls=True, token_auth=True) as server:
        kubeconfig = server.kubeconfig(tmp_path / "kubeconfig")

        code, out, err = run_kubectl(kubeconfig, tmp_path, "get", "flowschemas,prioritylevelconfigurations")

    assert code == 0, err
    schemas, levels = out.split("\n\n")
    assert masked_age(schemas) == [
        ["NAME", "PRIORITYLEVEL", "MATCHINGPRECEDENCE", "DISTINGUISHERMETHOD", "MISSINGPL"],
        ["flowschema.flowcontrol.apiserver.k8s.io/catch-all", "catch-all", "10000", "ByUser", "False"],
        ["flowschema.flowcontrol.apiserver.k8s.io/endpoint-controller", "workload-high", "150", "ByUser", "False"],
        ["flowschema.flowcontrol.apiserver.k8s.io/exempt", "exempt", "1", "<none>", "False"],
        ["flowschema.flowcontrol.apiserver.k8s.io/global-default", "global-default", "9900", "ByUser", "False"],
        [
            "flowschema.flowcontrol.apiserver.k8s.io/kube-controller-manager",
            "workload-high",
            "800",
            "ByNamespace",
            "False",
        ],
        ["flowschema.flowcontrol.apiserver.k8s.io/kube-scheduler", "workload-high", "800", "ByNamespace", "False"],
        [
            "flowschema.flowcontrol.apiserver.k8s.io/kube-system-service-accounts",
            "workload-high",
            "900",
            "ByNamespace",
            "False",
        ],
        ["flowschema.flowcontrol.apiserver.k8s.io/probes", "exempt", "2", "<none>", "False"],
        ["flowschema.flowcontrol.apiserver.k8s.io/service-accounts", "workload-low", "9000", "ByUser", "False"],
        ["flowschema.flowcontrol.apiserver.k8s.io/system-leader-election", "leader-election", "100", "ByUser", "False"],
        ["flowschema.flowcontrol.apiserver.k8s.io/system-node-high", "node-high", "400", "ByUser", "False"],
        ["flowschema.flowcontrol.apiserver.k8s.io/system-nodes", "system", "500", "ByUser", "False"],
        [
            "flowschema.flowcontrol.apiserver.k8s.io/workload-leader-election",
            "leader-election",
            "200",
            "ByUser",
            "False",
        ],
    ]
    prefix = "prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/"
    assert masked_age(levels) == [
        ["NAME", "TYPE", "NOMINALCONCURRENCYSHARES", "QUEUES", "HANDSIZE", "QUEUELENGTHLIMIT"],
        [prefix + "catch-all", "Limited", "5", "<none>", "<none>", "<none>"],
        [prefix + "exempt", "Exempt", "<none>", "<none>", "<none>", "<none>"],
        [prefix + "global-default", "Limited", "20", "128", "6", "50"],
        [prefix + "leader-election", "Limited", "10", "16", "4", "50"],
        [prefix + "node-high", "Limited", "40", "64", "6", "50"],
        [prefix + "system", "Limited", "30", "64", "6", "50"],
        [prefix + "workload-high", "Limited", "40", "128", "6", "50"],
        [prefix + "workload-low", "Limited", "100", "128", "6", "50"],
    ]


@pytest.mark.parametrize(
    ("kube_version", "dropped"),
    [("1.33", set()), ("1.34", {"endpoint-controller", "workload-leader-election"})],
)
def test_each_release_boots_its_own_configuration(kube_version: str, dropped: set[str]) -> None:
    with threaded_server(token_auth=True, kube_version=kube_version) as server:
        schemas, levels = uids(server)

        assert set(schemas) == set(NEW_CLUSTER_FLOW_SCHEMAS) - dropped
        assert len(levels) == 8
