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
from scenarios._report import plural, render_flags, render_run
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
        return _describe_scope(self)

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
        return _render_exploration(self)

    def run_report(self) -> str:
        """The counterexample's report alone: the same bytes whenever its schedule is replayed."""
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


def _render_exploration(exploration: Exploration) -> str:
    """The header (what was explored), then the counterexample's report or the fragility notes."""
    return (
        _header(exploration)
        + "\n\n"
        + (
            exploration.run_report()
            if exploration.counterexample is not None
            else render_flags(
                exploration.flags, "Fragile preconditions seen (no schedule broke the claim, but one may tomorrow)"
            )
        )
    )


def _how(exploration: Exploration) -> str:
    settings = exploration.settings
    if exploration.mode == "exhaustive":
        how = f"exhaustively (reduction: {settings.reduction}"
        how += f", {exploration.pruned} runs cut short as equivalent)" if settings.reduction != "off" else ")"
    elif exploration.mode == "random":
        how = f"at random (seed {settings.seed})"
    elif exploration.mode == "live":
        how = "against a real cluster (no gates: uncontrolled timing; journal checks and faults do not apply)"
    else:
        how = f"by replaying {settings.replay}"
    if settings.shard.count > 1 and exploration.mode != "replay":
        how += f", shard {settings.shard.index + 1} of {settings.shard.count}"
    return how


def _header(exploration: Exploration) -> str:
    scenario = exploration.scenario
    schedules = "schedule" if exploration.runs == 1 else "schedules"
    title = scenario.title + (f" [{exploration.mutation}]" if exploration.mutation else "")
    how = _how(exploration)
    scope = "Scope: " + _describe_scope(exploration)
    if exploration.holds:
        return f"{title}: HOLDS in every one of {exploration.runs} {schedules} explored {how}\n{scope}"
    if exploration.counterexample is None:
        return "\n".join(
            [
                f"{title}: UNKNOWN, no violation in {exploration.runs} {schedules} explored {how}, "
                "but that proves nothing here:",
                *(f"- {reason}" for reason in exploration.verdict.removeprefix("unknown: ").split("; ")),
                scope,
            ]
        )
    lines = [
        f"{title}: VIOLATED ({exploration.verdict.removeprefix('violated: ')}), {exploration.runs} {schedules} explored {how}"
    ]
    if exploration.settings.keep_going:
        lines.append(f"{exploration.violating} of {exploration.runs} schedules violate it")
    if exploration.minimizing_runs:
        lines.append(
            f"then {plural(exploration.minimizing_runs, 'more schedule')} searched for a counterexample with "
            "fewer faults"
        )
    if exploration.fewest_faults_proven:
        faults = sum(1 for choice in exploration.counterexample.choices if choice.fault is not None)
        lines.append(
            f"no schedule violates it with fewer than {faults} fault{'' if faults == 1 else 's'}"
            if faults
            else "it needs no fault at all"
        )
    if exploration.found_as and exploration.found_as != exploration.schedule_id:
        lines.append(
            f"found as schedule {exploration.found_as}, shrunk to {exploration.schedule_id} "
            f"in {exploration.shrink_replays} replays"
        )
    lines.append(scope)
    return "\n".join(lines)


def _describe_scope(exploration: Exploration) -> str:
    """Actors and ticks, faults and their budget, how the space was searched, and whether completely."""
    scenario, settings = exploration.scenario, exploration.settings
    actors = ", ".join(
        f"{actor.name} ({'writer, ' if actor.writer else ''}{plural(actor.ticks, 'tick')}"
        + (f", {plural(actor.restarts, 'restart')}" if "crash" in scenario.faults else "")
        + ")"
        for actor in scenario.actors
    )
    if scenario.faults:
        named = [
            "crash (before a request leaves, after a write ran, at the end of a tick)" if name == "crash" else name
            for name in scenario.faults
        ]
        faults = f"faults {', '.join(named)}, at most {scenario.max_faults} per schedule"
    else:
        faults = "no faults"
    if exploration.mode == "exhaustive":
        space = (
            f"every schedule up to reordering of independent steps ({settings.reduction})"
            if settings.reduction != "off"
            else "every interleaving"
        )
        searched = f"exhaustive over {space}: {exploration.runs} judged, {exploration.pruned} cut short as equivalent"
        if exploration.minimizing_runs:
            searched += f", {exploration.minimizing_runs} more judged for fewer faults"
    elif exploration.mode == "random":
        searched = f"sampled: {exploration.runs} schedules at random with seed {settings.seed}, not every schedule"
    elif exploration.mode == "live":
        searched = f"live: {exploration.runs} runs against a real cluster, timing not controlled"
    else:
        searched = f"one schedule, replayed ({settings.replay})"
    if settings.shard.count > 1 and exploration.mode != "replay":
        searched += f", shard {settings.shard.index + 1} of {settings.shard.count} only"
    if not exploration.complete:
        end = f"cut short at the budget of {settings.max_runs} runs"
    elif exploration.counterexample is not None and not settings.keep_going:
        end = "stopped once the counterexample was certain"
    else:
        end = "complete"
    if scenario.controllers:
        actors += (
            f"; simulated controllers {', '.join(scenario.controllers)}, one write per step, and the fake clock "
            f"up to {scenario.horizon:g} s"
        )
    return f"actors {actors}; {faults}; {searched}; {end}."
