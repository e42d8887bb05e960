"""A rule's estimated cost, as cel-go v0.22 estimates it with the Kubernetes estimators.

cel-go ``checker/cost.go`` (``coster``) walks the checked tree: a literal costs 0, an identifier or a field
selection 1 (``has()`` 0, as Kubernetes sets ``PresenceTestHasCost(false)``; selecting from a value that is
not a map or a struct adds nothing), a list literal 10, a map literal 30, a call 1 plus its arguments unless
the function has its own formula (string concatenation, comparison and equality by size x 0.1, ``matches``
by string and pattern size, ``in`` by list size, ``&&``/``||``/``?:`` by their branches), and a
comprehension its range's size times the cost of one step and condition. Sizes come from literals, from
what earlier calls produced, or from the schema through the path of field names that leads to a value
(apiextensions-apiserver ``schema/cel/compilation.go``, ``sizeEstimator``, with the bounds of
:mod:`.sizes`). The Kubernetes library's functions have their own formulas (k8s.io/apiserver
``pkg/cel/library/cost.go``, ``EstimateCallCost``), in :mod:`.library_costs`.

Costs are (min, max) pairs of unsigned 64-bit integers that saturate instead of overflowing.
"""

from __future__ import annotations

from collections.abc import Callable

from fakeapi._cel.declarations import Declared
from fakeapi._cel.estimates import MAX, ONE, ZERO, AstNode, Estimate, add, multiply
from fakeapi._cel.library_costs import library_call_cost
from fakeapi._cel.sizes import MAX_REQUEST_SIZE, max_elements
from fakeapi._cel.syntax_tree import Checked, Node, TypeInfo

__all__ = ["estimate_cost"]

_ACCUMULATOR = "@result"
_TRAVERSAL = 0.1
_REGEX = 0.25


class Coster:
    def __init__(
        self,
        checked: Checked,
        root: Declared,
        size_of: Callable[[AstNode], Estimate | None] | None = None,
        runtime_sizes: bool = False,
    ) -> None:
        self.checked = checked
        self.root = root
        self.size_of = size_of
        self.runtime_sizes = runtime_sizes
        self.paths: dict[int, list[str]] = {}
        self.ranges: dict[str, list[int]] = {}
        self.sizes: dict[int, Estimate] = {}

    # -- sizes ------------------------------------------------------------------------------------

    def schema_size(self, node: AstNode) -> Estimate | None:
        """apiextensions' ``sizeEstimator.EstimateSize``: the schema's bound for the value at the path."""
        if self.size_of is not None:
            return self.size_of(node)
        if not node.path:
            return None
        current: Declared | None = self.root
        for name in node.path[1:]:
            if current is None:
                return None
            if name in ("@items", "@values"):
                current = current.element
            elif name == "@keys":
                return Estimate(0, 0) if current.kind == "map" else None
            else:
                found = current.fields.get(name) if current.kind == "object" else None
                current = found[1] if found else None
        if current is None:
            return None
        elements = max_elements(current)
        if self.runtime_sizes and current.kind not in ("list", "map", "string", "bytes"):
            # At runtime a value without a length has size 1, an object as many as its properties (and an
            # embedded resource's apiVersion, kind and metadata; any number where it keeps unknown fields).
            declared = current.schema.get("properties")
            properties = max(len(current.fields), len(declared) if isinstance(declared, dict) else 0) + 3
            if current.schema.get("x-kubernetes-preserve-unknown-fields") is True:
                properties = MAX_REQUEST_SIZE
            elements = max(elements, properties if current.kind == "object" else 1)
        return Estimate(0, elements)

    def size(self, node: AstNode) -> Estimate:
        computed = node.computed_size()
        if computed is not None:
            return computed
        estimated = self.schema_size(node)
        if estimated is not None:
            return estimated
        if node.type.kind in ("bool", "double", "duration", "int", "timestamp", "uint"):
            return ONE
        return Estimate(0, MAX)

    def library_size(self, node: AstNode) -> Estimate:
        """The library estimator's ``sizeEstimate``: no scalar rule."""
        computed = node.computed_size()
        if computed is not None:
            return computed
        estimated = self.schema_size(node)
        return estimated if estimated is not None else Estimate(0, MAX)

    def ast_node(self, node: Node) -> AstNode:
        path = self.paths.get(node.id)
        if path and path[0] == _ACCUMULATOR:
            path = None
        return AstNode(path, self.type_of(node), node, self.sizes.get(node.id))

    def type_of(self, node: Node) -> TypeInfo:
        return self.checked.types.get(node.id, TypeInfo("dyn"))

    # -- costs ------------------------------------------------------------------------------------

    def cost(self, node: Node) -> Estimate:
        kind = node.kind
        if kind == "literal":
            return ZERO
        if kind == "ident":
            return self._ident(node)
        if kind == "select":
            return self._select(node)
        if kind == "call":
            return self._call(node)
        if kind == "list":
            return self._sum(node.children).add(Estimate(10, 10))
        if kind == "map":
            return self._sum(node.children).add(Estimate(30, 30))
        if kind == "struct":
            return self._sum(node.children).add(Estimate(40, 40))
        if kind == "comprehension":
            return self._comprehension(node)
        return ZERO

    def _sum(self, nodes: list[Node]) -> Estimate:
        total = ZERO
        for child in nodes:
            total = total.add(self.cost(child))
        return total

    def _ident(self, node: Node) -> Estimate:
        name = node.value
        stack = self.ranges.get(name)
        if stack:
            iter_range = stack[-1]
            base = self.paths.get(iter_range) or []
            range_kind = self.checked.types.get(iter_range, TypeInfo("dyn")).kind
            if range_kind == "list":
                self.paths[node.id] = [*base, "@items"]
            elif range_kind == "map":
                self.paths[node.id] = [*base, "@keys"]
        else:
            self.paths[node.id] = [name]
        return ONE

    def _select(self, node: Node) -> Estimate:
        operand = node.children[0]
        if node.test_only:
            return self.cost(operand)
        total = self.cost(operand)
        # The tracker charges every selection; upstream's estimate only those on a map or a struct.
        if self.runtime_sizes or self.type_of(operand).kind in ("map", "struct", "type_param"):
            total = total.add(ONE)
        self.paths[node.id] = [*(self.paths.get(operand.id) or []), node.value]
        return total

    def _call(self, node: Node) -> Estimate:
        arg_costs = [self.cost(arg) for arg in node.children]
        arg_nodes = [self.ast_node(arg) for arg in node.children]
        overloads = self.checked.overloads.get(node.id) or []
        if not overloads:
            return ZERO
        total = ZERO
        target: AstNode | None = None
        if node.target is not None:
            total = total.add(self.cost(node.target))
            target = self.ast_node(node.target)
        function_cost = Estimate(MAX, 0)
        result_size: Estimate | None = None
        for overload in overloads:
            cost, size = self._function_cost(node.value, overload, target, arg_nodes, arg_costs)
            function_cost = function_cost.union(cost)
            if size is not None:
                result_size = size if result_size is None else result_size.union(size)
            if overload == "index_list" and node.children:
                self.paths[node.id] = [*(self.paths.get(node.children[0].id) or []), "@items"]
            elif overload == "index_map" and node.children:
                self.paths[node.id] = [*(self.paths.get(node.children[0].id) or []), "@values"]
        if result_size is not None:
            self.sizes[node.id] = result_size
        return total.add(function_cost)

    def _comprehension(self, node: Node) -> Estimate:
        parts = node.parts
        total = self.cost(parts["iter_range"]).add(self.cost(parts["accu_init"]))
        variable = parts["iter_var"]
        self.ranges.setdefault(variable, []).append(parts["iter_range"].id)
        loop = self.cost(parts["loop_condition"])
        step = self.cost(parts["loop_step"])
        self.ranges[variable].pop()
        total = total.add(self.cost(parts["result"]))
        count = self.size(self.ast_node(parts["iter_range"]))
        self.sizes[node.id] = count
        return total.add(count.multiply(step.add(loop)))

    def _function_cost(
        self, function: str, overload: str, target: AstNode | None, args: list[AstNode], arg_costs: list[Estimate]
    ) -> tuple[Estimate, Estimate | None]:
        arg_sum = ZERO
        for cost in arg_costs:
            arg_sum = arg_sum.add(cost)
        factor = _SET_FACTORS.get(overload)
        if factor is not None and len(args) == 2:
            # cel-go's ext.Sets() binds its own estimate to these overloads, consulted first.
            product = self.library_size(args[0]).multiply(self.library_size(args[1]))
            return product.factor(factor).add(ONE).add(arg_sum), None
        library = library_call_cost(self, function, overload, target, args)
        if library is not None:
            cost, size = library
            return cost.add(arg_sum), size
        standard = _standard_cost(self, overload, target, args, arg_costs, arg_sum)
        if standard is not None:
            return standard
        return ONE.add(arg_sum), None


def _standard_cost(
    coster: Coster,
    overload: str,
    target: AstNode | None,
    args: list[AstNode],
    arg_costs: list[Estimate],
    arg_sum: Estimate,
) -> tuple[Estimate, Estimate | None] | None:
    size = coster.size
    if overload == "string_format" and target is not None:
        return size(target).factor(_TRAVERSAL).add(arg_sum), None
    if overload == "string_to_bytes" and len(args) == 1:
        length = size(args[0])
        return length.factor(_TRAVERSAL).add(arg_sum), Estimate(length.min, multiply(length.max, 4))
    if overload == "bytes_to_string" and len(args) == 1:
        length = size(args[0])
        return length.factor(_TRAVERSAL).add(arg_sum), Estimate(length.min // 4, length.max)
    if overload == "strings_quote" and len(args) == 1:
        length = size(args[0])
        return length.factor(_TRAVERSAL).add(arg_sum), Estimate(add(length.min, 2), add(multiply(length.max, 2), 2))
    if overload in ("starts_with_string", "ends_with_string") and len(args) == 1:
        # The tracker charges the string's size, upstream's estimate the prefix's.
        measured = size(target) if coster.runtime_sizes and target is not None else size(args[0])
        return measured.factor(_TRAVERSAL).add(arg_sum), None
    if overload == "in_list" and len(args) == 2:
        return size(args[1]).factor(1).add(arg_sum), None
    if overload == "matches_string" and target is not None and len(args) == 1:
        text = size(target).add(ONE).factor(_TRAVERSAL)
        pattern = size(args[0]).factor(_REGEX)
        return text.multiply(pattern).add(arg_sum), None
    if overload == "contains_string" and target is not None and len(args) == 1:
        text = size(target).factor(_TRAVERSAL)
        part = size(args[0]).factor(_TRAVERSAL)
        return text.multiply(part).add(arg_sum), None
    if overload in ("logical_or", "logical_and"):
        left, right = arg_costs[0], arg_costs[1]
        return Estimate(left.min, left.add(right).max), None
    if overload == "conditional":
        result = size(args[1]).union(size(args[2]))
        return arg_costs[0].add(arg_costs[1].union(arg_costs[2])), result
    if overload in ("add_string", "add_bytes", "add_list") and len(args) == 2:
        result = size(args[0]).add(size(args[1]))
        if overload == "add_list":
            return ONE.add(arg_sum), result
        return result.factor(_TRAVERSAL).add(arg_sum), result
    if overload in _SIZED_COMPARISONS:
        left, right = size(args[0]), size(args[1])
        smallest = min(left.max, right.max)
        return Estimate(1 if smallest > 0 else 0, smallest).factor(_TRAVERSAL).add(arg_sum), None
    return None


_SET_FACTORS = {"list_sets_contains_list": 1.0, "list_sets_intersects_list": 1.0, "list_sets_equivalent_list": 2.0}

_SIZED_COMPARISONS = frozenset(
    (
        "less_string",
        "greater_string",
        "less_equals_string",
        "greater_equals_string",
        "less_bytes",
        "greater_bytes",
        "less_equals_bytes",
        "greater_equals_bytes",
        "equals",
        "not_equals",
    )
)


def estimate_cost(
    checked: Checked,
    root: Declared,
    *,
    size_of: Callable[[AstNode], Estimate | None] | None = None,
    runtime_sizes: bool = False,
) -> Estimate:
    """The rule's estimated cost; ``size_of`` in place of the schema's sizes (upstream's library tests
    estimate with their own). With ``runtime_sizes``, a number, a boolean or an object the schema gives size 0
    has the size the cost tracker gives it (1, or its properties), which makes the estimate a bound of the
    actual cost of comparing such values (upstream's estimate counts them 0)."""
    return Coster(checked, root, size_of, runtime_sizes).cost(checked.root)
