"""The string formats a custom resource's schema may check, and how each is checked.

apiextensions-apiserver ``pkg/apiserver/validation/formats.go`` keeps a fixed list of formats and strips every
other one before validation; go-openapi/strfmt (``default.go``) checks them, comparing names with its
normalisation (dashes removed, so ``date-time`` is ``datetime``). Only the formats with checks below are
checked; the other supported ones accept any string.
"""

from __future__ import annotations

import datetime
import ipaddress
import re
from collections.abc import Callable

from fakeapi._patching.gostrconv import quote
from fakeapi._state.schema.messages import field
from fakeapi._state.schema.structural import Schema
from fakeapi._state.validation import field as field_errors
from fakeapi.errors import Cause

__all__ = ["check_format", "supported_format"]

_SUPPORTED_FORMATS = frozenset(
    {
        "bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid", "uuid3", "uuid4",
        "uuid5", "isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor", "byte", "password",
        "date", "duration", "datetime",
    }
)  # fmt: skip

_UUID = r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?%s[0-9a-f]{3}-?%s[0-9a-f]{3}-?[0-9a-f]{12}$"
_UUID_PATTERNS = {
    "uuid": re.compile(_UUID % ("[0-9a-f]", "[0-9a-f]")),
    "uuid3": re.compile(_UUID % ("3", "[0-9a-f]")),
    "uuid4": re.compile(_UUID % ("4", "[89ab]")),
    "uuid5": re.compile(_UUID % ("5", "[89ab]")),
}
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME_OF_DAY = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))")


def supported_format(schema: Schema) -> str:
    """The schema's ``format`` as validation sees it: ``""`` when absent or not in the supported list."""
    name = schema.get("format")
    if isinstance(name, str) and name.replace("-", "") in _SUPPORTED_FORMATS:
        return name
    return ""


def _is_date(text: str) -> bool:
    """``time.Parse("2006-01-02", s)``."""
    match = _DATE.fullmatch(text)
    if match is None:
        return False
    try:
        datetime.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return False
    return True


def _is_date_time(text: str) -> bool:
    """strfmt ``IsDateTime``: lower-cased, split at ``t``, a date, then ``hh:mm:ss[.frac](z|±hh:mm)``."""
    parts = text.lower().split("t")
    if len(parts) < 2 or not _is_date(parts[0]):
        return False
    match = _TIME_OF_DAY.fullmatch(parts[1])
    return match is not None and match[1] <= "23" and match[2] <= "59" and match[3] <= "59"


def _is_ip(text: str, separator: str) -> bool:
    """govalidator ``IsIPv4``/``IsIPv6``: ``net.ParseIP`` succeeds and the text holds ``.`` / ``:``."""
    if separator not in text or "%" in text:
        return False
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _matches(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    return lambda text: pattern.match(text) is not None


_FORMAT_CHECKS: dict[str, Callable[[str], bool]] = {
    **{name: _matches(pattern) for name, pattern in _UUID_PATTERNS.items()},
    "date": _is_date,
    "datetime": _is_date_time,
    "ipv4": lambda text: _is_ip(text, "."),
    "ipv6": lambda text: _is_ip(text, ":"),
}


def check_format(value: str, format_name: str, path: str, causes: list[Cause]) -> None:
    check = _FORMAT_CHECKS.get(format_name.replace("-", ""))
    if check is not None and not check(value):
        message = f"{path} in body must be of type {format_name}: {quote(value)}"
        causes.append(field_errors.type_invalid(field(path), value, message).cause())
