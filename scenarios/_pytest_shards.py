"""One exploration split over test items, so that ``pytest -n N`` spreads it over xdist workers.

``@pytest.mark.scenarios_shards(N)`` on a test that takes the ``explore`` fixture makes N items of
it, one per shard of the schedule space (ids ``shard1of3``...). Each item's exploration searches
its part only (``Settings.shard``, as ``python -m scenarios run --shard K/N`` does), and its
``assert_holds()`` fails on a violation, or when its part was not searched whole; a part alone
proves nothing, so each item hands its summary (:func:`scenarios._merging.summary_of`) to the
session through the test report's ``user_properties``, which xdist carries to the controller.

At the end of the session the summaries of each test are merged exactly as ``python -m scenarios
merge`` merges files: the claim holds only when every shard is there, searched its part whole, and
found no violation, and every check was put to the test by some shard. The merged verdicts are
printed in a section of the terminal summary, and a merge that does not say holds (a shard
missing because it was deselected or errored, a sample, a violation) fails the session.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

__all__ = ["MARKER", "PROPERTY", "ShardMerger", "ShardPart", "shard_id", "shard_parameters", "whole_test_id"]

MARKER = "scenarios_shards"
PROPERTY = "scenarios-shard-summary"


def shard_id(index: int, count: int) -> str:
    return f"shard{index}of{count}"


def whole_test_id(nodeid: str, index: int, count: int) -> str:
    """The node id of the exploration a shard's item is part of: its own id without the shard's
    parameter, which pytest joins to the test's other parameters with ``-``."""
    base, bracket, rest = nodeid.partition("[")
    ids, token = rest.removesuffix("]"), shard_id(index, count)
    if not bracket or ids == token:
        return base
    for part in (f"-{token}", f"{token}-"):
        if part in ids:
            return f"{base}[{ids.replace(part, '', 1)}]"
    return nodeid


def shard_parameters(metafunc: pytest.Metafunc) -> None:
    """Parametrize a marked test's ``scenarios_shard`` fixture with its N shards."""
    marker = metafunc.definition.get_closest_marker(MARKER)
    if marker is None or "scenarios_shard" not in metafunc.fixturenames:
        return
    count = marker.args[0] if marker.args else marker.kwargs.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise pytest.UsageError(f"{MARKER} takes the number of shards, a positive integer, not {count!r}")
    shards = [(index, count) for index in range(1, count + 1)]
    metafunc.parametrize("scenarios_shard", shards, ids=[shard_id(index, count) for index, _ in shards], indirect=True)


class ShardPart:
    """What the ``explore`` fixture returns for one shard: the shard's own exploration (every
    attribute of it), whose ``assert_holds()`` judges the part; the session judges the whole."""

    def __init__(self, exploration: Any) -> None:
        self.exploration = exploration

    def __getattr__(self, name: str) -> Any:
        return getattr(self.exploration, name)

    def assert_holds(self) -> None:
        """Raise AssertionError with the report on a violation, or when the part was not searched
        whole; the merged verdict of every part is the session's (see the module docstring)."""
        if not self.exploration.part_holds:
            raise AssertionError(self.exploration.report())


class ShardMerger:
    """Collects the shards' summaries from the test reports and merges them at the session's end
    (on the xdist controller, or in the one process of a run without xdist)."""

    def __init__(self) -> None:
        self._summaries: dict[str, list[dict[str, Any]]] = {}
        self._lines: list[str] = []
        self._failed = False

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for key, value in report.user_properties:
            if key == PROPERTY:
                part = json.loads(str(value))
                self._summaries.setdefault(part["test"], []).append(part["summary"])

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from scenarios._merging import merge_summaries

        for test, summaries in sorted(self._summaries.items()):
            try:
                merged = merge_summaries(summaries)
            except ValueError as error:
                self._lines += [f"{test}: the shards cannot be merged: {error}"]
                self._failed = True
                continue
            self._lines += [f"{test}:", *(f"  {line}" for line in merged.lines)]
            self._failed |= merged.exit_status != 0
        if self._failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self._lines:
            return
        terminalreporter.section("scenarios: explorations split over test items")
        for line in self._lines:
            terminalreporter.write_line(line)
        if self._failed:
            terminalreporter.write_line("a split exploration does not hold as a whole: the session fails")
