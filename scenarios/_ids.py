"""Schedule ids: the choices of a run, spelled so that one short string replays it exactly.

``s`` then one base-36 digit per choice (``(n)`` past 35), trailing default choices dropped but the
first always kept: ``s0`` is the run that takes every default, ``s0110`` one that departs from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["ScheduleError", "decode_schedule", "encode_schedule"]


class _Choice(Protocol):
    @property
    def index(self) -> int: ...

    @property
    def default(self) -> int: ...


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


class ScheduleError(ValueError):
    """A schedule id that is malformed or does not fit the scenario."""


def encode_schedule(choices: Sequence[_Choice]) -> str:
    """``s`` then one base-36 digit per choice (``(n)`` past 35), trailing default choices dropped, the
    first always kept (``s0`` is the schedule that takes every default)."""
    indices = [choice.index for choice in choices]
    end = len(indices)
    while end > 1 and choices[end - 1].index == choices[end - 1].default:
        end -= 1
    return "s" + "".join(_DIGITS[i] if i < len(_DIGITS) else f"({i})" for i in indices[:end])


def decode_schedule(schedule_id: str) -> list[int]:
    if not schedule_id.startswith("s"):
        raise ScheduleError(f"a schedule id starts with 's': {schedule_id!r}")
    indices: list[int] = []
    text = schedule_id[1:]
    position = 0
    while position < len(text):
        char = text[position]
        if char == "(":
            close = text.find(")", position)
            if close < 0 or not text[position + 1 : close].isdigit():
                raise ScheduleError(f"malformed schedule id {schedule_id!r}")
            indices.append(int(text[position + 1 : close]))
            position = close + 1
            continue
        if char not in _DIGITS:
            raise ScheduleError(f"malformed schedule id {schedule_id!r}")
        indices.append(_DIGITS.index(char))
        position += 1
    return indices
