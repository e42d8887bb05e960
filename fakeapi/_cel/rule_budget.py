"""The runtime cost limits on a custom resource's rules, as apiextensions-apiserver 1.32 enforces them.

``pkg/apiserver/schema/cel/validation.go`` (``Validator.Validate``, ``validateExpressions``,
``evalMessageExpression``): one validation of an object has a budget of 10,000,000
(``RuntimeCELCostBudget``), and each evaluation of a rule or messageExpression stops once it passes
1,000,000 (``PerCallLimit``). Each evaluation's actual cost is taken from the budget, in the order the rules
run; an evaluation that costs more than what is left, or a node with rules reached with nothing left, gives
``validation failed due to running out of cost budget, no further validation rules will be run``; an
evaluation stopped at the per-call limit (when what is left covers its cost so far) gives ``'operation
cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds
limit for rule: <rule>``; no rule runs after either.

Counting the actual cost walks the rule (:mod:`.runtime_costs`), which is slow, so it is done only when it
can matter. Each rule has a bound of one evaluation's actual cost (:func:`runtime_bound`: the estimate made
with the sizes the tracker gives, see :func:`.costs.estimate_cost`), so a validation whose evaluations'
bounds stay within both limits cannot meet either: its evaluations are only summed
(:meth:`Budget.estimate`). A validation whose sum passes a limit is validated again, counting
(:meth:`Budget.spend`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._cel.runtime_costs import UnknownCost, actual_cost
from fakeapi._cel.syntax_tree import Checked, Node

__all__ = [
    "CANCELLED",
    "MESSAGE_OUT_OF_BUDGET",
    "OUT_OF_BUDGET",
    "PER_CALL_LIMIT",
    "RUNTIME_BUDGET",
    "Budget",
    "Exhausted",
    "runtime_bound",
]

PER_CALL_LIMIT = 1_000_000
RUNTIME_BUDGET = 10_000_000
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"
MESSAGE_OUT_OF_BUDGET = (
    "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"
)
CANCELLED = "operation cancelled: actual cost limit exceeded"


class Exhausted(Exception):
    """No further rule runs (``return errs, -1``)."""


class Budget:
    """One object's validation: in the first pass the sum of its evaluations' bounds, in the counting pass
    what is left of the budget."""

    __slots__ = ("bound", "exact", "over", "remaining")

    def __init__(self, exact: bool) -> None:
        self.exact = exact
        self.bound = 0
        self.over = False
        self.remaining = RUNTIME_BUDGET

    def estimate(self, bound: int) -> None:
        self.bound += bound
        if bound > PER_CALL_LIMIT:
            self.over = True

    def may_exceed(self) -> bool:
        return self.over or self.bound > RUNTIME_BUDGET

    def spend(self, tree: Checked | None, variables: Mapping[str, Any], fallback: int) -> str | None:
        """Take one evaluation's actual cost from the budget: None, ``"budget"`` when it costs more than what
        is left, ``"cancelled"`` when it passed the per-call limit."""
        cost = _cost(tree, variables, fallback)
        if cost > self.remaining:
            return "budget"
        self.remaining -= cost
        return "cancelled" if cost > PER_CALL_LIMIT else None


def _cost(tree: Checked | None, variables: Mapping[str, Any], fallback: int) -> int:
    """The actual cost; where the walk cannot count it, the estimate, which is never lower (an estimate over
    the limit counts as stopped just past it)."""
    if tree is not None:
        try:
            return actual_cost(tree, variables, PER_CALL_LIMIT)
        except UnknownCost:
            pass
    return min(fallback, PER_CALL_LIMIT + 1)


def runtime_bound(tree: Checked, estimated: int) -> int:
    """A bound of one evaluation's actual cost: the estimate, doubled where the rule qualifies a value that is
    not an attribute (a relative attribute costs its operand, 1, and 1 per qualifier; the estimate 1 once),
    times 4 where it calls ``validate`` (estimated with a pattern of 128 characters, charged with the named
    format's own, which for ``uri`` is longer)."""
    bound = estimated * 2 if _has_relative_attribute(tree.root) else estimated
    if any("format-validate" in overloads for overloads in tree.overloads.values()):
        bound *= 4
    return bound


def _has_relative_attribute(node: Node) -> bool:
    operand: Node | None = None
    if node.kind == "select" or (node.kind == "call" and node.value in ("_[_]", "_[?_]", "_?._")):
        operand = node.children[0] if node.children else None
    if operand is not None and not _attribute(operand):
        return True
    children = list(node.children)
    if node.target is not None:
        children.append(node.target)
    children += [part for part in node.parts.values() if isinstance(part, Node)]
    return any(_has_relative_attribute(child) for child in children)


def _attribute(node: Node) -> bool:
    if node.kind == "ident":
        return True
    if node.kind == "select":
        return not node.test_only
    return node.kind == "call" and node.value in ("_[_]", "_?_:_")
