"""The hostile-values pass: explore the baseline (plain spellings), then every field in every hostile
spelling, and collect the mutations that change the verdict (see :mod:`scenarios._hostile`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from fakeapi import APIError
from scenarios._engine import Engine
from scenarios._exploration import Exploration, Settings
from scenarios._exploring import explore_async
from scenarios._hostile import Mutation, ProbedField, mutable_fields, mutate, plain_objects, spellings_for
from scenarios._model import Scenario

__all__ = ["Finding", "HostileReport", "probe_async"]


@dataclass
class Finding:
    mutation: Mutation
    exploration: Exploration | None
    rejected: str = ""

    @property
    def verdict(self) -> str:
        return f"rejected at load: {self.rejected}" if self.exploration is None else self.exploration.verdict


@dataclass
class HostileReport:
    """What hostile spellings did to a claim.

    ``verdict``: ``robust`` (the baseline holds and every mutation still holds), ``fragile`` (the
    baseline holds and some mutation breaks it, or is rejected), or ``unknown`` (the baseline, with
    plain data, does not hold: nothing can be said of the data; the baseline was only sampled, so a
    mutation's violation, real as it is, cannot be said to change the verdict; or some mutation's
    exploration was sampled or cut short). ``fragile`` is true unless the claim is robust, so
    ``assert not report.fragile`` passes only for a robust claim: one whose every exploration was a
    complete search.
    """

    scenario: Scenario
    baseline: Exploration
    findings: list[Finding] = field(default_factory=list)
    robust: list[ProbedField] = field(default_factory=list)
    unknown: list[Finding] = field(default_factory=list)
    mutations: int = 0

    @property
    def verdict(self) -> str:
        if not self.baseline.holds:
            return "unknown"
        if self.findings:
            return "fragile"
        return "unknown" if self.unknown else "robust"

    @property
    def fragile(self) -> bool:
        return self.verdict != "robust"

    def report(self) -> str:
        lines = [
            f"# hostile values: {self.scenario.title}",
            f"baseline (user strings and numbers spelled plainly): {self.baseline.verdict} "
            f"({self.baseline.runs} schedules)",
        ]
        if not (self.baseline.holds or self.baseline.sampled_clean):
            lines += [
                "",
                "The claim does not hold even with plain data, so no hostile value was tried and no field is "
                "called robust: fix the baseline first (its report below).",
                "",
                self.baseline.report(),
            ]
            return "\n".join(lines) + "\n"
        lines += [
            f"{self.mutations} mutations tried, each explored as the baseline was: {self.baseline.scope}",
            "",
        ]
        if self.findings:
            lines.append("## Fragile: the verdict changes with the data")
            for finding in self.findings:
                value = finding.mutation.value
                lines.append(f"- {finding.mutation.field} = {value!r} ({finding.mutation.spelling}): {finding.verdict}")
                if finding.exploration is not None:
                    lines += [f"  replay: {line}" for line in finding.exploration.replay_lines()]
        else:
            lines.append("No mutation changed the verdict.")
        if self.unknown:
            lines += ["", "## Not decided (the exploration of these was a sample, or cut short)"]
            lines += [f"- {finding.mutation}: {finding.verdict}" for finding in self.unknown]
        if self.robust:
            lines += ["", "## Robust fields", *(f"- {item}" for item in self.robust)]
        return "\n".join(lines) + "\n"


async def probe_async(
    scenario: Scenario, settings: Settings, *, progress: Callable[[str], None] | None = None
) -> HostileReport:
    engine = Engine(scenario)
    await engine.start()
    try:
        base_objects = plain_objects(list(scenario.objects), scenario.derive)
        await engine.prepare(base_objects)
        baseline = await explore_async(scenario, settings, engine=engine)
        baseline.mutation = "plain"
        result = HostileReport(scenario, baseline)
        if not (baseline.holds or baseline.sampled_clean):
            return result
        for item, value in mutable_fields(base_objects):
            changed = undecided = False
            for spelling in spellings_for(value):
                mutation = Mutation(item, spelling)
                result.mutations += 1
                if progress is not None:
                    progress(str(mutation))
                try:
                    await engine.prepare(mutate(list(scenario.objects), mutation, scenario.derive))
                except APIError as error:
                    result.findings.append(Finding(mutation, None, str(error)))
                    changed = True
                    continue
                explored = await explore_async(scenario, replace(settings), engine=engine)
                explored.mutation = str(mutation)
                if explored.violated:
                    result.findings.append(Finding(mutation, explored))
                    changed = True
                elif not explored.holds:
                    result.unknown.append(Finding(mutation, explored))
                    undecided = True
            if not changed and not undecided:
                result.robust.append(item)
        return result
    finally:
        await engine.stop()
