"""The plan of a checked tree for counting its actual cost (:mod:`.runtime_costs` says what each node costs).

As cel-go's planner (``interpreter/planner.go``) turns the tree into interpretables once, each node becomes a
closure once: attributes (an identifier with the selections and indexes applied to it, or a relative one on
another value), ``has()``, ``?:``, ``&&``/``||``, ``or``/``orValue``, comprehensions, list and map literals, set
membership tests, constants folded as ``OptOptimize`` folds them, and calls, whose values
:mod:`.runtime_values` computes and whose costs :mod:`.call_costs` gives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi._cel.call_costs import cost_function
from fakeapi._cel.runtime_values import (
    DELEGATE,
    NONE,
    TYPE_NAMES,
    CelError,
    CelOptional,
    CelType,
    UnknownCost,
    delegated,
    direct,
    first_error,
    index,
    literal,
    select,
)
from fakeapi._cel.syntax_tree import Checked, Node

__all__ = ["Cancelled", "Planner", "Step", "Walk"]


class Cancelled(Exception):
    """The cost passed the limit (cel-go's ``EvalCancelledError``)."""


class Walk:
    __slots__ = ("cost", "limit", "pending", "scope")

    def __init__(self, variables: dict[str, Any], limit: int) -> None:
        self.scope = variables
        self.limit = limit
        self.cost = 0
        # comprehension accumulators not read yet: name -> the plan of their start
        self.pending: dict[str, Step] = {}

    def charge(self, amount: int) -> None:
        self.cost += amount
        if self.cost > self.limit:
            raise Cancelled


Step = Callable[[Walk], Any]

_UNKNOWN_FUNCTIONS = frozenset(("cel.@block", "optMap", "optFlatMap"))
_OPTIONAL_QUALIFIERS = ("_?._", "_[?_]")
_CONVERSIONS = frozenset(("bool", "bytes", "double", "duration", "dyn", "int", "string", "timestamp", "type", "uint"))
_SET_ELEMENTS = frozenset(("bool_value", "int64_value", "uint64_value", "double_value", "string_value"))
_ABSENT: Any = object()


def _is_call(node: Node, function: str) -> bool:
    return node.kind == "call" and node.value == function


def _is_attribute(node: Node) -> bool:
    """Whether the planner makes ``node`` an attribute (qualifiers then apply to it without evaluating it)."""
    if node.kind == "ident":
        return True
    if node.kind == "select":
        return not node.test_only
    return node.kind == "call" and node.value in ("_[_]", "_?_:_", *_OPTIONAL_QUALIFIERS)


def _is_constant(node: Node) -> bool:
    """What ``OptOptimize`` folds into a constant: literals, list and map literals of constants, a type
    conversion of a constant."""
    if node.kind == "literal":
        return True
    if node.kind in ("list", "map"):
        return all(_is_constant(child) for child in node.children)
    if node.kind == "call" and node.value in _CONVERSIONS and node.target is None and len(node.children) == 1:
        return _is_constant(node.children[0])
    return False


class Planner:
    def __init__(self, checked: Checked, *, optimized: bool = True) -> None:
        self.checked = checked
        self.optimized = optimized
        # the comprehension variables in scope where a node is planned
        self.bound: list[str] = []

    def plan(self, node: Node) -> Step:
        """A step that evaluates ``node`` and charges what its evaluation is observed to cost."""
        kind = node.kind
        if kind == "literal":
            value = literal(node)
            return lambda walk: value
        if kind == "ident" and node.value in TYPE_NAMES and node.value not in self.bound:
            # A type name is a constant reference (``planCheckedIdent``).
            type_value = CelType(node.value)
            return lambda walk: type_value
        if kind == "select" and node.test_only:
            return self.presence(node)
        if _is_call(node, "_?_:_"):
            return self.conditional(node)
        if _is_attribute(node):
            resolve = self.resolve(node)

            def attribute(walk: Walk) -> Any:
                value = resolve(walk)
                walk.charge(1)
                return value

            return attribute
        if kind == "call":
            return self.call(node)
        if kind in ("list", "map"):
            return self.literal_collection(node)
        if kind == "comprehension":
            return self.comprehension(node)
        raise UnknownCost(kind)

    def resolve(self, node: Node) -> Step:
        """An attribute's value, charging its qualifiers (and a relative attribute's operand), not itself."""
        if node.kind == "ident":
            name = node.value

            def variable(walk: Walk) -> Any:
                start = walk.pending.pop(name, None)
                if start is not None:
                    walk.scope[name] = start(walk)
                value = walk.scope.get(name, _ABSENT)
                if value is _ABSENT:
                    raise UnknownCost(f"variable {name}")
                return value

            return variable
        if _is_call(node, "_?_:_"):
            return self.conditional(node)
        base = self.base(node.children[0])
        if node.kind == "select":
            field = node.value

            def selection(walk: Walk) -> Any:
                value = base(walk)
                if isinstance(value, CelError):
                    return value
                if isinstance(value, CelOptional):
                    return _qualify_optional(walk, value, select, field)
                walk.charge(1)
                return select(value, field)

            return selection
        optional = node.value in _OPTIONAL_QUALIFIERS
        key_node = node.children[1]
        key: Step
        if key_node.kind == "literal":
            constant = literal(key_node)
            key = lambda walk: constant  # noqa: E731
        else:
            key = self.resolve(key_node) if _is_attribute(key_node) else self.plan(key_node)
        qualify = select if node.value == "_?._" else index

        def indexing(walk: Walk) -> Any:
            value = base(walk)
            if isinstance(value, CelError):
                return value
            if isinstance(value, CelOptional) and not value.present:
                return value
            wanted = key(walk)
            if isinstance(wanted, CelError):
                walk.charge(1)
                return wanted
            if optional or isinstance(value, CelOptional):
                return _qualify_optional(walk, value, qualify, wanted)
            walk.charge(1)
            return index(value, wanted)

        return indexing

    def base(self, operand: Node) -> Step:
        """The object a qualifier applies to: an attribute resolved, any other value evaluated and wrapped
        into a relative attribute, observed once more."""
        if _is_call(operand, "_?_:_"):
            raise UnknownCost("qualifier on a conditional")
        if _is_attribute(operand):
            return self.resolve(operand)
        evaluate = self.plan(operand)

        def relative(walk: Walk) -> Any:
            value = evaluate(walk)
            if not isinstance(value, CelError):
                walk.charge(1)
            return value

        return relative

    def presence(self, node: Node) -> Step:
        base = self.base(node.children[0])
        field = node.value

        def present(walk: Walk) -> Any:
            value = base(walk)
            if isinstance(value, CelError):
                return value
            walk.charge(1)
            return field in value if isinstance(value, dict) else CelError("no such overload")

        return present

    def conditional(self, node: Node) -> Step:
        condition = self.plan(node.children[0])
        branches = [self.resolve(b) if _is_attribute(b) else self.plan(b) for b in node.children[1:3]]

        def choose(walk: Walk) -> Any:
            value = condition(walk)
            if value is True:
                return branches[0](walk)
            if value is False:
                return branches[1](walk)
            return value if isinstance(value, CelError) else CelError("no such overload")

        return choose

    def literal_collection(self, node: Node) -> Step:
        items = [self.plan(child) for child in node.children]
        charge = 0 if self.optimized and _is_constant(node) else (10 if node.kind == "list" else 30)
        is_map = node.kind == "map"

        def collection(walk: Walk) -> Any:
            values = [item(walk) for item in items]
            if charge:
                walk.charge(charge)
            error = first_error(values)
            if error is not None:
                return error
            if is_map:
                return {values[i]: values[i + 1] for i in range(0, len(values), 2)}
            return values

        return collection

    def call(self, node: Node) -> Step:
        function = node.value
        if function in ("_&&_", "_||_"):
            return self.logical(node, function == "_||_")
        if function in _UNKNOWN_FUNCTIONS:
            raise UnknownCost(function)
        if function in ("or", "orValue") and node.target is not None and len(node.children) == 1:
            return self.optional_or(node, function == "orValue")
        if function == "@in" and self.optimized and _is_set(node.children[1]):
            return self.set_membership(node)
        args = ([self.plan(node.target)] if node.target is not None else []) + [self.plan(c) for c in node.children]
        overloads = self.checked.overloads.get(node.id) or []
        # The planner keeps an overload id only when the checker resolved one; ``==`` and ``!=`` always have theirs.
        overload = {"_==_": "equals", "_!=_": "not_equals"}.get(function, overloads[0] if len(overloads) == 1 else "")
        member = node.target is not None
        cost = cost_function(function, overload)
        if self.optimized and _is_constant(node):
            cost = 0  # a conversion of a constant, folded when planned (``maybeOptimizeConstUnary``)
        if function == "@not_strictly_false":
            argument = args[0]

            def not_strictly_false(walk: Walk) -> Any:
                value = argument(walk)
                walk.charge(1)
                # An error is not strictly false: the loop goes on (the function is not strict).
                return value is not False

            return not_strictly_false

        def invoke(walk: Walk) -> Any:
            values = [arg(walk) for arg in args]
            result: Any = first_error(values)
            if result is None:
                result = direct(function, values)
                if result is DELEGATE:
                    result = delegated(function, member, values)
            walk.charge(cost if isinstance(cost, int) else cost(values, result))
            return result

        return invoke

    def optional_or(self, node: Node, unwrap: bool) -> Step:
        """``evalOptionalOr``/``evalOptionalOrValue``: no cost of their own, the alternative evaluated only
        when the optional is empty."""
        assert node.target is not None
        first, alternative = self.plan(node.target), self.plan(node.children[0])

        def either(walk: Walk) -> Any:
            value = first(walk)
            if not isinstance(value, CelOptional):
                return value
            if value.present:
                return value.value if unwrap else value
            return alternative(walk)

        return either

    def set_membership(self, node: Node) -> Step:
        # No call is observed: ``in`` reads a set built once; an empty list is the constant false.
        members = [literal(child) for child in node.children[1].children]
        element = self.plan(node.children[0])

        def member_of(walk: Walk) -> Any:
            if not members:
                return False
            value = element(walk)
            return value if isinstance(value, CelError) else delegated("@in", False, [value, members])

        return member_of

    def logical(self, node: Node, decisive: bool) -> Step:
        left, right = self.plan(node.children[0]), self.plan(node.children[1])

        def logical(walk: Walk) -> Any:
            first = left(walk)
            if first is decisive:
                return decisive
            second = right(walk)
            if second is decisive:
                return decisive
            if first is (not decisive) and second is (not decisive):
                return not decisive
            for value in (first, second):
                if isinstance(value, CelError):
                    return value
            return CelError("no such overload")

        return logical

    def comprehension(self, node: Node) -> Step:
        parts = node.parts
        if parts.get("iter_var2"):
            raise UnknownCost("two-variable comprehension")
        iter_range, start = self.plan(parts["iter_range"]), self.plan(parts["accu_init"])
        accumulator, variable = parts["accu_var"], parts["iter_var"]
        self.bound += [accumulator, variable]
        condition, step, result = (self.plan(parts[k]) for k in ("loop_condition", "loop_step", "result"))
        del self.bound[-2:]

        def fold(walk: Walk) -> Any:
            items = iter_range(walk)
            if isinstance(items, CelError):
                return items
            if not isinstance(items, (list, dict)):
                return CelError("expected iterable type")
            scope = walk.scope
            saved = (scope.pop(accumulator, _ABSENT), scope.get(variable, _ABSENT), walk.pending.get(accumulator))
            walk.pending[accumulator] = start
            try:
                for item in list(items):
                    scope[variable] = item
                    proceed = condition(walk)
                    if proceed is False:
                        break
                    accumulated = step(walk)
                    walk.pending.pop(accumulator, None)
                    scope[accumulator] = accumulated
                scope.pop(variable, None)
                return result(walk)
            finally:
                walk.pending.pop(accumulator, None)
                if saved[2] is not None:
                    walk.pending[accumulator] = saved[2]
                for name, previous in ((accumulator, saved[0]), (variable, saved[1])):
                    if previous is _ABSENT:
                        scope.pop(name, None)
                    else:
                        scope[name] = previous

        return fold


def _qualify_optional(walk: Walk, value: Any, qualify: Callable[[Any, Any], Any], key: Any) -> Any:
    """A qualifier applied optionally (``QualifyIfPresent``): observed, and charged, only when present."""
    if isinstance(value, CelOptional):
        if not value.present:
            return value
        value = value.value
    found = qualify(value, key)
    if isinstance(found, CelError):
        return NONE
    walk.charge(1)
    return CelOptional(True, found)


def _is_set(node: Node) -> bool:
    """A list literal of primitive literals, which ``in`` tests as a set (``maybeOptimizeSetMembership``)."""
    return node.kind == "list" and all(
        child.kind == "literal" and child.value[0] in _SET_ELEMENTS for child in node.children
    )
