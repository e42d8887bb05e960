"""When a cron schedule next fires: robfig/cron v3.0.1 ``Schedule.Next`` (``spec.go``, ``constantdelay.go``).

``SpecSchedule.Next`` walks the time forward field by field in the schedule's location (month, day,
hour, minute, second), resetting the smaller fields the first time it moves one, wrapping back to
the month whenever a field rolls over, and gives up (Go's zero time, None here) after five years.
Its steps are Go's ``time`` operations and are reproduced as such: ``time.Date`` normalizes an
out-of-range field and resolves a wall time that a daylight-saving change skips or repeats the way
Go does (the zone offset at the wall time read as UTC, corrected once), ``AddDate`` goes through
``time.Date``, ``Add`` and ``Truncate`` act on the absolute time. A day that starts at 1am because of
a daylight-saving change is moved back to midnight as ``Next`` does. ``ConstantDelaySchedule.Next``
(``@every``) adds the delay to the time with its fraction of a second dropped.

A schedule without a location is ``time.Local``: kube-controller-manager runs with UTC as its local
zone, and so do these computations.
"""

from __future__ import annotations

import math
import zoneinfo
from datetime import UTC, date, datetime, tzinfo

from fakeapi._state.validation.cron import STAR_BIT, ConstantDelaySchedule, SpecSchedule

__all__ = ["next_time", "zone_of"]

_EPOCH_DAY = date(1970, 1, 1).toordinal()
_YEARS_SEARCHED = 5


def zone_of(name: str | None) -> tzinfo:
    """``time.LoadLocation``: empty and ``UTC`` are UTC (and so is ``time.Local`` here)."""
    if name in (None, "", "UTC", "Local"):
        return UTC
    return zoneinfo.ZoneInfo(name)


def next_time(schedule: SpecSchedule | ConstantDelaySchedule, after: float) -> float | None:
    """The first activation strictly after ``after`` (seconds since the epoch), None if none in five years."""
    if isinstance(schedule, ConstantDelaySchedule):
        return float(math.floor(after) + schedule.delay)
    zone = zone_of(schedule.location)
    moment = math.floor(after) + 1
    added = False
    year_limit = _wall(moment, zone).year + _YEARS_SEARCHED
    while True:
        wrapped, moment, added = _walk(schedule, zone, moment, added, year_limit)
        if wrapped is None:
            return None
        if not wrapped:
            return float(moment)


def _walk(
    schedule: SpecSchedule, zone: tzinfo, moment: int, added: bool, year_limit: int
) -> tuple[bool | None, int, bool]:
    """One pass from ``WRAP:``; True when a field rolled over (go round again), None past the year limit."""
    wall = _wall(moment, zone)
    if wall.year > year_limit:
        return None, moment, added
    while not (1 << wall.month) & schedule.month:
        if not added:
            added = True
            moment = _go_date(wall.year, wall.month, 1, 0, 0, 0, zone)
            wall = _wall(moment, zone)
        moment = _go_date(wall.year, wall.month + 1, wall.day, wall.hour, wall.minute, wall.second, zone)
        wall = _wall(moment, zone)
        if wall.month == 1:
            return True, moment, added
    while not _day_matches(schedule, wall):
        if not added:
            added = True
            moment = _go_date(wall.year, wall.month, wall.day, 0, 0, 0, zone)
            wall = _wall(moment, zone)
        moment = _go_date(wall.year, wall.month, wall.day + 1, wall.hour, wall.minute, wall.second, zone)
        wall = _wall(moment, zone)
        if wall.hour != 0:
            moment += (24 - wall.hour) * 3600 if wall.hour > 12 else -wall.hour * 3600
            wall = _wall(moment, zone)
        if wall.day == 1:
            return True, moment, added
    while not (1 << wall.hour) & schedule.hour:
        if not added:
            added = True
            moment = _go_date(wall.year, wall.month, wall.day, wall.hour, 0, 0, zone)
        moment += 3600
        wall = _wall(moment, zone)
        if wall.hour == 0:
            return True, moment, added
    while not (1 << wall.minute) & schedule.minute:
        if not added:
            added = True
            moment -= moment % 60
        moment += 60
        wall = _wall(moment, zone)
        if wall.minute == 0:
            return True, moment, added
    while not (1 << wall.second) & schedule.second:
        added = True
        moment += 1
        wall = _wall(moment, zone)
        if wall.second == 0:
            return True, moment, added
    return False, moment, added


def _day_matches(schedule: SpecSchedule, wall: datetime) -> bool:
    """``dayMatches``: both day fields must match when either is a ``*``, else either one."""
    dom_match = bool((1 << wall.day) & schedule.dom)
    dow_match = bool((1 << ((wall.weekday() + 1) % 7)) & schedule.dow)
    if schedule.dom & STAR_BIT or schedule.dow & STAR_BIT:
        return dom_match and dow_match
    return dom_match or dow_match


def _wall(moment: int, zone: tzinfo) -> datetime:
    return datetime.fromtimestamp(moment, zone)


def _offset(moment: int, zone: tzinfo) -> int:
    offset = _wall(moment, zone).utcoffset()
    return 0 if offset is None else int(offset.total_seconds())


def _go_date(year: int, month: int, day: int, hour: int, minute: int, second: int, zone: tzinfo) -> int:
    """``time.Date``: fields normalized, the wall time resolved to an instant as Go resolves it."""
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    days = date(year, month, 1).toordinal() - _EPOCH_DAY + day - 1
    unix = days * 86400 + hour * 3600 + minute * 60 + second
    offset = _offset(unix, zone)
    if offset:
        offset = _offset(unix - offset, zone)
    return unix - offset
