"""``@pytest.mark.fakeapi(controllers=...)`` and ``fakeapi.advance()``: simulated controllers for one test,
each test starting from the same instant on the fake clock, other tests without any."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest


def test_the_controllers_marker_applies_to_its_test_only(pytester: pytest.Pytester, ini: Callable[..., None]) -> None:
    ini()
    pytester.makepyfile(
        test_controllers="""
        import pytest

        from fakeapi import OutcomeRule

        JOB = {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "report"},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "r", "image": "busybox"}]}}},
        }
        RULES = [OutcomeRule("succeed after 30s", image="busybox")]
        starts = []

        @pytest.mark.fakeapi(controllers="all", outcomes=RULES, objects=[JOB])
        def test_a_job_completes(fakeapi):
            fakeapi.advance(0)
            job = fakeapi.get("batch/v1", "Job", "report")
            starts.append(job["status"]["startTime"])
            assert job["status"]["active"] == 1
            fakeapi.advance(29)
            assert "conditions" not in fakeapi.get("batch/v1", "Job", "report")["status"]
            fakeapi.advance(1)
            conditions = fakeapi.get("batch/v1", "Job", "report")["status"]["conditions"]
            assert [c["type"] for c in conditions] == ["SuccessCriteriaMet", "Complete"]

        @pytest.mark.fakeapi(controllers="all", outcomes=RULES, objects=[JOB])
        def test_the_clock_starts_over(fakeapi):
            fakeapi.advance(0)
            assert fakeapi.get("batch/v1", "Job", "report")["status"]["startTime"] == starts[0]

        @pytest.mark.fakeapi(nodes=["a", "b"])
        def test_nodes_alone_mean_every_controller(fakeapi):
            assert fakeapi.server.controllers >= {"nodes", "scheduler", "kubelet", "job", "deployment", "replicaset", "statefulset", "daemonset", "cronjob", "endpointslice", "endpoints"}
            assert fakeapi.find("v1", "Node", "a", namespace="") is not None
            assert fakeapi.find("v1", "Node", "node-1", namespace="") is None

        def test_after(fakeapi):
            assert fakeapi.server.controllers == frozenset()
            assert fakeapi.find("v1", "Node", "a", namespace="") is None
            with pytest.raises(RuntimeError, match="advance"):
                fakeapi.advance(1)
        """
    )
    pytester.runpytest().assert_outcomes(passed=4)


def test_the_marker_takes_a_file_of_outcome_rules(pytester: pytest.Pytester, ini: Callable[..., None]) -> None:
    ini()
    pytester.makefile(
        ".yaml",
        outcomes="""
        - image: "registry.example.com/*"
          outcome: image-pull-failure
        - labels: {app: report}
          container: r
          outcome: exit 3 after 2s
        """,
    )
    pytester.makepyfile(
        test_rules="""
        import pytest

        def pod(name, image, labels):
            spec = {"restartPolicy": "Never", "containers": [{"name": "r", "image": image}]}
            return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels}, "spec": spec}

        @pytest.mark.fakeapi(outcomes="outcomes.yaml")
        def test_rules_from_the_file(fakeapi):
            fakeapi.load(pod("pull", "registry.example.com/app:1", {}), pod("report", "busybox", {"app": "report"}))
            fakeapi.advance(2)
            pulled = fakeapi.get("v1", "Pod", "pull")["status"]["containerStatuses"][0]["state"]
            assert pulled["waiting"]["reason"] == "ErrImagePull"
            report = fakeapi.get("v1", "Pod", "report")["status"]
            assert report["phase"] == "Failed"
            assert report["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 3
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- {image: x}\n", "rule 1: outcome is required"),
        ("- {outcome: run, colour: red}\n", "rule 1: unknown keys colour"),
        ("- {outcome: run}\n- {outcome: sometimes}\n", "rule 2: unknown outcome 'sometimes'"),
        ("outcome: run\n", "a list of outcome rules is expected, not dict"),
        ("- {outcome: run, labels: {a: 1}}\n", "rule 1: labels must map names to strings"),
        ("- {outcome: run, logs: [1]}\n", "rule 1: logs must be a list of strings"),
        ("- {outcome: 'run logs [\"a\", 2]'}\n", "rule 1: the logs of an outcome are a JSON list of strings"),
    ],
)
def test_a_bad_rules_file_says_which_rule_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    from fakeapi._cluster.outcome_files import load_outcome_rules

    path = tmp_path / "rules.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=re.escape(message)):
        load_outcome_rules(path)


def test_the_fixture_appends_to_logs_and_scripts_commands_for_one_test(
    pytester: pytest.Pytester, ini: Callable[..., None]
) -> None:
    ini()
    pytester.makefile(".yaml", outcomes='- {image: web, outcome: run, logs: ["listening"]}\n')
    pytester.makepyfile(
        test_kubelet="""
        import urllib.request

        import pytest
        from kubernetes import client, config
        from kubernetes.stream import stream

        POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
               "spec": {"containers": [{"name": "main", "image": "web"}]}}

        def log(fakeapi):
            return urllib.request.urlopen(fakeapi.url + "/api/v1/namespaces/default/pods/web/log").read()

        def run(fakeapi, command):
            api = client.CoreV1Api(config.new_client_from_config(str(fakeapi.kubeconfig())))
            return stream(api.connect_get_namespaced_pod_exec, "web", "default", command=command,
                          stderr=True, stdin=False, stdout=True, tty=False)

        @pytest.mark.fakeapi(outcomes="outcomes.yaml", objects=[POD])
        def test_scripted(fakeapi):
            fakeapi.advance(0)
            fakeapi.append_log("web", "request 1")
            assert log(fakeapi) == b"listening\\nrequest 1\\n"
            fakeapi.script_exec("web", ["hostname"], stdout="web\\n")
            assert run(fakeapi, ["hostname"]) == "web\\n"

        @pytest.mark.fakeapi(outcomes="outcomes.yaml", objects=[POD])
        def test_forgotten_at_the_next_test(fakeapi):
            fakeapi.advance(0)
            assert log(fakeapi) == b"listening\\n"
            assert run(fakeapi, ["hostname"]).startswith("fakeapi: no exec script for 'hostname'")
        """
    )
    pytester.runpytest().assert_outcomes(passed=2)


def test_the_marker_takes_a_process_rule_and_the_next_test_starts_without_its_process(
    pytester: pytest.Pytester, ini: Callable[..., None]
) -> None:
    """docs/process-containers.md: a rules file names the program; the fixture's restore kills it."""
    ini()
    pytester.makefile(
        ".yaml",
        outcomes="""
        - image: local/app
          process:
            command: [python3, -c, "import os, time; f = open('pid.fifo', 'w'); f.write(str(os.getpid())); f.close(); time.sleep(600)"]
        """,
    )
    pytester.makepyfile(
        test_process="""
        import os
        import select

        import pytest

        POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "app"},
               "spec": {"containers": [{"name": "app", "image": "local/app"}]}}
        held = []

        @pytest.mark.fakeapi(outcomes="outcomes.yaml", objects=[POD])
        def test_the_container_is_the_program(fakeapi):
            os.mkfifo("pid.fifo")
            fakeapi.advance(0)
            with open("pid.fifo") as fifo:  # opened once the program opens it to write
                pid = int(fifo.read())
            held.append(os.pidfd_open(pid))
            assert fakeapi.get("v1", "Pod", "app")["status"]["phase"] == "Running"

        def test_its_process_is_gone(fakeapi):
            readable, _, _ = select.select(held, [], [], 60)
            assert readable == held
        """
    )
    pytester.runpytest().assert_outcomes(passed=2)
