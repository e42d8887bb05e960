"""Timestamps and the ages and durations a Table prints.

Reproduced from Go and Kubernetes 1.32: ``time.Parse(time.RFC3339, ...)`` for the timestamps of
stored objects, ``translateTimestampSince`` of ``pkg/printers/internalversion/printers.go`` (the
Age column; ``<unknown>`` for the zero time), and ``HumanDuration`` of apimachinery
``pkg/util/duration/duration.go``, which rounds down to at most two units (``2m5s``, ``3d4h``,
``2y30d``). Times are whole nanoseconds, as Go's are, so rounding matches at every boundary.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from fakeapi._state.tables.fields import Obj, metadata

__all__ = ["NANOS", "ZERO_TIME", "age", "human_duration", "human_nanos", "parse_time", "since", "to_nanos"]

NANOS = 1_000_000_000
_RFC3339 = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$")
ZERO_TIME = (int(datetime(1, 1, 1, tzinfo=UTC).timestamp()), 0)


def parse_time(text: Any) -> tuple[int, int] | None:
    """``time.Parse(time.RFC3339, text)`` as (Unix seconds, nanoseconds); ``None`` if it fails."""
    match = _RFC3339.match(text) if isinstance(text, str) else None
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(part) for part in match.group(1, 2, 3, 4, 5, 6))
    try:
        moment = datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    except ValueError:
        return None
    seconds = int(moment.timestamp())
    if match.group(8):
        zone_hours, zone_minutes = int(match.group(9)), int(match.group(10))
        if zone_hours >= 24 or zone_minutes >= 60:
            return None
        offset = zone_hours * 3600 + zone_minutes * 60
        seconds += -offset if match.group(8) == "+" else offset
    fraction = (match.group(7) or "")[:9].ljust(9, "0")
    return seconds, int(fraction)


def to_nanos(now: float) -> int:
    """A Unix time in seconds as whole nanoseconds."""
    whole = math.floor(now)
    return whole * NANOS + round((now - whole) * NANOS)


def since(moment: tuple[int, int] | None, now_ns: int) -> str:
    """``translateTimestampSince``: ``<unknown>`` for the zero time."""
    if moment is None or moment == ZERO_TIME:
        return "<unknown>"
    return human_nanos(now_ns - (moment[0] * NANOS + moment[1]))


def human_duration(seconds: float) -> str:
    """``duration.HumanDuration`` of a duration in seconds."""
    return human_nanos(int(Decimal(repr(seconds)) * NANOS))


def human_nanos(nanos: int) -> str:
    """``duration.HumanDuration`` of a duration in nanoseconds."""
    seconds = nanos // NANOS if nanos >= 0 else -(-nanos // NANOS)
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 120:
        return f"{seconds}s"
    minutes = nanos // (60 * NANOS)
    if minutes < 10:
        rest = seconds % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = nanos // (3600 * NANOS)
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        rest = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if rest == 0 else f"{hours // 24 // 365}y{rest}d"
    return f"{hours // 24 // 365}y"


def age(obj: Obj, now_ns: int) -> str:
    """The Age cell: the time since ``creationTimestamp``."""
    return since(parse_time(metadata(obj).get("creationTimestamp")) or ZERO_TIME, now_ns)
