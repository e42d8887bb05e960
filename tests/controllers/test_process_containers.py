"""Containers backed by a local process: its output is the log, its exit the container's, exec runs
beside it, deletion and the server's shutdown stop it (docs/process-containers.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from fakeapi import FakeAPIServer, Outcome, OutcomeRule
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

START = 1_700_000_000.0  # 2023-11-14T22:13:20Z
PODS = "/api/v1/namespaces/default/pods"
WAIT = 60.0  # a guard against a hang, never an ordering
PYTHON = sys.executable
SUCCESS = {"metadata": {}, "status": "Success"}


def python(code: str, **options: Any) -> Outcome:
    return Outcome.process([PYTHON, "-u", "-c", code], **options)


def pod(name: str, image: str, restart: str = "Never", **container: Any) -> dict[str, Any]:
    spec = {"restartPolicy": restart, "containers": [{"name": "main", "image": image, **container}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": name}}, "spec": spec}


@contextlib.asynccontextmanager
async def serving(rules: list[OutcomeRule]) -> AsyncIterator[tuple[FakeAPIServer, RawClient]]:
    """A server with these rules (stopped however the test ends, and with it its processes), a client."""
    async with (
        FakeAPIServer(controllers="all", outcomes=rules, clock=lambda: START, seed=7) as server,
        aiohttp.ClientSession(auto_decompress=False) as session,
    ):
        yield server, RawClient(session, server.url)
        assert server.errors == [], "\n".join(server.errors)


async def until(
    client: RawClient, name: str, done: Callable[[dict[str, Any]], bool], since: str = ""
) -> dict[str, Any]:
    """The first watch event on pod ``name`` after resourceVersion ``since`` (the current state when
    empty) that ``done`` accepts: the events say when, not a timer."""

    async def watch() -> dict[str, Any]:
        url = f"{client.base}{PODS}?watch=1&fieldSelector=metadata.name%3D{name}&resourceVersion={since}"
        async with client.session.get(url) as response:
            async for line in response.content:
                event: dict[str, Any] = json.loads(line)
                if done(event):
                    return event
        raise AssertionError(f"the watch of {name} ended first")

    return await asyncio.wait_for(watch(), WAIT)


def phase_is(*phases: str) -> Callable[[dict[str, Any]], bool]:
    return lambda event: (event["object"].get("status") or {}).get("phase") in phases


def state_of(event: dict[str, Any]) -> dict[str, Any]:
    state: dict[str, Any] = event["object"]["status"]["containerStatuses"][0]["state"]
    return state


async def test_the_log_is_what_the_process_writes_and_its_exit_code_the_containers(tmp_path: Path) -> None:
    code = (
        "import sys; print('to stdout'); print('to stderr', file=sys.stderr); print('no newline', end=''); sys.exit(3)"
    )
    async with serving([OutcomeRule(python(code, working_dir=tmp_path), image="py")]) as (server, client):
        assert (await client.post(PODS, pod("p", "py"))).status == 201
        server.advance(0)
        failed = await until(client, "p", phase_is("Failed"))
        terminated = state_of(failed)["terminated"]
        assert (terminated["exitCode"], terminated["reason"]) == (3, "Error")
        assert terminated["startedAt"] == terminated["finishedAt"] == "2023-11-14T22:13:20Z"
        log = await client.get(f"{PODS}/p/log")
        assert log.status == 200
        assert sorted(log.body.decode().splitlines()) == ["no newline", "to stderr", "to stdout"]
        assert log.body.endswith(b"\n")
        stamped = await client.get(f"{PODS}/p/log?timestamps=true&tailLines=1")
        assert stamped.body.startswith(b"2023-11-14T22:13:20Z ")


async def test_follow_streams_until_the_process_ends_and_success_is_completed(tmp_path: Path) -> None:
    # The process waits for a file the test writes after reading its first line: the order is the test's.
    gate = tmp_path / "go"
    code = (
        f"import os, time\nprint('waiting')\nwhile not os.path.exists({str(gate)!r}): time.sleep(0.01)\nprint('done')"
    )
    async with serving([OutcomeRule(python(code), image="py")]) as (server, client):
        await client.post(PODS, pod("p", "py"))
        server.advance(0)
        await until(client, "p", phase_is("Running"))
        async with client.session.get(f"{client.base}{PODS}/p/log?follow=true") as response:
            assert await asyncio.wait_for(response.content.readline(), WAIT) == b"waiting\n"
            gate.write_text("")
            assert await asyncio.wait_for(response.content.read(), WAIT) == b"done\n"
        succeeded = await until(client, "p", phase_is("Succeeded"))
        terminated = state_of(succeeded)["terminated"]
        assert (terminated["exitCode"], terminated["reason"]) == (0, "Completed")


async def test_the_process_gets_the_pods_env_and_the_outcomes_env_over_it(tmp_path: Path) -> None:
    code = "import os\nfor key in ('GREETING', 'ESCAPED', 'POD', 'NODE', 'TIER', 'HOSTNAME', 'OVER'): print(key, os.environ.get(key))\nprint(os.getcwd())"
    rules = [OutcomeRule(python(code, working_dir=tmp_path, env={"OVER": "from the test"}), image="py")]
    env = [
        {"name": "NAME", "value": "world"},
        {"name": "GREETING", "value": "hello $(NAME) $(UNKNOWN)"},
        {"name": "ESCAPED", "value": "$$(NAME)"},
        {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
        {"name": "TIER", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}},
        {"name": "OVER", "value": "from the pod"},
    ]
    async with serving(rules) as (server, client):
        await client.post(PODS, pod("envy", "py", env=env))
        server.advance(0)
        await until(client, "envy", phase_is("Succeeded"))
        log = (await client.get(f"{PODS}/envy/log")).body.decode().splitlines()
    assert log == [
        "GREETING hello world $(UNKNOWN)",
        "ESCAPED $(NAME)",
        "POD envy",
        "NODE node-1",
        "TIER envy",
        "HOSTNAME envy",
        "OVER from the test",
        str(tmp_path),
    ]


async def test_a_program_that_cannot_start_is_a_start_error() -> None:
    rules = [OutcomeRule(Outcome.process(["/nonexistent/program"]), image="py")]
    async with serving(rules) as (server, client):
        await client.post(PODS, pod("p", "py"))
        server.advance(0)
        terminated = state_of(await until(client, "p", phase_is("Failed")))["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (128, "StartError")
    assert terminated["message"].startswith("failed to start local process: [Errno 2] No such file or directory")


async def test_on_failure_restarts_the_process_and_the_previous_log_is_the_last_run(tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    code = (
        f"import pathlib, sys\np = pathlib.Path({str(counter)!r})\nruns = len(p.read_text()) if p.exists() else 0\n"
        "p.write_text('x' * (runs + 1))\nprint('run', runs + 1)\nsys.exit(1 if runs == 0 else 0)"
    )
    async with serving([OutcomeRule(python(code), image="py")]) as (server, client):
        await client.post(PODS, pod("p", "py", restart="OnFailure"))
        server.advance(0)
        succeeded = await until(client, "p", phase_is("Succeeded"))
        entry = succeeded["object"]["status"]["containerStatuses"][0]
        assert entry["restartCount"] == 1
        assert entry["lastState"]["terminated"]["exitCode"] == 1
        assert (await client.get(f"{PODS}/p/log")).body == b"run 2\n"
        assert (await client.get(f"{PODS}/p/log?previous=true")).body == b"run 1\n"


async def test_exec_runs_beside_the_process_in_its_working_directory_with_stdin(tmp_path: Path) -> None:
    rules = [OutcomeRule(python("import time; time.sleep(600)", working_dir=tmp_path), image="py")]
    async with serving(rules) as (server, client):
        await client.post(PODS, pod("p", "py"))
        server.advance(0)
        await until(client, "p", phase_is("Running"))
        url = f"{client.base}{PODS}/p/exec?command=pwd&stdout=1&stderr=1"
        async with client.session.ws_connect(url, protocols=("v5.channel.k8s.io",)) as socket:
            received = [message.data async for message in socket]
        assert received == [
            b"\x01",
            b"\x01" + str(tmp_path).encode() + b"\n",
            b"\x03" + json.dumps(SUCCESS).replace(" ", "").encode(),
        ]

        command = "&".join(
            f"command={part}" for part in (PYTHON, "-c", "import%20sys;%20sys.exit(len(sys.stdin.read()))")
        )
        async with client.session.ws_connect(
            f"{client.base}{PODS}/p/exec?{command}&stdin=1&stdout=1", protocols=("v5.channel.k8s.io",)
        ) as socket:
            assert await socket.receive_bytes() == b"\x01"
            await socket.send_bytes(b"\x00four")
            await socket.send_bytes(b"\xff\x00")  # v5: stdin closed
            status = json.loads((await socket.receive_bytes())[1:])
        assert status["details"]["causes"] == [{"reason": "ExitCode", "message": "4"}]
        assert status["message"] == "command terminated with non-zero exit code: command terminated with exit code 4"

        async with client.session.ws_connect(
            f"{client.base}{PODS}/p/exec?command=no-such-program&stderr=1", protocols=("v4.channel.k8s.io",)
        ) as socket:
            frames = [message.data async for message in socket]
        assert (
            frames[1]
            == b"\x02fakeapi: cannot run 'no-such-program' in container main of pod default/p: No such file or directory\n"
        )
        assert json.loads(frames[2][1:])["details"]["causes"] == [{"reason": "ExitCode", "message": "127"}]

        server.script_exec("p", ["pwd"], stdout="scripted\n")  # a test's script wins over the process
        async with client.session.ws_connect(url, protocols=("v5.channel.k8s.io",)) as socket:
            assert [message.data async for message in socket][1] == b"\x01scripted\n"


def _pids_in_log(body: bytes) -> list[int]:
    return [int(word) for word in body.split()]


def _ended(descriptors: list[int]) -> bool:
    """Whether every process has ended: a pidfd is readable once its process has terminated."""
    pending = list(descriptors)
    while pending:
        readable, _, _ = select.select(pending, [], [], WAIT)
        if not readable:
            return False
        pending = [fd for fd in pending if fd not in readable]
    return True


async def test_no_process_outlives_the_server_not_even_one_it_started() -> None:
    code = (
        "import os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "print(os.getpid(), child.pid)\ntime.sleep(600)"
    )
    async with serving([OutcomeRule(python(code), image="py")]) as (server, client):
        await client.post(PODS, pod("p", "py"))
        server.advance(0)
        await until(client, "p", phase_is("Running"))
        async with client.session.get(f"{client.base}{PODS}/p/log?follow=true") as response:
            pids = _pids_in_log(await asyncio.wait_for(response.content.readline(), WAIT))
        descriptors = [os.pidfd_open(pid) for pid in pids]  # held: the pids cannot be reused meanwhile
        try:
            await server.stop()
            assert await asyncio.to_thread(_ended, descriptors)
        finally:
            for descriptor in descriptors:
                os.close(descriptor)


async def test_deletion_sends_sigterm_and_the_pod_goes_once_the_process_exits() -> None:
    code = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *_: (print('got SIGTERM'), sys.exit(0)))\n"
        "print('up')\nwhile True: time.sleep(1)"
    )
    async with serving([OutcomeRule(python(code), image="py")]) as (server, client):
        await client.post(PODS, pod("p", "py"))
        server.advance(0)
        await until(client, "p", phase_is("Running"))
        async with client.session.get(f"{client.base}{PODS}/p/log?follow=true") as response:
            assert await asyncio.wait_for(response.content.readline(), WAIT) == b"up\n"
            deleting = await client.delete(f"{PODS}/p")
            assert deleting.status == 200
            server.advance(0)  # the kubelet sees the deletion: SIGTERM
            assert await asyncio.wait_for(response.content.read(), WAIT) == b"got SIGTERM\n"
        since = deleting.json()["metadata"]["resourceVersion"]
        deleted = await until(client, "p", lambda event: event["type"] == "DELETED", since)
        terminated = state_of(deleted)["terminated"]
        assert (terminated["exitCode"], terminated["reason"]) == (0, "Completed")


async def test_a_process_that_ignores_sigterm_is_killed_when_the_grace_period_ends_on_the_fake_clock() -> None:
    code = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('up')\ntime.sleep(600)"
    async with serving([OutcomeRule(python(code), image="py")]) as (server, client):
        await client.post(PODS, pod("p", "py"))
        server.advance(0)
        await until(client, "p", phase_is("Running"))
        async with client.session.get(f"{client.base}{PODS}/p/log?follow=true") as response:
            pid_line = await asyncio.wait_for(response.content.readline(), WAIT)
        assert pid_line == b"up\n"
        body = {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 5}
        deleting = await client.delete(f"{PODS}/p", body)
        assert deleting.status == 200
        server.advance(4)
        assert (await client.get(f"{PODS}/p")).json()["status"]["phase"] == "Running"
        server.advance(1)
        since = deleting.json()["metadata"]["resourceVersion"]
        deleted = await until(client, "p", lambda event: event["type"] == "DELETED", since)
        terminated = state_of(deleted)["terminated"]
    assert (terminated["exitCode"], terminated["finishedAt"]) == (137, "2023-11-14T22:13:25Z")


async def test_an_annotation_cannot_name_a_process(tmp_path: Path) -> None:
    marker = tmp_path / "never"
    async with serving([]) as (server, client):
        body = pod("p", "anything")
        body["metadata"]["annotations"] = {
            "fakeapi.dev/outcome": json.dumps(f"process {json.dumps(['touch', str(marker)])}")[1:-1]
        }
        await client.post(PODS, body)
        server.advance(60)
        status = (await client.get(f"{PODS}/p")).json()["status"]
    assert status["phase"] == "Running"  # the annotation does not parse as an outcome: run
    assert not marker.exists()


async def test_stepped_controllers_refuse_process_rules() -> None:
    server = FakeAPIServer()
    with pytest.raises(ValueError, match="stepped controllers cannot run process-backed containers"):
        server.set_controllers("all", outcomes=[OutcomeRule(python("pass"), image="py")], stepped=True)


async def test_a_pod_deleted_at_once_has_its_process_killed_at_the_kubelets_next_sync() -> None:
    code = "import os, signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint(os.getpid())\ntime.sleep(600)"
    async with serving([OutcomeRule(python(code), image="py")]) as (server, client):
        await client.post(PODS, pod("p", "py"))
        server.advance(0)
        await until(client, "p", phase_is("Running"))
        async with client.session.get(f"{client.base}{PODS}/p/log?follow=true") as response:
            [pid] = _pids_in_log(await asyncio.wait_for(response.content.readline(), WAIT))
        descriptor = os.pidfd_open(pid)
        try:
            body = {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0}
            assert (await client.delete(f"{PODS}/p", body)).status == 200
            assert (await client.get(f"{PODS}/p")).status == 404
            server.advance(0)
            assert await asyncio.to_thread(_ended, [descriptor])
        finally:
            os.close(descriptor)
