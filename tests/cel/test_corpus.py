"""The differential corpus: rules recorded from upstream's own test tables, each with its outcome (docs/cel.md).

tests/data/cel/corpus.json holds the cases (tools/celcorpus/extract.py writes it, each case naming its upstream
file, version and table row); tests/data/cel/differences.json names the cases whose outcome here differs, each
with the reason. Every other case must give upstream's outcome, and every listed one must still differ, so the
list stays true.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.cel.corpus_runner import case_id, known_differences, load, outcome_mismatch

CASES = load()
DIFFERENCES = known_differences()


def _id(case: dict[str, Any]) -> str:
    return case_id(case).split(" ", 2)[2][:120]


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_a_recorded_rule_gives_the_recorded_outcome(case: dict[str, Any]) -> None:
    mismatch = outcome_mismatch(case)
    if case_id(case) in DIFFERENCES:
        assert mismatch is not None, f"now matches upstream; remove it from differences.json: {case_id(case)}"
    else:
        assert mismatch is None, mismatch


def test_the_corpus_is_as_large_as_recorded() -> None:
    # A regenerated corpus that lost cases would silently test less.
    assert len(CASES) >= 1000
    assert set(DIFFERENCES) <= {case_id(case) for case in CASES}
