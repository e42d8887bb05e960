"""The outcome of an exploration, :class:`Exploration`, its verdict and the report a person reads.

The verdict is one of three, each true of what was explored:

* ``holds``: no schedule in the whole space violated the checks, the search was complete (every
  schedule up to the reduction, or a sample that can show it ran every schedule), and every check
  was put to the test;
* ``violated``: a schedule violated a check; it is the counterexample, with the fewest faults of
  all schedules when the search was exhaustive, then shrunk;
* ``unknown``: neither can be said: the schedules were a random sample (a sample is not a proof),
  one replayed schedule did not violate the claim (as Hypothesis reports an example that does not
  reproduce), the search stopped at its budget, only one shard of the space was explored, the runs
  were live on a real cluster, or a check never had anything to judge (an effect that never happened).

A random sample without a violation stays ``unknown``; a CI job that wants to pass on it says so
explicitly (``accept_sample=True``, ``--accept-sample``), as a property-based test passes after N
examples, and the report still says it is a sample of about how large a space.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from scenarios._model import Flag, RunRecord, Scenario
from scenarios._report import plural, render_flags, render_run
from scenarios._sampling import SampleCoverage
from scenarios._schedules import Shard

__all__ = ["Exploration", "Settings"]

_REAL_TIME = (
    "the operator's processes run without the engine's agent: the engine cannot know when they wait (it takes "
    "them as waiting after a quiet period of real time) and their time is real, so a run is not a function of "
    "its schedule"
)


@dataclass(frozen=True)
class Settings:
    """How to explore. ``exhaustive=None`` uses the scenario's own default.

    ``accept_sample``: a random sample in which no schedule violated the checks (and every check was put
    to the test) passes ``assert_holds()`` and exits 0, although its verdict stays ``unknown``.
    """

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
    accept_sample: bool = False
    reproduce: int = 3
    """How often a violation of an operator process without the engine's agent is replayed before it is
    reported (it is, when at least one replay violates the same checks again)."""


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
    sample: SampleCoverage | None = None
    """What a random sample covered (distinct schedules, the space's estimated size); None otherwise."""
    reproductions: int = 0
    reproduced: int = 0
    """For an operator process without the engine's agent: how many replays of the violating schedule
    ran, and how many violated the same checks again."""
    unconfirmed: RunRecord | None = None
    """Such a process's violating run that no replay reproduced: reported, but not a counterexample."""
    phase: str = "exploring"
    """What the search is doing now: ``exploring``, ``fewer faults: at most K``, ``shrinking``, ``done``."""

    @property
    def foreign(self) -> bool:
        """The operator's replicas are processes without the engine's agent: idleness and time are real."""
        operator = self.scenario.operator
        return operator is not None and not operator.agent

    @property
    def violated(self) -> bool:
        return self.counterexample is not None

    @property
    def holds(self) -> bool:
        """True only when the claim held in every schedule of a complete search of the whole space."""
        return self.counterexample is None and not self._unknown_because()

    @property
    def sampled_clean(self) -> bool:
        """A random sample found no violation, and every check was put to the test: what
        ``accept_sample`` accepts. Not a proof."""
        return (
            self.mode == "random"
            and self.counterexample is None
            and self.runs > 0
            and self.complete
            and not self.untested
        )

    @property
    def accepted(self) -> bool:
        """Whether ``assert_holds()`` passes: the claim holds, or a clean sample was explicitly accepted."""
        return self.holds or (self.settings.accept_sample and self.sampled_clean)

    @property
    def verdict(self) -> str:
        """``holds``, ``violated: <kinds>`` or ``unknown: <why>``."""
        if self.counterexample is not None:
            kinds = sorted({violation.kind for violation in self.counterexample.violations})
            if self.foreign:
                return f"violated: {', '.join(kinds)} (reproduced {self.reproduced} of {self.reproductions} replays; {_REAL_TIME})"
            return "violated: " + ", ".join(kinds)
        reasons = self._unknown_because()
        return "unknown: " + "; ".join(reasons) if reasons else "holds"

    @property
    def part_holds(self) -> bool:
        """For one shard of a split search: its part was searched whole without a violation. What
        else the whole needs (every shard, every check put to the test by some shard) is for the
        merge to say."""
        return self.counterexample is None and not self._unknown_because(as_part=True)

    def _unknown_because(self, *, as_part: bool = False) -> list[str]:
        reasons = []
        if self.unconfirmed is not None:
            kinds = ", ".join(sorted({violation.kind for violation in self.unconfirmed.violations}))
            reasons.append(
                f"schedule {self.unconfirmed.schedule_id} violated {kinds} once, but none of its "
                f"{self.reproductions} replays did (reproduced 0 of {self.reproductions})"
            )
        if self.foreign:
            reasons.append(_REAL_TIME)
        if self.runs == 0:
            reasons.append("no schedule was judged")
        if self.mode == "replay":
            reasons.append(
                "one replayed schedule is not a search: this schedule does not violate the claim, which says "
                "nothing of the others (drop the replay to explore the whole space)"
            )
        if self.mode == "live":
            reasons.append("runs on a real cluster are a sample of uncontrolled timings, not a search of the schedules")
        if self.mode == "random" and (self.sample is None or not self.sample.complete):
            covered = self.sample.describe() if self.sample is not None else plural(self.runs, "schedule")
            reasons.append(f"a random sample ({covered}) is not a complete search")
        if not self.complete:
            reasons.append(f"the search stopped at its budget of {self.settings.max_runs} runs before it was complete")
        if as_part:
            return reasons
        shard = self.settings.shard
        if shard.count > 1 and self.mode != "replay":
            reasons.append(
                f"only shard {shard.index + 1} of {shard.count} was explored (merge every shard's --summary: "
                "python -m scenarios merge)"
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
        return (
            _header(self)
            + "\n\n"
            + (
                self.run_report()
                if self.counterexample is not None
                else self._unconfirmed_report()
                if self.unconfirmed is not None
                else render_flags(
                    self.flags, "Fragile preconditions seen (no schedule broke the claim, but one may tomorrow)"
                )
            )
        )

    def _unconfirmed_report(self) -> str:
        """A foreign process's violation that no replay reproduced: shown, marked as such."""
        assert self.unconfirmed is not None
        return (
            f"A violation seen once and not reproduced in {self.reproductions} replays (not a counterexample):\n\n"
            + render_run(self.scenario, self.unconfirmed, [], self.mutation)
        )

    def run_report(self) -> str:
        """The counterexample's report alone: the same bytes whenever its schedule is replayed."""
        if self.counterexample is None:
            raise ValueError("no schedule violated the claim: there is no counterexample")
        return render_run(self.scenario, self.counterexample, self.replay_lines(), self.mutation)

    def assert_holds(self) -> None:
        """Raise AssertionError with the report unless the verdict is ``holds`` (or, with
        ``accept_sample=True``, a random sample found no violation)."""
        if self.accepted:
            return
        report = self.report()
        if self.mode == "random" and self.counterexample is None:
            report += (
                "\nA random sample is not a proof: explore with exhaustive=True, or pass accept_sample=True to "
                "accept a sample without a violation.\n"
            )
        raise AssertionError(report)

    def note_flags(self, run: RunRecord) -> None:
        seen = {(flag.path, flag.reason, flag.passed) for flag in self.flags}
        for flag in run.flags:
            if (flag.path, flag.reason, flag.passed) not in seen and len(self.flags) < 50:
                seen.add((flag.path, flag.reason, flag.passed))
                self.flags.append(flag)


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
        reasons = [f"- {reason}" for reason in exploration.verdict.removeprefix("unknown: ").split("; ")]
        if exploration.accepted:
            return "\n".join(
                [
                    f"{title}: NO VIOLATION in {exploration.runs} {schedules} explored {how}, accepted as a sample "
                    "(accept_sample): not a proof, the verdict is unknown:",
                    *reasons,
                    scope,
                ]
            )
        return "\n".join(
            [
                f"{title}: UNKNOWN, no violation in {exploration.runs} {schedules} explored {how}, "
                "but that proves nothing here:",
                *reasons,
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
            "fewer faults, fewest first"
        )
    faults = sum(1 for choice in exploration.counterexample.choices if choice.fault is not None)
    if exploration.fewest_faults_proven:
        lines.append(
            f"no schedule violates it with fewer than {faults} fault{'' if faults == 1 else 's'}"
            if faults
            else "it needs no fault at all"
        )
    elif faults and exploration.mode == "exhaustive":
        lines.append(
            f"the counterexample has {plural(faults, 'fault')}; whether fewer suffice was not settled "
            "(the search was cut short, or only one shard was explored)"
        )
    if exploration.foreign:
        lines.append(
            f"reproduced {exploration.reproduced} of {exploration.reproductions} replays of schedule "
            f"{exploration.schedule_id} with fresh processes; not shrunk (a shrink's replays would be as uncertain)"
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
    operator = scenario.operator
    if operator is not None:
        replicas = f"{plural(operator.replicas, 'replica')} of {operator.describe_command()}" + (
            f" ({plural(operator.restarts, 'restart')} each)" if "crash" in scenario.faults else ""
        )
        actors = f"{actors}, {replicas}" if actors else replicas
    if scenario.faults:
        named = [
            "crash (before a request leaves, after a write ran, at the end of a tick)" if name == "crash" else name
            for name in scenario.faults
        ]
        faults = f"faults {', '.join(named)}, at most {scenario.max_faults} per schedule"
    else:
        faults = "no faults"
    sample = exploration.sample
    if exploration.mode == "exhaustive":
        space = (
            f"every schedule up to reordering of independent steps ({settings.reduction})"
            if settings.reduction != "off"
            else "every interleaving"
        )
        if scenario.interchangeable and settings.reduction != "off":
            mirrored = "; ".join(" and ".join(group) for group in scenario.interchangeable)
            space += f" and up to swapping interchangeable actors ({mirrored})"
        searched = f"exhaustive over {space}: {exploration.runs} judged, {exploration.pruned} cut short as equivalent"
        if exploration.minimizing_runs:
            searched += f", {exploration.minimizing_runs} more judged for fewer faults"
    elif exploration.mode == "random":
        covered = f" ({sample.describe()})" if sample is not None else ""
        searched = f"sampled: {exploration.runs} schedules at random with seed {settings.seed}{covered}"
    elif exploration.mode == "live":
        searched = f"live: {exploration.runs} runs against a real cluster, timing not controlled"
    else:
        searched = f"one schedule, replayed ({settings.replay})"
    if settings.shard.count > 1 and exploration.mode != "replay":
        searched += f", shard {settings.shard.index + 1} of {settings.shard.count} only"
    if not exploration.complete:
        end = f"cut short at the budget of {settings.max_runs} runs"
    elif exploration.foreign and (exploration.counterexample or exploration.unconfirmed) and not settings.keep_going:
        end = f"stopped at the first violation, then replayed it {exploration.reproductions} times"
    elif exploration.counterexample is not None and not settings.keep_going:
        end = "stopped once the counterexample was certain"
    elif exploration.mode == "random":
        end = "the sample ran the whole space" if sample is not None and sample.complete else "a sample, not a search"
    elif exploration.mode == "live":
        end = "a sample, not a search"
    elif exploration.mode == "replay":
        end = "one schedule"
    else:
        end = "complete"
    if scenario.controllers:
        actors += (
            f"; simulated controllers {', '.join(scenario.controllers)}, one write per step, and the fake clock "
            f"up to {scenario.horizon:g} s"
        )
    return f"actors {actors}; {faults}; {searched}; {end}."
