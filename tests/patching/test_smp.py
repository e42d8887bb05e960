"""Strategic merge patch on built-in kinds: the object kube-apiserver stores, or the status it answers.

Ordering cases marked "upstream" are apimachinery ``patch_test.go`` fixtures (whose results are
compared byte for byte there) replayed on a Deployment's containers.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi._patching.lazynode import GoPanic
from fakeapi._patching.patchmeta import PatchMeta
from fakeapi._patching.smp import (
    GENERIC_UNPROCESSABLE,
    StrategicMergeError,
    StrategicMergePanic,
    strategic_merge_patch,
)
from fakeapi._state.typed import go_structs
from fakeapi._state.typed.patchmeta import kind_patch_meta

CORE = ("", "v1")
APPS = ("apps", "v1")
BATCH = ("batch", "v1")


def deployment(containers: list[dict[str, Any]], **pod_spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": containers, **pod_spec},
            },
        },
    }


def pod_spec_patch(**fields: Any) -> dict[str, Any]:
    return {"spec": {"template": {"spec": fields}}}


def names(*items: str | dict[str, Any]) -> list[dict[str, Any]]:
    """Containers: a bare name gets the image ``<name>:1``."""
    return [{"name": item, "image": f"{item}:1"} if isinstance(item, str) else item for item in items]


def containers_of(obj: dict[str, Any]) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = obj["spec"]["template"]["spec"]["containers"]
    return result


APP = {
    "name": "app",
    "image": "app:1",
    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
    "ports": [{"containerPort": 80, "protocol": "TCP"}],
}
SIDECAR = {"name": "sidecar", "image": "sidecar:1"}


def patch_meta_for(group: str, version: str, kind: str) -> PatchMeta:
    """The metadata the PATCH handler uses for a built-in kind: its Go struct's."""
    meta = kind_patch_meta(go_structs(), f"{group}/{version}" if group else version, kind)
    assert meta is not None
    return meta


def apply(group_version: tuple[str, str], kind: str, original: dict[str, Any], patch: dict[str, Any]) -> Any:
    return strategic_merge_patch(original, patch, patch_meta_for(*group_version, kind))


# --- Deployments: what kubectl apply and kubectl patch --type=strategic send -------------------------------


def test_an_apply_patch_merges_containers_env_and_ports_and_deletes_a_container() -> None:
    patch = pod_spec_patch(
        **{
            "$setElementOrder/containers": [{"name": "app"}],
            "containers": [
                {
                    "name": "app",
                    "image": "app:2",
                    "$setElementOrder/env": [{"name": "A"}, {"name": "B"}, {"name": "C"}],
                    "env": [{"name": "B", "value": "3"}, {"name": "C", "value": "4"}],
                    "$setElementOrder/ports": [{"containerPort": 80}, {"containerPort": 443}],
                    "ports": [{"containerPort": 443}],
                },
                {"$patch": "delete", "name": "sidecar"},
            ],
        }
    )
    result = apply(APPS, "Deployment", deployment([APP, SIDECAR]), patch)
    assert containers_of(result) == [
        {
            "name": "app",
            "image": "app:2",
            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "3"}, {"name": "C", "value": "4"}],
            "ports": [{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 443}],
        }
    ]
    assert result["spec"]["strategy"]["type"] == "RollingUpdate"


@pytest.mark.parametrize(
    ("live", "patch", "expected"),
    [
        pytest.param(
            names("app", "sidecar"),
            {"containers": [{"name": "sidecar", "image": "sidecar:2"}]},
            names("app", {"name": "sidecar", "image": "sidecar:2"}),
            id="merged-by-name-in-place",
        ),
        pytest.param(
            names("app", "sidecar"),
            {"containers": [{"name": "new", "image": "new:1"}]},
            names("new", "app", "sidecar"),
            id="new-item-without-setElementOrder-goes-first",
        ),
        pytest.param(
            names("app", "sidecar"),
            {
                "$setElementOrder/containers": [{"name": "app"}, {"name": "sidecar"}, {"name": "new"}],
                "containers": [{"name": "new", "image": "new:1"}],
            },
            names("app", "sidecar", "new"),
            id="setElementOrder-places-new-item",
        ),
        pytest.param(
            names("a", "b"),
            {"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}]},
            names("b", "a"),
            id="setElementOrder-alone-reorders",
        ),
        pytest.param(
            names("app", "sidecar"),
            {"containers": [{"name": "sidecar", "$patch": "delete"}]},
            names("app"),
            id="patch-delete-one-container",
        ),
        pytest.param(
            names("app", "app", "sidecar"),
            {"containers": [{"name": "app", "$patch": "delete"}]},
            names("sidecar"),
            id="patch-delete-removes-every-match",
        ),
        pytest.param(
            names("app", "sidecar"),
            {"containers": [{"$patch": "replace"}, {"name": "only", "image": "only:1"}]},
            names("only"),
            id="patch-replace-item-replaces-the-list",
        ),
        pytest.param(
            names("app"),
            {"containers": [{"name": "app", "image": None, "command": ["sh"]}]},
            [{"name": "app", "command": ["sh"]}],
            id="null-deletes-a-field-of-an-item",
        ),
        pytest.param(
            names("app", "b", "d"),
            {
                "$setElementOrder/containers": [{"name": "b"}, {"name": "c"}],
                "containers": [{"name": "c", "image": "c:1"}, {"name": "app", "$patch": "delete"}],
            },
            names("b", "d", "c"),
            id="upstream-add-map-and-delete-map",
        ),
        pytest.param(
            names("x"),
            {
                "$setElementOrder/containers": [{"name": "b"}],
                "containers": [{"name": "b", "image": "b:1"}, {"name": "a", "$patch": "delete"}],
            },
            names("b", "x"),
            id="upstream-delete-missing-map-with-conflict",
        ),
        pytest.param(
            names("1", "2"),
            {
                "$setElementOrder/containers": [{"name": "4"}, {"name": "1"}, {"name": "2"}, {"name": "3"}],
                "containers": [{"name": "4", "image": "4:1"}, {"name": "3", "image": "3:1"}],
            },
            names("4", "1", "2", "3"),
            id="upstream-merge-lists-of-maps",
        ),
        pytest.param(
            names("1", "2", "3"),
            {"containers": [{"name": "3", "image": "3:2"}, {"name": "1", "image": "1:2"}]},
            names("2", {"name": "3", "image": "3:2"}, {"name": "1", "image": "1:2"}),
            id="upstream-preserve-the-order-from-the-patch",
        ),
    ],
)
def test_containers_merge_by_name(live: list[Any], patch: dict[str, Any], expected: list[Any]) -> None:
    assert containers_of(apply(APPS, "Deployment", deployment(live), pod_spec_patch(**patch))) == expected


@pytest.mark.parametrize(
    ("container_patch", "expected"),
    [
        pytest.param(
            {"name": "app", "env": [{"name": "B", "value": "9"}]},
            {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "9"}]},
            id="env-merged-by-name",
        ),
        pytest.param(
            {"name": "app", "env": [{"name": "A", "$patch": "delete"}]},
            {"env": [{"name": "B", "value": "2"}]},
            id="env-item-deleted",
        ),
        pytest.param(
            {"name": "app", "ports": [{"containerPort": 80, "name": "http"}]},
            {"ports": [{"containerPort": 80, "protocol": "TCP", "name": "http"}]},
            id="port-merged-by-containerPort",
        ),
        pytest.param(
            {"name": "app", "ports": [{"containerPort": 80.0, "name": "http"}]},
            {"ports": [{"containerPort": 80.0, "name": "http"}, {"containerPort": 80, "protocol": "TCP"}]},
            id="a-float64-key-never-matches-an-int64-one",
        ),
        pytest.param(
            {"name": "app", "args": ["a"], "resources": {"limits": {"cpu": "1"}}},
            {"args": ["a"], "resources": {"limits": {"cpu": "1"}}},
            id="plain-fields-added",
        ),
    ],
)
def test_container_fields_merge(container_patch: dict[str, Any], expected: dict[str, Any]) -> None:
    result = apply(APPS, "Deployment", deployment([APP]), pod_spec_patch(containers=[container_patch]))
    assert containers_of(result) == [{**APP, **expected}]


def test_a_volume_keeps_only_its_retainKeys() -> None:
    live = deployment(
        [APP],
        volumes=[{"name": "data", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "c1", "defaultMode": 420}}],
    )
    patch = pod_spec_patch(
        **{
            "$setElementOrder/volumes": [{"name": "data"}, {"name": "cfg"}],
            "volumes": [{"$retainKeys": ["hostPath", "name"], "hostPath": {"path": "/x"}, "name": "data"}],
        }
    )
    result = apply(APPS, "Deployment", live, patch)
    assert result["spec"]["template"]["spec"]["volumes"] == [
        {"name": "data", "hostPath": {"path": "/x"}},
        {"name": "cfg", "configMap": {"name": "c1", "defaultMode": 420}},
    ]


def test_the_deployment_strategy_keeps_only_its_retainKeys() -> None:
    patch = {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}
    assert apply(APPS, "Deployment", deployment([APP]), patch)["spec"]["strategy"] == {"type": "Recreate"}


def test_atomic_lists_are_replaced_whole() -> None:
    live = deployment([APP], tolerations=[{"key": "a", "operator": "Exists"}])
    patch = pod_spec_patch(tolerations=[{"key": "b", "operator": "Exists"}])
    assert apply(APPS, "Deployment", live, patch)["spec"]["template"]["spec"]["tolerations"] == [
        {"key": "b", "operator": "Exists"}
    ]


def test_a_map_carrying_patch_where_there_is_nothing_to_merge_into_is_dropped() -> None:
    patch = pod_spec_patch(nodeSelector={"$patch": "replace", "disk": "ssd"}, hostname="h")
    result = apply(APPS, "Deployment", deployment([APP]), patch)["spec"]["template"]["spec"]
    assert "nodeSelector" not in result
    assert result["hostname"] == "h"


def test_an_item_appended_to_a_merge_list_is_taken_verbatim() -> None:
    new = {"name": "n", "image": None, "env": [{"name": "X", "$patch": "delete"}]}
    result = apply(APPS, "Deployment", deployment([APP]), pod_spec_patch(containers=[new]))
    assert containers_of(result) == [new, APP]


# --- maps: labels, annotations, data, $patch on a map --------------------------------------------------------


@pytest.mark.parametrize(
    ("live_metadata", "patch_metadata", "expected"),
    [
        pytest.param({"labels": {"a": "1"}}, {"labels": {"b": "2"}}, {"labels": {"a": "1", "b": "2"}}, id="label"),
        pytest.param({"labels": {"a": "1"}}, {"labels": {"a": None}}, {"labels": {}}, id="unlabel"),
        pytest.param({}, {"annotations": {"x": "1", "y": None}}, {"annotations": {"x": "1"}}, id="nulls-in-new-map"),
        pytest.param(
            {"labels": {"a": "1", "b": "2"}},
            {"labels": {"$patch": "replace", "c": "3"}},
            {"labels": {"c": "3"}},
            id="patch-replace-map",
        ),
        pytest.param({"labels": {"a": "1"}}, {"labels": {"$patch": "delete"}}, {"labels": {}}, id="patch-delete-map"),
        pytest.param({"labels": {"a": "1"}}, {"labels": None}, {}, id="null-deletes-map"),
    ],
)
def test_kubectl_label_and_annotate(
    live_metadata: dict[str, Any], patch_metadata: dict[str, Any], expected: dict[str, Any]
) -> None:
    live = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", **live_metadata}, "data": {"k": "v"}}
    result = apply(CORE, "ConfigMap", live, {"metadata": patch_metadata})
    assert result == {**live, "metadata": {"name": "c", **expected}}


@pytest.mark.parametrize(
    ("patch", "expected_data"),
    [
        pytest.param({"data": {"k": None, "n": "x"}}, {"n": "x"}, id="null-deletes-a-key"),
        pytest.param({"data": {"missing": None}}, {"k": "v"}, id="null-for-a-missing-key"),
        pytest.param({"data": {"$patch": "replace", "z": "1"}}, {"z": "1"}, id="replace"),
    ],
)
def test_configmap_data(patch: dict[str, Any], expected_data: dict[str, str]) -> None:
    live = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}}
    assert apply(CORE, "ConfigMap", live, patch)["data"] == expected_data


def test_a_root_patch_replace_is_the_patch_itself() -> None:
    live = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"a": "eA=="}}
    patch = {"$patch": "replace", "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}
    assert apply(CORE, "Secret", live, patch) == {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}


# --- primitive merge lists: finalizers ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("live", "patch", "expected"),
    [
        pytest.param(["a", "b"], {"finalizers": ["c"]}, ["c", "a", "b"], id="union-new-first"),
        pytest.param(["a", "b"], {"finalizers": ["b", "c"]}, ["a", "b", "c"], id="union-upstream-unique-scalars"),
        pytest.param(["a", "b", "c"], {"finalizers": ["c", "a"]}, ["b", "c", "a"], id="union-upstream-patch-order"),
        pytest.param(["a", "b"], {"$deleteFromPrimitiveList/finalizers": ["a", "x"]}, ["b"], id="delete"),
        pytest.param(["a", "a", "b"], {"$deleteFromPrimitiveList/finalizers": ["a"]}, ["b"], id="delete-duplicates"),
        pytest.param(
            ["a", "b"],
            {
                "$setElementOrder/finalizers": ["b", "c"],
                "finalizers": ["c"],
                "$deleteFromPrimitiveList/finalizers": ["a"],
            },
            ["b", "c"],
            id="apply-replaces-a-with-c",
        ),
        pytest.param(
            ["1", "2", "3"],
            {
                "$setElementOrder/finalizers": ["1", "2", "4"],
                "$deleteFromPrimitiveList/finalizers": ["3"],
                "finalizers": ["4"],
            },
            ["1", "2", "4"],
            id="upstream-add-and-delete-items-in-lists-of-scalars",
        ),
        pytest.param(["a", "b"], {"$deleteFromPrimitiveList/finalizers": None}, None, id="null-delete-list-deletes"),
        pytest.param(None, {"$deleteFromPrimitiveList/finalizers": ["a"]}, None, id="nothing-to-delete-from"),
    ],
)
def test_finalizers_merge_as_a_set(live: list[str] | None, patch: dict[str, Any], expected: list[str] | None) -> None:
    metadata: dict[str, Any] = {"name": "c"} if live is None else {"name": "c", "finalizers": live}
    result = apply(CORE, "ConfigMap", {"metadata": metadata}, {"metadata": patch})
    assert result["metadata"].get("finalizers") == expected


def test_delete_from_primitive_list_also_works_on_an_atomic_list() -> None:
    live = deployment([{**APP, "args": ["--a", "--b", "--a"]}])
    patch = pod_spec_patch(containers=[{"name": "app", "$deleteFromPrimitiveList/args": ["--a"]}])
    assert containers_of(apply(APPS, "Deployment", live, patch))[0]["args"] == ["--b"]


# --- other kinds ---------------------------------------------------------------------------------------------


def service(ports: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": ports}}


HTTP = {"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080}
HTTPS = {"name": "https", "port": 443, "protocol": "TCP", "targetPort": 8443}


@pytest.mark.parametrize(
    ("patch_ports", "expected"),
    [
        pytest.param([{"port": 80, "targetPort": 9090}], [{**HTTP, "targetPort": 9090}, HTTPS], id="merged-by-port"),
        pytest.param([{"port": 8080, "name": "alt"}], [{"port": 8080, "name": "alt"}, HTTP, HTTPS], id="new-port"),
        pytest.param([{"port": 443, "$patch": "delete"}], [HTTP], id="deleted-by-port"),
    ],
)
def test_service_ports_merge_by_port(patch_ports: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    result = apply(CORE, "Service", service([HTTP, HTTPS]), {"spec": {"ports": patch_ports}})
    assert result["spec"]["ports"] == expected


def test_owner_references_merge_by_uid() -> None:
    owner = {"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "u1"}
    live = {"metadata": {"name": "p", "ownerReferences": [owner]}}
    patch = {"metadata": {"ownerReferences": [{"uid": "u1", "controller": True}, {"uid": "u2", "name": "o2"}]}}
    assert apply(CORE, "Pod", live, patch)["metadata"]["ownerReferences"] == [
        {**owner, "controller": True},
        {"uid": "u2", "name": "o2"},
    ]


@pytest.mark.parametrize(
    ("group_version", "kind"),
    [(CORE, "Pod"), (APPS, "Deployment"), (BATCH, "Job"), (CORE, "Namespace"), (CORE, "Service")],
)
def test_status_conditions_merge_by_type(group_version: tuple[str, str], kind: str) -> None:
    ready = {"type": "Ready", "status": "False"}
    other = {"type": "Other", "status": "True"}
    live = {"metadata": {"name": "x"}, "status": {"conditions": [ready, other]}}
    patch = {"status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    result = apply(group_version, kind, live, patch)
    assert result["status"]["conditions"] == [{"type": "Ready", "status": "True"}, other]


def test_job_template_containers_merge_by_name() -> None:
    live = {"spec": {"template": {"spec": {"containers": names("a", "b"), "restartPolicy": "Never"}}}}
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "b", "image": "b:2"}]}}}}
    assert apply(BATCH, "Job", live, patch)["spec"]["template"]["spec"]["containers"] == names(
        "a", {"name": "b", "image": "b:2"}
    )


def test_service_account_secrets_merge_and_image_pull_secrets_replace() -> None:
    live = {"metadata": {"name": "sa"}, "secrets": [{"name": "s1"}], "imagePullSecrets": [{"name": "p1"}]}
    patch = {"secrets": [{"name": "s2"}], "imagePullSecrets": [{"name": "p2"}]}
    result = apply(CORE, "ServiceAccount", live, patch)
    assert result["secrets"] == [{"name": "s2"}, {"name": "s1"}]
    assert result["imagePullSecrets"] == [{"name": "p2"}]


def test_namespace_spec_finalizers_are_atomic() -> None:
    live = {"metadata": {"name": "ns"}, "spec": {"finalizers": ["kubernetes"]}}
    assert apply(CORE, "Namespace", live, {"spec": {"finalizers": ["x"]}})["spec"]["finalizers"] == ["x"]


@pytest.mark.parametrize(
    ("group_version", "kind", "live", "patch", "expected"),
    [
        pytest.param(
            CORE,
            "Event",
            {"metadata": {"name": "e"}, "involvedObject": {"kind": "Pod", "name": "p"}, "count": 1},
            {"count": 2, "involvedObject": {"uid": "u"}},
            {"metadata": {"name": "e"}, "involvedObject": {"kind": "Pod", "name": "p", "uid": "u"}, "count": 2},
            id="core-event",
        ),
        pytest.param(
            ("events.k8s.io", "v1"),
            "Event",
            {"metadata": {"name": "e"}, "series": {"count": 1}},
            {"series": {"count": 2}},
            {"metadata": {"name": "e"}, "series": {"count": 2}},
            id="events-v1-event",
        ),
        pytest.param(
            ("coordination.k8s.io", "v1"),
            "Lease",
            {"metadata": {"name": "l"}, "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}},
            {"spec": {"holderIdentity": "b", "renewTime": "2024-01-01T00:00:00.000000Z"}},
            {
                "metadata": {"name": "l"},
                "spec": {"holderIdentity": "b", "leaseDurationSeconds": 15, "renewTime": "2024-01-01T00:00:00.000000Z"},
            },
            id="lease",
        ),
    ],
)
def test_kinds_without_tagged_lists_merge_as_maps(
    group_version: tuple[str, str], kind: str, live: dict[str, Any], patch: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert apply(group_version, kind, live, patch) == expected


def test_neither_argument_is_modified() -> None:
    live = deployment([APP, SIDECAR], volumes=[{"name": "v", "emptyDir": {}}])
    patch = pod_spec_patch(
        **{
            "$setElementOrder/containers": [{"name": "sidecar"}, {"name": "x"}],
            "containers": [{"name": "x", "image": "x:1"}, {"name": "app", "$patch": "delete"}],
            "volumes": [{"$retainKeys": ["name"], "name": "v"}],
            "nodeSelector": {"a": None, "b": "c"},
        }
    )
    live_before, patch_before = copy.deepcopy(live), copy.deepcopy(patch)
    apply(APPS, "Deployment", live, patch)
    assert (live, patch) == (live_before, patch_before)


# --- errors: the status code and message the apiserver answers --------------------------------------------

LABELLED = {"metadata": {"name": "c", "labels": {"a": "1"}, "finalizers": ["a"]}}


@pytest.mark.parametrize(
    ("kind", "live", "patch", "code", "message"),
    [
        pytest.param(
            "Deployment",
            deployment([APP]),
            pod_spec_patch(containers=[{"image": "x"}]),
            500,
            "map: map[image:x] does not contain declared merge key: name",
            id="missing-merge-key",
        ),
        pytest.param(
            "Deployment",
            deployment([APP]),
            pod_spec_patch(containers=[{"$patch": "delete"}]),
            500,
            "map: map[$patch:delete] does not contain declared merge key: name",
            id="delete-without-merge-key",
        ),
        pytest.param(
            "ConfigMap",
            LABELLED,
            {"metadata": {"labels": {"$patch": "foo"}}},
            500,
            "unknown patch type: foo in map: map[$patch:foo]",
            id="unknown-map-directive",
        ),
        pytest.param(
            "ConfigMap",
            LABELLED,
            {"metadata": {"labels": {"$patch": "merge"}}},
            500,
            "unknown patch type: merge in map: map[$patch:merge]",
            id="merge-is-no-map-directive",
        ),
        pytest.param(
            "ConfigMap",
            LABELLED,
            {"metadata": {"labels": {"$patch": 1, "b": [1.5, None, True]}}},
            500,
            "unknown patch type: %!s(int64=1) in map: map[$patch:1 b:[1.5 <nil> true]]",
            id="non-string-map-directive",
        ),
        pytest.param(
            "Deployment",
            deployment([APP]),
            pod_spec_patch(containers=[{"name": "app", "$patch": "bogus"}]),
            500,
            "unknown patch type: bogus in map: map[$patch:bogus name:app]",
            id="unknown-list-item-directive",
        ),
        pytest.param(
            "Deployment",
            deployment([APP]),
            pod_spec_patch(containers=[{"name": "app", "$patch": "merge"}]),
            500,
            "merging lists cannot yet be specified in the patch",
            id="merge-list-item-directive",
        ),
        pytest.param(
            "ConfigMap",
            LABELLED,
            {"metadata": {"$deleteFromPrimitiveListX/finalizers": ["a"]}},
            400,
            "invalid patch format of primitive list",
            id="bad-delete-from-primitive-list-key",
        ),
        pytest.param(
            "ConfigMap",
            LABELLED,
            {"metadata": {"$setElementOrder": ["a"]}},
            400,
            "invalid patch format of setElementOrder list",
            id="bad-set-element-order-key",
        ),
        pytest.param(
            "Deployment",
            deployment([APP]),
            {"spec": {"strategy": {"$retainKeys": "type", "type": "Recreate"}}},
            400,
            "invalid patch format of retainKeys",
            id="retain-keys-not-a-list",
        ),
        pytest.param(
            "Deployment",
            deployment([APP]),
            {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate", "rollingUpdate": {}}}},
            400,
            "invalid patch format of retainKeys",
            id="patch-key-not-in-retain-keys",
        ),
        pytest.param(
            "ConfigMap",
            {"metadata": {"name": "c", "finalizers": []}},
            {"metadata": {"finalizers": [["a"]]}},
            422,
            GENERIC_UNPROCESSABLE,
            id="list-of-lists",
        ),
        pytest.param(
            "ConfigMap",
            LABELLED,
            {"metadata": {"finalizers": [1]}},
            500,
            "list element types are not identical: [[a] [1]]",
            id="element-types-differ",
        ),
        pytest.param(
            "ConfigMap",
            LABELLED,
            {"metadata": {"$setElementOrder/finalizers": "a"}},
            500,
            "expected a []interface {}, but received a string",
            id="set-element-order-not-a-list",
        ),
        pytest.param(
            "ConfigMap",
            LABELLED,
            {"metadata": {"$setElementOrder/labels": []}},
            500,
            "expected a []interface {}, but received a map[string]interface {}",
            id="set-element-order-of-a-map",
        ),
        pytest.param(
            "Deployment",
            deployment([APP]),
            pod_spec_patch(**{"$setElementOrder/containers": ["app"], "containers": [{"name": "app"}]}),
            500,
            "expected a map[string]interface {}, but received a string",
            id="set-element-order-item-not-a-map",
        ),
        pytest.param(
            "Deployment",
            deployment(names("a", "b")),
            pod_spec_patch(
                **{
                    "$setElementOrder/containers": [{"name": "a"}, {"name": "b"}],
                    "containers": [{"name": "b", "image": "x"}, {"name": "a", "image": "y"}],
                }
            ),
            500,
            "The order in patch list:\n[map[image:x name:b] map[image:y name:a]]\n"
            " doesn't match $setElementOrder list:\n[map[name:a] map[name:b]]\n",
            id="set-element-order-mismatch",
        ),
        pytest.param(
            "ConfigMap",
            {"metadata": {"name": "c"}},
            {"metadata": {"$setElementOrder/finalizers": [], "finalizers": []}},
            500,
            "no elements in any of the given slices",
            id="set-element-order-of-nothing",
        ),
        pytest.param(
            "Deployment",
            deployment([APP], tolerations=[{"key": "a"}]),
            pod_spec_patch(**{"$deleteFromPrimitiveList/tolerations": [{"key": "a"}]}),
            500,
            "cannot merge lists without merge key for struct",
            id="delete-maps-from-a-list-without-merge-key",
        ),
    ],
)
def test_errors(kind: str, live: dict[str, Any], patch: dict[str, Any], code: int, message: str) -> None:
    group_version = APPS if kind == "Deployment" else CORE
    with pytest.raises(StrategicMergeError) as caught:
        apply(group_version, kind, live, patch)
    assert (caught.value.code, caught.value.message) == (code, message)
    assert caught.value.reason == {400: "BadRequest", 422: "Invalid", 500: ""}[code]
    assert not isinstance(caught.value, StrategicMergePanic)


def test_the_422_keeps_the_library_text_for_diagnosis() -> None:
    with pytest.raises(StrategicMergeError) as caught:
        apply(CORE, "ConfigMap", {"metadata": {"finalizers": []}}, {"metadata": {"finalizers": [["a"]]}})
    assert caught.value.go_error == "lists of lists are not supported"


@pytest.mark.parametrize(
    ("kind", "live", "patch", "panic"),
    [
        pytest.param(
            "Deployment",
            deployment([APP]),
            pod_spec_patch(**{"$setElementOrder/tolerations": [{"key": "a"}], "tolerations": [{"key": "a"}]}),
            "runtime error: comparing uncomparable type map[string]interface {}",
            id="compare-maps",
        ),
        pytest.param(
            "Deployment",
            deployment([APP]),
            {"spec": {"strategy": {"$retainKeys": [{}]}}},
            "runtime error: hash of unhashable type map[string]interface {}",
            id="hash-a-map",
        ),
        pytest.param(
            "ConfigMap",
            {"metadata": {"name": "c"}},
            {"metadata": {"$setElementOrder/finalizers": [], "finalizers": [None]}},
            "runtime error: invalid memory address or nil pointer dereference",
            id="nil-first-item",
        ),
    ],
)
def test_go_panics_are_500s(kind: str, live: dict[str, Any], patch: dict[str, Any], panic: str) -> None:
    group_version = APPS if kind == "Deployment" else CORE
    with pytest.raises(StrategicMergePanic) as caught:
        apply(group_version, kind, live, patch)
    assert (caught.value.code, caught.value.message) == (500, panic)
    assert isinstance(caught.value, GoPanic)


# --- the metadata ---------------------------------------------------------------------------------------------


WORKLOADS = [
    (APPS, "Deployment", ("spec", "template", "spec")),
    (APPS, "StatefulSet", ("spec", "template", "spec")),
    (APPS, "DaemonSet", ("spec", "template", "spec")),
    (APPS, "ReplicaSet", ("spec", "template", "spec")),
    (BATCH, "Job", ("spec", "template", "spec")),
    (BATCH, "CronJob", ("spec", "jobTemplate", "spec", "template", "spec")),
    (CORE, "ReplicationController", ("spec", "template", "spec")),
    (CORE, "PodTemplate", ("template", "spec")),
    (CORE, "Pod", ("spec",)),
]


def _nest(path: tuple[str, ...], leaf: dict[str, Any]) -> dict[str, Any]:
    for key in reversed(path):
        leaf = {key: leaf}
    return leaf


def _dig(obj: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        obj = obj[key]
    return obj


@pytest.mark.parametrize(("group_version", "kind", "pod_spec"), WORKLOADS, ids=[kind for _, kind, _ in WORKLOADS])
def test_every_workload_merges_with_its_own_keys(
    group_version: tuple[str, str], kind: str, pod_spec: tuple[str, ...]
) -> None:
    live = {
        "apiVersion": "/".join(part for part in group_version if part),
        "kind": kind,
        "metadata": {"name": "w", "finalizers": ["a"]},
        **_nest(pod_spec, {"containers": [APP, SIDECAR], "volumes": [{"name": "v", "emptyDir": {}}]}),
    }
    patch = {
        "metadata": {"finalizers": ["b"]},
        **_nest(
            pod_spec,
            {
                "containers": [{"name": "app", "env": [{"name": "B", "value": "3"}]}],
                "volumes": [{"name": "v", "$retainKeys": ["name", "configMap"], "configMap": {"name": "c"}}],
                "tolerations": [{"key": "k"}],
            },
        ),
    }
    result = apply(group_version, kind, live, patch)
    spec = _dig(result, pod_spec)
    assert result["metadata"]["finalizers"] == ["b", "a"]
    assert spec["containers"][0]["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "3"}]
    assert spec["containers"][1] == SIDECAR
    assert spec["volumes"] == [{"name": "v", "configMap": {"name": "c"}}]
    assert spec["tolerations"] == [{"key": "k"}]


@pytest.mark.parametrize(
    ("kind", "live", "patch", "message"),
    [
        pytest.param(
            "Deployment",
            {"spec": {"template": {"spec": {}}}},
            {"spec": {"template": {"spec": {"$setElementOrder/bogus": [{"name": "a"}]}}}},
            'unable to find api field in struct PodSpec for the json field "bogus"',
            id="unknown-field-in-a-directive",
        ),
        pytest.param(
            "Deployment",
            {"spec": {}},
            {"spec": {"$setElementOrder/template": [{"name": "a"}]}},
            "expected slice or array type, but got: struct",
            id="order-of-a-struct",
        ),
        pytest.param(
            "Deployment",
            {"spec": {"selector": {}}},
            {"spec": {"selector": {"$setElementOrder/matchLabels": ["a"]}}},
            "expected slice or array type, but got: ptr",
            id="order-in-a-pointer",
        ),
        pytest.param(
            "Deployment",
            {"metadata": {"labels": {"a": {"b": 1}}}},
            {"metadata": {"labels": {"a": {"b": 2}}}},
            "merging an object in json but data type is not struct, instead is: map",
            id="object-in-a-map-of-strings",
        ),
        pytest.param(
            "Deployment",
            {"spec": {"template": {"spec": {"tolerations": [{"key": "a"}]}}}},
            {"spec": {"template": {"spec": {"$deleteFromPrimitiveList/tolerations": [{"key": "a"}]}}}},
            "cannot merge lists without merge key for struct",
            id="delete-list-of-structs",
        ),
    ],
)
def test_lookups_fail_with_gos_text(kind: str, live: dict[str, Any], patch: dict[str, Any], message: str) -> None:
    with pytest.raises(StrategicMergeError) as caught:
        apply(APPS, kind, live, patch)
    assert (caught.value.code, caught.value.message) == (500, message)
