"""The pytest plugin: write a scenario around your own handler code and explore it in a test.

Register it with the ``pytest11`` entry point ``scenarios`` (or ``-p scenarios.pytest_plugin``).

Fixture ``explore``: call it with the scenario's keywords (see :func:`scenarios.scenario`) and the
exploration's (see :func:`scenarios.explore`); it returns an :class:`~scenarios.Exploration`::

    def test_completion_is_exactly_once(explore):
        explore(objects=[crd, job], actors={"a": tick, "b": tick}, ticks=2,
                checks=exactly_once("complete", "default/job-1")).assert_holds()

``explore.hostile(...)`` takes the same keywords and returns a :class:`~scenarios.HostileReport`.

Marker ``@pytest.mark.scenarios_replay("s0101")`` replays exactly that schedule (a failure report
prints it). Option ``--scenario-shards N`` (default ``auto``: the number of xdist workers) splits
every exploration into N tests, each exploring a deterministic part of the schedule space, so
``pytest -n 4`` explores one scenario on four cores.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from scenarios._schedules import Shard

__all__ = ["Explorer", "explore", "scenario_shard"]

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
    "derive",
    "seed",
    "max_steps",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("scenarios", "scenarios: exactly-once exploration")
    group.addoption(
        "--scenario-shards",
        default="auto",
        help="split each exploration into N shard tests (default auto: one per xdist worker, else 1)",
    )
    group.addoption(
        "--scenario-seed", type=int, default=None, help="seed for random explorations (default: the test's)"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "scenarios_replay(schedule_id): run exactly this schedule in the test's explore fixture"
    )


def _shard_count(config: pytest.Config) -> int:
    value = str(config.getoption("--scenario-shards"))
    if value != "auto":
        return max(1, int(value))
    workers = getattr(config, "workerinput", {}).get("workercount")
    if workers is None:
        workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    return max(1, int(workers)) if workers else 1


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "scenario_shard" not in metafunc.fixturenames:
        return
    if metafunc.definition.get_closest_marker("scenarios_replay") is not None:
        return
    count = _shard_count(metafunc.config)
    if count > 1:
        from scenarios._schedules import Shard

        metafunc.parametrize(
            "scenario_shard",
            [Shard(index, count) for index in range(count)],
            ids=[f"shard{i + 1}of{count}" for i in range(count)],
        )


@pytest.fixture
def scenario_shard() -> Shard:
    """Which part of the schedule space this test explores (all of it unless sharded)."""
    from scenarios._schedules import Shard

    return Shard()


class Explorer:
    """The ``explore`` fixture's value: call it to explore, ``.hostile(...)`` to probe hostile values."""

    def __init__(self, request: pytest.FixtureRequest, shard: Shard) -> None:
        self._request = request
        self._shard = shard

    def _split(self, keywords: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        from scenarios._running import scenario

        built = scenario(**{key: keywords.pop(key) for key in list(keywords) if key in _SCENARIO_KEYWORDS})
        return built, keywords

    def _hint(self, schedule: str, mutation: str | None) -> list[str]:
        nodeid = self._request.node.nodeid.split("[shard")[0]
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
        seed = self._request.config.getoption("--scenario-seed")
        if seed is not None:
            settings.setdefault("seed", seed)
        settings.setdefault("shard", self._shard)
        settings.setdefault("replay_hint", self._hint)
        return explore(target, **settings)

    def hostile(self, **keywords: Any) -> Any:
        from scenarios._running import probe

        target, settings = self._split(dict(keywords))
        settings.setdefault("replay_hint", self._hint)
        return probe(target, **settings)


@pytest.fixture
def explore(request: pytest.FixtureRequest, scenario_shard: Shard) -> Explorer:
    """Explore a scenario built from keywords; see the module docstring."""
    return Explorer(request, scenario_shard)
