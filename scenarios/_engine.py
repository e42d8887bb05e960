"""The engine: runs a scenario's actors against fakeapi, one released request at a time.

Everything shares one event loop: the server, the conductor at its gate, and the actors' tasks.
A run restores the store from a snapshot, starts the actors one by one (each until it is blocked at
the gate or done), then repeatedly asks a chooser which held request to release, and with which
fault, and waits until that actor is blocked again or done. The other actors cannot move meanwhile,
so the run is a function of its choices. Clients and the server live across runs; only the store
is restored, which is what keeps a schedule cheap.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import aiohttp

from fakeapi import FakeAPIServer, GateDecision, GateRequest
from scenarios._actors import (
    ActorClients,
    ActorRuntime,
    KubeconfigPointer,
    SetupContext,
    TickContext,
    describe_error,
    run_tick,
)
from scenarios._faults import FAULTS, applicable, decision_for, validate_faults
from scenarios._gating import Conductor
from scenarios._model import ActorError, Choice, Effect, ObjectKey, Option, RunRecord, Scenario, Step
from scenarios._schedules import Chooser, observe

__all__ = ["FIXED_CLOCK", "Engine", "EngineStuck", "object_key"]

FIXED_CLOCK = 1_700_000_000.0
_SETUP_TOKEN = "scenarios-setup"

# Requests still held when a run ends get a 503 rather than a cut: their actors are being cancelled
# anyway, and a cut would make aiohttp log a traceback.
_RUN_OVER = GateDecision(fail_before={"code": 503, "reason": "ServiceUnavailable", "message": "the run is over"})


class _QuietCuts(logging.Filter):
    """Drop aiohttp's traceback for connections the gate cut on purpose (faults); keep everything else."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not (isinstance(error, ConnectionResetError) and "by the gate" in str(error))


_QUIET_CUTS = _QuietCuts()


class EngineStuck(RuntimeError):
    """An actor neither reached the gate nor finished: it waits on something the engine does not control."""


def object_key(server: FakeAPIServer, obj: dict[str, Any]) -> ObjectKey:
    rtype = server.resource_type(obj.get("apiVersion", ""), obj.get("kind", ""))
    metadata = obj.get("metadata") or {}
    namespace = (metadata.get("namespace") or "default") if rtype.namespaced else ""
    return (rtype.group, rtype.plural, namespace, metadata.get("name", ""))


class Engine:
    """Runs one scenario's schedules. ``await start()``, ``await run(chooser)`` as often as needed, ``await stop()``."""

    def __init__(self, scenario: Scenario, *, settle_timeout: float = 30.0) -> None:
        validate_faults(scenario.faults)
        names = [actor.name for actor in scenario.actors]
        if len(set(names)) != len(names):
            raise ValueError(f"actor names must be unique: {names}")
        self.scenario = scenario
        self.settle_timeout = settle_timeout
        self.server = FakeAPIServer(clock=lambda: FIXED_CLOCK, seed=scenario.seed)
        self.conductor = Conductor(set(names))
        self.conductor.hold_watches = any(FAULTS[name].verbs == ("watch",) for name in scenario.faults)
        self.pointer = KubeconfigPointer()
        self.clients: dict[str, ActorClients] = {}
        self._workdir = tempfile.TemporaryDirectory(prefix="scenarios-")
        self._kinds: dict[tuple[str, str], tuple[str, str]] = {}
        self._initial: dict[ObjectKey, dict[str, Any]] = {}
        self._snapshot: Any = None
        self._pristine: Any = None
        self._runtimes: dict[str, ActorRuntime] = {}
        self._record = RunRecord(choices=[])
        self._faults_used = 0

    # -- lifecycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        logging.getLogger("aiohttp.server").addFilter(_QUIET_CUTS)
        self._pristine = self.server.snapshot()
        await self.server.start()
        workdir = Path(self._workdir.name)
        for actor in self.scenario.actors:
            path = self.server.kubeconfig(workdir / f"{actor.name}.kubeconfig", token=actor.name)
            clients = ActorClients(actor.name, path, self.server.url, actor.name)
            await clients.open()
            self.clients[actor.name] = clients
        await self.prepare(self.scenario.objects)

    async def stop(self) -> None:
        for clients in self.clients.values():
            with contextlib.suppress(Exception):
                await clients.close()
        self.pointer.restore()
        await self.server.stop()
        logging.getLogger("aiohttp.server").removeFilter(_QUIET_CUTS)
        self._workdir.cleanup()

    async def prepare(self, objects: Iterable[dict[str, Any]]) -> None:
        """Start over from these objects (and the setup hook); every run restores this state.

        The server first goes back to its pristine state (revision and name generator included), so the
        same objects give the same uids and resourceVersions however many data sets came before.
        """
        self.server.restore(self._pristine)
        self.conductor.active = False
        self.server.set_gate(self.conductor.gate)
        objects = list(objects)
        loaded = self.server.load(*objects)
        self._kinds.clear()
        self._initial.clear()
        for obj in loaded:
            if obj.get("kind") == "CustomResourceDefinition":
                continue
            key = object_key(self.server, obj)
            self._kinds[key[:2]] = (obj["apiVersion"], obj["kind"])
            self._initial[key] = obj
        await self._write_statuses(objects)
        if self.scenario.setup is not None:
            await self._run_setup()
        self._initial = {key: self._fetch(key) or {} for key in self._initial}
        self._snapshot = self.server.snapshot()

    async def _write_statuses(self, objects: list[dict[str, Any]]) -> None:
        """Objects given with a status get it through the status subresource, as a status pusher would."""
        with_status = [obj for obj in objects if obj.get("status") and obj.get("kind") != "CustomResourceDefinition"]
        if not with_status:
            return
        headers = {"Content-Type": "application/merge-patch+json", "Authorization": f"Bearer {_SETUP_TOKEN}"}
        async with aiohttp.ClientSession(base_url=self.server.url, headers=headers) as session:
            for obj in with_status:
                group, plural, namespace, name = object_key(self.server, obj)
                version = obj["apiVersion"].rpartition("/")[2]
                prefix = f"/apis/{group}/{version}" if group else f"/api/{version}"
                where = f"/namespaces/{namespace}" if namespace else ""
                body = json.dumps({"status": obj["status"]})
                async with session.patch(f"{prefix}{where}/{plural}/{name}/status", data=body) as response:
                    if response.status >= 300:
                        raise ValueError(f"cannot set the status of {plural}/{name}: {await response.text()}")

    async def _run_setup(self) -> None:
        from kubernetes_asyncio import config

        assert self.scenario.setup is not None
        path = self.server.kubeconfig(Path(self._workdir.name) / "setup.kubeconfig", token=_SETUP_TOKEN)
        async with await config.new_client_from_config(config_file=str(path)) as api:
            await self.scenario.setup(SetupContext(api))

    def _fetch(self, key: ObjectKey) -> dict[str, Any] | None:
        kind = self._kinds.get(key[:2])
        if kind is None:
            return None
        return self.server.find(kind[0], kind[1], key[3], key[2] or "default")

    # -- one run --------------------------------------------------------------------------------

    async def run(self, chooser: Chooser) -> RunRecord:
        """One run from the snapshot, its choices made by ``chooser``."""
        self.server.restore(self._snapshot)
        self._record = record = RunRecord(choices=[], initial=self._initial)
        self._faults_used = 0
        self._runtimes = {
            actor.name: ActorRuntime(actor, restarts_left=actor.restarts) for actor in self.scenario.actors
        }
        self.conductor.active = True
        try:
            for actor in self.scenario.actors:
                await self._start_actor(self._runtimes[actor.name])
            previous: str | None = None
            while self.conductor.held:
                if len(record.steps) >= self.scenario.max_steps:
                    record.outcome = "step-budget"
                    break
                options, requests = self._options()
                default = _default_choice(options, previous)
                index = chooser.choose(options, default)
                if index is None:
                    record.outcome = "pruned"
                    break
                chosen = options[index]
                plain = next(
                    i for i, o in enumerate(options) if o.label == (chosen.actor, "", chosen.method, chosen.path)
                )
                record.choices.append(Choice(index, len(options), default, plain, chosen.fault))
                committed = await self._perform(options[index], requests[index])
                observe(chooser, committed)
                previous = options[index].actor
        finally:
            await self._halt()
        journal = {entry.sequence: entry for entry in self.server.journal}
        for step in record.steps:
            step.entry = journal.get(step.sequence)
        record.final = {key: self._fetch(key) for key in self._initial}
        return record

    def _options(self) -> tuple[list[Option], list[GateRequest]]:
        options: list[Option] = []
        requests: list[GateRequest] = []
        budget = self._faults_used < self.scenario.max_faults
        for actor in sorted(self.conductor.held):
            runtime = self._runtimes[actor]
            for held in self.conductor.held[actor]:
                request = held.request
                target = (request.group, request.resource, request.namespace, request.name)
                base = Option(actor, None, request.method, request.path, request.verb, target)
                options.append(base)
                requests.append(request)
                if not budget:
                    continue
                stale = self._stale_revision(target)
                for fault in self.scenario.faults:
                    if fault == "crash":
                        # A blocking tick runs in a thread nobody can stop: only async actors crash.
                        if runtime.restarts_left <= 0 or runtime.requests == 0 or not runtime.stoppable:
                            continue
                    elif not applicable(fault, request, stale_revision=stale):
                        continue
                    options.append(Option(actor, fault, request.method, request.path, request.verb, target))
                    requests.append(request)
        return options, requests

    def _stale_revision(self, target: ObjectKey) -> int | None:
        """The revision just before the object's last committed write in this run, if any."""
        for step in reversed(self._record.steps):
            if step.committed and step.option.target == target:
                return step.revision_before
        return None

    async def _perform(self, option: Option, request: GateRequest) -> bool:
        record = self._record
        runtime = self._runtimes[option.actor]
        step = Step(len(record.steps) + 1, option, runtime.incarnation, request.query, request.sequence)
        step.revision_before = self.server.revision
        record.steps.append(step)
        runtime.last_step = step.number
        runtime.requests += 1
        if option.fault is not None:
            self._faults_used += 1
        held = self.conductor.take(option.actor, request)
        if option.fault == "crash":
            await self._crash(runtime, held)
        else:
            if option.fault == "watch-expire":
                self.server.compact()
            stale = self._stale_revision(option.target) if option.fault == "stale-read" else None
            waiter = self.conductor.expect(option.actor)
            self.pointer.point(self.clients[option.actor].kubeconfig)
            self.conductor.release(held, decision_for(option.fault, request, stale_revision=stale))
            await self._settle(option.actor, waiter)
        if self.server.revision != step.revision_before:
            step.committed = True
            step.state_after = self._fetch(option.target)
        return step.committed

    async def _crash(self, runtime: ActorRuntime, held: Any) -> None:
        task = runtime.task
        if task is not None:
            task.cancel()
        self.conductor.release(held, GateDecision(drop_before=True))
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)
        runtime.incarnation += 1
        runtime.restarts_left -= 1
        runtime.requests = 0
        runtime.memory = {}
        await self._start_actor(runtime)

    async def _start_actor(self, runtime: ActorRuntime) -> None:
        name = runtime.actor.name
        waiter = self.conductor.expect(name)
        self.pointer.point(self.clients[name].kubeconfig)
        task = asyncio.get_running_loop().create_task(self._actor_body(runtime))
        runtime.task = task
        task.add_done_callback(lambda _: self.conductor.wake(name))
        await self._settle(name, waiter)

    async def _actor_body(self, runtime: ActorRuntime) -> None:
        actor = runtime.actor
        clients = self.clients[actor.name]
        while runtime.ticks_done < actor.ticks:
            context = TickContext(runtime, clients, self._effect_recorder(runtime), "default")
            try:
                await run_tick(actor, context)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self._record.errors.append(
                    ActorError(
                        actor.name, runtime.incarnation, runtime.ticks_done, runtime.last_step, describe_error(error)
                    )
                )
            runtime.ticks_done += 1

    def _effect_recorder(self, runtime: ActorRuntime) -> Any:
        record = self._record
        incarnation, tick = runtime.incarnation, runtime.ticks_done

        def effect(name: str, key: str) -> None:
            record.effects.append(Effect(name, key, runtime.actor.name, incarnation, tick, runtime.last_step))

        return effect

    async def _settle(self, actor: str, waiter: asyncio.Future[None]) -> None:
        """Wait until ``actor`` is blocked at the gate again or done; the timer only catches a stuck actor."""

        def stuck() -> None:
            if not waiter.done():
                waiter.set_exception(
                    EngineStuck(
                        f"actor {actor} neither sent a request nor finished within {self.settle_timeout:g} s: it "
                        "waits on something the engine does not control (a watch for another actor's write, a "
                        "sleep, a lock)"
                    )
                )

        watchdog = asyncio.get_running_loop().call_later(self.settle_timeout, stuck)
        try:
            await waiter
        finally:
            watchdog.cancel()

    async def _halt(self) -> None:
        self.conductor.active = False
        tasks = [runtime.task for runtime in self._runtimes.values() if runtime.task and not runtime.task.done()]
        for task in tasks:
            task.cancel()
        self.conductor.release_all(_RUN_OVER)
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


def _default_choice(options: Sequence[Option], previous: str | None) -> int:
    """Keep running the actor that ran last (fewest context switches), else the first actor."""
    for index, option in enumerate(options):
        if option.actor == previous and option.fault is None:
            return index
    return next(index for index, option in enumerate(options) if option.fault is None)
