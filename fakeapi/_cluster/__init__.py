"""Simulated controllers: fake nodes, kube-scheduler, the kubelet and the Job controller (docs/controllers.md)."""

from fakeapi._cluster.manager import FakeTime, Simulation
from fakeapi._cluster.options import CONTROLLER_NAMES, ControllerOptions, NodeSpec, parse_controllers
from fakeapi._cluster.outcomes import Outcome, OutcomeRule, parse_outcome
from fakeapi._cluster.stepping import ControllerWrite, ReadFootprint

__all__ = [
    "CONTROLLER_NAMES",
    "ControllerOptions",
    "ControllerWrite",
    "FakeTime",
    "NodeSpec",
    "Outcome",
    "OutcomeRule",
    "ReadFootprint",
    "Simulation",
    "parse_controllers",
    "parse_outcome",
]
