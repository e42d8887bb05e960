"""Built-in objects are written in their Go struct's field order, custom resources with sorted keys.

The expected bytes are what a 1.32 kube-apiserver writes for these objects: ``kind`` then
``apiVersion`` (TypeMeta), ObjectMeta's fields in declaration order, the spec's fields in theirs,
map keys sorted. The bodies are sent with their keys reversed, so nothing of the client's order
survives.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio

NOW = 1767225600.0  # 2026-01-01T00:00:00Z
STAMP = "2026-01-01T00:00:00Z"


@pytest_asyncio.fixture
async def ordered_client() -> AsyncIterator[RawClient]:
    async with FakeAPIServer(seed=11, clock=lambda: NOW) as running:
        async with aiohttp.ClientSession(auto_decompress=False) as session:
            yield RawClient(session, running.url)
        assert running.errors == [], "\n".join(running.errors)


def reversed_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: reversed_keys(value[key]) for key in sorted(value, reverse=True)}
    if isinstance(value, list):
        return [reversed_keys(item) for item in value]
    return value


def filled(template: str, answer: bytes) -> bytes:
    """The expected bytes with the answer's uid, resourceVersion and field sets (their content is not
    what these tests are about; the order of a ManagedFieldsEntry's own fields is)."""
    meta = json.loads(answer)["metadata"]
    entries = ",".join(
        f'{{"manager":"{entry["manager"]}","operation":"Update","apiVersion":"{entry["apiVersion"]}",'
        f'"time":"{STAMP}","fieldsType":"FieldsV1","fieldsV1":{compact_sorted(entry["fieldsV1"])}}}'
        for entry in meta["managedFields"]
    )
    text = template.replace("{uid}", meta["uid"]).replace("{rv}", meta["resourceVersion"])
    return text.replace("{managed}", f'"managedFields":[{entries}]').encode() + b"\n"


def compact_sorted(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "settings", "labels": {"tier": "web", "app": "shop"}, "annotations": {"note": "x"}},
    "immutable": False,
    "data": {"b": "2", "a": "1"},
    "binaryData": {"blob": "AAEC"},
}
CONFIGMAP_BYTES = (
    '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"settings","namespace":"default","uid":"{uid}",'
    '"resourceVersion":"{rv}","creationTimestamp":"' + STAMP + '","labels":{"app":"shop","tier":"web"},'
    '"annotations":{"note":"x"},'
    '{managed}},"immutable":false,"data":{"a":"1","b":"2"},"binaryData":{"blob":"AAEC"}}'
)

SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web"},
    "spec": {"selector": {"app": "web"}, "ports": [{"targetPort": 8080, "port": 80, "name": "http"}]},
}
SERVICE_BYTES = (
    '{"kind":"Service","apiVersion":"v1","metadata":{"name":"web","namespace":"default","uid":"{uid}",'
    '"resourceVersion":"{rv}","creationTimestamp":"' + STAMP + '",'
    '{managed}},"spec":{"ports":[{"name":"http","protocol":"TCP","port":80,"targetPort":8080}],"selector":{"app":"web"},'
    '"clusterIP":"{ip}","clusterIPs":["{ip}"],"type":"ClusterIP","sessionAffinity":"None","ipFamilies":["IPv4"],'
    '"ipFamilyPolicy":"SingleStack","internalTrafficPolicy":"Cluster"},"status":{"loadBalancer":{}}}'
)

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p", "labels": {"run": "p"}},
    "spec": {
        "automountServiceAccountToken": False,  # so that admission adds no token volume here
        "restartPolicy": "OnFailure",
        "containers": [
            {
                "resources": {"limits": {"memory": "64Mi", "cpu": "500m"}},
                "ports": [{"protocol": "TCP", "containerPort": 80}],
                "image": "nginx:1.27",
                "name": "web",
                "env": [{"value": "1", "name": "A"}],
            }
        ],
    },
}
POD_SPEC_BYTES = (
    '"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],'
    '"env":[{"name":"A","value":"1"}],"resources":{"limits":{"cpu":"500m","memory":"64Mi"},'
    '"requests":{"cpu":"500m","memory":"64Mi"}},"terminationMessagePath":"/dev/termination-log",'
    '"terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"OnFailure",'
    '"terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default",'
    '"serviceAccount":"default","automountServiceAccountToken":false,"securityContext":{},'
    '"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists",'
    '"effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists",'
    '"effect":"NoExecute","tolerationSeconds":300}],"priority":0,"enableServiceLinks":true,'
    '"preemptionPolicy":"PreemptLowerPriority"},"status":{"phase":"Pending","qosClass":"Guaranteed"}}'
)

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {
        "template": {
            "spec": {"containers": [{"image": "nginx:1.27", "name": "web"}]},
            "metadata": {"labels": {"app": "web"}},
        },
        "selector": {"matchLabels": {"app": "web"}},
        "replicas": 2,
    },
}
DEPLOYMENT_SPEC_BYTES = (
    '"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"creationTimestamp":null,'
    '"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.27","resources":{},'
    '"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",'
    '"imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,'
    '"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}},'
    '"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},'
    '"revisionHistoryLimit":10,"progressDeadlineSeconds":600},"status":{}}'
)


async def created(client: RawClient, path: str, body: dict[str, Any]) -> bytes:
    reply = await client.post(path + "?fieldManager=t", reversed_keys(body))
    assert reply.status == 201, reply.body
    return reply.body


async def test_a_configmap_is_written_in_struct_order(ordered_client: RawClient) -> None:
    path = "/api/v1/namespaces/default/configmaps"
    answer = await created(ordered_client, path, CONFIGMAP)
    expected = filled(CONFIGMAP_BYTES, answer)
    assert answer == expected
    assert (await ordered_client.get(path + "/settings")).body == expected


async def test_a_service_is_written_in_struct_order(ordered_client: RawClient) -> None:
    path = "/api/v1/namespaces/default/services"
    answer = await created(ordered_client, path, SERVICE)
    ip = json.loads(answer)["spec"]["clusterIP"]
    expected = filled(SERVICE_BYTES.replace("{ip}", ip), answer)
    assert answer == expected
    assert (await ordered_client.get(path + "/web")).body == expected


async def test_a_pod_is_written_in_struct_order(ordered_client: RawClient) -> None:
    answer = await created(ordered_client, "/api/v1/namespaces/default/pods", POD)
    meta = json.loads(answer)["metadata"]
    head = (
        f'{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"p","namespace":"default","uid":"{meta["uid"]}",'
        f'"resourceVersion":"{meta["resourceVersion"]}","creationTimestamp":"{STAMP}","labels":{{"run":"p"}},'
        '"managedFields":[{"manager":"t","operation":"Update","apiVersion":"v1",'
    )
    assert answer.startswith(head.encode())
    assert answer.endswith(POD_SPEC_BYTES.encode() + b"\n")


async def test_a_deployment_is_written_in_struct_order_through_its_updates(ordered_client: RawClient) -> None:
    path = "/apis/apps/v1/namespaces/default/deployments"
    answer = await created(ordered_client, path, DEPLOYMENT)
    meta = json.loads(answer)["metadata"]
    head = (
        f'{{"kind":"Deployment","apiVersion":"apps/v1","metadata":{{"name":"web","namespace":"default",'
        f'"uid":"{meta["uid"]}","resourceVersion":"{meta["resourceVersion"]}","generation":1,'
        f'"creationTimestamp":"{STAMP}","labels":{{"app":"web"}},"managedFields":'
    )
    assert answer.startswith(head.encode())
    assert answer.endswith(DEPLOYMENT_SPEC_BYTES.encode() + b"\n")
    # A merge patch adds a field and an annotation: both land where the struct declares them.
    patched = await ordered_client.patch(
        path + "/web",
        {"metadata": {"annotations": {"z": "1"}}, "spec": {"minReadySeconds": 5}},
        content_type="application/merge-patch+json",
    )
    assert patched.status == 200, patched.body
    text = patched.body.decode()
    assert '"generation":2,"creationTimestamp"' in text
    assert '"labels":{"app":"web"},"annotations":{"z":"1"},"managedFields"' in text
    assert '"revisionHistoryLimit":10,"progressDeadlineSeconds":600' in text
    assert (
        '"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},"minReadySeconds":5,'
        in text
    )
    assert (await ordered_client.get(path + "/web")).body == patched.body


async def test_lists_and_watch_events_of_built_ins_keep_struct_order(ordered_client: RawClient) -> None:
    path = "/api/v1/namespaces/default/configmaps"
    answer = await created(ordered_client, path, CONFIGMAP)
    only = "?fieldSelector=metadata.name%3Dsettings"  # not the namespace's kube-root-ca.crt
    listed = await ordered_client.get(path + only)
    item = filled(CONFIGMAP_BYTES, answer)[:-1].replace(b'{"kind":"ConfigMap","apiVersion":"v1",', b"{", 1)
    revision = json.loads(listed.body)["metadata"]["resourceVersion"]
    assert listed.body == (
        b'{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"'
        + revision.encode()
        + b'"},"items":['
        + item
        + b"]}\n"
    )
    watched = await ordered_client.get(path + only + "&watch=1&timeoutSeconds=1")
    assert watched.body == b'{"type":"ADDED","object":' + filled(CONFIGMAP_BYTES, answer)[:-1] + b"}\n"


async def test_pretty_keeps_struct_order_and_yaml_is_sorted(ordered_client: RawClient) -> None:
    path = "/api/v1/namespaces/default/configmaps"
    await created(ordered_client, path, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    pretty = await ordered_client.get(path + "/c?pretty=true")
    assert list(json.loads(pretty.body)) == ["kind", "apiVersion", "metadata"]
    assert pretty.body.startswith(
        b'{\n  "kind": "ConfigMap",\n  "apiVersion": "v1",\n  "metadata": {\n    "name": "c",'
    )
    # The YAML serializer goes through a generic map (sigs.k8s.io/yaml JSONToYAML): keys sorted.
    yaml_reply = await ordered_client.get(path + "/c", headers={"Accept": "application/yaml"})
    assert yaml_reply.body.startswith(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  creationTimestamp:")


async def test_a_custom_resource_keeps_sorted_keys(ordered_client: RawClient) -> None:
    assert (await ordered_client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd())).status == 201
    body = {"kind": "Job", "apiVersion": "example.com/v1", "metadata": {"name": "j"}, "spec": {"z": 1, "a": 2}}
    reply = await ordered_client.post("/apis/example.com/v1/namespaces/default/jobs", body)
    assert reply.status == 201, reply.body
    assert reply.body.startswith(b'{"apiVersion":"example.com/v1","kind":"Job","metadata":{"creationTimestamp":')
    assert b'"spec":{"a":2,"z":1}}' in reply.body


async def test_partial_object_metadata_is_typed_even_for_a_custom_resource(ordered_client: RawClient) -> None:
    assert (await ordered_client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd())).status == 201
    body = {"kind": "Job", "apiVersion": "example.com/v1", "metadata": {"name": "j", "labels": {"b": "1", "a": "2"}}}
    assert (await ordered_client.post("/apis/example.com/v1/namespaces/default/jobs", body)).status == 201
    accept = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
    reply = await ordered_client.get("/apis/example.com/v1/namespaces/default/jobs/j", headers={"Accept": accept})
    meta = json.loads(reply.body)["metadata"]
    assert reply.body.startswith(
        b'{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"j","namespace":"default",'
        b'"uid":"' + meta["uid"].encode() + b'","resourceVersion":"' + meta["resourceVersion"].encode() + b'",'
        b'"generation":1,"creationTimestamp":"' + STAMP.encode() + b'","labels":{"a":"2","b":"1"},"managedFields":'
    )
