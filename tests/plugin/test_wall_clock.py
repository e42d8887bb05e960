"""``fakeapi.follow_wall_clock()``: the fake clock moves on its own for an operator that runs in the
background, the controllers act as its writes and their own steps fall due (docs/cluster-defaults.md)."""

from __future__ import annotations

from collections.abc import Callable

import pytest


def test_an_operator_in_the_background_sees_a_job_finish(pytester: pytest.Pytester, ini: Callable[..., None]) -> None:
    ini()
    pytester.makepyfile(
        test_operator="""
        import threading
        from datetime import datetime

        import kubernetes
        import pytest

        JOB = {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "report"},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "r", "image": "busybox"}]}}},
        }

        def seconds(stamp):
            return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").timestamp()

        @pytest.mark.fakeapi(controllers="all", objects=[JOB])
        def test_the_operator_reports_the_finished_job(fakeapi, fakeapi_kubeconfig):
            client = kubernetes.config.new_client_from_config(str(fakeapi_kubeconfig))
            jobs, core = kubernetes.client.BatchV1Api(client), kubernetes.client.CoreV1Api(client)
            assert "startTime" not in fakeapi.get("batch/v1", "Job", "report").get("status", {})

            def operator():
                for event in kubernetes.watch.Watch().stream(jobs.list_namespaced_job, "default", _request_timeout=60):
                    if event["object"].status.succeeded:
                        body = {"metadata": {"name": "report-done"}, "data": {"job": event["object"].metadata.name}}
                        core.create_namespaced_config_map("default", body)
                        return

            worker = threading.Thread(target=operator)
            worker.start()
            fakeapi.follow_wall_clock(speed=20)
            worker.join(60)
            assert not worker.is_alive()
            assert fakeapi.get("v1", "ConfigMap", "report-done")["data"] == {"job": "report"}
            status = fakeapi.get("batch/v1", "Job", "report")["status"]
            assert seconds(status["completionTime"]) - seconds(status["startTime"]) == 1

        def test_without_controllers_the_clock_cannot_follow(fakeapi):
            with pytest.raises(RuntimeError, match="follow_wall_clock"):
                fakeapi.follow_wall_clock()
        """
    )
    pytester.runpytest().assert_outcomes(passed=2)
