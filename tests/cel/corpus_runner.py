"""Runs one case of the CEL corpus (tests/data/cel/corpus.json) the way its upstream test runs it.

An ``estimatedCost`` case compares the estimate (min and max) of an expression, and its actual cost
(``runtimeCost``) as ``cost_test.go`` measures it; a case admitted with a ``runtimeCost`` compares the
budget its rule used up. A ``cost`` case compiles its rule at the root of its schema and compares the estimated cost (its maximum)
with upstream's, or checks it is at least ``costAtLeast``, as ``TestCostEstimation`` does.

The rule is put at the root of the case's schema and run on the case's object (and old object), from the
path ``root``, as ``TestValidationExpressions`` does; the outcome is compared with the recorded one:
``admitted`` (no error), ``failed`` (the rule's own ``failed rule: <rule>`` error), ``errorContains``
(errors, every one ``Invalid`` and containing the text), ``errorMatches``/``errorEquals`` (an evaluation
error matching the pattern, or equal to the text) or ``compileErrorsMatch`` (a compile error matching every
pattern).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from fakeapi._cel import RuleCompiler, SchemaRules, declare
from fakeapi._cel.estimates import AstNode, Estimate
from fakeapi._cel.rule_budget import RUNTIME_BUDGET
from fakeapi._cel.runtime_costs import actual_cost
from fakeapi._cel.validating import error_text

CORPUS = Path(__file__).resolve().parent.parent / "data" / "cel" / "corpus.json"
DIFFERENCES = Path(__file__).resolve().parent.parent / "data" / "cel" / "differences.json"


def load() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(CORPUS.read_text())["cases"]
    return cases


def case_id(case: dict[str, Any]) -> str:
    return f"{case['source']} :: {case['rule']}"


def known_differences() -> dict[str, str]:
    """Case id -> why fakeapi's outcome differs from upstream's."""
    differences: dict[str, str] = json.loads(DIFFERENCES.read_text())
    return differences


def _cost_mismatch(case: dict[str, Any]) -> str | None:
    declared, pool = declare(case["schema"], False)
    assert declared is not None
    compiled = RuleCompiler(declared, pool).compile({"rule": case["rule"]})
    if compiled.error:
        return compiled.error
    expect = case["expect"]
    if expect["cost"] and compiled.max_cost != expect["cost"]:
        return f"estimated cost {compiled.max_cost}, upstream {expect['cost']}"
    if expect["costAtLeast"] and compiled.max_cost < expect["costAtLeast"]:
        return f"estimated cost {compiled.max_cost}, upstream more than {expect['costAtLeast']}"
    return None


def _test_sizes(node: AstNode) -> Estimate | None:
    """The size estimator of apiserver's ``cost_test.go``: any string or bytes is 0..12 long."""
    return Estimate(0, 12) if node.type.kind in ("string", "bytes") else None


def _estimate_mismatch(case: dict[str, Any]) -> str | None:
    declared, pool = declare({"type": "object"}, False)
    assert declared is not None
    try:
        cost = RuleCompiler(declared, pool).estimated_cost(case["rule"], _test_sizes)
    except ValueError as error:
        return str(error)
    wanted = case["expect"]["estimatedCost"]
    if [cost.min, cost.max] != wanted:
        return f"estimated {cost.min}..{cost.max}, upstream {wanted}"
    runtime = case["expect"].get("runtimeCost")
    if runtime is None:
        return None
    # cost_test.go runs its programs with cost tracking only, without ``OptOptimize``.
    tree = RuleCompiler(declared, pool).checked_tree(case["rule"])
    actual = actual_cost(tree, {}, RUNTIME_BUDGET, optimized=False)
    return None if actual == runtime else f"actual cost {actual}, upstream {runtime}"


def outcome_mismatch(case: dict[str, Any]) -> str | None:
    """None when fakeapi gives the recorded outcome, else what it gave instead."""
    if isinstance(case["expect"], dict) and "estimatedCost" in case["expect"]:
        return _estimate_mismatch(case)
    if isinstance(case["expect"], dict) and "cost" in case["expect"]:
        return _cost_mismatch(case)
    schema = {**case["schema"], "x-kubernetes-validations": [{"rule": case["rule"]}]}
    rules = SchemaRules(schema, resource_root=case["root"])
    old = case["oldObject"]
    outcome = (
        rules.validate(case["object"], old, path="root", count_cost=True)
        if old is not None
        else rules.validate(case["object"], path="root", count_cost=True)
    )
    texts = [error_text(error) for error in outcome.errors]
    expect = case["expect"]
    if expect == "admitted":
        return None if not texts else f"errors: {texts}"
    if "runtimeCost" in expect:
        if texts:
            return f"errors: {texts}"
        wanted = expect["runtimeCost"]
        return None if outcome.cost == wanted else f"actual cost {outcome.cost}, upstream {wanted}"
    if expect == "failed":
        wanted = [f'root: Invalid value: "object": failed rule: {case["rule"]}']
        return None if texts == wanted else f"errors: {texts}"
    if "errorContains" in expect:
        if (
            texts
            and all(error.kind == "Invalid" for error in outcome.errors)
            and all(expect["errorContains"] in text for text in texts)
        ):
            return None
        return f"errors: {texts}"
    if "errorEquals" in expect:
        detail = f"{expect['errorEquals']} evaluating rule: {case['rule']}"
        return None if [error.detail for error in outcome.errors] == [detail] else f"errors: {texts}"
    if "errorMatches" in expect:
        if texts and all(re.search(expect["errorMatches"], error.detail) for error in outcome.errors):
            return None
        return f"errors: {texts}"
    patterns = expect["compileErrorsMatch"]
    compile_errors = [error.detail for error in outcome.errors if "rule compile error" in error.detail]
    if compile_errors and all(re.search(pattern, compile_errors[0]) for pattern in patterns):
        return None
    return f"errors: {texts}"
