"""The real kubectl against ``fakeapi serve``: a scripted session, asserted as a user reads it.

One ``fakeapi serve`` subprocess per module (per xdist worker) with ``--log-requests``, kubectl
with HOME and ``--cache-dir`` in a temp dir. The CRD is applied once by a fixture (the first step
of the session); every test after it is a few steps of the session on objects of its own, selected
by a ``suite=<test>`` label, so the tests hold in any order and on any worker. Assertions are on
kubectl's exit code, stdout and stderr, and, with curl, on the exact bytes the server sends.
kubectl is asynchronous only where it waits or watches; there the test starts it, acts, and reads
its output as it comes (``kubectl wait`` instead of polling).

Without kubectl on PATH the module skips, except with CI=true, where it fails.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.serving import READ_TIMEOUT, Background, ServeProcess, home_env, require_tool

WIDGET_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Phase, type: string, jsonPath: .status.phase}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              note: {type: string}
          status:
            type: object
            properties:
              phase: {type: string}
              conditions:
                type: array
                items:
                  type: object
                  properties:
                    type: {type: string}
                    status: {type: string}
"""
AGE = r"\d+[smhd]\S*"
INVALID = "The request is invalid: the server rejected our request due to an error in our request\n"


def widget(
    name: str,
    suite: str,
    *,
    size: int = 1,
    note: str | None = None,
    labels: dict[str, str] | None = None,
    finalizers: list[str] | None = None,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "labels": {"suite": suite, **(labels or {})}}
    if finalizers:
        metadata["finalizers"] = finalizers
    spec: dict[str, Any] = {"size": size}
    if note is not None:
        spec["note"] = note
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": metadata, "spec": spec}


def manifest(*documents: dict[str, Any]) -> str:
    return yaml.safe_dump_all(documents, sort_keys=False, allow_unicode=True)


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str
    requests: list[str]

    def explain(self, argv: list[str]) -> str:
        log = "\n".join(self.requests)
        return (
            f"kubectl {' '.join(argv)} -> {self.code}\nstdout:\n{self.stdout}\nstderr:\n{self.stderr}\nserver:\n{log}"
        )


class Kubectl:
    """Runs the kubectl binary against the server; every result carries the server's log of its requests."""

    def __init__(self, binary: str, home: Path, server: ServeProcess, kubeconfig: Path) -> None:
        self.binary = binary
        self.home = home
        self.server = server
        self.options = ["--kubeconfig", str(kubeconfig), "--cache-dir", str(home / "cache")]
        self.requests: list[str] = []

    def argv(self, *args: str) -> list[str]:
        return [self.binary, *self.options, *args]

    def server_log(self) -> list[str]:
        """The server's request lines since the last call."""
        lines = self.server.pending_lines()
        self.requests += lines
        return lines

    def __call__(self, *args: str, stdin: str | None = None) -> Result:
        self.server_log()
        completed = subprocess.run(
            self.argv(*args),
            input=stdin,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=READ_TIMEOUT,
            env=home_env(self.home),
        )
        return Result(completed.returncode, completed.stdout, completed.stderr, self.server_log())

    def ok(self, *args: str, stdin: str | None = None) -> str:
        """stdout of a command that must succeed (exit code 0, nothing on stderr)."""
        result = self(*args, stdin=stdin)
        assert (result.code, result.stderr) == (0, ""), result.explain(list(args))
        return result.stdout

    def fails(self, *args: str, stdin: str | None = None) -> Result:
        result = self(*args, stdin=stdin)
        assert result.code == 1, result.explain(list(args))
        return result

    def background(self, *args: str) -> Background:
        return Background(self.argv(*args), env=home_env(self.home))


def table(stdout: str) -> list[str]:
    """kubectl's table, line by line, without the padding after the last cell."""
    return [line.rstrip() for line in stdout.splitlines()]


def curl(
    url: str, *, method: str = "GET", content_type: str | None = None, user_agent: str | None = None, body: str = ""
) -> tuple[int, bytes]:
    """Status and exact body bytes as curl receives them (the apiserver indents JSON for curl's User-Agent).

    Without curl, the same request goes from Python with curl's User-Agent, so the answer is spelled the same.
    """
    binary = shutil.which("curl")
    if binary is None:
        headers = {"User-Agent": user_agent or "curl/8.5.0"}
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(url, data=body.encode() or None, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=READ_TIMEOUT) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()
    args = ["-X", method]
    if content_type:
        args += ["-H", f"Content-Type: {content_type}"]
    if user_agent:
        args += ["-A", user_agent]
    if body:
        args += ["--data-binary", "@-"]
    completed = subprocess.run(
        [binary, "-sS", "-w", "\n%{http_code}", *args, url],
        input=body.encode(),
        capture_output=True,
        timeout=READ_TIMEOUT,
        check=True,
    )
    payload, _, code = completed.stdout.rpartition(b"\n")
    return int(code), payload


@pytest.fixture(scope="module")
def kubectl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubectl]:
    binary = require_tool("kubectl", "driving the real kubectl (1.32) against `fakeapi serve`")
    home = tmp_path_factory.mktemp("kubectl-home")
    kubeconfig = home / "kubeconfig"
    with ServeProcess("--port", "0", "--kubeconfig", str(kubeconfig), "--log-requests") as server:
        session = Kubectl(binary, home, server, kubeconfig)
        yield session
        assert server.stop() == 0
        assert server.stderr_text() == ""
        session.requests += server.rest_of_stdout()
    server_errors = [line for line in session.requests if re.match(r"\S+ \S+ 5\d\d ", line)]
    assert server_errors == [], "the server failed on requests kubectl sent"


@pytest.fixture(scope="module")
def widgets(kubectl: Kubectl) -> Kubectl:
    """Step 1: ``kubectl apply`` of the Widget CRD."""
    assert kubectl.ok("apply", "-f", "-", stdin=WIDGET_CRD) == (
        "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n"
    )
    return kubectl


def url_of(kubectl: Kubectl, path: str) -> str:
    return kubectl.server.url + path


# -- discovery ----------------------------------------------------------------------------------


def test_version(kubectl: Kubectl) -> None:
    info = json.loads(kubectl.ok("version", "-o", "json"))

    assert info["serverVersion"]["major"] == "1"
    assert info["serverVersion"]["minor"] == "32"
    assert info["serverVersion"]["gitVersion"].startswith("v1.32.")


def test_api_resources_lists_built_ins_and_the_crd(widgets: Kubectl) -> None:
    rows = table(widgets.ok("api-resources"))
    group_names = widgets.ok("api-resources", "--api-group=example.com", "-o", "name")

    assert re.fullmatch(r"NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND", rows[0])
    assert any(re.fullmatch(r"configmaps\s+cm\s+v1\s+true\s+ConfigMap", row) for row in rows)
    assert any(re.fullmatch(r"namespaces\s+ns\s+v1\s+false\s+Namespace", row) for row in rows)
    assert any(re.fullmatch(r"deployments\s+deploy\s+apps/v1\s+true\s+Deployment", row) for row in rows)
    assert any(re.fullmatch(r"widgets\s+wd\s+example\.com/v1\s+true\s+Widget", row) for row in rows)
    assert group_names == "widgets.example.com\n"


# -- apply --------------------------------------------------------------------------------------


def test_apply_creates_configures_and_leaves_unchanged(widgets: Kubectl) -> None:
    deployment: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "apply-web", "labels": {"suite": "apply"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "apply-web"}},
            "template": {
                "metadata": {"labels": {"app": "apply-web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
            },
        },
    }
    settings = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "apply-settings", "labels": {"suite": "apply"}},
        "data": {"mode": "fast"},
    }
    first = manifest(widget("apply-a", "apply"), widget("apply-b", "apply", size=2), settings, deployment)
    deployment["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.27"
    second = manifest(widget("apply-a", "apply"), widget("apply-b", "apply", size=5), settings, deployment)

    created = widgets.ok("apply", "-f", "-", stdin=first)
    unchanged = widgets.ok("apply", "-f", "-", stdin=first)
    configured = widgets.ok("apply", "-f", "-", stdin=second)

    assert created == (
        "widget.example.com/apply-a created\nwidget.example.com/apply-b created\n"
        "configmap/apply-settings created\ndeployment.apps/apply-web created\n"
    )
    assert unchanged == (
        "widget.example.com/apply-a unchanged\nwidget.example.com/apply-b unchanged\n"
        "configmap/apply-settings unchanged\ndeployment.apps/apply-web unchanged\n"
    )
    assert configured == (
        "widget.example.com/apply-a unchanged\nwidget.example.com/apply-b configured\n"
        "configmap/apply-settings unchanged\ndeployment.apps/apply-web configured\n"
    )
    assert widgets.ok("get", "wd", "apply-b", "-o", "jsonpath={.spec.size}") == "5"
    image = widgets.ok("get", "deploy", "apply-web", "-o", "jsonpath={.spec.template.spec.containers[0].image}")
    assert image == "nginx:1.27"


def test_apply_server_side(widgets: Kubectl) -> None:
    first = manifest(widget("ssa-1", "ssa", size=1))
    second = manifest(widget("ssa-1", "ssa", size=4))

    created = widgets.ok("apply", "--server-side", "-f", "-", stdin=first)
    updated = widgets.ok("apply", "--server-side", "-f", "-", stdin=second)
    managers = widgets.ok(
        "get", "wd", "ssa-1", "--show-managed-fields", "-o", "jsonpath={.metadata.managedFields[*].manager}"
    )

    assert created == updated == "widget.example.com/ssa-1 serverside-applied\n"
    assert widgets.ok("get", "wd", "ssa-1", "-o", "jsonpath={.spec.size}") == "4"
    assert managers == "kubectl"


def test_apply_gets_the_servers_strict_field_validation(widgets: Kubectl) -> None:
    bogus = widget("apply-bogus", "validation")
    bogus["spec"]["bogus"] = True

    result = widgets.fails("apply", "-f", "-", stdin=manifest(bogus))

    assert result.stderr == (
        'Error from server (BadRequest): error when creating "STDIN": Widget in version "v1" cannot be handled as '
        'a Widget: strict decoding error: unknown field "spec.bogus"\n'
    )


# -- get ----------------------------------------------------------------------------------------


def test_get_table_short_names_and_label_selectors(widgets: Kubectl) -> None:
    widgets.ok(
        "apply",
        "-f",
        "-",
        stdin=manifest(
            widget("t-front", "table", labels={"tier": "front"}),
            widget("t-back", "table", size=2, labels={"tier": "back"}),
        ),
    )

    expected = ["NAME      SIZE   PHASE", "t-back    2", "t-front   1"]
    assert table(widgets.ok("get", "widgets", "-l", "suite=table")) == expected
    assert table(widgets.ok("get", "wd", "-l", "suite=table")) == expected
    assert table(widgets.ok("get", "widget.example.com", "-l", "suite=table")) == expected
    assert table(widgets.ok("get", "wd", "t-front")) == ["NAME      SIZE   PHASE", "t-front   1"]
    assert widgets.ok("get", "wd", "-l", "suite=table,tier=front", "-o", "name") == "widget.example.com/t-front\n"
    assert widgets.ok("get", "wd", "-l", "suite=table,tier!=front", "-o", "name") == "widget.example.com/t-back\n"
    assert widgets.ok("get", "wd", "-l", "suite=table,tier in (back,front)", "-o", "name") == (
        "widget.example.com/t-back\nwidget.example.com/t-front\n"
    )
    empty = widgets("get", "wd", "-l", "suite=table,!tier")
    assert (empty.code, empty.stdout, empty.stderr) == (0, "", "No resources found in default namespace.\n")


def test_get_json_yaml_and_jsonpath(widgets: Kubectl) -> None:
    widgets.ok("apply", "-f", "-", stdin=manifest(widget("spelled", "output", size=3, note="a<b é")))

    as_json = widgets.ok("get", "wd", "spelled", "-o", "json")
    as_yaml = widgets.ok("get", "wd", "spelled", "-o", "yaml")
    listed = json.loads(widgets.ok("get", "wd", "-l", "suite=output", "-o", "json"))

    assert json.loads(as_json)["spec"] == {"note": "a<b é", "size": 3}
    assert '"note": "a\\u003cb é"' in as_json
    assert yaml.safe_load(as_yaml)["spec"] == {"note": "a<b é", "size": 3}
    assert "  note: a<b é\n" in as_yaml
    assert (listed["kind"], [item["metadata"]["name"] for item in listed["items"]]) == ("List", ["spelled"])
    assert widgets.ok("get", "wd", "spelled", "-o", "jsonpath={.spec.note}") == "a<b é"
    assert widgets.ok("get", "wd", "-l", "suite=output", "-o", "jsonpath={.items[*].metadata.name}") == "spelled"
    assert re.fullmatch(r"\d+", widgets.ok("get", "wd", "spelled", "-o", "jsonpath={.metadata.resourceVersion}"))


def test_get_tables_of_built_ins(kubectl: Kubectl) -> None:
    kubectl.ok(
        "apply",
        "-f",
        "-",
        stdin=manifest(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "tbl-cm"}, "data": {"a": "1", "b": "2"}},
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "tbl-web"},
                "spec": {
                    "replicas": 2,
                    "selector": {"matchLabels": {"app": "tbl-web"}},
                    "template": {
                        "metadata": {"labels": {"app": "tbl-web"}},
                        "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
                    },
                },
            },
        ),
    )

    config_maps = table(kubectl.ok("get", "cm", "tbl-cm"))
    deployments = table(kubectl.ok("get", "deploy", "tbl-web", "-o", "wide"))
    namespaces = kubectl.ok("get", "ns", "default", "kube-system", "--no-headers")

    assert re.fullmatch(r"NAME\s+DATA\s+AGE", config_maps[0])
    assert re.fullmatch(rf"tbl-cm\s+2\s+{AGE}", config_maps[1])
    assert re.fullmatch(r"NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR", deployments[0])
    assert re.fullmatch(rf"tbl-web\s+0/2\s+0\s+0\s+{AGE}\s+web\s+nginx:1\.25\s+app=tbl-web", deployments[1])
    assert [line.split()[:2] for line in namespaces.splitlines()] == [["default", "Active"], ["kube-system", "Active"]]


def test_get_watch_prints_the_list_then_each_change(widgets: Kubectl) -> None:
    widgets.ok("apply", "-f", "-", stdin=manifest(widget("w-1", "watch")))

    with widgets.background("get", "wd", "-l", "suite=watch", "--watch") as watch:
        header, first = watch.next_line(), watch.next_line()
        widgets.ok("apply", "-f", "-", stdin=manifest(widget("w-2", "watch", size=2)))
        added = watch.next_line()
        widgets.ok("patch", "wd", "w-1", "--type=merge", "-p", '{"spec":{"size":5}}')
        modified = watch.next_line()
        watch.stop()

    assert [(line or "").rstrip() for line in (header, first, added, modified)] == [
        "NAME   SIZE   PHASE",
        "w-1    1",
        "w-2    2",
        "w-1    5",
    ]


# -- describe, label, annotate --------------------------------------------------------------------


def test_describe(widgets: Kubectl) -> None:
    widgets.ok("apply", "-f", "-", stdin=manifest(widget("d-1", "describe", size=3)))
    widgets.ok(
        "apply",
        "-f",
        "-",
        stdin=manifest({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d-cm"}, "data": {"k": "v"}}),
    )

    described = widgets.ok("describe", "wd", "d-1").splitlines()
    described_cm = widgets.ok("describe", "cm", "d-cm")

    for line in (
        "Name:         d-1",
        "Namespace:    default",
        "Labels:       suite=describe",
        "API Version:  example.com/v1",
        "Kind:         Widget",
        "Spec:",
        "  Size:  3",
        "Events:  <none>",
    ):
        assert line in described, line
    assert "Data\n====\nk:\n----\nv\n" in described_cm


def test_label_and_annotate(widgets: Kubectl) -> None:
    widgets.ok("apply", "-f", "-", stdin=manifest(widget("l-1", "label")))

    assert widgets.ok("label", "wd", "l-1", "color=red") == "widget.example.com/l-1 labeled\n"
    assert widgets.ok("get", "wd", "-l", "color=red", "-o", "name") == "widget.example.com/l-1\n"
    refused = widgets.fails("label", "wd", "l-1", "color=blue")
    assert refused.stderr == "error: 'color' already has a value (red), and --overwrite is false\n"
    assert widgets.ok("label", "wd", "l-1", "color=blue", "--overwrite") == "widget.example.com/l-1 labeled\n"
    assert widgets.ok("label", "wd", "l-1", "color-") == "widget.example.com/l-1 unlabeled\n"
    assert widgets.ok("get", "wd", "l-1", "-o", "jsonpath={.metadata.labels}") == '{"suite":"label"}'
    assert widgets.ok("annotate", "wd", "l-1", "owner=team-a") == "widget.example.com/l-1 annotated\n"
    assert widgets.ok("get", "wd", "l-1", "-o", "jsonpath={.metadata.annotations.owner}") == "team-a"


# -- patch --------------------------------------------------------------------------------------


def test_patch_json_with_test_ops(widgets: Kubectl) -> None:
    widgets.ok("apply", "-f", "-", stdin=manifest(widget("p-json", "patch", note="a<b")))
    version = widgets.ok("get", "wd", "p-json", "-o", "jsonpath={.metadata.resourceVersion}")
    claim = [
        {"op": "test", "path": "/metadata/resourceVersion", "value": version},
        {"op": "test", "path": "/spec/note", "value": "a<b"},
        {"op": "replace", "path": "/spec/size", "value": 2},
    ]

    claimed = widgets.ok("patch", "wd", "p-json", "--type=json", "-p", json.dumps(claim))
    lost = widgets.fails("patch", "wd", "p-json", "--type=json", "-p", json.dumps(claim))

    # kubectl re-encodes the patch in Go's spelling (`<` as \u003c), so the test op on a stored "a<b" passes.
    assert claimed == "widget.example.com/p-json patched\n"
    assert lost.stderr == INVALID
    assert widgets.ok("get", "wd", "p-json", "-o", "jsonpath={.spec.size}") == "2"


def test_patch_merge(widgets: Kubectl) -> None:
    widgets.ok("apply", "-f", "-", stdin=manifest(widget("p-merge", "patch")))

    patched = widgets.ok("patch", "wd", "p-merge", "--type=merge", "-p", '{"spec":{"size":3}}')
    again = widgets.ok("patch", "wd", "p-merge", "--type=merge", "-p", '{"spec":{"size":3}}')

    assert patched == "widget.example.com/p-merge patched\n"
    assert again == "widget.example.com/p-merge patched (no change)\n"


def test_patch_strategic_merges_containers_by_name_on_a_built_in(kubectl: Kubectl) -> None:
    kubectl.ok(
        "apply",
        "-f",
        "-",
        stdin=manifest(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "smp-web"},
                "spec": {
                    "selector": {"matchLabels": {"app": "smp-web"}},
                    "template": {
                        "metadata": {"labels": {"app": "smp-web"}},
                        "spec": {
                            "containers": [{"name": "app", "image": "app:1"}, {"name": "sidecar", "image": "side:1"}]
                        },
                    },
                },
            }
        ),
    )
    containers = "jsonpath={range .spec.template.spec.containers[*]}{.name}={.image} {end}"

    strategic = kubectl.ok(
        "patch",
        "deploy",
        "smp-web",
        "-p",
        '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2"}]}}}}',
    )
    after_strategic = kubectl.ok("get", "deploy", "smp-web", "-o", containers)
    merge = kubectl.ok(
        "patch",
        "deploy",
        "smp-web",
        "--type=merge",
        "-p",
        '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:3"}]}}}}',
    )
    after_merge = kubectl.ok("get", "deploy", "smp-web", "-o", containers)

    assert strategic == "deployment.apps/smp-web patched\n"
    assert after_strategic == "app=app:2 sidecar=side:1 "
    assert merge == "deployment.apps/smp-web patched\n"
    assert after_merge == "app=app:3 ", "a merge patch replaces the whole list"


def test_patch_strategic_is_refused_for_a_custom_resource(widgets: Kubectl) -> None:
    widgets.ok("apply", "-f", "-", stdin=manifest(widget("p-smp", "patch")))

    refused = widgets.fails("patch", "wd", "p-smp", "-p", '{"spec":{"size":3}}')

    assert refused.stderr == (
        "error: application/strategic-merge-patch+json is not supported by example.com/v1, Kind=Widget: the body of "
        "the request was in an unknown format - accepted media types include: application/json-patch+json, "
        "application/merge-patch+json, application/apply-patch+yaml\n"
    )


def test_patch_status_subresource(widgets: Kubectl) -> None:
    widgets.ok("apply", "-f", "-", stdin=manifest(widget("st-1", "status")))

    patched = widgets.ok(
        "patch", "wd", "st-1", "--subresource=status", "--type=merge", "-p", '{"status":{"phase":"Ready"}}'
    )
    ignored = widgets.ok("patch", "wd", "st-1", "--type=merge", "-p", '{"status":{"phase":"Lost"}}')

    assert patched == "widget.example.com/st-1 patched\n"
    assert ignored == "widget.example.com/st-1 patched (no change)\n", "the main resource ignores status"
    assert table(widgets.ok("get", "wd", "st-1")) == ["NAME   SIZE   PHASE", "st-1   1      Ready"]


# -- replace, delete, wait -------------------------------------------------------------------------


def test_replace_and_the_conflict_message_for_a_stale_resource_version(widgets: Kubectl, tmp_path: Path) -> None:
    widgets.ok("apply", "-f", "-", stdin=manifest(widget("r-1", "replace")))
    stale = yaml.safe_load(widgets.ok("get", "wd", "r-1", "-o", "yaml"))
    stale["spec"]["size"] = 7
    stale_file = tmp_path / "stale.yaml"
    stale_file.write_text(manifest(stale), encoding="utf-8")
    widgets.ok("label", "wd", "r-1", "touched=yes")

    conflict = widgets.fails("replace", "-f", str(stale_file))
    fresh = yaml.safe_load(widgets.ok("get", "wd", "r-1", "-o", "yaml"))
    fresh["spec"]["size"] = 7
    replaced = widgets.ok("replace", "-f", "-", stdin=manifest(fresh))

    assert conflict.stderr == (
        f'Error from server (Conflict): error when replacing "{stale_file}": Operation cannot be fulfilled on '
        'widgets.example.com "r-1": the object has been modified; please apply your changes to the latest version '
        "and try again\n"
    )
    assert replaced == "widget.example.com/r-1 replaced\n"
    assert widgets.ok("get", "wd", "r-1", "-o", "jsonpath={.spec.size}") == "7"


def test_delete_waits_for_finalizers(widgets: Kubectl) -> None:
    held = manifest(
        widget("f-1", "finalizers", finalizers=["example.com/hold"]),
        widget("f-2", "finalizers", finalizers=["example.com/hold"]),
    )
    widgets.ok("apply", "-f", "-", stdin=held)
    release = ["--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]']

    deleted = widgets.ok("delete", "wd", "f-1", "--wait=false")
    deletion = widgets.ok("get", "wd", "f-1", "-o", "jsonpath={.metadata.deletionTimestamp}")
    still_listed = widgets.ok("get", "wd", "-l", "suite=finalizers", "-o", "name")
    widgets.ok("patch", "wd", "f-1", *release)
    gone = widgets.ok("wait", "--for=delete", "wd/f-1", "--timeout=60s")
    missing = widgets.fails("get", "wd", "f-1")
    with widgets.background("delete", "wd", "f-2") as blocking:
        announced = blocking.next_line()
        waiting = blocking.process.poll()
        widgets.ok("patch", "wd", "f-2", *release)
        code = blocking.wait()

    assert deleted == 'widget.example.com "f-1" deleted\n'
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", deletion)
    assert still_listed == "widget.example.com/f-1\nwidget.example.com/f-2\n"
    assert gone == ""
    assert missing.stderr == 'Error from server (NotFound): widgets.example.com "f-1" not found\n'
    assert announced == 'widget.example.com "f-2" deleted'
    assert waiting is None, "kubectl delete waits while a finalizer holds the object"
    assert code == 0
    assert widgets("get", "wd", "-l", "suite=finalizers").stderr == "No resources found in default namespace.\n"


def test_delete_a_built_in(kubectl: Kubectl) -> None:
    kubectl.ok("create", "-f", "-", stdin=manifest({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "x"}}))

    assert kubectl.ok("delete", "secret", "x") == 'secret "x" deleted\n'
    assert kubectl.fails("get", "secret", "x").stderr == 'Error from server (NotFound): secrets "x" not found\n'


def test_wait_for_jsonpath_and_condition(widgets: Kubectl) -> None:
    widgets.ok("apply", "-f", "-", stdin=manifest(widget("wt-1", "wait")))
    status = {"status": {"phase": "Ready", "conditions": [{"type": "Ready", "status": "True"}]}}

    with (
        widgets.background("wait", "wd/wt-1", "--for=jsonpath={.status.phase}=Ready", "--timeout=60s") as by_path,
        widgets.background("wait", "wd/wt-1", "--for=condition=Ready", "--timeout=60s") as by_condition,
    ):
        widgets.ok("patch", "wd", "wt-1", "--subresource=status", "--type=merge", "-p", json.dumps(status))
        results = [(waiter.wait(), waiter.rest_of_stdout()) for waiter in (by_path, by_condition)]

    assert results == [(0, ["widget.example.com/wt-1 condition met"])] * 2
    timed_out = widgets.fails("wait", "wd/wt-1", "--for=condition=Done", "--timeout=1s")
    assert timed_out.stderr == "error: timed out waiting for the condition on widgets/wt-1\n"


# -- create (protobuf bodies) ---------------------------------------------------------------------


def test_create_configmap_and_namespace(kubectl: Kubectl) -> None:
    # kubectl create configmap|namespace sends the object as protobuf (Content-Type application/vnd.kubernetes.protobuf).
    created_cm = kubectl("create", "configmap", "made", "--from-literal=k=v", "--from-literal=note=a<b é")
    created_ns = kubectl("create", "namespace", "team")

    assert created_cm.stdout == "configmap/made created\n", created_cm.explain(["create", "configmap"])
    assert created_ns.stdout == "namespace/team created\n", created_ns.explain(["create", "namespace"])
    assert json.loads(kubectl.ok("get", "cm", "made", "-o", "jsonpath={.data}")) == {"k": "v", "note": "a<b é"}
    assert kubectl.ok("get", "ns", "team", "-o", "jsonpath={.status.phase}") == "Active"


# -- errors and bytes, as kubectl and curl see them ---------------------------------------------------


def test_not_found(widgets: Kubectl) -> None:
    result = widgets.fails("get", "wd", "nope")

    assert (result.stdout, result.stderr) == (
        "",
        'Error from server (NotFound): widgets.example.com "nope" not found\n',
    )


def test_curl_sees_the_stored_object_in_gos_spelling(widgets: Kubectl) -> None:
    widgets.ok("apply", "-f", "-", stdin=manifest(widget("bytes-1", "bytes", note="a<b>&c é")))
    path = url_of(widgets, "/apis/example.com/v1/namespaces/default/widgets/bytes-1")

    pretty = curl(path)
    compact = curl(path, user_agent="fakeapi-tests")

    assert pretty[0] == compact[0] == 200
    assert '"note": "a\\u003cb\\u003e\\u0026c é"'.encode() in pretty[1]
    assert pretty[1].startswith(b'{\n  "apiVersion": "example.com/v1",\n  "kind": "Widget",\n')
    assert '"spec":{"note":"a\\u003cb\\u003e\\u0026c é","size":1}}\n'.encode() in compact[1]


def test_curl_sees_a_status_body_byte_for_byte(widgets: Kubectl) -> None:
    missing = curl(url_of(widgets, "/api/v1/namespaces/default/configmaps/nope"), user_agent="fakeapi-tests")

    assert missing == (
        404,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"nope\\" not '
        b'found","reason":"NotFound","details":{"name":"nope","kind":"configmaps"},"code":404}\n',
    )


def test_curl_sees_indented_status_bodies_as_the_apiserver_writes_them(widgets: Kubectl) -> None:
    widgets.ok("apply", "-f", "-", stdin=manifest(widget("bytes-2", "bytes", note="x")))

    missing = curl(url_of(widgets, "/api/v1/namespaces/default/configmaps/nope"))
    rejected = curl(
        url_of(widgets, "/apis/example.com/v1/namespaces/default/widgets/bytes-2"),
        method="PATCH",
        content_type="application/json-patch+json",
        body='[{"op":"test","path":"/spec/note","value":"y"}]',
    )

    assert missing == (
        404,
        b'{\n  "kind": "Status",\n  "apiVersion": "v1",\n  "metadata": {},\n  "status": "Failure",\n'
        b'  "message": "configmaps \\"nope\\" not found",\n  "reason": "NotFound",\n'
        b'  "details": {\n    "name": "nope",\n    "kind": "configmaps"\n  },\n  "code": 404\n}',
    )
    assert rejected == (
        422,
        b'{\n  "kind": "Status",\n  "apiVersion": "v1",\n  "metadata": {},\n  "status": "Failure",\n'
        b'  "message": "the server rejected our request due to an error in our request",\n  "reason": "Invalid",\n'
        b'  "details": {},\n  "code": 422\n}',
    )
