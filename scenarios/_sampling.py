"""What a random sample of schedules covered: how many distinct schedules it ran, about how many the
space holds, and whether it happens to have run every one of them.

A sample is not a proof: it says "holds" only when it can show it ran the whole space. Every run is a
path in the tree of choice points, each point offering a known number of options, so the runs a
sample made cover the space exactly when every option of every point they reached was taken by some
run. That is the space with no reduction: every interleaving, every fault variant.

The size of the space is estimated as Knuth (1975) estimates the size of a search tree: a run that a
chooser makes with probability ``p`` stands for ``1/p`` runs, and the mean of ``1/p`` over the runs is
an unbiased estimate of the number of schedules. It says how much of the space a sample saw.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scenarios._model import RunRecord

__all__ = ["SampleCoverage"]


@dataclass
class SampleCoverage:
    """The tree of choices the sampled runs took, and the estimate of the whole tree's size."""

    _points: dict[tuple[int, ...], tuple[int, set[int]]] = field(default_factory=dict)
    _schedules: set[tuple[int, ...]] = field(default_factory=set)
    _inverse_probabilities: list[float] = field(default_factory=list)

    def note(self, run: RunRecord, probability: float) -> None:
        """Add a run and the probability its chooser had of making its choices."""
        path: tuple[int, ...] = ()
        for choice in run.choices:
            _, taken = self._points.setdefault(path, (choice.count, set()))
            taken.add(choice.index)
            path += (choice.index,)
        self._schedules.add(path)
        if probability > 0:
            self._inverse_probabilities.append(1 / probability)

    @property
    def distinct(self) -> int:
        """How many different schedules the sample ran (a random sample may draw one twice)."""
        return len(self._schedules)

    @property
    def complete(self) -> bool:
        """Whether the sample ran every schedule of the space: every option of every choice point taken."""
        return bool(self._schedules) and all(len(taken) == count for count, taken in self._points.values())

    @property
    def estimated_size(self) -> float:
        """About how many schedules the space holds (exact when :attr:`complete`)."""
        if self.complete:
            return float(self.distinct)
        if not self._inverse_probabilities:
            return 0.0
        return max(sum(self._inverse_probabilities) / len(self._inverse_probabilities), float(self.distinct))

    def describe(self) -> str:
        """``12 distinct schedules of about 3,400 in the space: 0.35% ...``, or the whole space when it was covered."""
        distinct = f"{self.distinct:,} distinct schedule{'' if self.distinct == 1 else 's'}"
        if self.complete:
            return f"{distinct}, every schedule of the space (every option at every choice point taken)"
        size = self.estimated_size
        share = 100 * self.distinct / size if size else 0.0
        return f"{distinct} of about {_round(size)} in the space: {share:.2g}% by Knuth's estimate, no reduction"


def _round(size: float) -> str:
    """Two significant figures: an estimate has no more."""
    if size < 100:
        return f"{size:.0f}"
    digits = len(str(int(size))) - 2
    return f"{round(size, -digits):,.0f}"
