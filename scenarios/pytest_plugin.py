"""The pytest plugin: write a scenario around your own handler code and explore it in a test.

Register it with the ``pytest11`` entry point ``scenarios`` (or ``-p scenarios.pytest_plugin``).

Fixture ``explore``: call it with the scenario's keywords (see :func:`scenarios.scenario`) and the
exploration's (see :func:`scenarios.explore`); it returns an :class:`~scenarios.Exploration`::

    def test_completion_is_exactly_once(explore):
        explore(objects=[crd, job], actors={"a": tick, "b": tick}, ticks=2,
                checks=exactly_once("complete", "default/job-1")).assert_holds()

``explore.hostile(...)`` takes the same keywords and returns a :class:`~scenarios.HostileReport`.

Marker ``@pytest.mark.scenarios_replay("s0101")`` replays exactly that schedule (a failure report
prints it). Option ``--scenario-seed S`` replaces the seed of every random exploration.

An exploration runs whole in the test that calls it, in one worker: under ``pytest -n N`` tests are
spread over workers, never one exploration, so a verdict cannot depend on ``-n``. To spread one
large exploration, mark its test ``@pytest.mark.scenarios_shards(N)``: it becomes N items, one per
shard of the schedule space, which xdist spreads over workers; each item's ``assert_holds()`` judges
its part, and the session merges the parts into one verdict, printed at its end, and fails unless
the whole holds (:mod:`scenarios._pytest_shards`). Over machines, run ``python -m scenarios run ...
--shard K/N`` once per shard (docs/scenarios-sharding.md).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from scenarios._pytest_shards import MARKER, PROPERTY, ShardMerger, ShardPart, shard_parameters, whole_test_id

__all__ = ["Explorer", "explore", "scenarios_shard"]

_SCENARIO_KEYWORDS = (
    "objects",
    "actors",
    "writers",
    "checks",
    "name",
    "variant",
    "description",
    "faults",
    "max_faults",
    "ticks",
    "restarts",
    "setup",
    "before_run",
    "derive",
    "server_seed",
    "max_steps",
    "authorization",
    "service_accounts",
    "controllers",
    "nodes",
    "outcomes",
    "horizon",
    "operator",
    "default_checks",
    "webhooks",
    "interchangeable",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("scenarios", "scenarios: exactly-once exploration")
    group.addoption(
        "--scenario-seed",
        type=int,
        default=None,
        help="seed for every random exploration, replacing the one the test gives (default: the test's, else 0)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "scenarios_replay(schedule_id): run exactly this schedule in the test's explore fixture"
    )
    config.addinivalue_line(
        "markers",
        f"{MARKER}(count): split the test's exploration into count items, one per shard, merged at the session's end",
    )
    if not hasattr(config, "workerinput"):  # the xdist controller, or a run without xdist
        config.pluginmanager.register(ShardMerger(), "scenarios-shard-merger")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    shard_parameters(metafunc)


class Explorer:
    """The ``explore`` fixture's value: call it to explore, ``.hostile(...)`` to probe hostile values."""

    def __init__(self, request: pytest.FixtureRequest, shard: tuple[int, int] | None = None) -> None:
        self._request = request
        self._shard = shard

    def _split(self, keywords: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        from scenarios._running import scenario

        built = scenario(**{key: keywords.pop(key) for key in list(keywords) if key in _SCENARIO_KEYWORDS})
        return built, keywords

    def _hint(self, schedule: str, mutation: str | None) -> list[str]:
        nodeid = self._request.node.nodeid
        lines = [f'@pytest.mark.scenarios_replay("{schedule}")  # on {nodeid}']
        if mutation:
            lines.append(f"(with hostile data {mutation})")
        return [*lines, f"pytest '{nodeid}'"]

    def __call__(self, **keywords: Any) -> Any:
        from scenarios._running import explore

        target, settings = self._split(dict(keywords))
        marker = self._request.node.get_closest_marker("scenarios_replay")
        if marker is not None:
            settings["replay"] = marker.args[0]
        self._seed(settings)
        settings.setdefault("replay_hint", self._hint)
        if self._shard is None or "replay" in settings:
            return explore(target, **settings)
        from scenarios._merging import summary_of
        from scenarios._schedules import Shard

        index, count = self._shard
        part = explore(target, shard=Shard(index - 1, count), **settings)
        test = whole_test_id(self._request.node.nodeid, index, count)
        self._request.node.user_properties.append((PROPERTY, json.dumps({"test": test, "summary": summary_of(part)})))
        return ShardPart(part)

    def hostile(self, **keywords: Any) -> Any:
        from scenarios._running import probe

        target, settings = self._split(dict(keywords))
        self._seed(settings)
        settings.setdefault("replay_hint", self._hint)
        return probe(target, **settings)

    def _seed(self, settings: dict[str, Any]) -> None:
        seed = self._request.config.getoption("--scenario-seed")
        if seed is not None:
            settings["seed"] = seed


@pytest.fixture
def scenarios_shard(request: pytest.FixtureRequest) -> tuple[int, int] | None:
    """``(K, N)`` in the K-th item of a test marked ``scenarios_shards(N)``, else None."""
    shard: tuple[int, int] | None = getattr(request, "param", None)
    return shard


@pytest.fixture
def explore(request: pytest.FixtureRequest, scenarios_shard: tuple[int, int] | None) -> Explorer:
    """Explore a scenario built from keywords; see the module docstring."""
    return Explorer(request, scenarios_shard)
