"""A progress display for long explorations (rich, on stderr, only when stderr is a terminal): the
phase (exploring, searching for fewer faults, shrinking), schedules judged, and the rate."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scenarios._exploration import Exploration

__all__ = ["ProgressDisplay"]


class ProgressDisplay:
    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self._progress: Any = None
        self._task: Any = None
        self._phase = ""

    def __enter__(self) -> ProgressDisplay:
        if self.enabled:
            from rich.console import Console
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task("exploring", total=None)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

    def update(self, exploration: Exploration) -> None:
        judged = exploration.runs + exploration.minimizing_runs
        if self._progress is not None and (judged % 5 == 0 or exploration.phase != self._phase):
            self._phase = exploration.phase
            elapsed = max(self._progress.tasks[0].elapsed or 0.0, 1e-9)
            self._progress.update(
                self._task,
                description=f"{exploration.phase}: {judged} schedules, {exploration.pruned} cut short, "
                f"{exploration.violating} violating, {judged / elapsed:.0f}/s",
            )

    def note(self, text: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description=f"hostile values: {text}")
