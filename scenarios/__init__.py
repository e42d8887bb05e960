"""scenarios: run an operator's handlers concurrently against fakeapi under controlled interleavings
and faults, and prove, or refute with a replayable counterexample, that a claim happens exactly once.

The public surface::

    from scenarios import Actor, exactly_once, explore, scenario

    async def tick(ctx):                      # one handler run, with a real client
        job = await ctx.custom.get_namespaced_custom_object(...)
        ...                                   # the JSON patch claim
        ctx.effect("complete", "default/job-1")

    result = explore(scenario(objects=[crd, job], actors={"a": tick, "b": tick}, ticks=2,
                              checks=exactly_once("complete", "default/job-1")))
    result.assert_holds()                     # else: a shrunk schedule, a table, a diagram, a replay line

The pytest plugin (:mod:`scenarios.pytest_plugin`) offers the same as the ``explore`` fixture; the
built-in regression suite runs from ``python -m scenarios``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from scenarios._dependencies import engine_dependencies_missing

if TYPE_CHECKING:
    from scenarios._actors import Actor, ActorCrashed, SetupContext, TickContext
    from scenarios._checks import (
        at_least_once,
        at_most_once,
        exactly_once,
        monotonic_resource_versions,
        no_lost_update,
        predicate,
    )
    from scenarios._exploration import Exploration, Settings
    from scenarios._faults import FAULTS
    from scenarios._hostile import Mutation, ProbedField
    from scenarios._model import ActorError, Check, Choice, Effect, Flag, Option, RunRecord, Scenario, Step, Violation
    from scenarios._operators import ANY_VALUE, CallEffect, Operator, WriteEffect
    from scenarios._probing import Finding, HostileReport
    from scenarios._running import explore, probe, scenario
    from scenarios._schedules import Shard
    from scenarios.builtin import BUILTINS, builtin_scenario

# Names load on first use: the pytest plugin lives in this package, and a test session that never
# explores should not pay for importing the engine, aiohttp or kubernetes_asyncio.
_EXPORTS = {
    "ANY_VALUE": "scenarios._operators",
    "BUILTINS": "scenarios.builtin",
    "CallEffect": "scenarios._operators",
    "Operator": "scenarios._operators",
    "WriteEffect": "scenarios._operators",
    "FAULTS": "scenarios._faults",
    "Actor": "scenarios._actors",
    "ActorCrashed": "scenarios._actors",
    "ActorError": "scenarios._model",
    "Check": "scenarios._model",
    "Choice": "scenarios._model",
    "Effect": "scenarios._model",
    "Exploration": "scenarios._exploration",
    "Finding": "scenarios._probing",
    "Flag": "scenarios._model",
    "HostileReport": "scenarios._probing",
    "Mutation": "scenarios._hostile",
    "Option": "scenarios._model",
    "ProbedField": "scenarios._hostile",
    "RunRecord": "scenarios._model",
    "Scenario": "scenarios._model",
    "SetupContext": "scenarios._actors",
    "Settings": "scenarios._exploration",
    "Shard": "scenarios._schedules",
    "Step": "scenarios._model",
    "TickContext": "scenarios._actors",
    "Violation": "scenarios._model",
    "at_least_once": "scenarios._checks",
    "at_most_once": "scenarios._checks",
    "builtin_scenario": "scenarios.builtin",
    "exactly_once": "scenarios._checks",
    "explore": "scenarios._running",
    "monotonic_resource_versions": "scenarios._checks",
    "no_lost_update": "scenarios._checks",
    "predicate": "scenarios._checks",
    "probe": "scenarios._running",
    "scenario": "scenarios._running",
}

__all__ = [
    "ANY_VALUE",
    "BUILTINS",
    "FAULTS",
    "Actor",
    "ActorCrashed",
    "ActorError",
    "CallEffect",
    "Check",
    "Choice",
    "Effect",
    "Exploration",
    "Finding",
    "Flag",
    "HostileReport",
    "Mutation",
    "Operator",
    "Option",
    "ProbedField",
    "RunRecord",
    "Scenario",
    "Settings",
    "SetupContext",
    "Shard",
    "Step",
    "TickContext",
    "Violation",
    "WriteEffect",
    "at_least_once",
    "at_most_once",
    "builtin_scenario",
    "exactly_once",
    "explore",
    "monotonic_resource_versions",
    "no_lost_update",
    "predicate",
    "probe",
    "scenario",
]


def main(argv: list[str] | None = None) -> int:
    """The command line (``python -m scenarios``, the ``scenarios`` script): see :mod:`scenarios.cli`."""
    try:
        from scenarios.cli import main as cli_main
    except ModuleNotFoundError as error:
        raise SystemExit(f"scenarios: {engine_dependencies_missing(error)}") from None
    return cli_main(argv)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'scenarios' has no attribute {name!r}")
    try:
        value = getattr(importlib.import_module(module), name)
    except ModuleNotFoundError as error:
        raise engine_dependencies_missing(error) from error
    globals()[name] = value
    return value
