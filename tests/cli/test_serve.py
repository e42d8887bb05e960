"""``fakeapi serve`` as a user meets it: the console script in a subprocess, its output, its exit codes.

Each test starts the installed console script (or ``python -m fakeapi``) on ``--port 0``, reads its
ready line to learn the URL, talks to it over plain HTTP or with a real client, and stops it with
a signal.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import kubernetes
import pytest
import yaml
from kubernetes_asyncio import client as async_client
from kubernetes_asyncio import config as async_config

from tests.cli.serving import READ_TIMEOUT, ServeProcess, console_script, home_env, require_tool
from tests.conftest import crd

LOG_LINE = re.compile(r"(?P<method>[A-Z]+) (?P<path>\S+) (?P<status>\d{3}) (?P<ms>\d+\.\d)ms(?P<rest>.*)")


def fetch(url: str, method: str = "GET", body: Any = None, content_type: str = "application/json") -> tuple[int, bytes]:
    """Status and exact body bytes (urllib's User-Agent gets compact, unindented JSON)."""
    data = None if body is None else json.dumps(body, ensure_ascii=False).encode()
    headers = {"Content-Type": content_type} if data is not None else {}
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=READ_TIMEOUT) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*console_script(), *args], capture_output=True, text=True, timeout=READ_TIMEOUT, stdin=subprocess.DEVNULL
    )


def write_yaml(path: Path, *documents: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False), encoding="utf-8")
    return path


def config_map(name: str, data: dict[str, str], namespace: str | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data}


# -- help and usage ------------------------------------------------------------------------------


def test_serve_help_documents_every_flag() -> None:
    result = run_cli("serve", "--help")

    assert result.returncode == 0
    flags = ("--host", "--port", "--kubeconfig", "--crd", "--load", "--log-requests", "--bookmark-interval")
    for flag in (*flags, "--no-namespace-controllers"):
        assert flag in result.stdout, flag
    text = " ".join(result.stdout.split())
    assert "0 picks a free one" in text
    assert "Helm chart's crds/" in text
    assert "Ctrl-C or SIGTERM" in text


def test_top_level_help_version_and_missing_command() -> None:
    help_result = run_cli("--help")
    version_result = run_cli("--version")
    bare_result = run_cli()

    assert help_result.returncode == 0
    assert "serve" in help_result.stdout
    assert version_result.returncode == 0
    assert re.fullmatch(r"fakeapi \d+\.\d+\.\d+\S*\n", version_result.stdout)
    assert bare_result.returncode == 2
    assert bare_result.stdout == ""
    assert "usage: fakeapi" in bare_result.stderr


def test_a_bad_outcome_rules_file_is_a_usage_error_that_names_the_rule(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("- {image: 'busybox*', outcome: succeed after 5s}\n- {image: x, outcome: flaky}\n")
    result = run_cli("serve", "--controllers", "all", "--outcomes", str(rules))

    assert result.returncode == 2
    assert f"{rules}: rule 2: unknown outcome 'flaky'" in result.stderr


def test_a_bad_port_number_is_a_usage_error() -> None:
    result = run_cli("serve", "--port", "70000")

    assert result.returncode == 2
    assert "argument --port: '70000' is not a port number from 0 to 65535" in result.stderr


# -- starting, the ready line, stopping ----------------------------------------------------------


def test_port_zero_picks_a_free_port_and_prints_one_ready_line() -> None:
    with ServeProcess("--port", "0") as first, ServeProcess("--port", "0") as second:
        ports = {urlsplit(first.url).port, urlsplit(second.url).port}
        assert first.ready_line == f"fakeapi serving on {first.url}"
        assert first.url.startswith("http://127.0.0.1:")
        assert len(ports) == 2 and 0 not in ports
        status, body = fetch(first.url + "/version")
        assert status == 200
        assert json.loads(body)["major"] == "1"

        assert first.stop() == 0
        assert first.rest_of_stdout() == []
        assert first.stderr_text() == ""
        assert second.stop() == 0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_a_signal_stops_it_cleanly_even_with_a_watch_open(signum: signal.Signals) -> None:
    with ServeProcess("--port", "0") as server:
        address = urlsplit(server.url)
        connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=READ_TIMEOUT)
        connection.request("GET", "/api/v1/namespaces?watch=true")
        watch = connection.getresponse()
        first_event = json.loads(watch.readline())

        code = server.stop(signum)
        rest_of_watch = watch.read()
        connection.close()

    assert code == 0
    assert server.stderr_text() == ""
    assert server.rest_of_stdout() == []
    events = [first_event] + [json.loads(line) for line in rest_of_watch.splitlines()]
    assert [(event["type"], event["object"]["metadata"]["name"]) for event in events] == [
        ("ADDED", "default"),
        ("ADDED", "kube-node-lease"),
        ("ADDED", "kube-public"),
        ("ADDED", "kube-system"),
    ], "the watch stream ends cleanly (no IncompleteRead) when the server stops"


def test_a_port_in_use_is_a_clear_error_with_exit_code_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        result = run_cli("serve", "--port", str(port))

    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"fakeapi: cannot listen on 127.0.0.1:{port}: address already in use "
        "(pick another --port, or --port 0 for a free one)\n"
    )


def test_python_dash_m_fakeapi_serve_works_too() -> None:
    with ServeProcess("--port", "0", command=[sys.executable, "-m", "fakeapi"]) as server:
        status, body = fetch(server.url + "/api/v1/namespaces/default")
        assert status == 200
        assert json.loads(body)["metadata"]["name"] == "default"
        assert server.stop(signal.SIGINT) == 0


# -- the kubeconfig ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_kubeconfig_works_with_kubernetes_asyncio_and_the_official_client(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "nested" / "kubeconfig"
    with ServeProcess("--port", "0", "--kubeconfig", str(kubeconfig)):
        assert kubeconfig.exists(), "the kubeconfig must be written before the ready line"

        api_client = await async_config.new_client_from_config(config_file=str(kubeconfig))
        async with api_client:
            namespaces = await async_client.CoreV1Api(api_client).list_namespace()
            created = await async_client.CoreV1Api(api_client).create_namespaced_config_map(
                "default", config_map("from-asyncio", {"k": "v"})
            )
        official = kubernetes.client.CoreV1Api(kubernetes.config.new_client_from_config(config_file=str(kubeconfig)))
        read_back = official.read_namespaced_config_map("from-asyncio", "default")

    assert sorted(item.metadata.name for item in namespaces.items) == [
        "default",
        "kube-node-lease",
        "kube-public",
        "kube-system",
    ]
    assert read_back.metadata.resource_version == created.metadata.resource_version
    assert read_back.data == {"k": "v"}


def test_the_kubeconfig_works_with_kubectl(tmp_path: Path) -> None:
    kubectl = require_tool("kubectl", "checking that kubectl accepts the kubeconfig `fakeapi serve` writes")
    kubeconfig = tmp_path / "kubeconfig"
    with ServeProcess("--port", "0", "--kubeconfig", str(kubeconfig)):
        options = ["--kubeconfig", str(kubeconfig), "--cache-dir", str(tmp_path / "cache")]
        result = subprocess.run(
            [kubectl, *options, "get", "ns", "-o", "name"],
            capture_output=True,
            text=True,
            timeout=READ_TIMEOUT,
            env=home_env(tmp_path),
        )

    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "namespace/default\nnamespace/kube-node-lease\nnamespace/kube-public\nnamespace/kube-system\n"
    )


def test_kubectl_finds_what_the_control_plane_wrote_and_the_switch_turns_the_namespaces_part_off(
    tmp_path: Path,
) -> None:
    kubectl = require_tool("kubectl", "listing what a new cluster holds")
    kubeconfig = tmp_path / "kubeconfig"
    listed = {}
    for flags in ((), ("--no-namespace-controllers",)):
        with ServeProcess("--port", "0", "--kubeconfig", str(kubeconfig), *flags):
            options = ["--kubeconfig", str(kubeconfig), "--cache-dir", str(tmp_path / "cache")]
            result = subprocess.run(
                [kubectl, *options, "get", "sa,cm,svc,pc", "-n", "kube-public", "-o", "name"],
                capture_output=True,
                text=True,
                timeout=READ_TIMEOUT,
                env=home_env(tmp_path),
            )
        assert result.returncode == 0, result.stderr
        listed[flags] = result.stdout.split()

    cluster_wide = [
        "priorityclass.scheduling.k8s.io/system-cluster-critical",
        "priorityclass.scheduling.k8s.io/system-node-critical",
    ]
    assert listed[()] == ["serviceaccount/default", "configmap/kube-root-ca.crt", *cluster_wide]
    assert listed[("--no-namespace-controllers",)] == cluster_wide


# -- preloading ----------------------------------------------------------------------------------


def test_crd_takes_a_file_and_a_helm_chart_crds_folder(tmp_path: Path) -> None:
    chart_crds = tmp_path / "chart" / "crds"
    write_yaml(chart_crds / "jobs.yaml", crd("jobs", "Job"), crd("tasks", "Task"))
    write_yaml(chart_crds / "nested" / "queues.yml", crd("queues", "Queue"))
    (chart_crds / "gadgets.json").write_text(json.dumps(crd("gadgets", "Gadget"), indent="\t"), encoding="utf-8")
    (chart_crds / "README.md").write_text("not a manifest", encoding="utf-8")
    single = write_yaml(tmp_path / "widgets.yaml", crd("widgets", "Widget"))

    with ServeProcess("--port", "0", "--crd", str(chart_crds), "--crd", str(single)) as server:
        status, body = fetch(server.url + "/apis/example.com/v1")

    assert status == 200
    names = sorted(resource["name"] for resource in json.loads(body)["resources"] if "/" not in resource["name"])
    assert names == ["gadgets", "jobs", "queues", "tasks", "widgets"]


def test_load_takes_multi_document_yaml_and_json(tmp_path: Path) -> None:
    crds = write_yaml(tmp_path / "crds.yaml", crd("jobs", "Job"))
    yaml_objects = write_yaml(
        tmp_path / "objects.yaml",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}},
        config_map("spelled", {"k": "a<b é"}, namespace="team"),
        {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "j1"}, "spec": {"n": 1}},
    )
    json_list = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            config_map("from-json", {"k": "v"}),
            {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "j2"}, "spec": {"n": 2}},
        ],
    }
    json_objects = tmp_path / "objects.json"
    json_objects.write_text(json.dumps(json_list, indent="\t"), encoding="utf-8")

    with ServeProcess("--port", "0", "--crd", str(crds), "--load", str(yaml_objects), "--load", str(json_objects)) as s:
        spelled = fetch(s.url + "/api/v1/namespaces/team/configmaps/spelled")
        from_json = fetch(s.url + "/api/v1/namespaces/default/configmaps/from-json")
        jobs = fetch(s.url + "/apis/example.com/v1/namespaces/default/jobs")

    assert spelled[0] == 200
    assert '"data":{"k":"a\\u003cb é"}'.encode() in spelled[1]
    assert from_json[0] == 200
    assert [item["spec"]["n"] for item in json.loads(jobs[1])["items"]] == [1, 2]


@pytest.mark.parametrize(
    ("option", "content", "message"),
    [
        ("--load", None, "missing.yaml: no such file or directory"),
        ("--load", "a: [unclosed\n", "broken.yaml: while parsing a flow sequence"),
        ("--load", "{not json}", "broken.json: Expecting property name enclosed in double quotes"),
        (
            "--load",
            "apiVersion: example.com/v1\nkind: Job\nmetadata: {name: j}\n",
            "broken.yaml: cannot create Job 'j': no resource of kind Job in example.com/v1: create its CRD first",
        ),
        (
            "--crd",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n",
            "broken.yaml: ConfigMap 'cm' is not a CustomResourceDefinition (--crd takes CRD manifests; "
            "use --load for objects)",
        ),
        ("--load", "just some text\n", "broken.yaml: a document is a str, not an object"),
        (
            "--load",
            "metadata: {name: x}\n",
            "broken.yaml: object without a kind 'x' has no apiVersion or no kind",
        ),
    ],
    ids=["missing-file", "bad-yaml", "bad-json", "unknown-kind", "not-a-crd", "not-an-object", "no-kind"],
)
def test_a_manifest_that_does_not_load_is_one_line_on_stderr_and_exit_code_2(
    tmp_path: Path, option: str, content: str | None, message: str
) -> None:
    suffix = ".json" if "json" in message else ".yaml"
    path = tmp_path / ("missing.yaml" if content is None else f"broken{suffix}")
    if content is not None:
        path.write_text(content, encoding="utf-8")

    result = run_cli("serve", "--port", "0", option, str(path))

    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"fakeapi: cannot load {tmp_path / message.split(':')[0]}")
    assert message in result.stderr
    assert result.stderr.count("\n") == 1


def test_an_object_loaded_twice_is_an_error(tmp_path: Path) -> None:
    objects = write_yaml(tmp_path / "objects.yaml", config_map("twice", {}), config_map("twice", {}))

    result = run_cli("serve", "--port", "0", "--load", str(objects))

    assert result.returncode == 2
    assert result.stderr == (
        f"fakeapi: cannot load {objects}: cannot create ConfigMap 'twice': configmaps \"twice\" already exists\n"
    )


# -- request logging -----------------------------------------------------------------------------


def test_log_requests_prints_one_line_per_request_with_the_spelling_diagnosis() -> None:
    with ServeProcess("--port", "0", "--log-requests") as server:
        path = "/api/v1/namespaces/default/configmaps"
        created, _ = fetch(server.url + path, "POST", config_map("cm", {"k": "a<b"}))
        created_line = server.next_line()
        missing, _ = fetch(server.url + path + "/nope")
        missing_line = server.next_line()
        spelled, _ = fetch(
            server.url + path + "/cm",
            "PATCH",
            [{"op": "test", "path": "/data/k", "value": "a<b"}],
            content_type="application/json-patch+json",
        )
        spelled_line = server.next_line()
        different, _ = fetch(
            server.url + path + "/cm",
            "PATCH",
            [{"op": "test", "path": "/data/k", "value": "other"}],
            content_type="application/json-patch+json",
        )
        different_line = server.next_line()
        assert server.stop() == 0
        rest = server.rest_of_stdout()

    lines = [LOG_LINE.fullmatch(line or "") for line in (created_line, missing_line, spelled_line, different_line)]
    assert all(lines), [created_line, missing_line, spelled_line, different_line]
    assert [(m["method"], m["path"], m["status"]) for m in lines if m] == [
        ("POST", path, "201"),
        ("GET", path + "/nope", "404"),
        ("PATCH", path + "/cm", "422"),
        ("PATCH", path + "/cm", "422"),
    ]
    assert (created, missing, spelled, different) == (201, 404, 422, 422)
    assert lines[0] and lines[0]["rest"] == ""
    assert lines[2] and "failed only because of spelling" in lines[2]["rest"]
    assert '"a\\u003cb"' in lines[2]["rest"] and '"a<b"' in lines[2]["rest"]
    assert lines[3] and lines[3]["rest"] == "", "a real mismatch is not a spelling problem"
    assert rest == []


def test_without_log_requests_nothing_follows_the_ready_line() -> None:
    with ServeProcess("--port", "0") as server:
        status, _ = fetch(server.url + "/api/v1/namespaces")
        assert status == 200
        assert server.stop() == 0
        assert server.rest_of_stdout() == []


def test_a_log_nobody_reads_never_holds_up_serving_or_stopping() -> None:
    # stdout is a pipe read up to the ready line and never again: a pipe holds 64 KiB, the
    # requests below log about four times that.
    process = subprocess.Popen(
        [*console_script(), "serve", "--port", "0", "--log-requests"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        ready = re.search(rb"https?://\S+", process.stdout.readline())
        assert ready, "no ready line"
        url = urlsplit(ready.group().decode())
        connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=READ_TIMEOUT)
        padding = "x" * 200
        statuses = set()
        for number in range(1200):
            connection.request("GET", f"/api/v1/namespaces/default/configmaps/{padding}-{number}")
            response = connection.getresponse()
            response.read()
            statuses.add(response.status)
        connection.close()
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=READ_TIMEOUT)
    finally:
        process.kill()
        process.wait()
    assert statuses == {404}
    assert code == 0


def test_the_log_drops_what_would_pile_up_and_says_how_much() -> None:
    from fakeapi._console import ConsoleLines

    reading, writing = os.pipe()
    lines = ConsoleLines(writing, pending_limit=1000)
    # Nobody reads yet: the pipe (64 KiB) and the 1,000 bytes queued hold far fewer than these.
    for number in range(10_000):
        lines(f"line {number:05d} " + "y" * 40)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.extend(iter(lambda: os.read(reading, 65536), b"")))
    reader.start()
    assert lines.flush(READ_TIMEOUT)
    os.close(writing)
    reader.join(READ_TIMEOUT)
    os.close(reading)

    text = b"".join(received).decode().splitlines()
    notices = [
        re.fullmatch(r"fakeapi: (\d+) lines were dropped: stdout was not read fast enough", line) for line in text
    ]
    kept = [int(line.split()[1]) for line in text if line.startswith("line ")]
    assert len(kept) + sum(int(notice[1]) for notice in notices if notice) == 10_000
    assert len(text) == len(kept) + sum(1 for notice in notices if notice)
    assert kept == sorted(kept) and len(set(kept)) == len(kept)
    assert 0 < len(kept) < 10_000


def test_log_requests_has_a_line_for_a_request_authentication_refused() -> None:
    with ServeProcess("--port", "0", "--log-requests", "--token-auth") as server:
        anonymous, _ = fetch(server.url + "/api/v1/namespaces")
        anonymous_line = server.next_line()
        request = urllib.request.Request(
            server.url + "/api/v1/namespaces", headers={"Authorization": "Bearer not-a-token"}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=READ_TIMEOUT)
        refused_line = server.next_line()
        assert server.stop() == 0

    assert (anonymous, refused.value.code) == (403, 401)
    matched = [LOG_LINE.fullmatch(line or "") for line in (anonymous_line, refused_line)]
    assert [(m["method"], m["path"], m["status"]) for m in matched if m] == [
        ("GET", "/api/v1/namespaces", "403"),
        ("GET", "/api/v1/namespaces", "401"),
    ]
