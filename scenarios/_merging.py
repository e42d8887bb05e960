"""One verdict from the shards of a split exploration.

``python -m scenarios run ... --shard K/N --summary FILE`` writes what shard K explored; ``python -m
scenarios merge FILE...`` reads the N summaries and says what they prove together. The claim holds
only when every shard of one exhaustive search of one scenario (same fingerprint, code digest,
schedule encoding, reduction, fault budget and number of shards) is present once, each completed its part without a
violation, and every check was put to the test by some shard. Any shard's violation is a violation.
Shards of a random sample remain a sample: unknown, or accepted with ``--accept-sample``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenarios._code_digest import code_digest
from scenarios._exploration import Exploration
from scenarios._ids import SCHEDULE_ENCODING

__all__ = ["FORMAT", "Merged", "merge_summaries", "read_summary", "summary_of"]

FORMAT = "scenarios-summary/1"
_SAME = (
    "scenario",
    "fingerprint",
    "code",
    "encoding",
    "mode",
    "reduction",
    "interchangeable",
    "shards",
    "seed",
    "schedules",
    "max_faults",
)


def summary_of(exploration: Exploration) -> dict[str, Any]:
    """What one shard (or a whole exploration) explored and found, as JSON-ready data."""
    settings = exploration.settings
    counterexample = exploration.counterexample
    return {
        "format": FORMAT,
        "scenario": exploration.scenario.title,
        "fingerprint": exploration.scenario.fingerprint,
        "code": code_digest(exploration.scenario),
        "encoding": SCHEDULE_ENCODING,
        "mode": exploration.mode,
        "reduction": settings.reduction,
        "interchangeable": [list(group) for group in exploration.scenario.interchangeable],
        "max_faults": exploration.scenario.max_faults,
        "seed": settings.seed if exploration.mode == "random" else None,
        "schedules": settings.schedules if exploration.mode == "random" else None,
        "shard": settings.shard.index + 1,
        "shards": settings.shard.count,
        "runs": exploration.runs,
        "pruned": exploration.pruned,
        "complete": exploration.complete,
        "checks": [check.name for check in exploration.scenario.checks],
        "untested": list(exploration.untested),
        "verdict": exploration.verdict,
        "counterexample": counterexample.schedule_id if counterexample is not None else None,
        "replay": exploration.replay_lines(),
    }


def read_summary(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read the summary {path}: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a summary written by --summary ({FORMAT})")
    return data


@dataclass(frozen=True)
class Merged:
    verdict: str
    lines: list[str]
    accepted_sample: bool = False

    @property
    def exit_status(self) -> int:
        if self.verdict == "holds" or self.accepted_sample:
            return 0
        return 1 if self.verdict.startswith("violated") else 3


def merge_summaries(summaries: list[dict[str, Any]], *, accept_sample: bool = False) -> Merged:
    """The verdict the shards prove together (see the module docstring)."""
    if not summaries:
        raise ValueError("merge needs at least one summary")
    first = summaries[0]
    for summary in summaries[1:]:
        differing = [key for key in _SAME if summary.get(key) != first.get(key)]
        if differing:
            raise ValueError(
                "the summaries are not of one exploration: they differ in "
                + ", ".join(f"{key} ({first.get(key)!r} and {summary.get(key)!r})" for key in differing)
            )
    title, shards = first["scenario"], int(first["shards"])
    violated = [summary for summary in summaries if summary["counterexample"] is not None]
    if violated:
        lines = [
            f"{title}: VIOLATED in shard {summary['shard']} of {shards}: {summary['verdict']}" for summary in violated
        ]
        for summary in violated:
            lines += [f"  replay: {line}" for line in summary["replay"] or [summary["counterexample"]]]
        return Merged(violated[0]["verdict"], lines)
    reasons = []
    present = sorted(int(summary["shard"]) for summary in summaries)
    missing = sorted(set(range(1, shards + 1)) - set(present))
    repeated = sorted({shard for shard in present if present.count(shard) > 1})
    if missing:
        reasons.append(f"shard{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} of {shards} missing")
    if repeated:
        reasons.append(f"shard{'s' if len(repeated) > 1 else ''} {', '.join(map(str, repeated))} given twice")
    cut = [str(summary["shard"]) for summary in summaries if not summary["complete"]]
    if cut:
        reasons.append(f"shard{'s' if len(cut) > 1 else ''} {', '.join(cut)} stopped at the run budget")
    untested = set(first["checks"]).intersection(*(set(summary["untested"]) for summary in summaries))
    reasons += [f"{name} was never put to the test in any shard" for name in sorted(untested)]
    runs = sum(int(summary["runs"]) for summary in summaries)
    sampled = first["mode"] != "exhaustive"
    if sampled:
        reasons.append(f"the shards ran a {first['mode']} sample of {runs} schedules, not a complete search")
    if not reasons:
        return Merged(
            "holds",
            [
                f"{title}: HOLDS: all {shards} shards of an exhaustive search explored their part ({runs} judged) "
                "and none found a violation"
            ],
        )
    accepted = accept_sample and sampled and len(reasons) == 1
    head = (
        f"{title}: NO VIOLATION in {runs} sampled schedules over {shards} shards, accepted as a sample "
        "(--accept-sample): not a proof, the verdict is unknown:"
        if accepted
        else f"{title}: UNKNOWN, no violation in {runs} schedules over {len(summaries)} of {shards} shards, "
        "but that proves nothing here:"
    )
    return Merged("unknown: " + "; ".join(reasons), [head, *(f"- {reason}" for reason in reasons)], accepted)
