"""The estimated cost of the Kubernetes library's functions (k8s.io/apiserver ``pkg/cel/library/cost.go``,
``CostEstimator.EstimateCallCost``), v0.32.

Chosen by the function's name: the list functions cost the list's size times one per element (plus a tenth
of the element's size for strings and bytes); string functions a tenth of the string's size (``replace`` and
``split`` a fifth); ``find``/``findAll`` as ``matches``; parsing a quantity, an address, a prefix or a URL a
tenth of the text's size; the other quantity, ip, cidr and url functions 1; ``==`` on two addresses,
prefixes or quantities 1, on URLs by their literal sizes. The authorizer library (docs/cel-authorizer.md):
``check`` 350000 (two checks per expression fit the per-call limit), its builders and accessors 1, a
field or label selector by its size as ``selectorCostEstimate`` parses it into requirements. cel-go passes the call's target as a pointer that is
never nil, so the checks written ``target != nil`` upstream always hold here too. A function not listed here
is left to the standard formulas (None).
"""

from __future__ import annotations

import math
from typing import Protocol

from fakeapi._cel.estimates import MAX, ONE, AstNode, Estimate

__all__ = ["CONSTANT_COST_FUNCTIONS", "library_call_cost"]

_TRAVERSAL = 0.1
_REGEX = 0.25
_LIST_FUNCTIONS = frozenset(("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"))
CONSTANT_COST_FUNCTIONS = frozenset(
    (
        "masked",
        "prefixLength",
        "family",
        "isUnspecified",
        "isLoopback",
        "isLinkLocalMulticast",
        "isLinkLocalUnicast",
        "isGlobalUnicast",
        "format.named",
        "sign",
        "asInteger",
        "isInteger",
        "asApproximateFloat",
        "isGreaterThan",
        "isLessThan",
        "compareTo",
        "add",
        "sub",
        "getScheme",
        "getHostname",
        "getHost",
        "getPort",
        "getEscapedPath",
        "getQuery",
    )
)
_ADDRESS = Estimate(4, 16)
_AUTHORIZATION_CHECK = Estimate(350000, 350000)
_AUTHORIZER_BUILDERS = frozenset(
    (
        "serviceAccount",
        "path",
        "group",
        "resource",
        "subresource",
        "namespace",
        "name",
        "allowed",
        "reason",
        "error",
        "errored",
    )
)
_LIST_CREATE = 10
_STRUCT_CREATE = 40

Result = tuple[Estimate, Estimate | None]


class Sizes(Protocol):
    def library_size(self, node: AstNode) -> Estimate: ...


def _element(target: AstNode) -> AstNode | None:
    """``listElementNode``: the list's items, at the path one ``@items`` deeper."""
    if not target.type.parameters:
        return None
    path = [*target.path, "@items"] if target.path is not None else None
    return AstNode(path, target.type.parameters[0], None, None)


def _list_cost(sizes: Sizes, target: AstNode) -> Estimate:
    element = _element(target)
    if element is None:
        return sizes.library_size(target).factor(_TRAVERSAL)
    per_element = ONE
    if element.type.kind in ("string", "bytes"):
        per_element = per_element.add(sizes.library_size(element).factor(_TRAVERSAL))
    return sizes.library_size(target).multiply(per_element)


def _replace(sizes: Sizes, target: AstNode, args: list[AstNode]) -> Result:
    size = sizes.library_size(target)
    old, new = sizes.library_size(args[0]), sizes.library_size(args[1])
    count_max = count_min = retained_max = retained_min = 0
    if old.min == 0:
        count_max = size.max + 1 if size.max < MAX else size.max
        retained_max = size.max
    elif new.max <= old.min:
        retained_max = size.max
    else:
        count_max = math.ceil(size.max / old.min)
    if old.max == 0:
        count_min = size.min + 1 if size.min < MAX else size.min
        retained_min = size.min
    elif old.max <= new.min:
        retained_min = size.min
    else:
        count_min = math.ceil(size.min / old.max)
    result = Estimate(count_min, count_max).multiply(new).add(Estimate(retained_min, retained_max))
    return size.factor(2 * _TRAVERSAL), result


def _join(sizes: Sizes, target: AstNode, args: list[AstNode]) -> Result:
    size = Estimate(0, 0)
    count = sizes.library_size(target)
    element = _element(target)
    if element is not None:
        size = count.multiply(sizes.library_size(element))
    if args:
        separators = Estimate(count.min - 1 if count.min > 0 else 0, count.max - 1 if count.max > 0 else 0)
        size = size.add(sizes.library_size(args[0]).multiply(separators))
    return size.factor(_TRAVERSAL), size


def _split(sizes: Sizes, target: AstNode, args: list[AstNode]) -> Result:
    size = sizes.library_size(target)
    most = size.max
    if len(args) > 1 and args[1].node is not None and args[1].node.kind == "literal":
        kind, value = args[1].node.value
        if kind == "int64_value":
            most = value if value >= 0 else (value + (1 << 64))
    return size.factor(2 * _TRAVERSAL), Estimate(0, most)


def _equality(args: list[AstNode]) -> Result | None:
    if len(args) != 2 or args[0].type != args[1].type:
        return None
    name = args[0].type.name
    if name in ("net.IP", "net.CIDR", "kubernetes.Quantity"):
        return ONE, None
    if name == "kubernetes.URL":
        size = ONE
        right = args[1].computed_size()
        # Upstream takes both sizes from the right-hand side.
        if right is not None:
            size = right.union(right)
        return Estimate(1, size.max).factor(_TRAVERSAL), None
    return None


def _selector_cost(size: Estimate) -> Estimate:
    """``selectorCostEstimate``: a list, the parse, and a struct and a list per requirement, one per two characters."""
    requirements = size.factor(0.5).factor(_LIST_CREATE + _STRUCT_CREATE)
    return Estimate(_LIST_CREATE, _LIST_CREATE).add(size.factor(_TRAVERSAL)).add(requirements)


def library_call_cost(
    sizes: Sizes, function: str, overload: str, target: AstNode | None, args: list[AstNode]
) -> Result | None:
    """The function's cost and result size, or None to use the standard formulas."""
    if function == "check":
        return _AUTHORIZATION_CHECK, None
    if function in _AUTHORIZER_BUILDERS:
        return ONE, None
    if function in ("fieldSelector", "labelSelector"):
        return (_selector_cost(sizes.library_size(args[0])), None) if len(args) == 1 else None
    if function in _LIST_FUNCTIONS and target is not None:
        return _list_cost(sizes, target), None
    if function == "url" and len(args) == 1:
        size = sizes.library_size(args[0])
        return size.factor(_TRAVERSAL), size
    if function in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
        size = sizes.library_size(target)
        return size.factor(_TRAVERSAL), size
    if function == "replace" and target is not None and len(args) >= 2:
        return _replace(sizes, target, args)
    if function == "split" and target is not None:
        return _split(sizes, target, args)
    if function == "join" and target is not None:
        return _join(sizes, target, args)
    if function in ("find", "findAll") and target is not None and args:
        size = sizes.library_size(target)
        text = size.add(ONE).factor(_TRAVERSAL)
        pattern = sizes.library_size(args[0]).factor(_REGEX)
        return text.multiply(pattern), Estimate(0, size.max)
    if function in ("cidr", "isIP", "isCIDR", "quantity", "isQuantity") and args:
        return sizes.library_size(args[0]).factor(_TRAVERSAL), None
    if function == "ip":
        if args and overload != "cidr_ip":
            return sizes.library_size(args[0]).factor(_TRAVERSAL), None
        return ONE, None
    if function == "ip.isCanonical" and args:
        return sizes.library_size(args[0]).factor(2 * _TRAVERSAL), None
    if function in CONSTANT_COST_FUNCTIONS:
        return ONE, None
    if function == "validate" and args:
        # The longest pattern a named format checks with: 128 characters (``MaxNameFormatRegexSize``).
        return sizes.library_size(args[0]).factor(_TRAVERSAL).factor(128 * _REGEX), None
    if function in ("containsIP", "containsCIDR") and args:
        cost = _ADDRESS.add(_ADDRESS).factor(_TRAVERSAL)
        if function == "containsCIDR":
            cost = cost.add(_ADDRESS.factor(_TRAVERSAL)).add(ONE)
        if overload in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
            cost = cost.add(sizes.library_size(args[0]).factor(_TRAVERSAL))
        return cost, None
    if function == "_==_":
        return _equality(args)
    return None
