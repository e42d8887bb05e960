"""Which simulated controllers run, on which fake nodes, with which container outcomes.

Controllers are opt-in: a server without them writes nothing on its own (beyond the garbage
collector and the namespace controllers, which every fake has). The names are those of the
components whose writes they reproduce: ``nodes`` (the kubelet registering its Node), ``scheduler``
(kube-scheduler binding pods), ``kubelet`` (running the pods bound to the fake nodes), and
kube-controller-manager's ``job``, ``deployment``, ``replicaset``, ``statefulset``, ``daemonset``,
``cronjob``, ``endpointslice``, ``endpoints``, ``persistentvolume-binder``, ``pvc-protection``,
``pv-protection``, ``namespace``, ``resourcequota``, ``disruption`` and ``horizontalpodautoscaling``
controllers, and kind's ``local-path-provisioner``
(docs/storage.md); ``all`` is every one of them. Without ``namespace``, a terminating namespace is emptied inside the write that deleted it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from fakeapi._cluster.outcomes import OutcomeRule

__all__ = ["CONTROLLER_NAMES", "CONTROLLER_PROBES", "ControllerOptions", "NodeSpec", "parse_controllers"]

# Each simulated controller, and the component whose healthz the apiserver's ``componentstatuses``
# probe reaches while it runs (docs/control-plane-pods.md); None where no probe counts it.
CONTROLLER_PROBES: Mapping[str, str | None] = MappingProxyType(
    {
        "nodes": None,
        "scheduler": "scheduler",
        "kubelet": None,
        "job": "controller-manager",
        "deployment": "controller-manager",
        "replicaset": "controller-manager",
        "statefulset": "controller-manager",
        "daemonset": "controller-manager",
        "cronjob": "controller-manager",
        "endpointslice": "controller-manager",
        "endpoints": "controller-manager",
        "persistentvolume-binder": "controller-manager",
        "local-path-provisioner": None,
        "pvc-protection": "controller-manager",
        "pv-protection": "controller-manager",
        "namespace": "controller-manager",
        "resourcequota": "controller-manager",
        "disruption": "controller-manager",
        "horizontalpodautoscaling": "controller-manager",
    }
)
CONTROLLER_NAMES = tuple(CONTROLLER_PROBES)


def parse_controllers(value: str | Iterable[str] | None) -> frozenset[str]:
    """``"nodes,scheduler"``, ``["job"]`` or ``"all"`` as a set of names; ``ValueError`` for an unknown one."""
    if value is None:
        return frozenset()
    names = [part.strip() for part in value.split(",")] if isinstance(value, str) else [str(v) for v in value]
    names = [name for name in names if name]
    if "all" in names:
        return frozenset(CONTROLLER_NAMES)
    unknown = sorted(set(names) - set(CONTROLLER_NAMES))
    if unknown:
        raise ValueError(f"unknown controllers {', '.join(unknown)}: choose from {', '.join(CONTROLLER_NAMES)} or all")
    return frozenset(names)


@dataclass(frozen=True)
class NodeSpec:
    """One fake node as its kubelet registers it."""

    name: str
    cpu: str = "4"
    memory: str = "16Gi"
    pods: str = "110"
    labels: Mapping[str, str] = field(default_factory=dict)
    ready: bool = True


@dataclass(frozen=True)
class ControllerOptions:
    """The simulated controllers of one server, its fake nodes and the container outcome rules."""

    enabled: frozenset[str] = frozenset()
    nodes: Sequence[NodeSpec] = (NodeSpec("node-1"),)
    outcomes: Sequence[OutcomeRule] = ()
    control_plane_pods: bool = True
    """Whether ``kube-system`` holds the control plane's pods and addons (docs/control-plane-pods.md)."""

    def runs(self, name: str) -> bool:
        return name in self.enabled
