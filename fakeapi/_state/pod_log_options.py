"""The query of ``GET pods/<name>/log`` decoded into ``PodLogOptions`` and validated (docs/kubelet-endpoints.md).

``LogREST.Get`` (``pkg/registry/core/pod/rest/log.go``) validates the options before it looks at the
pod: a query that does not decode is a 400 with the conversion's error (``strconv.ParseInt``,
``time.Parse``), one that decodes but breaks ``ValidatePodLogOptions``
(``pkg/apis/core/validation/validation.go``) a 422 ``PodLogOptions "<name>" is invalid``, for a pod
that does not exist as for one that does.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from fakeapi._state.validation import field
from fakeapi.errors import APIError

__all__ = ["PodLogOptions", "parse_log_options"]

_NEGATIVE = "must be greater than or equal to 0"
_RFC3339 = "2006-01-02T15:04:05Z07:00"
_RFC3339_FORM = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")


@dataclass(frozen=True)
class PodLogOptions:
    """What a log request asks for; ``since`` is an instant in seconds since the epoch."""

    container: str = ""
    follow: bool = False
    previous: bool = False
    timestamps: bool = False
    tail_lines: int | None = None
    limit_bytes: int | None = None
    since_seconds: int | None = None
    since_time: float | None = None


def parse_log_options(query: Mapping[str, str], name: str) -> PodLogOptions:
    """The options of ``query``; the apiserver's 400 or 422 for a query it refuses."""
    options = PodLogOptions(
        container=query.get("container", ""),
        follow=_flag(query, "follow"),
        previous=_flag(query, "previous"),
        timestamps=_flag(query, "timestamps"),
        tail_lines=_integer(query, "tailLines"),
        limit_bytes=_integer(query, "limitBytes"),
        since_seconds=_integer(query, "sinceSeconds"),
        since_time=_time(query, "sinceTime"),
    )
    errors = []
    if options.tail_lines is not None and options.tail_lines < 0:
        errors.append(field.invalid("tailLines", options.tail_lines, _NEGATIVE))
    if options.limit_bytes is not None and options.limit_bytes < 1:
        errors.append(field.invalid("limitBytes", options.limit_bytes, "must be greater than 0"))
    if options.since_seconds is not None and options.since_time is not None:
        errors.append(field.forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"))
    elif options.since_seconds is not None and options.since_seconds < 1:
        errors.append(field.invalid("sinceSeconds", options.since_seconds, "must be greater than 0"))
    if errors:
        raise _invalid(name, errors)
    return options


def _invalid(name: str, errors: list[field.FieldError]) -> APIError:
    """``NewInvalid``, whose aggregate prints ``<field>: <body>`` even for the root path's empty field."""
    causes = [error.cause() for error in errors]
    messages = list(dict.fromkeys(f"{cause.field}: {cause.message}" for cause in causes))
    aggregate = messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"
    details = {"name": name, "kind": "PodLogOptions", "causes": [cause.to_dict() for cause in causes]}
    return APIError(f'PodLogOptions "{name}" is invalid: {aggregate}', reason="Invalid", code=422, details=details)


def _flag(query: Mapping[str, str], key: str) -> bool:
    """``Convert_Slice_string_To_bool``: only ``0`` and ``false`` (any case) are false."""
    value = query.get(key)
    return value is not None and value != "0" and value.lower() != "false"


def _integer(query: Mapping[str, str], key: str) -> int | None:
    """``Convert_Slice_string_To_Pointer_int64``: ``strconv.ParseInt(value, 10, 64)``."""
    value = query.get(key)
    if value is None:
        return None
    digits = value[1:] if value[:1] in "+-" else value
    if not digits.isascii() or not digits.isdigit():
        raise APIError.bad_request(f'strconv.ParseInt: parsing "{value}": invalid syntax')
    number = int(value, 10)
    if not -(2**63) <= number < 2**63:
        raise APIError.bad_request(f'strconv.ParseInt: parsing "{value}": value out of range')
    return number


def _time(query: Mapping[str, str], key: str) -> float | None:
    """``metav1.Time.UnmarshalQueryParameter``: RFC 3339; empty or ``null`` is the zero time."""
    value = query.get(key)
    if value is None:
        return None
    if value in ("", "null"):
        return float("-inf")
    parsed = None
    if _RFC3339_FORM.fullmatch(value):
        with contextlib.suppress(ValueError):
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed is None:
        # Go's text names the first layout element that does not match; only the whole-value case is kept.
        raise APIError.bad_request(f'parsing time "{value}" as "{_RFC3339}": cannot parse "{value}" as "2006"')
    return parsed.timestamp()
