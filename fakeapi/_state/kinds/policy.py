"""``policy/v1``: PodDisruptionBudgets; spec changes bump the generation (``poddisruptionbudget/strategy.go``)."""

from __future__ import annotations

from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.strategy import GenerationStrategy
from fakeapi._state.tables.access import PDB_PRINTER

__all__ = ["TYPES"]

TYPES: tuple[ResourceType, ...] = (
    builtin(
        "policy",
        "v1",
        "poddisruptionbudgets",
        "PodDisruptionBudget",
        short_names=("pdb",),
        subresources=(Subresource("status"),),
        strategy=GenerationStrategy(),
        printer=PDB_PRINTER,
    ),
)
