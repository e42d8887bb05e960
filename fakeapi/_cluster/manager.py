"""The simulated controllers' loop: every controller acts on what is due, until nothing changes.

Real controllers react to watch events a moment after each write and to timers on the wall clock.
Here each controller is level-triggered: it reads the store, writes what is due at the clock's
current instant, and says when its next step falls due. :meth:`Simulation.settle` runs the
controllers in the fixed order of their steps (nodes, scheduler, kubelet, job, ...) until a whole
round writes nothing; :meth:`Simulation.advance` moves the fake clock forward one due instant at a
time, settling at each, so a 30-second advance sees every step in between in the order it would have
happened. Nothing runs between advances on the fake clock: a test that has written something calls
``advance(0)`` to let the controllers act. Every write goes through the store as a client's would
(resourceVersions, watch events, managedFields under the component's manager name).

The fake clock is a :class:`FakeTime`: it starts at a whole second and moves only when advanced.
``fakeapi serve`` runs the same loop against real time instead (:meth:`Simulation.due_in`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from fakeapi._cluster.autoscaling import AutoscalerSync, autoscaler_due, sync_autoscalers
from fakeapi._cluster.container_processes import ContainerProcesses
from fakeapi._cluster.control_plane import install_control_plane
from fakeapi._cluster.cronjobs import cronjob_due, sync_cronjobs
from fakeapi._cluster.daemonsets import daemon_set_due, sync_daemon_sets
from fakeapi._cluster.deployment_progress import deployment_due
from fakeapi._cluster.disruption import disruption_due, sync_disruption_budgets
from fakeapi._cluster.endpoints import sync_endpoints
from fakeapi._cluster.endpointslices import sync_endpoint_slices
from fakeapi._cluster.jobs import job_due, sync_jobs
from fakeapi._cluster.kubelet import kubelet_due, pod_workers, run_pods
from fakeapi._cluster.local_path import install_default_class, provision_local_paths
from fakeapi._cluster.namespaces import hand_back_namespaces, sync_namespaces
from fakeapi._cluster.nodes import register_nodes
from fakeapi._cluster.options import ControllerOptions
from fakeapi._cluster.probe_cache import ProbeCache, ReadLog
from fakeapi._cluster.recording import EventRecorder
from fakeapi._cluster.replicasets import replicaset_due, sync_replicasets
from fakeapi._cluster.resourcequotas import sync_resource_quotas
from fakeapi._cluster.rollouts import sync_deployments
from fakeapi._cluster.scheduling import schedule_pods
from fakeapi._cluster.statefulsets import stateful_set_due, sync_stateful_sets
from fakeapi._cluster.stepping import ControllerWrite, ReadFootprint, WriteGate, WriteStopped
from fakeapi._cluster.storage_protection import protect_claims, protect_volumes
from fakeapi._cluster.volume_binder import sync_persistent_volumes
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._state.store import Store

__all__ = ["Controller", "FakeTime", "Simulation"]

MAX_ROUNDS = 1000  # a round that keeps writing after this many is a loop between controllers

Step = Callable[["Simulation"], None]
Due = Callable[["Simulation"], "float | None"]
Resource = tuple[str, str]  # (group, plural)


@dataclass(frozen=True)
class Controller:
    """One simulated controller: its step, when its next timed step is due, and what it reads.

    ``reads`` are the resources whose state the step's decisions depend on (None: any resource).
    A scenario engine uses them to know which client requests commute with the controller's writes.
    ``workers`` lists the objects the controller works on concurrently, one worker each (the
    kubelet's pod workers): stepped one write at a time, each worker is a racer of its own.
    """

    name: str
    step: Step
    due: Due | None = None
    reads: frozenset[Resource] | None = None
    workers: Callable[[Simulation], list[tuple[str, str]]] | None = None


_PODS, _NODES = ("", "pods"), ("", "nodes")
_DEPLOYMENTS, _REPLICASETS = ("apps", "deployments"), ("apps", "replicasets")
_REVISIONS, _CLAIMS = ("apps", "controllerrevisions"), ("", "persistentvolumeclaims")
_JOBS, _SERVICES, _SLICES = ("batch", "jobs"), ("", "services"), ("discovery.k8s.io", "endpointslices")
_VOLUMES, _CLASSES = ("", "persistentvolumes"), ("storage.k8s.io", "storageclasses")
_STORAGE = frozenset({_CLAIMS, _VOLUMES, _CLASSES})
# What admitting a pod a controller creates reads besides the pod (its namespace reaches every
# step anyway): the ServiceAccount, PriorityClass, LimitRange and ResourceQuota admission plugins.
_POD_ADMISSION = (
    ("", "serviceaccounts"),
    ("scheduling.k8s.io", "priorityclasses"),
    ("", "limitranges"),
    ("", "resourcequotas"),
)
CONTROLLERS = (
    Controller("nodes", register_nodes, None, frozenset({_NODES})),
    Controller("scheduler", schedule_pods, None, frozenset({_PODS, _NODES, *_STORAGE})),
    Controller("kubelet", run_pods, kubelet_due, frozenset({_PODS, _NODES}), pod_workers),
    Controller("job", sync_jobs, job_due, frozenset({_JOBS, _PODS, *_POD_ADMISSION})),
    Controller("deployment", sync_deployments, deployment_due, frozenset({_DEPLOYMENTS, _REPLICASETS, _PODS})),
    Controller("replicaset", sync_replicasets, replicaset_due, frozenset({_REPLICASETS, _PODS, *_POD_ADMISSION})),
    Controller(
        "statefulset",
        sync_stateful_sets,
        stateful_set_due,
        frozenset({("apps", "statefulsets"), _REVISIONS, _CLAIMS, _PODS, *_POD_ADMISSION}),
    ),
    Controller(
        "daemonset",
        sync_daemon_sets,
        daemon_set_due,
        frozenset({("apps", "daemonsets"), _REVISIONS, _NODES, _PODS, *_POD_ADMISSION}),
    ),
    Controller("cronjob", sync_cronjobs, cronjob_due, frozenset({("batch", "cronjobs"), _JOBS})),
    Controller("endpointslice", sync_endpoint_slices, None, frozenset({_SERVICES, _PODS, _NODES, _SLICES})),
    Controller("endpoints", sync_endpoints, None, frozenset({_SERVICES, _PODS, ("", "endpoints")})),
    Controller("persistentvolume-binder", sync_persistent_volumes, None, frozenset({*_STORAGE, _PODS})),
    Controller("local-path-provisioner", provision_local_paths, None, frozenset({*_STORAGE, _NODES})),
    Controller("pvc-protection", protect_claims, None, frozenset({_CLAIMS, _PODS})),
    Controller("pv-protection", protect_volumes, None, frozenset({_VOLUMES})),
    # It deletes whatever a namespace holds: its decisions read every namespaced resource.
    Controller("namespace", sync_namespaces, None, None),
    # An object count quota can count any namespaced resource: its decisions read every one.
    Controller("resourcequota", sync_resource_quotas, None, None),
    # A budget's expected pods come from the scale of any kind that controls them.
    Controller("disruption", sync_disruption_budgets, disruption_due, None),
    # The scale target can be of any kind with a /scale.
    Controller("horizontalpodautoscaling", sync_autoscalers, autoscaler_due, None),
)


class FakeTime:
    """A clock source that stands still until advanced."""

    def __init__(self, start: float) -> None:
        self.start = float(int(start))
        self.now = self.start

    def __call__(self) -> float:
        return self.now

    def rewind(self) -> None:
        self.now = self.start


class Simulation:
    """The enabled controllers of one store, and the loop that runs them."""

    def __init__(self, store: Store, options: ControllerOptions) -> None:
        self.store = store
        self.options = options
        self.recorder = EventRecorder(store)
        self.controllers = tuple(controller for controller in CONTROLLERS if options.runs(controller.name))
        self._steps = [(controller.step, controller.due) for controller in self.controllers]
        hand_back_namespaces(store, simulated=options.runs("namespace"))
        store.protected_storage = frozenset(
            resource
            for resource, controller in (
                ("persistentvolumeclaims", "pvc-protection"),
                ("persistentvolumes", "pv-protection"),
            )
            if options.runs(controller)
        )
        self._real_store = store
        self.probes = ProbeCache()
        self.focus: tuple[str, str] | None = None
        """The one object a worker-stepped controller acts on (None: all of them)."""
        self.processes: ContainerProcesses | None = None
        """The local processes of process-backed containers, which the kubelet starts and stops."""
        self.autoscaler_syncs: dict[str, AutoscalerSync] = {}
        """Each autoscaler's last reconcile (by uid): its period is kept by the controller, not the store."""

    def stop(self) -> None:
        """No simulated controller runs any more: the inline namespace controller takes over."""
        hand_back_namespaces(self._real_store, simulated=False)
        self._real_store.protected_storage = frozenset()

    def install(self) -> None:
        """What a new kind cluster holds before anyone uses it: the ``standard`` StorageClass, when
        the local-path provisioner runs (docs/storage.md)."""
        if self.options.runs("local-path-provisioner"):
            install_default_class(self._real_store)

    def install_control_plane(self) -> bool:
        """What kubeadm and the control-plane node's kubelet write once the nodes are registered: the
        mirror pods and addons of ``kube-system`` (docs/control-plane-pods.md); whether anything was written."""
        return install_control_plane(self)

    def reset(self) -> None:
        """Forget what was recorded since the store was last restored (the Event name sequence, the
        autoscalers' reconciles)."""
        self.recorder.reset()
        self.autoscaler_syncs.clear()

    def settle(self) -> None:
        """Run every controller until a whole round writes nothing."""
        for _ in range(MAX_ROUNDS):
            before = self.store.revision
            for step, _due in self._steps:
                step(self)
            if self.store.revision == before:
                return
        raise RuntimeError(f"the simulated controllers kept writing for {MAX_ROUNDS} rounds")

    def next_due(self) -> float | None:
        times = [when for _, due in self._steps if due is not None and (when := due(self)) is not None]
        return min(times, default=None)

    def advance(self, time: FakeTime, seconds: float) -> None:
        """Move ``time`` forward by ``seconds``, running each step at the instant it falls due."""
        if seconds < 0:
            raise ValueError(f"cannot advance the clock by a negative time ({seconds})")
        target = time.now + seconds
        self.settle()
        while True:
            due = self.next_due()
            if due is None or due > target:
                break
            if due <= time.now:
                raise RuntimeError(f"a simulated controller's step due at {due} did not run")
            time.now = max(time.now, due)
            self.settle()
        time.now = target
        self.settle()

    # -- one write at a time (a caller chooses the order: docs/controllers.md) ---------------------

    def pending(self) -> list[ControllerWrite]:
        """What each controller (each worker of one that has them) would write next at the clock's
        current instant, in controller order."""
        writes = []
        store = self._real_store
        for controller in self.controllers:
            for worker in controller.workers(self) if controller.workers else [None]:
                key = (controller.name, "/".join(worker) if worker is not None else "")
                situation = self.probes.situation(
                    store, self.recorder.position, tuple(sorted(self.autoscaler_syncs.items()))
                )
                known, answer = self.probes.lookup(key, store, situation)
                if not known:
                    answer = self._probe(controller, worker, key, situation)
                if answer is not None:
                    writes.append(answer)
        return writes

    def _probe(
        self, controller: Controller, worker: tuple[str, str] | None, key: tuple[str, str], situation: tuple[Any, ...]
    ) -> ControllerWrite | None:
        """Run one controller worker's step up to its first write; what that write would be."""
        names, events = self._real_store.generator_state(), self.recorder.position
        reads = ReadLog()
        answer = None
        try:
            with self._gated(controller.name, probe=True, focus=worker, reads=reads):
                controller.step(self)
        except WriteStopped as stopped:
            answer = stopped.write
        finally:
            self._real_store.set_generator_state(names)
            self.recorder.rewind(events)
        if answer is not None and worker is not None and answer.verb == "update" and reads.complete:
            # A worker's step reads, writes its object and records the Events it worked out before the
            # write: what it read until then is all its write and Events depend on.
            footprint = ReadFootprint(
                frozenset(reads.objects), frozenset(reads.lists), frozenset(reads.narrowed), reads.update
            )
            answer = replace(answer, footprint=footprint)
        self.probes.keep(key, self._real_store, situation, reads, answer)
        return answer

    def step(self, name: str, worker: str = "") -> ControllerWrite | None:
        """Let controller ``name`` (its worker for object ``worker``, ``namespace/name``, if it has
        workers) make its next write, with the Events that go with it; what it wrote.

        A write the store refuses ends the step too: it is returned with ``refused`` set, as a real
        controller's failed request would be logged and retried.
        """
        controller = next((c for c in self.controllers if c.name == name), None)
        if controller is None:
            raise LookupError(f"no simulated controller {name!r} runs here")
        focus = None
        if worker:
            namespace, _, object_name = worker.rpartition("/")
            focus = (namespace, object_name)
        with self._gated(name, probe=False, focus=focus) as gate:
            try:
                controller.step(self)
            except WriteStopped:
                pass
            except APIError as error:
                attempted = gate.attempted
                if attempted is None:
                    raise
                return replace(attempted, refused=error.message)
        return gate.written

    def next_due_after(self, now: float) -> float | None:
        """The next instant after ``now`` at which a controller's timed step falls due."""
        times = [when for _, due in self._steps if due is not None and (when := due(self)) is not None and when > now]
        return min(times, default=None)

    @contextmanager
    def _gated(
        self, name: str, *, probe: bool, focus: tuple[str, str] | None = None, reads: ReadLog | None = None
    ) -> Iterator[WriteGate]:
        worker = "/".join(focus) if focus is not None else ""
        gate = WriteGate(self._real_store, name, probe=probe, worker=worker, reads=reads)
        self.store = self.recorder.store = cast("Store", gate)
        self.focus = focus
        try:
            yield gate
        finally:
            self.store = self.recorder.store = self._real_store
            self.focus = None

    def due_in(self) -> float | None:
        """Seconds of real time until the next step, after settling what is due now."""
        self.settle()
        due = self.next_due()
        return None if due is None else max(0.0, due - self.store.clock.now())
