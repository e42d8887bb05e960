"""The built-in regression suite, from the operator whose claims started this project (docs/json-encoding.md):
one module per scenario, each with variants.

``python -m scenarios list`` prints them with the verdict each variant must reach.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from scenarios._model import Scenario
from scenarios.builtin import (
    completion_claim,
    kopf_finalizer,
    lost_response,
    non_ascii,
    pod_outcome_claims,
    startup_failure_claim,
)

__all__ = ["BUILTINS", "Builtin", "builtin_scenario"]


@dataclass(frozen=True)
class Builtin:
    name: str
    summary: str
    variants: dict[str, str]
    build: Callable[[str], Scenario]


def _from(module: ModuleType) -> Builtin:
    return Builtin(module.NAME, module.SUMMARY, dict(module.VARIANTS), module.build)


BUILTINS: dict[str, Builtin] = {
    builtin.name: builtin
    for builtin in map(
        _from,
        (completion_claim, startup_failure_claim, non_ascii, lost_response, kopf_finalizer, pod_outcome_claims),
    )
}


def builtin_scenario(name: str, variant: str) -> Scenario:
    """The built-in scenario ``name`` in ``variant``; LookupError names what exists."""
    if name not in BUILTINS:
        raise LookupError(f"no built-in scenario {name!r}; known: {', '.join(BUILTINS)}")
    builtin = BUILTINS[name]
    if variant not in builtin.variants:
        raise LookupError(f"{name} has no variant {variant!r}; known: {', '.join(builtin.variants)}")
    return builtin.build(variant)
