"""Exploration: which schedules to run (exhaustive, seeded random, one replay), judging, shrinking.

The result, :class:`Exploration`, says whether the property held in every schedule explored, and
if not carries the shrunk counterexample and the line that replays it. Runs that a reduction
proves redundant are counted as pruned, runs another shard owns as skipped: neither is judged.
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
from scenarios._model import Flag, RunRecord, Scenario
from scenarios._schedules import Chooser, DepthFirst, RandomChooser, Replay, Shard, decode_schedule
from scenarios._shrinking import shrink

__all__ = ["Exploration", "Settings", "explore", "explore_async", "run_in_own_loop"]


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
    pruned: int = 0
    skipped: int = 0
    violating: int = 0
    complete: bool = True
    counterexample: RunRecord | None = None
    found_as: str = ""
    shrink_replays: int = 0
    flags: list[Flag] = field(default_factory=list)
    elapsed: float = 0.0
    mutation: str | None = None
    last: RunRecord | None = None

    @property
    def holds(self) -> bool:
        return self.counterexample is None

    @property
    def verdict(self) -> str:
        if self.counterexample is None:
            return "holds"
        kinds = sorted({violation.kind for violation in self.counterexample.violations})
        return "violated: " + ", ".join(kinds)

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
            raise ValueError("the property held: there is no counterexample")
        return render_run(self.scenario, self.counterexample, self.replay_lines(), self.mutation)

    def assert_holds(self) -> None:
        if not self.holds:
            raise AssertionError(self.report())

    def _note(self, run: RunRecord) -> None:
        seen = {(flag.path, flag.reason, flag.passed) for flag in self.flags}
        for flag in run.flags:
            if (flag.path, flag.reason, flag.passed) not in seen and len(self.flags) < 50:
                seen.add((flag.path, flag.reason, flag.passed))
                self.flags.append(flag)


Progress = Callable[[Exploration], None]


async def _judged(engine: Engine, chooser: Chooser) -> RunRecord:
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
        return await _explore(engine, scenario, settings, progress)
    finally:
        if own:
            await engine.stop()


async def _explore(engine: Engine, scenario: Scenario, settings: Settings, progress: Progress | None) -> Exploration:
    exhaustive = scenario.exhaustive if settings.exhaustive is None else settings.exhaustive
    mode = "replay" if settings.replay is not None else "exhaustive" if exhaustive else "random"
    result = Exploration(scenario, settings, mode)
    started = time.perf_counter()
    first: RunRecord | None = None

    def account(run: RunRecord) -> bool:
        """Count a judged run; True when exploration should stop."""
        nonlocal first
        result.runs += 1
        result.last = run
        result._note(run)
        if run.violations:
            result.violating += 1
            first = first or run
        if progress is not None:
            progress(result)
        return first is not None and not settings.keep_going

    if settings.replay is not None:
        account(await _judged(engine, Replay(decode_schedule(settings.replay))))
    elif exhaustive:
        dfs = DepthFirst(reduction=settings.reduction, shard=settings.shard)
        while not dfs.finished:
            if settings.max_runs is not None and result.runs >= settings.max_runs:
                result.complete = False
                break
            dfs.begin()
            run = await _judged(engine, dfs)
            if run.outcome == "pruned":
                result.pruned += 1
            elif not dfs.owns_current():
                result.skipped += 1
            elif account(run):
                result.complete = False
                break
            dfs.advance()
    else:
        for index in range(settings.schedules):
            if not settings.shard.owns_run(index):
                result.skipped += 1
                continue
            if account(await _judged(engine, RandomChooser(settings.seed, index))):
                break
    if first is not None:
        result.found_as = first.schedule_id
        if settings.shrink and settings.replay is None:
            first, result.shrink_replays = await shrink(first, lambda chooser: _judged(engine, chooser))
        result.counterexample = first
    result.elapsed = time.perf_counter() - started
    return result


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


def explore(scenario: Scenario, settings: Settings | None = None, *, progress: Progress | None = None) -> Exploration:
    """Synchronous :func:`explore_async`, usable from sync and async code alike."""
    return run_in_own_loop(lambda: explore_async(scenario, settings, progress=progress))  # type: ignore[no-any-return]
