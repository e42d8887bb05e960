"""The named formats of the Kubernetes ``format`` library (k8s.io/apiserver ``pkg/cel/library/format.go``,
``ConstantFormats``), each a check that returns apimachinery's messages.

``format.dns1123Label()`` and its kin check as ``apimachinery/pkg/api/validation`` ``NameIsDNSLabel`` etc.
do (the ``...Prefix`` forms first replace a trailing dash, dropping two characters as ``maskTrailingDash``
does), with the texts of ``apimachinery/pkg/util/validation`` (``must be no more than 63 characters``, the
regex errors with their examples); ``uri`` as ``url.ParseRequestURI``; ``uuid``, ``byte``, ``date``,
``datetime`` as go-openapi/strfmt, with the library's one-line messages.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import re
from collections.abc import Callable

from fakeapi._cel.urls import URLError, parse_request_url

__all__ = ["FORMATS"]

_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN = _LABEL + "(\\." + _LABEL + ")*"
_DNS1035 = "[a-z]([-a-z0-9]*[a-z0-9])?"
_QNAME = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE = "(" + _QNAME + ")?"
_LABEL_MESSAGE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character"
)
_SUBDOMAIN_MESSAGE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character"
)
_DNS1035_MESSAGE = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character"
)
_QNAME_MESSAGE = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
_LABEL_VALUE_MESSAGE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character"
)
_UUID = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME_OF_DAY = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))")


def _full(pattern: str) -> re.Pattern[str]:
    # Used with fullmatch: Go's ``^...$`` does not let a trailing newline through, as Python's ``$`` would.
    return re.compile(pattern)


_LABEL_RE, _SUBDOMAIN_RE, _DNS1035_RE = _full(_LABEL), _full(_SUBDOMAIN), _full(_DNS1035)
_QNAME_RE, _LABEL_VALUE_RE = _full(_QNAME), _full(_LABEL_VALUE)


def _go_len(text: str) -> int:
    """Go's ``len`` of a string: its UTF-8 bytes, which the length checks count."""
    return len(text.encode("utf-8", "surrogatepass"))


def _max_length(length: int) -> str:
    return f"must be no more than {length} characters"


def _regex_error(message: str, pattern: str, *examples: str) -> str:
    """``RegexError``."""
    if not examples:
        return f"{message} (regex used for validation is '{pattern}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{pattern}')"


def _dns1123_label(value: str) -> list[str]:
    errors = [_max_length(63)] if _go_len(value) > 63 else []
    if not _LABEL_RE.fullmatch(value):
        if _SUBDOMAIN_RE.fullmatch(value):
            errors.append("must not contain dots")
        else:
            errors.append(_regex_error(_LABEL_MESSAGE, _LABEL, "my-name", "123-abc"))
    return errors


def _dns1123_subdomain(value: str) -> list[str]:
    errors = [_max_length(253)] if _go_len(value) > 253 else []
    if not _SUBDOMAIN_RE.fullmatch(value):
        errors.append(_regex_error(_SUBDOMAIN_MESSAGE, _SUBDOMAIN, "example.com"))
    return errors


def _dns1035_label(value: str) -> list[str]:
    errors = [_max_length(63)] if _go_len(value) > 63 else []
    if not _DNS1035_RE.fullmatch(value):
        errors.append(_regex_error(_DNS1035_MESSAGE, _DNS1035, "my-name", "abc-123"))
    return errors


def _qualified_name(value: str) -> list[str]:
    """``IsQualifiedName``."""
    errors: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors += [f"prefix part {message}" for message in _dns1123_subdomain(prefix)]
    else:
        example = _regex_error(_QNAME_MESSAGE, _QNAME, "MyName", "my.name", "123-abc")
        return [f"a qualified name {example} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errors.append("name part must be non-empty")
    elif _go_len(name) > 63:
        errors.append("name part " + _max_length(63))
    if not _QNAME_RE.fullmatch(name):
        errors.append("name part " + _regex_error(_QNAME_MESSAGE, _QNAME, "MyName", "my.name", "123-abc"))
    return errors


def _label_value(value: str) -> list[str]:
    errors = [_max_length(63)] if _go_len(value) > 63 else []
    if not _LABEL_VALUE_RE.fullmatch(value):
        errors.append(_regex_error(_LABEL_VALUE_MESSAGE, _LABEL_VALUE, "MyValue", "my_value", "12345"))
    return errors


def _mask_trailing_dash(name: str) -> str:
    """``maskTrailingDash``, which drops two characters before its ``a``."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def _uri(value: str) -> list[str]:
    try:
        parse_request_url(value)
    except URLError as error:
        return [str(error)]
    return []


def _is_date(text: str) -> bool:
    match = _DATE.fullmatch(text)
    if match is None:
        return False
    try:
        datetime.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return False
    return True


def _is_date_time(text: str) -> bool:
    parts = text.lower().split("t")
    if len(parts) < 2 or not _is_date(parts[0]):
        return False
    match = _TIME_OF_DAY.fullmatch(parts[1])
    return match is not None and match[1] <= "23" and match[2] <= "59" and match[3] <= "59"


def _is_base64(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _check(test: Callable[[str], bool], message: str) -> Callable[[str], list[str]]:
    return lambda value: [] if test(value) else [message]


FORMATS: dict[str, Callable[[str], list[str]]] = {
    "dns1123Label": _dns1123_label,
    "dns1123Subdomain": _dns1123_subdomain,
    "dns1035Label": _dns1035_label,
    "qualifiedName": _qualified_name,
    "dns1123LabelPrefix": lambda value: _dns1123_label(_mask_trailing_dash(value)),
    "dns1123SubdomainPrefix": lambda value: _dns1123_subdomain(_mask_trailing_dash(value)),
    "dns1035LabelPrefix": lambda value: _dns1035_label(_mask_trailing_dash(value)),
    "labelValue": _label_value,
    "uri": _uri,
    "uuid": _check(lambda value: _UUID.fullmatch(value) is not None, "does not match the UUID format"),
    "byte": _check(_is_base64, "invalid base64"),
    "date": _check(_is_date, "invalid date"),
    "datetime": _check(_is_date_time, "invalid datetime"),
}
