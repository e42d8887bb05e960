"""The actual cost of one evaluation of a rule, counted as cel-go v0.22's cost tracker counts it.

cel-go ``interpreter/runtimecost.go`` (``CostObserver``) charges each node the planner
(``interpreter/planner.go``) made of the checked tree, after the node is evaluated:

- a literal, and a list or map literal of literals (folded into a constant by ``OptOptimize``, which
  Kubernetes sets, as is a type conversion of a literal), 0; any other list literal 10, map literal 30;
- an attribute (an identifier, or a chain of field selections and indexes on one) 1, plus 1 per qualifier
  applied (``.f``, ``[i]``); an index by a value that is not a literal also costs that value's evaluation,
  where an attribute index is resolved without its own 1; a selection or index on another value (a call's
  result) makes a relative attribute: that value's cost, 1, and 1 per qualifier;
- ``has(x.f)``: the qualifiers of ``x.f`` only (``PresenceTestHasCost(false)``);
- ``c ? a : b``: ``c`` and the branch taken; a branch that is an attribute is resolved without its own 1;
- ``&&`` and ``||``: their operands, left first, the right one only if the left does not decide;
- a comprehension: its range, its accumulator's start (when first read), then per element its condition
  and, while that is true, its step, then its result;
- ``x in [literals]`` (a set membership test after ``OptOptimize``): ``x`` only;
- any other call: its target and arguments, then the function's cost for the actual values
  (:mod:`.call_costs`).

The tracker stops the evaluation when the cost passes the limit (``CostLimit``); so does the walk here. The
tree is planned once into closures, as cel-go plans it into interpretables; the values are
:mod:`.runtime_values`'. What the walk cannot count exactly raises :class:`UnknownCost`: optional values,
unsigned integers and types, the format library, two-variable comprehensions, selections on a ``?:``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._cel.runtime_planner import Cancelled, Planner, Step, Walk
from fakeapi._cel.runtime_values import CelError, UnknownCost
from fakeapi._cel.syntax_tree import Checked

__all__ = ["CelError", "UnknownCost", "actual_cost", "walked_value"]


def actual_cost(checked: Checked, variables: Mapping[str, Any], limit: int, *, optimized: bool = True) -> int:
    """The cost of evaluating ``checked`` with ``variables``; past ``limit``, the cost at which cel-go stops.

    ``optimized`` is the program option Kubernetes sets (``OptOptimize``); upstream's library cost tests run
    without it."""
    plan = _plan_of(checked) if optimized else Planner(checked, optimized=False).plan(checked.root)
    walk = Walk(dict(variables), limit)
    try:
        plan(walk)
    except Cancelled:
        pass
    except RecursionError:
        raise UnknownCost("too deep") from None
    return walk.cost


def walked_value(checked: Checked, variables: Mapping[str, Any], limit: int) -> tuple[Any, bool]:
    """The value the walk computes for ``checked`` (a :class:`CelError` for an error), and whether the walk
    stopped at ``limit`` before it had one. For the rules cel-expr-python stops at its own limit on
    comprehension iterations (10,000 per evaluation), which cel-go does not have."""
    walk = Walk(dict(variables), limit)
    try:
        return _plan_of(checked)(walk), False
    except Cancelled:
        return None, True
    except RecursionError:
        raise UnknownCost("too deep") from None


_plans: dict[int, tuple[Checked, Step]] = {}


def _plan_of(checked: Checked) -> Step:
    hit = _plans.get(id(checked))
    if hit is not None and hit[0] is checked:
        return hit[1]
    plan = Planner(checked).plan(checked.root)
    if len(_plans) > 1024:
        _plans.clear()
    _plans[id(checked)] = (checked, plan)
    return plan
