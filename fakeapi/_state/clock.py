"""Time as the apiserver writes it: RFC 3339 in whole seconds, UTC, with a ``Z``.

One clock per server, replaceable, so tests and scenarios can pin timestamps and replay a run
byte for byte.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

__all__ = ["Clock", "format_timestamp", "parse_timestamp"]


_last_formatted: tuple[int, str] = (-1, "")


def format_timestamp(seconds: float) -> str:
    global _last_formatted
    whole = int(seconds)
    # Every write in the same second stamps the same text: format it once (a tuple, swapped whole).
    last = _last_formatted
    if last[0] == whole:
        return last[1]
    text = datetime.fromtimestamp(whole, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    _last_formatted = (whole, text)
    return text


def parse_timestamp(text: str) -> float | None:
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
    except (TypeError, ValueError):
        return None


class Clock:
    """Wall-clock seconds, or a fixed/fake source given at construction."""

    def __init__(self, source: Callable[[], float] = time.time) -> None:
        self._source = source

    def now(self) -> float:
        return self._source()

    def set_source(self, source: Callable[[], float]) -> None:
        """Read time from ``source`` from now on (the simulated controllers' fake clock)."""
        self._source = source

    def timestamp(self) -> str:
        return format_timestamp(self._source())
