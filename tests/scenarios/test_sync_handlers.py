"""Synchronous kopf handlers that call the API with the synchronous ``kubernetes`` client: kopf runs
them in executor threads, whose requests wait at the gate like any other, and a replica whose
threads wait on the server is settled (docs/scenarios-operators.md, scenarios/_replica_threads.py)."""

from __future__ import annotations

import asyncio
import socket
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from scenarios import _replica_threads as replica_threads
from scenarios import at_most_once, explore
from scenarios._engine import Engine
from scenarios._model import RunRecord, Scenario
from scenarios._replicas import ReplicaPool
from scenarios._schedules import Replay

from .test_operators import run_engine, seed

pytest.importorskip("kopf")
pytest.importorskip("kubernetes")

SYNC_OPERATOR = str(Path(__file__).parent / "operators" / "seed_operator_sync.py")


def sync_seed(guard: str, **options: Any) -> Scenario:
    """The seed scenario with the operator whose handler is synchronous."""
    target = seed(guard, **options)
    assert target.operator is not None
    operator = replace(target.operator, command=(SYNC_OPERATOR, *target.operator.command[1:]))
    return replace(target, operator=operator)


def test_the_handler_threads_requests_are_steps_and_the_resource_version_claim_holds() -> None:
    exploration = explore(sync_seed("resource-version"), exhaustive=True)
    assert exploration.verdict == "holds", exploration.report()
    assert exploration.runs > 1


def test_the_whole_annotations_claim_of_a_sync_handler_never_completes() -> None:
    exploration = explore(sync_seed("annotations"), exhaustive=True)
    assert exploration.verdict == "violated: liveness"
    report = exploration.report()
    # The thread's own reads and refused claims are steps of the replica, as a coroutine's are,
    # labelled with the handler that sent them.
    assert "| replica-1 | GET jobs/job-1 (kopf handler complete for default/job-1) |  | 200 |" in report
    assert "| replica-1 | PATCH jobs/job-1 (json-patch) (kopf handler complete for default/job-1) |  | 422 |" in report
    assert "test /metadata/annotations" in report


def test_two_replicas_with_an_unguarded_sync_claim_complete_twice() -> None:
    exploration = explore(
        sync_seed("none", replicas=2, payload="plain"), exhaustive=False, schedules=40, seed=3, shrink=False
    )
    assert exploration.verdict == "violated: safety", exploration.report()
    assert exploration.counterexample is not None
    assert {effect.actor for effect in exploration.counterexample.effects} == {"replica-1", "replica-2"}


def test_a_replica_killed_while_its_thread_waits_restarts_and_the_claim_stays_at_most_once() -> None:
    target = sync_seed("resource-version", faults=("crash",))
    safe = explore(replace(target, checks=(at_most_once("complete", "default/job-1"),)), exhaustive=True)
    assert safe.verdict == "holds", safe.report()
    exact = explore(target, exhaustive=True)
    assert exact.verdict == "violated: liveness"
    assert exact.counterexample is not None
    crashed = [step.option.method for step in exact.counterexample.steps if step.fault == "crash-after"]
    assert crashed == ["PATCH"]


def test_a_run_with_handler_threads_is_a_function_of_its_choices() -> None:
    first, second = run_engine(sync_seed("resource-version", replicas=2), runs=2)
    assert [step.option.label for step in first.steps] == [step.option.label for step in second.steps]
    assert [step.event for step in first.steps] == [step.event for step in second.steps]
    assert first.final == second.final
    # The handler thread's read of the one job is among the replica's steps.
    assert any(
        step.option.label[2:] == ("GET", "/apis/example.com/v1/namespaces/default/jobs/job-1") for step in first.steps
    )


READ_JOB = ("replica-1", "", "GET", "/apis/example.com/v1/namespaces/default/jobs/job-1")


def pausing(horizon: float) -> Scenario:
    """The sync operator whose handler first waits 45 s with ``time.sleep``, and a clock horizon."""
    target = sync_seed("resource-version", horizon=horizon)
    assert target.operator is not None
    environment = {**target.operator.environment, "SEED_PAUSE": "45"}
    return replace(target, operator=replace(target.operator, environment=environment))


def clock_at(label: tuple[str, ...]) -> float:
    """Seconds after the start that a clock step's label names (``clock: 45 s after the start ...``)."""
    return float(label[3].split(": ", 1)[1].split(" s ", 1)[0])


def test_time_sleep_in_a_handler_thread_sleeps_on_the_virtual_clock() -> None:
    """A 45 s sleep is a wait for the clock: the engine moves it (clock steps), the handler claims
    only once 45 s have passed, and no real time passes (a real 45 s sleep would outlast the 30 s
    settle timeout and stop the run as stuck). Within a 30 s horizon the claim never comes."""
    (run,) = run_engine(pausing(60.0))
    assert not run.errors
    steps = [step.option.label for step in run.steps]
    claim = steps.index(READ_JOB)
    before = [clock_at(label) for label in steps[:claim] if label[0] == "clock"]
    assert before and max(before) >= 45
    assert [(effect.name, effect.actor) for effect in run.effects] == [("complete", "replica-1")]

    (short,) = run_engine(pausing(30.0))
    assert not short.errors and not short.effects
    # The handler never got past its sleep: it never read the job to claim it.
    assert READ_JOB not in [step.option.label for step in short.steps]


def test_api_modules_a_replica_imported_are_the_launchers_for_later_replicas() -> None:
    """The kubernetes client imports an API module at its first use, in every fresh replica; the
    launcher imports the ones replicas reported, so later replicas start with them. Runs are the
    same before and after."""

    async def runs() -> tuple[list[RunRecord], set[str]]:
        engine = Engine(sync_seed("resource-version"))
        await engine.start()
        try:
            records = [await engine.run(Replay([])) for _ in range(3)]
            assert isinstance(engine.pool, ReplicaPool)
            return records, set(engine.pool.preloaded)
        finally:
            await engine.stop()

    (first, _, third), preloaded = asyncio.run(runs())
    assert "kubernetes.client.api.custom_objects_api" in preloaded
    assert [step.option.label for step in first.steps] == [step.option.label for step in third.steps]
    assert first.final == third.final


def test_a_job_thread_waits_only_while_its_socket_has_nothing_to_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop's check counts a job thread blocked in a read from the engine's server as waiting
    until bytes arrive; a job blocked on something else, a read from another server included, is
    never counted, and neither is a thread of no job."""
    for method in ("recv", "recv_into", "connect"):
        monkeypatch.setattr(socket.socket, method, getattr(socket.socket, method))
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    elsewhere = socket.create_server(("127.0.0.1", 0))
    release = threading.Event()

    async def scenario() -> list[int]:
        loop = asyncio.get_running_loop()
        woken = asyncio.Event()
        monkeypatch.setattr(replica_threads, "_nothing", woken.set)
        replica_threads.install(loop, f"http://127.0.0.1:{port}")
        replica_threads.open_doors()
        seen = []

        def watched(address: tuple[str, int]) -> bool:
            with socket.create_connection(address) as client:
                return bool(replica_threads._blocking_read(client, 0))

        assert await loop.run_in_executor(None, replica_threads.as_job(lambda: watched(listener.getsockname())))
        assert not await loop.run_in_executor(None, replica_threads.as_job(lambda: watched(elsewhere.getsockname())))
        assert not await loop.run_in_executor(None, lambda: watched(listener.getsockname()))
        for _ in range(2):  # the two connections above, before the one the reading job makes
            listener.accept()[0].close()
        elsewhere.accept()[0].close()

        def read_once() -> bytes:
            with socket.create_connection(("127.0.0.1", port)) as client:
                return client.recv(16)

        reading = loop.run_in_executor(None, replica_threads.as_job(read_once))
        server_side, _ = await loop.run_in_executor(None, listener.accept)
        await woken.wait()
        seen.append(replica_threads.job_threads_waiting())
        server_side.sendall(b"answer")
        seen.append(replica_threads.job_threads_waiting())
        assert await reading == b"answer"
        seen.append(replica_threads.job_threads_waiting())
        blocked_elsewhere = loop.run_in_executor(None, replica_threads.as_job(release.wait))
        seen.append(replica_threads.job_threads_waiting())
        release.set()
        await blocked_elsewhere
        server_side.close()
        return seen

    try:
        assert asyncio.run(scenario()) == [1, 0, 0, 0]
    finally:
        listener.close()
        elsewhere.close()
