"""The engine: runs a scenario's actors against fakeapi, one released action at a time.

Everything shares one event loop: the server, the conductor at its gate, and the actors' tasks.
A run restores the store from a snapshot, starts the actors one by one (each until it is held at
the gate or done), then repeatedly asks a chooser which held action to release, and with which
fault, and waits until that actor is held again or done. The other actors cannot move meanwhile,
so the run is a function of its choices. Clients and the server live across runs; only the store
is restored, which is what keeps a schedule cheap.

Watches: every watch an actor opens is metered (:class:`fakeapi.WatchValve`). An actor that waits
for its next watch event is *parked*: the engine sees that nothing on the loop can move (no
callback ready, no socket readable, no timer due) while the actor's task is alive and holds no
request, and stops waiting for it. Letting one event through to a parked actor is then an option
like releasing a request, so when a watcher sees another actor's write is part of the schedule.
This needs the standard asyncio loop (it reads the loop's ready queue and selector) and async
ticks: a thread blocked on a watch cannot be told from a thread at work.

Webhooks: with a scenario's ``webhooks``, every admission webhook call a write makes is held too,
as a step of the writing actor (:mod:`scenarios._webhooks`); the write waits at admission meanwhile.

Crashes follow docs/scenarios-crash-model.md: an actor dies before a request leaves, after the
server ran a write (before it acts on the answer), or at the end of a tick whose last action was a
side effect. An async tick is cancelled where it stands; a synchronous one (a thread) gets
:class:`ActorCrashed` raised at its next Python instruction. Either way no more of its code runs
before the engine restarts it with empty memory.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import json
import logging
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import aiohttp

from fakeapi import APIError, FakeAPIServer, GateDecision, GateRequest, WatchValve
from scenarios import _deferred_trust as deferred_trust
from scenarios._actors import (
    ActorClients,
    ActorCrashed,
    ActorRuntime,
    ActorThreads,
    KubeconfigPointer,
    SetupContext,
    TickContext,
    describe_error,
    run_tick,
)
from scenarios._dependencies import require_engine_dependencies
from scenarios._faults import FAULTS, Fault, enabled_faults, validate_faults
from scenarios._gating import Conductor, EngineStuck, Held
from scenarios._model import (
    CLOCK,
    CONTROLLER_WRITE,
    STEPPED,
    TICK_END,
    WATCH_EVENT,
    ActorError,
    Choice,
    Effect,
    ObjectKey,
    Option,
    RunRecord,
    Scenario,
    Step,
)
from scenarios._replica_steps import ReplicaSteps
from scenarios._schedules import Chooser, known_options, observe
from scenarios._webhooks import WebhookDesk, service_routes, waiting_call

__all__ = ["FIXED_CLOCK", "Engine", "EngineStuck", "object_key"]

FIXED_CLOCK = 1_700_000_000.0
_SETUP_TOKEN = "scenarios-setup"
_SETUP_GROUPS = ("system:masters",)
_NO_TARGET: ObjectKey = ("", "", "", "")
_RESENDS_CUT = 3  # urllib3 resends up to three times by default, aiohttp once
_WATCH_FAULTS = ("watch-drop", "watch-expire")
_DELETES = ("delete", "deletecollection")

# Requests still held when a run ends get a 503 rather than a cut: their actors are being cancelled
# anyway, and a cut would make aiohttp log a traceback.
_RUN_OVER = GateDecision(fail_before=APIError("the run is over", reason="ServiceUnavailable", code=503))
_DIE = GateDecision(drop_before=True)


class _QuietCuts(logging.Filter):
    """Drop aiohttp's traceback for connections the gate cut on purpose (faults); keep everything else."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not (isinstance(error, ConnectionResetError) and "by the gate" in str(error))


_QUIET_CUTS = _QuietCuts()


def object_key(server: FakeAPIServer, obj: dict[str, Any]) -> ObjectKey:
    rtype = server.resource_type(obj.get("apiVersion", ""), obj.get("kind", ""))
    metadata = obj.get("metadata") or {}
    namespace = (metadata.get("namespace") or "default") if rtype.namespaced else ""
    return (rtype.group, rtype.plural, namespace, metadata.get("name", ""))


class Engine(ReplicaSteps):
    """Runs one scenario's schedules. ``await start()``, ``await run(chooser)`` as often as needed, ``await stop()``."""

    def __init__(self, scenario: Scenario, *, settle_timeout: float = 30.0) -> None:
        require_engine_dependencies()
        validate_faults(scenario.faults)
        names = [actor.name for actor in scenario.actors]
        if scenario.operator is not None:
            names += scenario.operator.replica_names
        if len(set(names)) != len(names):
            raise ValueError(f"actor names must be unique: {names}")
        self.scenario = scenario
        self.settle_timeout = settle_timeout
        self.faults: tuple[Fault, ...] = enabled_faults(scenario.faults)
        self.crashes = "crash" in scenario.faults
        self.fault_budget = scenario.max_faults
        """At most this many faults per run: the scenario's, lowered while searching for fewer faults."""
        self.fingerprint = scenario.fingerprint
        self._elapsed = 0.0
        self.server = FakeAPIServer(
            clock=self._wall_clock, seed=scenario.server_seed, authorization=scenario.authorization
        )
        self._controller_reads: dict[str, frozenset[tuple[str, str]] | None] = {}
        if scenario.controllers:
            self.server.set_controllers(
                scenario.controllers, nodes=scenario.nodes or None, outcomes=scenario.outcomes, stepped=True
            )
            self._controller_reads = self.server.controller_reads()
            clashing = sorted(name for name in names if name.partition("/")[0] in {*self._controller_reads, CLOCK})
            if clashing:
                raise ValueError(
                    f"actor names clash with the simulated controllers' ({', '.join(clashing)}): rename them"
                )
        self.conductor = Conductor(set(names))
        # Every watch an actor opens is a step of its own (a read of the collection), so its start,
        # which lists the store as it stands, is ordered with the writes like any read.
        self.conductor.hold_watches = True
        if scenario.operator is not None and "watch-expire" not in scenario.faults:
            self.conductor.free_watches = set(scenario.operator.replica_names)
        self.conductor.on_watch = self._watch_opened
        self.webhooks: WebhookDesk | None = None
        if scenario.webhooks:
            self.webhooks = WebhookDesk(scenario.webhooks, self.conductor)
            self.webhooks.check(scenario.objects)
            self.server.set_webhook_caller(self.webhooks)
        self._settling: str | None = None
        self._parked: asyncio.Future[None] | None = None
        self.pointer = KubeconfigPointer()
        self.clients: dict[str, ActorClients] = {}
        self._workdir = tempfile.TemporaryDirectory(prefix="scenarios-")
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=2 * len(names) + 2, thread_name_prefix="scenarios-actor"
        )
        self._kinds: dict[tuple[str, str], tuple[str, str]] = {}
        self._initial: dict[ObjectKey, dict[str, Any]] = {}
        self._snapshot: Any = None
        self._pristine: Any = None
        self._runtimes: dict[str, ActorRuntime] = {}
        self._record = RunRecord(choices=[])
        self._faults_used = 0
        self._deferring_trust = False
        self.init_replicas()

    def _wall_clock(self) -> float:
        """The server's clock: fixed, or moved with the replicas' virtual time (controllers keep their own)."""
        if self.scenario.operator is None or self.scenario.controllers:
            return FIXED_CLOCK
        return FIXED_CLOCK + self._elapsed

    # -- lifecycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        logging.getLogger("aiohttp.server").addFilter(_QUIET_CUTS)
        if not self._deferring_trust:
            deferred_trust.install()  # a Watch per tick builds a TLS context the plain-HTTP server never uses
            self._deferring_trust = True
        self._pristine = self.server.snapshot()
        await self.server.start()
        workdir = Path(self._workdir.name)
        for actor in self.scenario.actors:
            account = actor.service_account or None
            token = self.server.token_for(actor.name, service_account=account)
            path = self.server.kubeconfig(
                workdir / f"{actor.name}.kubeconfig", token=actor.name, service_account=account
            )
            clients = ActorClients(actor.name, path, self.server.url, token)
            await clients.open()
            self.clients[actor.name] = clients
        await self.start_replicas(workdir)
        await self.prepare(self.scenario.objects)

    async def stop(self) -> None:
        await self.stop_replicas()
        for clients in self.clients.values():
            with contextlib.suppress(Exception):
                await clients.close()
        self.pointer.restore()
        await self.server.stop()
        self._executor.shutdown(wait=False, cancel_futures=True)
        logging.getLogger("aiohttp.server").removeFilter(_QUIET_CUTS)
        if self._deferring_trust:
            deferred_trust.uninstall()
            self._deferring_trust = False
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
        if self.webhooks is not None:
            self.server.set_webhook_services(service_routes(objects))
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
        headers = {"Content-Type": "application/merge-patch+json", "Authorization": f"Bearer {self._setup_token()}"}
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
        path = self.server.kubeconfig(
            Path(self._workdir.name) / "setup.kubeconfig", token=_SETUP_TOKEN, user=_SETUP_TOKEN, groups=_SETUP_GROUPS
        )
        async with await config.new_client_from_config(config_file=str(path)) as api:
            await self.scenario.setup(SetupContext(api))

    def _setup_token(self) -> str:
        """Setup acts as a cluster admin (``system:masters``), whatever the scenario authorizes."""
        return self.server.token_for(_SETUP_TOKEN, user=_SETUP_TOKEN, groups=_SETUP_GROUPS)

    def _fetch(self, key: ObjectKey) -> dict[str, Any] | None:
        kind = self._kinds.get(key[:2])
        if kind is None:
            return None
        return self.server.find(kind[0], kind[1], key[3], key[2] or "default")

    # -- one run --------------------------------------------------------------------------------

    async def run(self, chooser: Chooser) -> RunRecord:
        """One run from the snapshot, its choices made by ``chooser``."""
        self.server.restore(self._snapshot)
        self._record = record = RunRecord(choices=[], initial=self._initial, fingerprint=self.fingerprint)
        self._faults_used = 0
        self._elapsed = 0.0
        self._runtimes = {
            actor.name: ActorRuntime(actor, restarts_left=actor.restarts, threads=ActorThreads(self._executor))
            for actor in self.scenario.actors
        }
        self._runtimes.update(self.replica_runtimes())
        if self.scenario.before_run is not None:
            outcome = self.scenario.before_run()
            if inspect.isawaitable(outcome):
                await outcome
        self.conductor.active = True
        try:
            for actor in self.scenario.actors:
                await self._start_actor(self._runtimes[actor.name])
            await self.start_replicas_of_run()
            previous: str | None = None
            while True:
                options, pending = self._options(known_options(chooser))
                if not options:
                    break
                if len(record.steps) >= self.scenario.max_steps:
                    record.outcome = "step-budget"
                    break
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
                committed = await self._perform(chosen, pending[index])
                observe(chooser, committed)
                previous = chosen.actor
        finally:
            await self._halt()
        journal = {entry.sequence: entry for entry in self.server.journal}
        for step in record.steps:
            step.entry = journal.get(step.sequence) if step.sequence else None
        record.final = {key: self._fetch(key) for key in self._initial}
        for step in record.steps:
            created = step.created
            if created is not None and step.entry is not None:
                api_version, kind, name = created
                key = (step.entry.group, step.entry.resource, step.entry.namespace, name)
                if key not in record.final:
                    record.final[key] = self.server.find(api_version, kind, name, step.entry.namespace or "default")
        return record

    def _parked_actors(self) -> list[str]:
        """Actors alive, holding no request, waiting on their watches."""
        return [
            name
            for name, runtime in self._runtimes.items()
            if runtime.task is not None and not runtime.task.done() and name not in self.conductor.held
        ]

    def _deliverable(self) -> bool:
        if not self.conductor.valves:
            return False
        return any(self.conductor.waiting_valves(name) for name in self._parked_actors())

    def _options(self, known: Sequence[Option] | None = None) -> tuple[list[Option], list[Any]]:
        """Every held action, each alone and then with each fault that applies to it, then every watch
        event a parked actor could see next, in a fixed order.

        ``known``: the options offered at this choice in an earlier run with the same choices before
        it. The simulated controllers' writes and the clock's move are then taken from there: they
        are a function of the store, the clock and the choices, and working them out again (a probe
        of every controller) is most of what a choice costs."""
        options: list[Option] = []
        pending: list[Any] = []
        budget = self._faults_used < self.fault_budget
        parked = set(self._parked_actors()) if self.conductor.valves else set()
        watching = {name for name in self.replica_names if self.conductor.waiting_valves(name)}
        for actor in sorted({*self.conductor.held, *parked, *watching}):
            runtime = self._runtimes[actor]
            timed = actor in self.links
            if actor in parked or actor in watching:
                for number, valve in enumerate(self.conductor.valves.get(actor, [])):
                    if valve.waiting:
                        watch = valve.request
                        where = (watch.group, watch.resource, watch.namespace, watch.name)
                        path = f"{watch.path}#{number}"
                        options.append(Option(actor, None, "WATCH", path, WATCH_EVENT, where, timed=timed))
                        pending.append(valve)
                if not timed:
                    continue
            for held in self.held_in_order(actor):
                request = held.request
                if held.call is not None and request is not None and self.webhooks is not None:
                    where = (request.group, request.resource, request.namespace, request.name)
                    calls = self.webhooks.options(
                        actor, held, where, self._reaches(request), self.faults if budget else ()
                    )
                    options += calls
                    pending += [held] * len(calls)
                    continue
                if request is None:
                    options.append(Option(actor, None, "", "", TICK_END, _NO_TARGET))
                    options.append(Option(actor, "crash", "", "", TICK_END, _NO_TARGET))
                    pending += [held, held]
                    continue
                target = (request.group, request.resource, request.namespace, request.name)
                reaches = self._reaches(request)
                options.append(
                    Option(actor, None, request.method, request.path, request.verb, target, reaches, timed=timed)
                )
                pending.append(held)
                if not budget:
                    continue
                stale = self._stale_revision(target, request.verb) if request.is_read else None
                for fault in self.faults:
                    if not fault.applies(request, stale_revision=stale):
                        continue
                    if fault.crash is not None and not self._may_crash(runtime, fault.crash):
                        continue
                    options.append(
                        Option(
                            actor, fault.name, request.method, request.path, request.verb, target, reaches, timed=timed
                        )
                    )
                    pending.append(held)
        if self._controller_reads or self.links:
            stepped = self._stepped_options() if known is None else [o for o in known if o.verb in STEPPED]
            options += stepped
            pending += [None] * len(stepped)
        return options, pending

    def _reaches(self, request: GateRequest) -> bool:
        """A delete, or a write to an object being deleted: the garbage collector may act on other objects.
        So does an eviction (the budget's status, then the pod's delete), and a write in a namespace
        with a ResourceQuota (admission charges the quota's status)."""
        if request.is_read:
            return False
        if request.verb in _DELETES or request.subresource == "eviction":
            return True
        if not request.subresource and request.namespace and self.server.has_resource_quota(request.namespace):
            return True
        return bool(request.name) and self.server.is_terminating(
            request.group, request.resource, request.namespace, request.name
        )

    def _stepped_options(self) -> list[Option]:
        """Each simulated controller's next write; when none has one, the clock's move to the next
        instant one falls due (within the scenario's horizon)."""
        writes = self.server.controller_writes() if self._controller_reads else []
        if writes:
            return [
                Option(
                    write.actor,
                    None,
                    "",
                    write.describe(),
                    CONTROLLER_WRITE,
                    write.target,
                    reaches=write.verb == "delete" or bool(write.name and self.server.is_terminating(*write.target)),
                    reads=self._controller_reads.get(write.controller),
                    footprint=write.footprint,
                )
                for write in writes
            ]
        due = self._next_due()
        if due is None or self._elapsed + due > self.scenario.horizon:
            return []
        at = self._elapsed + due
        return [Option(CLOCK, None, "", f"clock: {at:g} s after the start (+{due:g} s)", CLOCK, _NO_TARGET)]

    def _may_crash(self, runtime: ActorRuntime, where: str) -> bool:
        """Whether a crash at a request is possible and differs from the crash points already offered.

        Dying before a request is the same as dying after the previous one unless a side effect came
        in between; dying after a read is the same as dying before it (the fault applies to writes).
        """
        if runtime.restarts_left <= 0:
            return False
        return where != "before" or runtime.effects_since_request > 0

    def _stale_revision(self, target: ObjectKey, verb: str) -> int | None:
        """The revision just before this run's last committed write to what a read reads (the object, or
        any object of the listed collection), if any: the freshest state a lagging watch cache can hold
        that differs from the store's (docs/scenarios-faults.md)."""
        for step in reversed(self._record.steps):
            if not step.committed:
                continue
            written = step.option.target
            if written[:2] != target[:2] or (target[2] and written[2] != target[2]):
                continue
            if verb == "list" or written[3] in (target[3], ""):
                return step.revision_before
        return None

    async def _perform(self, option: Option, held: Any) -> bool:
        if option.verb == WATCH_EVENT:
            return await self._deliver(option, held)
        if option.verb in STEPPED:
            return await self._step_controllers(option)
        if option.webhook:
            return await self._answer_call(option, held)
        record = self._record
        runtime = self._runtimes[option.actor]
        request = held.request
        step = Step(
            len(record.steps) + 1,
            option,
            runtime.incarnation,
            request.query if request is not None else "",
            request.sequence if request is not None else 0,
        )
        step.activity = request.activity if request is not None else ""
        step.revision_before = self.server.revision
        before = self.before_write(option)
        step.resend_of = self._resend_of(runtime, option)
        record.steps.append(step)
        runtime.last_step = step.number
        if option.is_request:
            runtime.requests += 1
            runtime.effects_since_request = 0
        if option.fault is not None:
            self._faults_used += 1
        self.conductor.take(option.actor, held)
        fault = FAULTS[option.fault] if option.fault is not None else None
        if fault is not None and fault.crash is not None:
            await self._crash(runtime, held, after=fault.crash == "after")
        else:
            assert request is not None or fault is None
            if option.fault == "watch-expire":
                self.server.compact()
            stale = self._stale_revision(option.target, option.verb) if option.fault == "stale-read" else None
            decision = fault.decision(request, stale_revision=stale) if fault is not None and request else None
            await self._release(option.actor, held, decision)
            if option.fault == "timeout":
                step.resends_cut = await self._cut_resends(option, request)
            self._note_admission(step)
        if self.server.revision != step.revision_before:
            step.committed = True
            step.state_after = self._fetch(option.target)
            self.note_write_effects(step, before)
        return step.committed

    async def _answer_call(self, option: Option, held: Held) -> bool:
        """Answer (or, with a fault, fail) a webhook call of an actor's write, and let the write go on."""
        record = self._record
        runtime = self._runtimes[option.actor]
        request = held.request
        assert request is not None
        step = Step(len(record.steps) + 1, option, runtime.incarnation, request.query, request.sequence)
        step.activity = request.activity
        step.revision_before = self.server.revision
        record.steps.append(step)
        runtime.last_step = step.number
        if option.fault is not None:
            self._faults_used += 1
        self.conductor.take(option.actor, held)
        held.fault = option.fault
        await self._release(option.actor, held, None)
        self._note_admission(step)
        if self.server.revision != step.revision_before:
            step.committed = True
            step.state_after = self._fetch(option.target)
        return step.committed

    def _note_admission(self, step: Step) -> None:
        """A write that now waits on a webhook call has not answered: its answer belongs to a later step."""
        call = waiting_call(self.conductor, step.actor, step.sequence) if step.sequence else None
        if call is not None:
            step.waits_on = call.webhook
            step.sequence = 0

    def _next_due(self) -> float | None:
        """Seconds until the next instant a controller's timed step or a replica's timer falls due."""
        dues = [self.server.next_controller_due() if self._controller_reads else None, self.replica_due(self._elapsed)]
        present = [due for due in dues if due is not None]
        return min(present) if present else None

    async def _step_controllers(self, option: Option) -> bool:
        """A controller's write, or a move of the clock; either is a step of the run."""
        record = self._record
        step = Step(len(record.steps) + 1, option, 0, "", 0)
        step.revision_before = self.server.revision
        record.steps.append(step)
        if option.verb == CLOCK:
            due = self._next_due()
            assert due is not None
            if self._controller_reads:
                self.server.advance_clock(due)
            self._elapsed += due
            step.event = f"the clock is now {self._elapsed:g} s after the start"
            await self.advance_replicas(self._elapsed)
            return True  # time moved: what falls due, and every later write's timestamps, depend on it
        controller, _, worker = option.actor.partition("/")
        written = self.server.step_controller(controller, worker)
        step.event = written.describe() if written is not None else f"{option.actor}: wrote nothing"
        if self.server.revision != step.revision_before:
            step.committed = True
            step.state_after = self._fetch(option.target)
        return step.committed

    async def _deliver(self, option: Option, valve: WatchValve) -> bool:
        """Let the next event of a parked actor's watch through, and run the actor until it waits again."""
        record = self._record
        runtime = self._runtimes[option.actor]
        kind, obj = valve.waiting[0]
        metadata = obj.get("metadata") or {}
        step = Step(len(record.steps) + 1, option, runtime.incarnation, "", 0)
        step.revision_before = self.server.revision
        step.event = f"{kind} {metadata.get('name', '')} (resourceVersion {metadata.get('resourceVersion', '')})"
        watched = valve.request
        version = str(metadata.get("resourceVersion", ""))
        if version.isdigit():
            where = (watched.group, watched.resource, metadata.get("namespace", ""), metadata.get("name", ""))
            step.delivered = (where, int(version))
        record.steps.append(step)
        runtime.last_step = step.number
        if option.actor in self.links:
            valve.let_one_through()
            await self.settle_replica(option.actor)
            return False
        waiter = self.conductor.expect(option.actor)
        self.pointer.point(self.clients[option.actor].kubeconfig)
        valve.let_one_through()
        await self._settle(option.actor, waiter)
        return False

    def _watch_opened(self, actor: str) -> None:
        """An actor opened a watch: from now on, while it runs, look out for it waiting on it."""
        if self._settling == actor and self._parked is None:
            self._parked = asyncio.get_running_loop().create_task(self._idle(self._runtimes[actor]))

    async def _idle(self, runtime: ActorRuntime) -> None:
        """Return once nothing on the loop can move: no ready callback, no readable or writable socket,
        no timer due, no thread of the actor at work. The actor then waits for something only another
        actor's step can bring (its watch's next event)."""
        loop = asyncio.get_running_loop()
        ready = getattr(loop, "_ready", None)
        selector = getattr(loop, "_selector", None)
        scheduled = getattr(loop, "_scheduled", None)
        if ready is None or selector is None or scheduled is None:
            return  # a loop whose internals are unknown: only the watchdog ends the wait
        while True:
            await asyncio.sleep(0)
            if ready or runtime.threads.busy:
                continue
            if scheduled and scheduled[0].when() <= loop.time():
                continue
            if selector.select(0):
                continue
            self.conductor.wake(runtime.actor.name)
            return

    def _resend_of(self, runtime: ActorRuntime, option: Option) -> int:
        """The step this one repeats: the same idempotent request, sent again right after its connection
        was cut (as client libraries do by themselves)."""
        if option.method not in ("GET", "PUT", "DELETE", "HEAD"):
            return 0
        for step in reversed(self._record.steps):
            if step.actor != option.actor:
                continue
            cut = step.fault in ("watch-drop", "lost-response", "timeout")
            same = (step.option.method, step.option.path) == (option.method, option.path)
            if cut and same and step.incarnation == runtime.incarnation and runtime.effects_since_request == 0:
                return step.number
            return 0
        return 0

    async def _release(self, actor: str, held: Held, decision: GateDecision | None) -> None:
        replica = actor in self.links
        waiter = None if replica else self.conductor.expect(actor)
        if not replica:
            self.pointer.point(self.clients[actor].kubeconfig)
        if self.webhooks is not None and held.request is not None:
            self.webhooks.releasing = (actor, held.request)
        self.conductor.release(held, decision)
        try:
            if waiter is None:
                await self.settle_replica(actor)
            else:
                await self._settle(actor, waiter)
        finally:
            if self.webhooks is not None:
                self.webhooks.releasing = None

    async def _cut_resends(self, option: Option, request: GateRequest | None) -> int:
        """A timeout lasts through the client library's own resends of the request (none is a choice)."""
        cut = 0
        while cut < _RESENDS_CUT and request is not None:
            queue = self.conductor.held.get(option.actor, [])
            again = next(
                (
                    held
                    for held in queue
                    if held.request is not None
                    and (held.request.method, held.request.path, held.request.query)
                    == (request.method, request.path, request.query)
                ),
                None,
            )
            if again is None or len(queue) != 1 or self._runtimes[option.actor].effects_since_request:
                break
            self.conductor.take(option.actor, again)
            await self._release(option.actor, again, GateDecision(drop_before=True))
            cut += 1
        return cut

    async def _crash(self, runtime: ActorRuntime, held: Held, *, after: bool) -> None:
        """The actor's process dies at ``held`` (before it, or ``after`` the server ran it) and restarts."""
        if runtime.actor.name in self.links:
            await self.crash_replica(runtime, held, after=after)
            return
        loop = asyncio.get_running_loop()
        if after:
            ran: asyncio.Future[None] = loop.create_future()

            def die_now() -> None:
                self._stop(runtime)
                if not ran.done():
                    ran.set_result(None)

            self.conductor.release(held, GateDecision(drop_response=True, after_run=die_now))
            await self._within_timeout(ran, f"the write of {runtime.actor.name} never ran")
        else:
            self._stop(runtime)
            self.conductor.release(held, _DIE)
        await self._reap(runtime)
        runtime.incarnation += 1
        runtime.restarts_left -= 1
        runtime.requests = 0
        runtime.effects_since_request = 0
        runtime.dying = False
        runtime.memory = {}
        await self._start_actor(runtime)

    def _stop(self, runtime: ActorRuntime) -> None:
        """Stop the actor's code where it stands: no more of it runs, no more effects count."""
        runtime.dying = True
        runtime.threads.interrupt()
        if runtime.asynchronous and runtime.task is not None:
            runtime.task.cancel()

    async def _reap(self, runtime: ActorRuntime) -> None:
        """Until the dead incarnation's task and threads are gone."""
        task = runtime.task
        if task is not None:
            await self._within_timeout(
                asyncio.gather(task, return_exceptions=True),
                f"actor {runtime.actor.name} did not stop when its process died: its tick catches "
                "asyncio.CancelledError or BaseException and carries on",
            )
        await self._within_timeout(
            runtime.threads.join(), f"a thread of actor {runtime.actor.name} did not stop when its process died"
        )

    async def _within_timeout(self, awaitable: Any, what: str) -> Any:
        try:
            return await asyncio.wait_for(awaitable, self.settle_timeout)
        except TimeoutError:
            raise EngineStuck(f"{what} (within {self.settle_timeout:g} s)") from None

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
            runtime.effects_since_request = 0
            try:
                await run_tick(runtime, context)
            except (asyncio.CancelledError, ActorCrashed):
                raise
            except Exception as error:
                self._record.errors.append(
                    ActorError(
                        actor.name, runtime.incarnation, runtime.ticks_done, runtime.last_step, describe_error(error)
                    )
                )
            if self._tick_end_may_crash(runtime):
                decision = await self.conductor.hold_point(actor.name, TICK_END)
                if decision is _DIE:
                    raise ActorCrashed
            runtime.ticks_done += 1

    def _tick_end_may_crash(self, runtime: ActorRuntime) -> bool:
        """Whether the end of this tick is a crash point: a side effect since its last request, and a
        crash left in the actor's restarts and the run's fault budget."""
        return (
            self.crashes
            and runtime.effects_since_request > 0
            and runtime.restarts_left > 0
            and self._faults_used < self.fault_budget
        )

    def _effect_recorder(self, runtime: ActorRuntime) -> Any:
        record = self._record
        incarnation, tick = runtime.incarnation, runtime.ticks_done

        def effect(name: str, key: str) -> None:
            if runtime.dying or runtime.incarnation != incarnation:
                return
            runtime.effects_since_request += 1
            record.effects.append(Effect(name, key, runtime.actor.name, incarnation, tick, runtime.last_step))

        return effect

    async def _settle(self, actor: str, waiter: asyncio.Future[None]) -> None:
        """Wait until ``actor`` is held again, done, or parked on its watches; the timer only catches a
        stuck actor."""

        def stuck() -> None:
            if not waiter.done():
                waiter.set_exception(
                    EngineStuck(
                        f"actor {actor} neither sent a request, nor waited on its watch, nor finished within "
                        f"{self.settle_timeout:g} s: it waits on something the engine does not control (a "
                        "sleep, a lock, a synchronous watch in a thread)"
                    )
                )

        watchdog = asyncio.get_running_loop().call_later(self.settle_timeout, stuck)
        self._settling, self._parked = actor, None
        if self.conductor.watching(actor):
            self._watch_opened(actor)
        try:
            await waiter
        finally:
            watchdog.cancel()
            if self._parked is not None:
                self._parked.cancel()
            self._settling, self._parked = None, None

    async def _halt(self) -> None:
        """End the run: every actor still alive stops where it stands, its threads included."""
        self.conductor.active = False
        await self.halt_replicas()
        alive = [runtime for runtime in self._runtimes.values() if runtime.task and not runtime.task.done()]
        for runtime in alive:
            self._stop(runtime)
            if runtime.task is not None:
                runtime.task.cancel()
        self.conductor.release_all(_RUN_OVER)
        for runtime in alive:
            await self._reap(runtime)


def _default_choice(options: Sequence[Option], previous: str | None) -> int:
    """Keep running the actor that ran last (fewest context switches), else the first actor."""
    for index, option in enumerate(options):
        if option.actor == previous and option.fault is None:
            return index
    return next(index for index, option in enumerate(options) if option.fault is None)
