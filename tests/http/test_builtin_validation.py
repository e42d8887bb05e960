"""Built-in kinds validated as the apiserver's ``pkg/apis/<group>/validation`` does: 422 bodies to the byte."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
SECRETS = "/api/v1/namespaces/default/secrets"
SERVICES = "/api/v1/namespaces/default/services"
SERVICEACCOUNTS = "/api/v1/namespaces/default/serviceaccounts"
RBAC = "/apis/rbac.authorization.k8s.io/v1"
ROLES = f"{RBAC}/namespaces/default/roles"
ROLEBINDINGS = f"{RBAC}/namespaces/default/rolebindings"
CLUSTERROLES = f"{RBAC}/clusterroles"
CLUSTERROLEBINDINGS = f"{RBAC}/clusterrolebindings"

CONFIG_KEY_RULE = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
    "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
)
DNS1035_RULE = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)


def status_422(prefix: str, name: str, kind: str, group: str, causes: list[tuple[str, str, str]]) -> bytes:
    """The bytes of ``NewInvalid``'s Status, written out by hand: messages ``<field>: <body>``, each once, joined in brackets."""
    texts = list(dict.fromkeys(f"{where}: {body}" for _, body, where in causes))
    aggregate = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    details = '{"name":' + json.dumps(name)
    if group:
        details += ',"group":' + json.dumps(group)
    details += ',"kind":' + json.dumps(kind) + ',"causes":['
    details += ",".join(
        '{"reason":' + json.dumps(reason) + ',"message":' + json.dumps(body) + ',"field":' + json.dumps(where) + "}"
        for reason, body, where in causes
    )
    return (
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
        + json.dumps(f'{prefix} "{name}" is invalid: {aggregate}', ensure_ascii=False)
        + ',"reason":"Invalid","details":'
        + details
        + ']},"code":422}\n'
    ).encode()


async def assert_rejected(client: RawClient, path: str, body: Any, expected: bytes, method: str = "POST") -> None:
    before = await client.get(path.rsplit("/", 1)[0] if method == "PUT" else path)
    reply = await client.request(method, path, body)
    assert (reply.status, reply.body) == (422, expected)
    after = await client.get(path.rsplit("/", 1)[0] if method == "PUT" else path)
    assert after.json()["items"] == before.json()["items"], "a rejected write changes nothing"


def configmap(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, **fields}


def secret(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, **fields}


def service(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}


# -- ConfigMap and Secret ----------------------------------------------------------------------


async def test_a_config_map_key_must_be_a_config_key(client: RawClient) -> None:
    expected = status_422(
        "ConfigMap",
        "c",
        "ConfigMap",
        "",
        [("FieldValueInvalid", f'Invalid value: "bad key/": {CONFIG_KEY_RULE}', "data[bad key/]")],
    )
    await assert_rejected(client, CONFIGMAPS, configmap(data={"bad key/": "x"}), expected)


async def test_a_key_in_data_and_binary_data_and_a_chdir_key(client: RawClient) -> None:
    expected = status_422(
        "ConfigMap",
        "c",
        "ConfigMap",
        "",
        [
            ("FieldValueInvalid", 'Invalid value: "k": duplicate of key present in binaryData', "data[k]"),
            ("FieldValueInvalid", "Invalid value: \"..\": must not be '..'", "binaryData[..]"),
        ],
    )
    await assert_rejected(
        client, CONFIGMAPS, configmap(data={"k": "v"}, binaryData={"k": "eA==", "..": "eA=="}), expected
    )


async def test_an_immutable_config_map_keeps_its_data_and_stays_immutable(client: RawClient) -> None:
    created = await client.post(CONFIGMAPS, configmap(data={"a": "1"}, immutable=True))
    assert created.status == 201
    expected = status_422(
        "ConfigMap",
        "c",
        "ConfigMap",
        "",
        [
            ("FieldValueForbidden", "Forbidden: field is immutable when `immutable` is set", "immutable"),
            ("FieldValueForbidden", "Forbidden: field is immutable when `immutable` is set", "data"),
        ],
    )
    await assert_rejected(client, f"{CONFIGMAPS}/c", configmap(data={"a": "2"}), expected, method="PUT")
    same = await client.put(f"{CONFIGMAPS}/c", configmap(data={"a": "1"}, immutable=True))
    assert same.status == 200


async def test_a_tls_secret_needs_its_certificate_and_key(client: RawClient) -> None:
    expected = status_422(
        "Secret",
        "s",
        "Secret",
        "",
        [
            ("FieldValueRequired", "Required value", "data[tls.crt]"),
            ("FieldValueRequired", "Required value", "data[tls.key]"),
        ],
    )
    await assert_rejected(client, SECRETS, secret(type="kubernetes.io/tls", data={"ca.crt": "eA=="}), expected)


async def test_a_secrets_type_is_immutable(client: RawClient) -> None:
    assert (await client.post(SECRETS, secret(data={"token": "eA=="}))).status == 201
    expected = status_422(
        "Secret",
        "s",
        "Secret",
        "",
        [("FieldValueInvalid", 'Invalid value: "example.com/token": field is immutable', "type")],
    )
    body = secret(type="example.com/token", data={"token": "eA=="})
    await assert_rejected(client, f"{SECRETS}/s", body, expected, method="PUT")


# -- finalizers and names ------------------------------------------------------------------------


async def test_a_built_in_object_takes_only_standard_or_qualified_finalizers(client: RawClient) -> None:
    body = configmap()
    body["metadata"]["finalizers"] = ["example.com/cleanup", "cleanup"]
    expected = status_422(
        "ConfigMap",
        "c",
        "ConfigMap",
        "",
        [
            (
                "FieldValueInvalid",
                'Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified',
                "metadata.finalizers[1]",
            )
        ],
    )
    await assert_rejected(client, CONFIGMAPS, body, expected)
    body["metadata"]["finalizers"] = ["example.com/cleanup", "orphan"]
    assert (await client.post(CONFIGMAPS, body)).status == 201


async def test_a_service_name_is_a_dns_1035_label(client: RawClient) -> None:
    expected = status_422(
        "Service",
        "1web",
        "Service",
        "",
        [("FieldValueInvalid", f'Invalid value: "1web": {DNS1035_RULE}', "metadata.name")],
    )
    await assert_rejected(client, SERVICES, service("1web", ports=[{"port": 80}]), expected)


async def test_a_service_account_name_is_a_dns_subdomain(client: RawClient) -> None:
    body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "Robot"}}
    rule = (
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    )
    expected = status_422(
        "ServiceAccount",
        "Robot",
        "ServiceAccount",
        "",
        [("FieldValueInvalid", f'Invalid value: "Robot": {rule}', "metadata.name")],
    )
    await assert_rejected(client, SERVICEACCOUNTS, body, expected)


# -- Service -------------------------------------------------------------------------------------


async def test_a_service_needs_ports_with_supported_protocols(client: RawClient) -> None:
    expected = status_422("Service", "web", "Service", "", [("FieldValueRequired", "Required value", "spec.ports")])
    await assert_rejected(client, SERVICES, service(selector={"app": "web"}), expected)
    expected = status_422(
        "Service",
        "web",
        "Service",
        "",
        [
            (
                "FieldValueNotSupported",
                'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
                "spec.ports[0].protocol",
            )
        ],
    )
    await assert_rejected(client, SERVICES, service(ports=[{"port": 80, "protocol": "HTTP"}]), expected)


async def test_several_service_ports_need_names_and_distinct_numbers(client: RawClient) -> None:
    duplicate = (
        'Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, '
        'TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}'
    )
    expected = status_422(
        "Service",
        "web",
        "Service",
        "",
        [
            ("FieldValueInvalid", "Invalid value: 0: must be between 1 and 65535, inclusive", "spec.ports[0].port"),
            ("FieldValueRequired", "Required value", "spec.ports[1].name"),
            ("FieldValueDuplicate", duplicate, "spec.ports[2]"),
        ],
    )
    ports = [{"name": "a", "port": 0, "targetPort": 8080}, {"port": 80}, {"name": "b", "port": 80}]
    await assert_rejected(client, SERVICES, service(ports=ports), expected)


async def test_a_cluster_ip_service_takes_no_node_port_and_a_known_type(client: RawClient) -> None:
    expected = status_422(
        "Service",
        "web",
        "Service",
        "",
        [
            (
                "FieldValueForbidden",
                "Forbidden: may not be used when `type` is 'ClusterIP'",
                "spec.ports[0].nodePort",
            )
        ],
    )
    await assert_rejected(client, SERVICES, service(ports=[{"port": 80, "nodePort": 30080}]), expected)


# -- RBAC ----------------------------------------------------------------------------------------


def role(kind: str = "Role", name: str = "reader", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": {"name": name}, **fields}


async def test_a_role_rule_needs_verbs_groups_and_resources(client: RawClient) -> None:
    expected = status_422(
        "Role.rbac.authorization.k8s.io",
        "reader",
        "Role",
        "rbac.authorization.k8s.io",
        [
            ("FieldValueRequired", "Required value: verbs must contain at least one value", "rules[0].verbs"),
            (
                "FieldValueRequired",
                "Required value: resource rules must supply at least one api group",
                "rules[0].apiGroups",
            ),
            (
                "FieldValueInvalid",
                'Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
                "rules[1].nonResourceURLs",
            ),
        ],
    )
    rules = [{"resources": ["pods"]}, {"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]
    await assert_rejected(client, ROLES, role(rules=rules), expected)


async def test_a_cluster_role_name_may_hold_colons_but_no_slash(client: RawClient) -> None:
    rules = [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]
    assert (await client.post(CLUSTERROLES, role("ClusterRole", "system:probe", rules=rules))).status == 201
    expected = status_422(
        "ClusterRole.rbac.authorization.k8s.io",
        "a/b",
        "ClusterRole",
        "rbac.authorization.k8s.io",
        [("FieldValueInvalid", "Invalid value: \"a/b\": may not contain '/'", "metadata.name")],
    )
    await assert_rejected(client, CLUSTERROLES, role("ClusterRole", "a/b"), expected)


async def test_a_role_binding_names_a_known_role_kind_and_valid_subjects(client: RawClient) -> None:
    body = role(
        "RoleBinding",
        "bind",
        roleRef={"apiGroup": "rbac.authorization.k8s.io", "kind": "Roles", "name": "reader"},
        subjects=[
            {"kind": "ServiceAccount", "name": "robot", "apiGroup": "v1"},
            {"kind": "User", "name": "ann", "apiGroup": "example.com"},
        ],
    )
    expected = status_422(
        "RoleBinding.rbac.authorization.k8s.io",
        "bind",
        "RoleBinding",
        "rbac.authorization.k8s.io",
        [
            (
                "FieldValueNotSupported",
                'Unsupported value: "Roles": supported values: "Role", "ClusterRole"',
                "roleRef.kind",
            ),
            ("FieldValueNotSupported", 'Unsupported value: "v1": supported values: ""', "subjects[0].apiGroup"),
            (
                "FieldValueNotSupported",
                'Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"',
                "subjects[1].apiGroup",
            ),
        ],
    )
    await assert_rejected(client, ROLEBINDINGS, body, expected)


async def test_a_bindings_role_ref_and_user_subjects_default_to_the_rbac_group(client: RawClient) -> None:
    body = role(
        "RoleBinding", "bind", roleRef={"kind": "Role", "name": "reader"}, subjects=[{"kind": "User", "name": "ann"}]
    )
    created = await client.post(ROLEBINDINGS, body)
    assert created.status == 201
    assert created.json()["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"}
    assert created.json()["subjects"] == [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "ann"}]


async def test_a_cluster_role_bindings_service_account_needs_a_namespace(client: RawClient) -> None:
    body = role(
        "ClusterRoleBinding",
        "bind",
        roleRef={"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        subjects=[{"kind": "ServiceAccount", "name": "robot"}],
    )
    expected = status_422(
        "ClusterRoleBinding.rbac.authorization.k8s.io",
        "bind",
        "ClusterRoleBinding",
        "rbac.authorization.k8s.io",
        [("FieldValueRequired", "Required value", "subjects[0].namespace")],
    )
    await assert_rejected(client, CLUSTERROLEBINDINGS, body, expected)


async def test_a_bindings_role_ref_cannot_change(client: RawClient) -> None:
    body = role(
        "RoleBinding",
        "bind",
        roleRef={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
        subjects=[{"kind": "ServiceAccount", "name": "robot", "namespace": "default"}],
    )
    assert (await client.post(ROLEBINDINGS, body)).status == 201
    body["roleRef"] = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}
    expected = status_422(
        "RoleBinding.rbac.authorization.k8s.io",
        "bind",
        "RoleBinding",
        "rbac.authorization.k8s.io",
        [
            (
                "FieldValueInvalid",
                'Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"view"}: '
                "cannot change roleRef",
                "roleRef",
            )
        ],
    )
    await assert_rejected(client, f"{ROLEBINDINGS}/bind", body, expected, method="PUT")


# -- Pod -----------------------------------------------------------------------------------------

PODS = "/api/v1/namespaces/default/pods"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"


def pod(*containers: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": list(containers), **spec},
    }


async def test_an_image_pull_policy_is_one_of_three(client: RawClient) -> None:
    expected = status_422(
        "Pod",
        "p",
        "Pod",
        "",
        [
            (
                "FieldValueNotSupported",
                'Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
                "spec.containers[0].imagePullPolicy",
            )
        ],
    )
    body = pod({"name": "web", "image": "nginx:1.27", "imagePullPolicy": "Sometimes"})
    await assert_rejected(client, PODS, body, expected)


async def test_container_ports_names_and_mounts(client: RawClient) -> None:
    expected = status_422(
        "Pod",
        "p",
        "Pod",
        "",
        [
            (
                "FieldValueInvalid",
                "Invalid value: 70000: must be between 1 and 65535, inclusive",
                "spec.containers[0].ports[0].containerPort",
            ),
            ("FieldValueNotFound", 'Not found: "data"', "spec.containers[0].volumeMounts[0].name"),
            ("FieldValueDuplicate", 'Duplicate value: "web"', "spec.containers[1].name"),
        ],
    )
    body = pod(
        {
            "name": "web",
            "image": "nginx:1.27",
            "ports": [{"containerPort": 70000}],
            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
        },
        {"name": "web", "image": "nginx:1.27"},
    )
    await assert_rejected(client, PODS, body, expected)


async def test_a_request_above_its_limit(client: RawClient) -> None:
    expected = status_422(
        "Pod",
        "p",
        "Pod",
        "",
        [
            (
                "FieldValueInvalid",
                'Invalid value: "1": must be less than or equal to cpu limit of 500m',
                "spec.containers[0].resources.requests",
            )
        ],
    )
    resources = {"limits": {"cpu": "500m"}, "requests": {"cpu": "1"}}
    await assert_rejected(client, PODS, pod({"name": "web", "image": "nginx:1.27", "resources": resources}), expected)


async def test_a_pod_update_may_relabel_and_change_images_but_not_add_containers(client: RawClient) -> None:
    assert (await client.post(PODS, pod({"name": "web", "image": "nginx:1.27"}))).status == 201
    stored = (await client.get(f"{PODS}/p")).json()
    stored["metadata"]["labels"] = {"tier": "front"}
    stored["spec"]["containers"][0]["image"] = "nginx:1.28"
    updated = await client.put(f"{PODS}/p", stored)
    assert updated.status == 200
    body = updated.json()
    body["spec"]["containers"].append({**body["spec"]["containers"][0], "name": "extra"})
    expected = status_422(
        "Pod",
        "p",
        "Pod",
        "",
        [("FieldValueForbidden", "Forbidden: pod updates may not add or remove containers", "spec.containers")],
    )
    await assert_rejected(client, f"{PODS}/p", body, expected, method="PUT")


# -- Deployment ----------------------------------------------------------------------------------


def deployment(labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": labels if labels is not None else {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
            **spec,
        },
    }


def deployment_422(*causes: tuple[str, str, str]) -> bytes:
    return status_422("Deployment.apps", "web", "Deployment", "apps", list(causes))


async def test_a_deployments_selector_must_match_its_template(client: RawClient) -> None:
    expected = deployment_422(
        (
            "FieldValueInvalid",
            'Invalid value: map[string]string{"app":"api"}: `selector` does not match template `labels`',
            "spec.template.metadata.labels",
        )
    )
    await assert_rejected(client, DEPLOYMENTS, deployment({"app": "api"}), expected)


async def test_a_deployments_selector_is_immutable(client: RawClient) -> None:
    assert (await client.post(DEPLOYMENTS, deployment())).status == 201
    body = deployment({"app": "web2"})
    body["spec"]["selector"] = {"matchLabels": {"app": "web2"}}
    expected = deployment_422(
        (
            "FieldValueInvalid",
            'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web2"}, '
            "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable",
            "spec.selector",
        )
    )
    await assert_rejected(client, f"{DEPLOYMENTS}/web", body, expected, method="PUT")


async def test_a_rolling_update_needs_room_to_roll(client: RawClient) -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "150%", "maxSurge": 0}}
    expected = deployment_422(
        (
            "FieldValueInvalid",
            'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
            "spec.strategy.rollingUpdate.maxUnavailable",
        )
    )
    await assert_rejected(client, DEPLOYMENTS, deployment(strategy=strategy), expected)
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "0%"}}
    expected = deployment_422(
        (
            "FieldValueInvalid",
            'Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
            "spec.strategy.rollingUpdate.maxUnavailable",
        )
    )
    await assert_rejected(client, DEPLOYMENTS, deployment(strategy=strategy), expected)


async def test_a_deployments_pods_restart_always(client: RawClient) -> None:
    body = deployment()
    body["spec"]["template"]["spec"]["restartPolicy"] = "Never"
    expected = deployment_422(
        (
            "FieldValueNotSupported",
            'Unsupported value: "Never": supported values: "Always"',
            "spec.template.spec.restartPolicy",
        )
    )
    await assert_rejected(client, DEPLOYMENTS, body, expected)


# -- ReplicaSet, StatefulSet, DaemonSet ------------------------------------------------------------

APPS = "/apis/apps/v1/namespaces/default"


def workload(kind: str, name: str, **spec: Any) -> dict[str, Any]:
    template = {
        "metadata": {"labels": {"app": name}},
        "spec": {"containers": [{"name": name, "image": "postgres:16"}]},
    }
    body_spec = {"selector": {"matchLabels": {"app": name}}, "template": template, **spec}
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name}, "spec": body_spec}


async def test_a_stateful_set_is_defaulted_as_the_apiserver_does(client: RawClient) -> None:
    claim = {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"]}}
    created = await client.post(f"{APPS}/statefulsets", workload("StatefulSet", "db", volumeClaimTemplates=[claim]))
    assert created.status == 201
    spec = created.json()["spec"]
    assert spec["volumeClaimTemplates"] == [
        {
            "metadata": {"name": "data", "creationTimestamp": None},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {}, "volumeMode": "Filesystem"},
            "status": {"phase": "Pending"},
        }
    ]
    defaulted = {
        key: spec[key] for key in ("replicas", "podManagementPolicy", "updateStrategy", "revisionHistoryLimit")
    }
    assert defaulted == {
        "replicas": 1,
        "podManagementPolicy": "OrderedReady",
        "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
        "revisionHistoryLimit": 10,
    }
    assert spec["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Retain", "whenScaled": "Retain"}
    assert created.json()["status"] == {"replicas": 0, "availableReplicas": 0}


async def test_a_stateful_set_name_is_a_dns_label_and_its_policy_known(client: RawClient) -> None:
    expected = status_422(
        "StatefulSet.apps",
        "db.v1",
        "StatefulSet",
        "apps",
        [
            ("FieldValueInvalid", 'Invalid value: "db.v1": must not contain dots', "metadata.name"),
            (
                "FieldValueInvalid",
                "Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
                "spec.podManagementPolicy",
            ),
        ],
    )
    body = workload("StatefulSet", "db.v1", podManagementPolicy="Random")
    await assert_rejected(client, f"{APPS}/statefulsets", body, expected)


async def test_a_stateful_set_update_touches_only_the_updatable_fields(client: RawClient) -> None:
    assert (await client.post(f"{APPS}/statefulsets", workload("StatefulSet", "db", serviceName="db"))).status == 201
    scaled = await client.put(f"{APPS}/statefulsets/db", workload("StatefulSet", "db", serviceName="db", replicas=3))
    assert scaled.status == 200
    detail = (
        "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
        "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
    )
    expected = status_422("StatefulSet.apps", "db", "StatefulSet", "apps", [("FieldValueForbidden", detail, "spec")])
    body = workload("StatefulSet", "db", serviceName="db-headless", replicas=3)
    await assert_rejected(client, f"{APPS}/statefulsets/db", body, expected, method="PUT")


async def test_a_daemon_set_rolls_with_either_unavailable_pods_or_a_surge(client: RawClient) -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 1}}
    expected = status_422(
        "DaemonSet.apps",
        "agent",
        "DaemonSet",
        "apps",
        [
            (
                "FieldValueInvalid",
                'Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: '
                "may not be set when maxUnavailable is non-zero",
                "spec.updateStrategy.rollingUpdate.maxSurge",
            )
        ],
    )
    await assert_rejected(
        client, f"{APPS}/daemonsets", workload("DaemonSet", "agent", updateStrategy=strategy), expected
    )
    created = await client.post(f"{APPS}/daemonsets", workload("DaemonSet", "agent"))
    assert created.status == 201
    assert created.json()["spec"]["updateStrategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0},
    }


async def test_a_replica_sets_selector_may_not_be_empty(client: RawClient) -> None:
    body = workload("ReplicaSet", "web")
    body["spec"]["selector"] = {}
    expected = status_422(
        "ReplicaSet.apps",
        "web",
        "ReplicaSet",
        "apps",
        [
            (
                "FieldValueInvalid",
                "Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
                "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment",
                "spec.selector",
            )
        ],
    )
    await assert_rejected(client, f"{APPS}/replicasets", body, expected)


# -- server-side apply conflicts -------------------------------------------------------------------


def conflict_409(message: str, causes: list[tuple[str, str]]) -> bytes:
    listed = ",".join(
        '{"reason":"FieldManagerConflict","message":' + json.dumps(text) + ',"field":' + json.dumps(where) + "}"
        for text, where in causes
    )
    return (
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
        + json.dumps(message)
        + ',"reason":"Conflict","details":{"causes":['
        + listed
        + ']},"code":409}\n'
    ).encode()


async def test_an_apply_over_anothers_field_is_apimachinerys_conflict(client: RawClient) -> None:
    created = await client.post(f"{CONFIGMAPS}?fieldManager=kubectl-create", configmap(data={"a": "1", "b": "2"}))
    assert created.status == 201
    apply = f"{CONFIGMAPS}/c?fieldManager=deployer"
    one = await client.patch(apply, configmap(data={"a": "9"}), content_type="application/apply-patch+yaml")
    assert (one.status, one.body) == (
        409,
        conflict_409(
            'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a',
            [('conflict with "kubectl-create" using v1', ".data.a")],
        ),
    )
    two = await client.patch(apply, configmap(data={"a": "9", "b": "9"}), content_type="application/apply-patch+yaml")
    assert (two.status, two.body) == (
        409,
        conflict_409(
            'Apply failed with 2 conflicts: conflicts with "kubectl-create" using v1:\n- .data.a\n- .data.b',
            [
                ('conflict with "kubectl-create" using v1', ".data.a"),
                ('conflict with "kubectl-create" using v1', ".data.b"),
            ],
        ),
    )
    assert (await client.get(f"{CONFIGMAPS}/c")).json()["data"] == {"a": "1", "b": "2"}
    forced = await client.patch(
        f"{apply}&force=true", configmap(data={"a": "9"}), content_type="application/apply-patch+yaml"
    )
    assert forced.status == 200
    assert forced.json()["data"] == {"a": "9", "b": "2"}
