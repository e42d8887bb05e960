"""Exploration: which schedules to run (exhaustive, seeded random, one replay), judging, shrinking.

An exhaustive search that finds a violation stops there, then looks for the counterexample with the
fewest faults by fault count: every schedule with no fault at all, then every one with at most one,
and so on below the faults of the best counterexample known. Each of those rounds is a complete
search of its own (the engine offers no fault beyond the round's budget), so when a round finds
nothing, no schedule with that many faults violates the claim; the first round that finds one has
the fewest. A replay checks that its id was written for this scenario and that the run takes the
steps the id recorded (:mod:`scenarios._ids`). The verdict is :class:`Exploration`'s.

Runs that a reduction proves redundant are counted as pruned, runs another shard owns as skipped:
neither is judged.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from scenarios._checks import default_checks, judge
from scenarios._engine import Engine
from scenarios._exploration import Exploration, Settings
from scenarios._flags import flags_for
from scenarios._ids import parse_replay_id
from scenarios._model import Check, RunRecord, Scenario
from scenarios._sampling import SampleCoverage
from scenarios._schedules import DepthFirst, RandomChooser, Replay
from scenarios._shrinking import cost, shrink

__all__ = ["CheckCoverage", "Exploration", "Progress", "Settings", "explore_async", "run_in_own_loop"]

Progress = Callable[[Exploration], None]

_LOG = logging.getLogger("scenarios")
_LOG_EVERY = 500


async def _judged(engine: Engine, chooser: Any) -> RunRecord:
    run = await engine.run(chooser)
    if run.outcome != "pruned":
        defaults = default_checks() if engine.scenario.default_checks else ()
        run.violations = judge(run, (*engine.scenario.checks, *defaults))
        run.flags = flags_for(run)
    return run


async def explore_async(
    scenario: Scenario,
    settings: Settings | None = None,
    *,
    engine: Engine | None = None,
    progress: Progress | None = None,
) -> Exploration:
    """Explore ``scenario`` (starting and stopping an engine unless one is given)."""
    settings = settings or Settings()
    if settings.replay is not None:
        parse_replay_id(settings.replay)  # a malformed or outdated id is refused before anything starts
    own = engine is None
    engine = engine or Engine(scenario)
    if own:
        await engine.start()
    try:
        return await _Search(engine, scenario, settings, progress).run()
    finally:
        if own:
            await engine.stop()


class CheckCoverage:
    """Which checks some run gave something to judge (a check with an ``exercised(run)`` method; one
    without, a predicate say, cannot tell, and counts as tested)."""

    def __init__(self, checks: tuple[Check, ...]) -> None:
        self._pending = {check.name: check for check in checks if getattr(check, "exercised", None) is not None}

    def note(self, run: RunRecord) -> None:
        for name, check in list(self._pending.items()):
            if check.exercised(run):  # type: ignore[attr-defined]
                del self._pending[name]

    def untested(self) -> list[str]:
        return list(self._pending)


def _faults(run: RunRecord) -> int:
    return sum(1 for choice in run.choices if choice.fault is not None)


class _Search:
    """One exploration: runs schedules, keeps the cheapest counterexample, says what was covered."""

    def __init__(self, engine: Engine, scenario: Scenario, settings: Settings, progress: Progress | None) -> None:
        exhaustive = scenario.exhaustive if settings.exhaustive is None else settings.exhaustive
        foreign = scenario.operator is not None and not scenario.operator.agent
        if foreign and settings.exhaustive:
            raise ValueError(
                "an operator process without the engine's agent is sampled, not searched exhaustively: its idleness "
                "and its time are real, so a run is not a function of its schedule (use --schedules N)"
            )
        exhaustive = exhaustive and not foreign
        mode = "replay" if settings.replay is not None else "exhaustive" if exhaustive else "random"
        self.engine = engine
        self.settings = settings
        self.progress = progress
        self.result = Exploration(scenario, settings, mode)
        self.best: RunRecord | None = None
        self.coverage = CheckCoverage(scenario.checks)

    async def run(self) -> Exploration:
        started = time.perf_counter()
        result = self.result
        _LOG.info("exploring %s (%s)", result.scenario.title, result.mode)
        if result.mode == "replay":
            await self._replay()
        elif result.mode == "exhaustive":
            await self._depth_first()
        else:
            await self._random()
        result.untested = self.coverage.untested()
        if self.best is not None and result.foreign:
            await self._reproduce(self.best)
        elif self.best is not None:
            result.found_as = result.found_as or self.best.schedule_id
            best = self.best
            if self.settings.shrink and result.mode != "replay":
                self._phase("shrinking")
                best, result.shrink_replays = await shrink(best, lambda chooser: _judged(self.engine, chooser))
            result.counterexample = best
        result.elapsed = time.perf_counter() - started
        self._phase("done")
        _LOG.info("%s: %s", result.scenario.title, result.verdict)
        return result

    async def _reproduce(self, found: RunRecord) -> None:
        """Replay a foreign process's violating schedule with fresh processes: it counts as a
        counterexample only if some replay violates the same checks again (docs/scenarios-operators.md)."""
        result = self.result
        result.found_as = found.schedule_id
        kinds = {violation.kind for violation in found.violations}
        self._phase(f"reproducing: {self.settings.reproduce} replays of {found.schedule_id}")
        indices = [choice.index for choice in found.choices]
        for _ in range(self.settings.reproduce):
            run = await _judged(self.engine, Replay(indices, lenient=True))
            result.reproductions += 1
            if run.violations and {violation.kind for violation in run.violations} >= kinds:
                result.reproduced += 1
        if result.reproduced:
            result.counterexample = found
        else:
            result.unconfirmed = found

    def _phase(self, phase: str) -> None:
        """Name what the search does now: the log says so at once, the progress callback with the next
        schedule it judges (it is called once per schedule)."""
        self.result.phase = phase
        _LOG.info("%s: %s (%d judged)", self.result.scenario.title, phase, self.result.runs)

    def _account(self, run: RunRecord) -> None:
        result = self.result
        if self.best is not None and not self.settings.keep_going:
            result.minimizing_runs += 1
        else:
            result.runs += 1
        result.last = run
        result.note_flags(run)
        self.coverage.note(run)
        if run.violations:
            result.violating += 1
            if self.best is None:
                result.found_as, result.found_after = run.schedule_id, result.runs + result.minimizing_runs
                _LOG.info("%s: violated in schedule %s", result.scenario.title, run.schedule_id)
            if self.best is None or cost(run) < cost(self.best):
                self.best = run
        total = result.runs + result.minimizing_runs
        if total % _LOG_EVERY == 0:
            _LOG.info("%s: %s, %d judged, %d cut short", result.scenario.title, result.phase, total, result.pruned)
        if self.progress is not None:
            self.progress(result)

    async def _replay(self) -> None:
        assert self.settings.replay is not None
        replay = parse_replay_id(self.settings.replay)
        replay.check_scenario(self.engine.fingerprint)
        foreign = self.result.foreign
        run = await _judged(self.engine, Replay(replay.indices, lenient=foreign))
        if not foreign:  # a foreign process may take other steps: the replays' count says how often
            replay.check_run(run.digest, [step.option.describe() for step in run.steps])
        self._account(run)

    def _out_of_budget(self) -> bool:
        result, budget = self.result, self.settings.max_runs
        return budget is not None and result.runs + result.minimizing_runs >= budget

    async def _depth_first(self) -> None:
        result, settings = self.result, self.settings
        if not await self._search_tree():
            result.complete = False
            return
        if self.best is None or settings.keep_going:
            result.fewest_faults_proven = self.best is not None and settings.shard.count == 1
            return
        found_with = _faults(self.best)
        proven = True
        for limit in range(found_with):
            self._phase(f"fewer faults: every schedule with at most {limit}")
            self.engine.fault_budget = limit
            try:
                complete = await self._search_tree()
            finally:
                self.engine.fault_budget = result.scenario.max_faults
            if not complete:
                result.complete = proven = False
                break
            if _faults(self.best) <= limit:
                break
        result.fewest_faults_proven = proven and settings.shard.count == 1

    async def _search_tree(self) -> bool:
        """A depth-first search of the schedules within the engine's fault budget, until the first
        violation (or through every schedule with ``keep_going``); False when the run budget ran out."""
        result, settings = self.result, self.settings
        before = self.best
        dfs = DepthFirst(
            reduction=settings.reduction, shard=settings.shard, interchangeable=self.engine.scenario.interchangeable
        )
        while not dfs.finished:
            if self._out_of_budget():
                return False
            dfs.begin()
            run = await _judged(self.engine, dfs)
            if run.outcome == "pruned":
                result.pruned += 1
            elif not dfs.owns_current():
                result.skipped += 1
            else:
                self._account(run)
                if self.best is not before and not settings.keep_going:
                    return True
            dfs.advance()
        return True

    async def _random(self) -> None:
        result, settings = self.result, self.settings
        result.sample = SampleCoverage()
        for index in range(settings.schedules):
            if not settings.shard.owns_run(index):
                result.skipped += 1
                continue
            chooser = RandomChooser(settings.seed, index)
            run = await _judged(self.engine, chooser)
            result.sample.note(run, chooser.probability)
            self._account(run)
            if self.best is not None and not settings.keep_going:
                return


def run_in_own_loop(coroutine_factory: Callable[[], Any]) -> Any:
    """Run a coroutine to completion in a fresh event loop, in a thread if this one already has a loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine_factory())
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine_factory())
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=target, name="scenarios")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
