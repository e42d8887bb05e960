"""A CronJob's schedule and time zone, parsed as the apiserver's Go libraries parse them, with their error texts.

``ValidateCronJobSpec`` (``pkg/apis/batch/validation/validation.go``) reports
``cron.ParseStandard(schedule)``'s error as it is: robfig/cron v3.0.1 ``parser.go`` (five fields,
or a descriptor such as ``@daily`` or ``@every 1h30m``, whose duration is Go's
``time.ParseDuration``), and a time zone is checked with ``time.LoadLocation``. The texts:

* ``expected exactly 5 fields, found 2: [a b]`` (the fields as Go prints a ``[]string``);
* ``failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax``;
* ``end of range (60) above maximum (59): 60``, ``beginning of range (0) below minimum (1): 0``,
  ``beginning of range (5) beyond end of range (2): 5-2``, ``too many hyphens: 1-2-3``,
  ``too many slashes: */2/3``, ``step of range should be a positive number: */0``,
  ``negative number (-1) not allowed: -1``;
* ``unrecognized descriptor: @sometimes``; ``failed to parse duration @every x: time: invalid
  duration "x"`` (``missing unit in duration``, ``unknown unit "y" in duration``);
* ``provided bad location Mars/Base: unknown time zone Mars/Base`` for a ``TZ=`` prefix.

Time zones are looked up in the IANA database Python carries (:mod:`zoneinfo`), as the apiserver
looks them up in the one Go embeds; the two may differ by a release of the database.

:func:`parse_schedule` returns what ``ParseStandard`` returns, a ``SpecSchedule`` (one bit set per
field, the top bit marking a ``*``; seconds always 0) or, for ``@every``, a ``ConstantDelaySchedule``;
the CronJob controller computes its times from them (``fakeapi._cluster.cron_times``).
"""

from __future__ import annotations

import re
import zoneinfo
from dataclasses import dataclass

from fakeapi._patching.gostrconv import quote

__all__ = [
    "ConstantDelaySchedule",
    "ScheduleError",
    "SpecSchedule",
    "load_location_error",
    "parse_schedule",
    "parse_standard",
]

_MONTHS = {
    name: number
    for number, name in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1
    )
}
_DAYS = {name: number for number, name in enumerate(["sun", "mon", "tue", "wed", "thu", "fri", "sat"])}
# The five fields of ParseStandard: minute, hour, day of month, month, day of week.
_BOUNDS: tuple[tuple[int, int, dict[str, int] | None], ...] = (
    (0, 59, None),
    (0, 23, None),
    (1, 31, None),
    (1, 12, _MONTHS),
    (0, 6, _DAYS),
)
_DESCRIPTORS = frozenset(("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"))
_EVERY = "@every "
# unicode.IsSpace, which strings.Fields splits on.
_GO_SPACE = re.compile("[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
_UNITS = {
    "ns": 1,
    "us": 1000,
    "\u00b5s": 1000,
    "\u03bcs": 1000,
    "ms": 1000_000,
    "s": 1000_000_000,
    "m": 60 * 1000_000_000,
    "h": 3600 * 1000_000_000,
}
_MAX_INT64 = 2**63 - 1
STAR_BIT = 1 << 63


class ScheduleError(Exception):
    """The parser's error, whose text the validation reports."""


@dataclass(frozen=True)
class SpecSchedule:
    """robfig/cron ``SpecSchedule``: the bit set of each field; ``location`` None is ``time.Local``."""

    second: int
    minute: int
    hour: int
    dom: int
    month: int
    dow: int
    location: str | None = None


@dataclass(frozen=True)
class ConstantDelaySchedule:
    """robfig/cron ``ConstantDelaySchedule`` (``@every``): whole seconds, at least one."""

    delay: int


def parse_standard(schedule: str) -> str | None:
    """``cron.ParseStandard``: None for a valid schedule, else the error's text."""
    try:
        parse_schedule(schedule)
    except ScheduleError as error:
        return str(error)
    return None


def parse_schedule(spec: str) -> SpecSchedule | ConstantDelaySchedule:
    """``cron.ParseStandard``'s schedule; ``ScheduleError`` with its text when it does not parse."""
    if not spec:
        raise ScheduleError("empty spec string")
    location = None
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space, equals = spec.find(" "), spec.index("=")
        name = spec[equals + 1 : space] if space >= 0 else spec[equals + 1 :]
        problem = load_location_error(name)
        if problem is not None:
            raise ScheduleError(f"provided bad location {name}: {problem}")
        location = "UTC" if name == "" else name
        spec = _GO_SPACE.sub("", spec[space:], count=1).rstrip() if space >= 0 else ""
    if spec.startswith("@"):
        return _parse_descriptor(spec, location)
    fields = [part for part in _GO_SPACE.split(spec) if part]
    if len(fields) != len(_BOUNDS):
        raise ScheduleError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    bits = []
    for text, bounds in zip(fields, _BOUNDS, strict=True):
        field_bits = 0
        for expression in (part for part in text.split(",") if part):
            field_bits |= _range_bits(expression, *bounds)
        bits.append(field_bits)
    minute, hour, dom, month, dow = bits
    return SpecSchedule(1, minute, hour, dom, month, dow, location)


def _range_bits(expression: str, low: int, high: int, names: dict[str, int] | None) -> int:
    """``getRange``: ``number | number "-" number [ "/" number ]``, or ``*`` and ``?``."""
    range_and_step = expression.split("/")
    low_and_high = range_and_step[0].split("-")
    extra = 0
    if low_and_high[0] in ("*", "?"):
        start, end = low, high
        extra = STAR_BIT
    else:
        start = _int_or_name(low_and_high[0], names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], names)
        else:
            raise ScheduleError(f"too many hyphens: {expression}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _must_parse_int(range_and_step[1])
        if len(low_and_high) == 1:
            end = high
        if step > 1:
            extra = 0
    else:
        raise ScheduleError(f"too many slashes: {expression}")
    if start < low:
        raise ScheduleError(f"beginning of range ({start}) below minimum ({low}): {expression}")
    if end > high:
        raise ScheduleError(f"end of range ({end}) above maximum ({high}): {expression}")
    if start > end:
        raise ScheduleError(f"beginning of range ({start}) beyond end of range ({end}): {expression}")
    if step == 0:
        raise ScheduleError(f"step of range should be a positive number: {expression}")
    return sum(1 << value for value in range(start, end + 1, step)) | extra


def _int_or_name(expression: str, names: dict[str, int] | None) -> int:
    if names is not None and expression.lower() in names:
        return names[expression.lower()]
    return _must_parse_int(expression)


def _must_parse_int(expression: str) -> int:
    number = _atoi(expression)
    if number < 0:
        raise ScheduleError(f"negative number ({number}) not allowed: {expression}")
    return number


def _atoi(text: str) -> int:
    """``strconv.Atoi`` on a 64-bit platform, with its two errors."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        raise ScheduleError(f"failed to parse int from {text}: strconv.Atoi: parsing {quote(text)}: invalid syntax")
    number = -int(digits) if text[0] == "-" else int(digits)
    if not -_MAX_INT64 - 1 <= number <= _MAX_INT64:
        raise ScheduleError(f"failed to parse int from {text}: strconv.Atoi: parsing {quote(text)}: value out of range")
    return number


def _all(low: int, high: int) -> int:
    return sum(1 << value for value in range(low, high + 1)) | STAR_BIT


def _parse_descriptor(descriptor: str, location: str | None) -> SpecSchedule | ConstantDelaySchedule:
    """``parseDescriptor``: the fixed schedules, and ``@every`` through ``cron.Every``."""
    if descriptor in _DESCRIPTORS:
        dom, month, dow = _all(1, 31), _all(1, 12), _all(0, 6)
        hour = 1
        if descriptor in ("@yearly", "@annually"):
            dom, month = 1 << 1, 1 << 1
        elif descriptor == "@monthly":
            dom = 1 << 1
        elif descriptor == "@weekly":
            dow = 1 << 0
        elif descriptor == "@hourly":
            hour = _all(0, 23)
        return SpecSchedule(1, 1, hour, dom, month, dow, location)
    if descriptor.startswith(_EVERY):
        nanoseconds = _parse_duration(descriptor[len(_EVERY) :])
        if isinstance(nanoseconds, str):
            raise ScheduleError(f"failed to parse duration {descriptor}: {nanoseconds}")
        # ``Every``: under a second is a second, and the fraction of a second is dropped.
        return ConstantDelaySchedule(max(nanoseconds, 1_000_000_000) // 1_000_000_000)
    raise ScheduleError(f"unrecognized descriptor: {descriptor}")


def parse_duration_error(text: str) -> str | None:
    """``time.ParseDuration``'s error for the text, or None when it parses."""
    result = _parse_duration(text)
    return result if isinstance(result, str) else None


def _parse_duration(text: str) -> int | str:
    """``time.ParseDuration``: the nanoseconds, or the error's text."""
    invalid = "time: invalid duration " + _time_quote(text)
    negative = text.startswith("-")
    rest = text[1:] if text[:1] in ("-", "+") else text
    if rest == "0":
        return 0
    if not rest:
        return invalid
    total = 0
    while rest:
        if not (rest[0] == "." or "0" <= rest[0] <= "9"):
            return invalid
        whole = re.match("[0-9]*", rest)
        assert whole is not None
        integer, rest = whole.group(), rest[whole.end() :]
        fraction = ""
        if rest.startswith("."):
            digits = re.match("[0-9]*", rest[1:])
            assert digits is not None
            fraction, rest = digits.group(), rest[1 + digits.end() :]
            if not integer and not fraction:
                return invalid
        elif not integer:
            return invalid
        unit_end = next((i for i, ch in enumerate(rest) if ch == "." or "0" <= ch <= "9"), len(rest))
        if unit_end == 0:
            return "time: missing unit in duration " + _time_quote(text)
        unit, rest = rest[:unit_end], rest[unit_end:]
        if unit not in _UNITS:
            return "time: unknown unit " + _time_quote(unit) + " in duration " + _time_quote(text)
        value = int(integer or "0")
        if value > 2**63 // _UNITS[unit]:
            return invalid
        value *= _UNITS[unit]
        if fraction.strip("0"):
            value += int(int(fraction[:18]) * (_UNITS[unit] / 10 ** len(fraction[:18])))
            if value > 2**63:
                return invalid
        total += value
        if total > 2**63:
            return invalid
    if not negative and total > _MAX_INT64:
        return invalid
    return -total if negative else total


def _time_quote(text: str) -> str:
    """The ``time`` package's own ``quote``: ASCII kept, ``"`` and ``\\`` escaped, any other byte as ``\\xNN``."""
    out = ['"']
    for ch in text:
        if ch < " " or ord(ch) >= 0x80:
            out.extend(f"\\x{byte:02x}" for byte in ch.encode("utf-8", "surrogatepass"))
        else:
            out.append("\\" + ch if ch in '"\\' else ch)
    out.append('"')
    return "".join(out)


def load_location_error(name: str) -> str | None:
    """``time.LoadLocation``'s error for the name, or None when the zone exists."""
    if name in ("", "UTC", "Local"):
        return None
    if ".." in name or name.startswith(("/", "\\")):
        return "time: invalid location name"
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return "unknown time zone " + name
    return None
