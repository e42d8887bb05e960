"""Exploration: which schedules to run (exhaustive, seeded random, one replay), judging, shrinking.

The result, :class:`Exploration`, has one of three verdicts, each true of what was explored:

* ``holds``: no schedule in the whole space violated the checks, the search was complete (every
  schedule up to the reduction, or every sample asked for), and every check was put to the test;
* ``violated``: a schedule violated a check; it is the counterexample, with the fewest faults of
  all schedules when the search was exhaustive, then shrunk;
* ``unknown``: neither can be said: the search stopped at its budget, only one shard of the space
  was explored, or a check never had anything to judge (an effect that never happened).

Runs that a reduction proves redundant are counted as pruned, runs another shard owns as skipped:
neither is judged.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scenarios._checks import default_checks, judge
from scenarios._engine import Engine
from scenarios._flags import flags_for
from scenarios._model import Check, Flag, RunRecord, Scenario
from scenarios._schedules import DepthFirst, RandomChooser, Replay, Shard, decode_schedule
from scenarios._shrinking import cost, shrink

__all__ = ["CheckCoverage", "Exploration", "Settings", "explore_async", "run_in_own_loop"]


@dataclass(frozen=True)
class Settings:
    """How to explore. ``exhaustive=None`` uses the scenario's own default."""

    exhaustive: bool | None = None
    schedules: int = 200
    seed: int = 0
    replay: str | None = None
    reduction: str = "dpor"
    shard: Shard = field(default_factory=Shard)
    keep_going: bool = False
    shrink: bool = True
    max_runs: int | None = None
    replay_hint: Callable[[str, str | None], list[str]] | None = None


@dataclass
class Exploration:
    """The outcome of exploring one scenario (one variant, one data set)."""

    scenario: Scenario
    settings: Settings
    mode: str
    runs: int = 0
    minimizing_runs: int = 0
    """``runs``: schedules judged until the verdict was reached (a violation found, or every schedule);
    ``minimizing_runs``: schedules judged after a violation, searching for one with fewer faults."""
    pruned: int = 0
    skipped: int = 0
    violating: int = 0
    complete: bool = True
    counterexample: RunRecord | None = None
    found_as: str = ""
    found_after: int = 0
    fewest_faults_proven: bool = False
    shrink_replays: int = 0
    flags: list[Flag] = field(default_factory=list)
    untested: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    mutation: str | None = None
    last: RunRecord | None = None

    @property
    def violated(self) -> bool:
        return self.counterexample is not None

    @property
    def holds(self) -> bool:
        """True only when the claim held in every schedule of a complete search of the whole space."""
        return self.counterexample is None and not self._unknown_because()

    @property
    def verdict(self) -> str:
        """``holds``, ``violated: <kinds>`` or ``unknown: <why>``."""
        if self.counterexample is not None:
            kinds = sorted({violation.kind for violation in self.counterexample.violations})
            return "violated: " + ", ".join(kinds)
        reasons = self._unknown_because()
        return "unknown: " + "; ".join(reasons) if reasons else "holds"

    def _unknown_because(self) -> list[str]:
        reasons = []
        if self.runs == 0:
            reasons.append("no schedule was judged")
        if not self.complete:
            reasons.append(f"the search stopped at its budget of {self.settings.max_runs} runs before it was complete")
        shard = self.settings.shard
        if shard.count > 1 and self.mode != "replay":
            reasons.append(
                f"only shard {shard.index + 1} of {shard.count} was explored (every shard must find nothing)"
            )
        reasons += [f"{name} was never put to the test: no schedule produced that effect" for name in self.untested]
        return reasons

    @property
    def scope(self) -> str:
        """What was explored, in words a reviewer can check."""
        from scenarios._report import describe_scope

        return describe_scope(self)

    @property
    def schedule_id(self) -> str | None:
        return self.counterexample.schedule_id if self.counterexample is not None else None

    def replay_lines(self) -> list[str]:
        """The command or decorator that replays the counterexample (given by whoever knows how)."""
        if self.settings.replay_hint is None or self.schedule_id is None:
            return []
        return self.settings.replay_hint(self.schedule_id, self.mutation)

    def report(self) -> str:
        """What was explored, then the counterexample's report (or the fragile preconditions seen)."""
        from scenarios._report import render_exploration

        return render_exploration(self)

    def run_report(self) -> str:
        """The counterexample's report alone: the same bytes whenever its schedule is replayed."""
        from scenarios._report import render_run

        if self.counterexample is None:
            raise ValueError("no schedule violated the claim: there is no counterexample")
        return render_run(self.scenario, self.counterexample, self.replay_lines(), self.mutation)

    def assert_holds(self) -> None:
        """Raise AssertionError with the report unless the verdict is ``holds``."""
        if not self.holds:
            raise AssertionError(self.report())

    def _note(self, run: RunRecord) -> None:
        seen = {(flag.path, flag.reason, flag.passed) for flag in self.flags}
        for flag in run.flags:
            if (flag.path, flag.reason, flag.passed) not in seen and len(self.flags) < 50:
                seen.add((flag.path, flag.reason, flag.passed))
                self.flags.append(flag)


Progress = Callable[[Exploration], None]


async def _judged(engine: Engine, chooser: Any) -> RunRecord:
    run = await engine.run(chooser)
    if run.outcome != "pruned":
        run.violations = judge(run, (*engine.scenario.checks, *default_checks()))
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
        if result.mode == "replay":
            assert self.settings.replay is not None
            self._account(await _judged(self.engine, Replay(decode_schedule(self.settings.replay))))
        elif result.mode == "exhaustive":
            await self._depth_first()
        else:
            await self._random()
        result.untested = self.coverage.untested()
        if self.best is not None:
            result.found_as = result.found_as or self.best.schedule_id
            best = self.best
            if self.settings.shrink and result.mode != "replay":
                best, result.shrink_replays = await shrink(best, lambda chooser: _judged(self.engine, chooser))
            result.counterexample = best
        result.elapsed = time.perf_counter() - started
        return result

    def _account(self, run: RunRecord) -> None:
        result = self.result
        if self.best is not None and not self.settings.keep_going:
            result.minimizing_runs += 1
        else:
            result.runs += 1
        result.last = run
        result._note(run)
        self.coverage.note(run)
        if run.violations:
            result.violating += 1
            if self.best is None:
                result.found_as, result.found_after = run.schedule_id, result.runs + result.minimizing_runs
            if self.best is None or cost(run) < cost(self.best):
                self.best = run
        if self.progress is not None:
            self.progress(result)

    async def _depth_first(self) -> None:
        result, settings = self.result, self.settings
        dfs = DepthFirst(reduction=settings.reduction, shard=settings.shard)
        while not dfs.finished:
            if settings.max_runs is not None and result.runs + result.minimizing_runs >= settings.max_runs:
                result.complete = False
                return
            dfs.begin()
            run = await _judged(self.engine, dfs)
            if run.outcome == "pruned":
                result.pruned += 1
            elif not dfs.owns_current():
                result.skipped += 1
            else:
                self._account(run)
                if self.best is not None and not settings.keep_going:
                    faults = _faults(self.best)
                    if faults == 0:
                        result.fewest_faults_proven = True
                        return
                    # What remains to explore is only the schedules that could have fewer faults.
                    dfs.fault_limit = faults - 1
            dfs.advance()
        result.fewest_faults_proven = self.best is not None and settings.shard.count == 1

    async def _random(self) -> None:
        result, settings = self.result, self.settings
        for index in range(settings.schedules):
            if not settings.shard.owns_run(index):
                result.skipped += 1
                continue
            self._account(await _judged(self.engine, RandomChooser(settings.seed, index)))
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
