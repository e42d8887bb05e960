"""``@pytest.mark.fakeapi(controllers=...)`` and ``fakeapi.advance()``: simulated controllers for one test,
each test starting from the same instant on the fake clock, other tests without any."""

from __future__ import annotations

from collections.abc import Callable

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
