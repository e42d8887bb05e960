"""Schedule ids: the choices of a run, spelled so that one short string replays it exactly, or is refused.

An id has four parts, ``s0110:2:3f9a2c:8b1e``:

* the choices: ``s`` then one base-36 digit per choice (``(n)`` past 35), trailing default choices
  dropped but the first always kept (``s0`` is the run that takes every default);
* the schedule encoding, :data:`SCHEDULE_ENCODING`: which options the engine offers at a choice point
  and in which order. An index means nothing under another encoding, so it is raised whenever that
  changes (version 1 had no stamp at all: its ids were the choices alone);
* the scenario's fingerprint: its objects, actors, faults and budgets (:func:`scenario_fingerprint`),
  everything that decides which options exist;
* the run's digest: the steps the run took (actor, fault, method and path of every choice), so that a
  replay which takes other steps (the actors' code changed, or something outside the schedule
  decides) is caught instead of reported as the run the id names.

A replay checks all three stamps and refuses, with a message that says which one differs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "SCHEDULE_ENCODING",
    "ReplayId",
    "ScheduleError",
    "decode_schedule",
    "encode_schedule",
    "parse_replay_id",
    "run_digest",
    "scenario_fingerprint",
]

SCHEDULE_ENCODING = 2
"""Raise it whenever the options offered at a choice point, or their order, change."""


class _Choice(Protocol):
    @property
    def index(self) -> int: ...

    @property
    def default(self) -> int: ...


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_HEX = frozenset("0123456789abcdef")


class ScheduleError(ValueError):
    """A schedule id that is malformed, does not fit the scenario, or replays another schedule."""


def encode_schedule(choices: Sequence[_Choice]) -> str:
    """``s`` then one base-36 digit per choice (``(n)`` past 35), trailing default choices dropped, the
    first always kept (``s0`` is the schedule that takes every default)."""
    indices = [choice.index for choice in choices]
    end = len(indices)
    while end > 1 and choices[end - 1].index == choices[end - 1].default:
        end -= 1
    return "s" + "".join(_DIGITS[i] if i < len(_DIGITS) else f"({i})" for i in indices[:end])


def decode_schedule(schedule_id: str) -> list[int]:
    """The choice indices of an id (its stamps, if any, are not checked here)."""
    text = schedule_id.partition(":")[0]
    if not text.startswith("s"):
        raise ScheduleError(f"a schedule id starts with 's': {schedule_id!r}")
    indices: list[int] = []
    position, text = 0, text[1:]
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


def scenario_fingerprint(description: dict[str, Any]) -> str:
    """Six hex digits of a hash of the scenario's description (canonical JSON)."""
    text = json.dumps(description, sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:6]


def run_digest(labels: Iterable[tuple[str, ...]]) -> str:
    """Four hex digits of a hash of the steps a run took, in order."""
    digest = hashlib.sha256()
    for label in labels:
        digest.update(json.dumps(label).encode())
        digest.update(b"\n")
    return digest.hexdigest()[:4]


@dataclass(frozen=True)
class ReplayId:
    """A parsed id: the choices, and the stamps a replay must match."""

    text: str
    indices: tuple[int, ...]
    encoding: int
    fingerprint: str
    digest: str

    def check_scenario(self, fingerprint: str) -> None:
        """Refuse the id if it was written for another scenario."""
        if self.fingerprint != fingerprint:
            raise ScheduleError(
                f"schedule {self.text} was written for another scenario (fingerprint {self.fingerprint}; this one's "
                f"is {fingerprint}): its objects, actors, ticks, faults or budgets differ, so the choices it names "
                "would run another schedule. Replay it with the scenario (and --faults, --max-faults, --mutate) "
                "it came from, or explore again for a current id"
            )

    def check_run(self, digest: str, steps: Sequence[str]) -> None:
        """Refuse the replayed run if it took other steps than the run the id was written from."""
        if self.digest != digest:
            taken = "; ".join(steps[:12]) + ("; ..." if len(steps) > 12 else "")
            raise ScheduleError(
                f"replaying schedule {self.text} took other steps than the run it was written from (digest "
                f"{digest}, not {self.digest}): the scenario is the same, so the actors' code changed since, or "
                "something outside the schedule decides what they do (time, randomness, state kept in the "
                f"process between runs). The replay took: {taken}"
            )


def parse_replay_id(text: str) -> ReplayId:
    """Parse an id a report printed; refuse ids without stamps and ids of another schedule encoding."""
    parts = text.strip().split(":")
    indices = tuple(decode_schedule(parts[0]))
    if len(parts) == 1:
        raise ScheduleError(
            f"schedule id {text!r} carries no engine version nor scenario fingerprint: it was written by an "
            f"older scenarios (schedule encoding 1), whose choices may name another schedule today. Explore "
            f"the scenario again for a current id (ids now look like {parts[0]}:{SCHEDULE_ENCODING}:3f9a2c:8b1e)"
        )
    if len(parts) != 4 or not parts[1].isdigit() or not _is_hex(parts[2], 6) or not _is_hex(parts[3], 4):
        raise ScheduleError(
            f"malformed schedule id {text!r}: an id is CHOICES:ENCODING:FINGERPRINT:DIGEST, as in "
            f"s0110:{SCHEDULE_ENCODING}:3f9a2c:8b1e"
        )
    encoding = int(parts[1])
    if encoding != SCHEDULE_ENCODING:
        raise ScheduleError(
            f"schedule id {text!r} was written by schedule encoding {encoding}; this engine speaks encoding "
            f"{SCHEDULE_ENCODING}, whose choices mean other things. Replay it with the scenarios version that "
            "wrote it, or explore again for a current id"
        )
    return ReplayId(text.strip(), indices, encoding, parts[2], parts[3])


def _is_hex(text: str, length: int) -> bool:
    return len(text) == length and set(text) <= _HEX
