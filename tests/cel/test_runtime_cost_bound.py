"""The first pass of a validation sums a bound of each evaluation's actual cost, and does nothing more when
the sum shows no limit can be reached (docs/cel.md, "Runtime cost"). That is right only if no evaluation
costs more than its bound: checked on every rule of the corpus (upstream's own rules and data)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi._cel import SchemaRules
from tests.cel.corpus_runner import case_id, load


def _runnable(case: dict[str, Any]) -> bool:
    expect = case["expect"]
    return "schema" in case and not (isinstance(expect, dict) and ("cost" in expect or "estimatedCost" in expect))


CASES = [case for case in load() if _runnable(case)]


@pytest.mark.parametrize("case", CASES, ids=[case_id(case) for case in CASES])
def test_no_evaluation_costs_more_than_its_bound(case: dict[str, Any]) -> None:
    schema = {**case["schema"], "x-kubernetes-validations": [{"rule": case["rule"]}]}
    rules = SchemaRules(schema, resource_root=case["root"])
    old = case["oldObject"]
    if old is not None:
        outcome = rules.validate(case["object"], old, path="root", count_cost=True)
    else:
        outcome = rules.validate(case["object"], path="root", count_cost=True)
    assert outcome.cost is not None
    assert outcome.cost <= outcome.bound
