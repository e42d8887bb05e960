"""A progress display for long explorations (rich, on stderr, only when stderr is a terminal)."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scenarios._exploring import Exploration

__all__ = ["ProgressDisplay"]


class ProgressDisplay:
    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self._progress: Any = None
        self._task: Any = None

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
        if self._progress is not None and exploration.runs % 5 == 0:
            elapsed = max(self._progress.tasks[0].elapsed or 0.0, 1e-9)
            self._progress.update(
                self._task,
                description=f"{exploration.runs} schedules, {exploration.pruned} cut short, "
                f"{exploration.violating} violating, {exploration.runs / elapsed:.0f}/s",
            )

    def note(self, text: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description=f"hostile values: {text}")
