"""``@pytest.mark.fakeapi(crds=..., objects=...)``: dicts and YAML paths, preloaded before the test."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.plugin.conftest import CRD_YAML

MARKED_TESTS = """
import pytest

# A folder, relative to the rootdir, for every test in the module.
pytestmark = pytest.mark.fakeapi(crds=["deploy/crds"])

GADGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Cluster",
        "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
        "versions": [
            {"name": "v1", "served": True, "storage": True,
             "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
        ],
    },
}
WIDGET = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "from-dict"}, "spec": {"size": 1}}


@pytest.mark.fakeapi(objects=[WIDGET])
def test_objects_as_dicts(fakeapi):
    assert fakeapi.get("example.com/v1", "Widget", "from-dict")["spec"] == {"size": 1}
    assert len(fakeapi.journal) == 0


@pytest.mark.fakeapi(objects=["manifests/widgets.yaml"])
def test_objects_from_a_multi_document_yaml_file(fakeapi):
    assert fakeapi.get("example.com/v1", "Widget", "first", namespace="team-a")["spec"] == {"size": 1}
    assert fakeapi.get("example.com/v1", "Widget", "second", namespace="team-a")["spec"] == {"size": 2}
    assert fakeapi.get("v1", "ConfigMap", "from-a-list")["data"] == {"k": "v"}


@pytest.mark.fakeapi(crds=[GADGET_CRD], objects={"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}})
def test_function_marker_adds_to_the_module_marker(fakeapi):
    assert fakeapi.get("example.com/v1", "Gadget", "g")["metadata"]["name"] == "g"
    assert fakeapi.find("example.com/v1", "Widget", "from-dict") is None


def test_module_marker_alone(fakeapi):
    assert fakeapi.find("apiextensions.k8s.io/v1", "CustomResourceDefinition", "widgets.example.com") is not None
    assert fakeapi.find("apiextensions.k8s.io/v1", "CustomResourceDefinition", "gadgets.example.com") is None


class TestInAClass:
    pytestmark = pytest.mark.fakeapi(objects=[WIDGET])

    def test_class_marker(self, fakeapi):
        assert fakeapi.find("example.com/v1", "Widget", "from-dict") is not None
"""

MANIFESTS = """\
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: first, namespace: team-a}
spec: {size: 1}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: second, namespace: team-a}
spec: {size: 2}
---
apiVersion: v1
kind: List
items:
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: from-a-list}, data: {k: v}}
"""


def test_marker_preloads_dicts_and_yaml_paths(pytester: pytest.Pytester, ini: Callable[..., None]) -> None:
    ini()
    pytester.mkdir("deploy")
    pytester.mkdir("deploy/crds")
    (pytester.path / "deploy" / "crds" / "widget.yaml").write_text(CRD_YAML)
    pytester.mkdir("manifests")
    (pytester.path / "manifests" / "widgets.yaml").write_text(MANIFESTS)
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_marked.py").write_text(MARKED_TESTS)
    # From a subfolder: paths stay relative to the rootdir.
    result = pytester.runpytest(pytester.path / "tests")
    result.assert_outcomes(passed=5)


def test_marker_misuse_is_an_error_naming_the_mistake(pytester: pytest.Pytester, ini: Callable[..., None]) -> None:
    ini()
    pytester.makepyfile(
        test_misuse="""
        import pytest

        @pytest.mark.fakeapi(crd=["deploy/crds"])
        def test_misspelt(fakeapi):
            pass

        @pytest.mark.fakeapi(objects=["missing.yaml"])
        def test_missing_file(fakeapi):
            pass

        @pytest.mark.fakeapi(objects=[{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}])
        def test_kind_without_its_crd(fakeapi):
            pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [
            "*@pytest.mark.fakeapi takes only crds=[[]...[]], objects=[[]...[]], authorization=..., kube_version=..., "
            "controllers=..., nodes=[[]...[]] and outcomes=[[]...[]], not crd",
            "*missing.yaml*",
            "*no resource of kind Widget in example.com/v1: create its CRD first*",
        ],
        consecutive=False,
    )


DEPLOY_TESTS = """
import pytest

@pytest.mark.fakeapi(objects=["operator-deploy"])
def test_an_operators_deploy_folder(fakeapi):
    namespace = "backup-operator-system"
    assert fakeapi.get("apps/v1", "Deployment", "backup-operator-controller-manager", namespace=namespace)
    assert fakeapi.get("rbac.authorization.k8s.io/v1", "Role", "backup-operator-leader-election-role", namespace=namespace)
    assert fakeapi.get("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "backup-operator-manager-rolebinding", namespace="")
    assert fakeapi.get("coordination.k8s.io/v1", "Lease", "3a1f2c9e.ops.example.com", namespace=namespace)
    assert fakeapi.get("ops.example.com/v1alpha1", "Backup", "nightly", namespace=namespace)["spec"]["retain"] == 7
"""


def test_marker_loads_an_operators_deploy_folder_in_dependency_order(
    pytester: pytest.Pytester, ini: Callable[..., None]
) -> None:
    ini()
    shutil.copytree(Path(__file__).parent.parent / "data" / "operator-deploy", pytester.path / "operator-deploy")
    (pytester.path / "test_deploy.py").write_text(DEPLOY_TESTS)
    pytester.runpytest().assert_outcomes(passed=1)


def test_the_authorization_marker_applies_to_its_test_only(pytester: pytest.Pytester, ini: Callable[..., None]) -> None:
    ini()
    pytester.makepyfile(
        test_authorization="""
        import urllib.error
        import urllib.request

        import pytest

        def list_configmaps(fakeapi, token):
            request = urllib.request.Request(
                fakeapi.url + "/api/v1/namespaces/default/configmaps", headers={"Authorization": f"Bearer {token}"}
            )
            try:
                with urllib.request.urlopen(request) as response:
                    return response.status
            except urllib.error.HTTPError as error:
                return error.code

        @pytest.mark.fakeapi(authorization="RBAC")
        def test_rbac(fakeapi):
            assert fakeapi.server.authorization == "RBAC"
            assert list_configmaps(fakeapi, fakeapi.server.token_for("alice", user="alice")) == 403
            assert list_configmaps(fakeapi, fakeapi.server.token_for("admin")) == 200
            assert list_configmaps(fakeapi, "anything") == 401

        def test_after(fakeapi):
            assert fakeapi.server.authorization == "AlwaysAllow"
            assert list_configmaps(fakeapi, fakeapi.server.token_for("alice", user="alice")) == 200
            assert list_configmaps(fakeapi, "anything") == 200
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=2)
