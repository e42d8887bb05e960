"""What a simulated controller sees of the simulation that runs it.

Each controller is a function of this context: the store it reads and writes (the real one, or
the gate that stops a stepped controller after one write), the Event recorder, the enabled
controllers' options, the one object a worker-stepped controller is focused on, and the local
processes of process-backed containers, the autoscaler's last reconciles. The manager satisfies it; the controllers name only this,
so they never import the manager that imports them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from fakeapi._cluster.autoscaling import AutoscalerSync
    from fakeapi._cluster.container_processes import ContainerProcesses
    from fakeapi._cluster.options import ControllerOptions
    from fakeapi._cluster.recording import EventRecorder
    from fakeapi._state.store import Store

__all__ = ["ControllerContext"]


class ControllerContext(Protocol):
    store: Store
    recorder: EventRecorder
    options: ControllerOptions
    focus: tuple[str, str] | None
    processes: ContainerProcesses | None
    autoscaler_syncs: dict[str, AutoscalerSync]
