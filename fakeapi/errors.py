"""Every error fakeapi answers with, as the apiserver's ``Status`` object (docs/status-errors.md).

An error carries its HTTP status as a class attribute and knows its Status body: ``kind``,
``apiVersion``, ``metadata`` (always ``{}``), ``status``, ``message``, ``reason``, ``details``,
``code``, in that order (a typed Go struct, not a sorted map), each omitted when empty except
``metadata``, and ``details`` present whenever it was set, even empty. The constructors mirror
``k8s.io/apimachinery/pkg/api/errors`` (``NewNotFound``, ``NewConflict``, ``NewInvalid`` ...) so their
messages read the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = [
    "GENERIC_INVALID_MESSAGE",
    "APIError",
    "Cause",
    "GroupResource",
    "status_body",
]

GENERIC_INVALID_MESSAGE = "the server rejected our request due to an error in our request"


@dataclass(frozen=True)
class Cause:
    """One ``StatusCause``: ``reason``, ``message``, ``field``, in that order."""

    reason: str
    message: str
    field: str = ""

    def to_dict(self) -> dict[str, str]:
        cause = {"reason": self.reason, "message": self.message}
        if self.field:
            cause["field"] = self.field
        return cause


class APIError(Exception):
    """An apiserver error answer; ``str()`` is its message."""

    code: ClassVar[int] = 500

    def __init__(
        self,
        message: str,
        *,
        reason: str = "",
        code: int | None = None,
        details: dict[str, Any] | None = None,
        retry_after: int = 0,
        list_continue: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason
        if code is not None:
            self.code = code  # type: ignore[misc]
        self.details = details
        self.retry_after = retry_after
        self.list_continue = list_continue

    def status(self) -> dict[str, Any]:
        return status_body(
            self.code, self.message, self.reason, self.details, self.retry_after, list_continue=self.list_continue
        )

    # -- the apimachinery constructors -----------------------------------------------------------

    @classmethod
    def not_found(cls, group_resource: GroupResource, name: str) -> APIError:
        return cls(
            f'{group_resource} "{name}" not found',
            reason="NotFound",
            code=404,
            details=_details(name, group_resource),
        )

    @classmethod
    def already_exists(cls, group_resource: GroupResource, name: str, *, terminating: bool = False) -> APIError:
        prefix = "object is being deleted: " if terminating else ""
        return cls(
            f'{prefix}{group_resource} "{name}" already exists',
            reason="AlreadyExists",
            code=409,
            details=_details(name, group_resource),
        )

    @classmethod
    def conflict(cls, group_resource: GroupResource, name: str, problem: str) -> APIError:
        return cls(
            f'Operation cannot be fulfilled on {group_resource} "{name}": {problem}',
            reason="Conflict",
            code=409,
            details=_details(name, group_resource),
        )

    @classmethod
    def invalid(cls, group_kind: GroupResource, name: str, causes: Sequence[Cause]) -> APIError:
        """``NewInvalid``: ``<Kind>.<group> "<name>" is invalid: <one message, or [m1, m2]>``."""
        messages: list[str] = []
        for cause in causes:
            text = f"{cause.field}: {cause.message}" if cause.field else cause.message
            if text not in messages:
                messages.append(text)
        aggregate = messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"
        details = _details(name, group_kind)
        details["causes"] = [cause.to_dict() for cause in causes]
        return cls(f'{group_kind} "{name}" is invalid: {aggregate}', reason="Invalid", code=422, details=details)

    @classmethod
    def bad_request(cls, message: str) -> APIError:
        return cls(message, reason="BadRequest", code=400)

    @classmethod
    def generic(cls, code: int, reason: str, message: str) -> APIError:
        """``NewGenericServerResponse`` shapes: an empty, non-nil ``details``."""
        return cls(message, reason=reason, code=code, details={})

    @classmethod
    def internal(cls, message: str) -> APIError:
        """What ``ErrorToAPIStatus`` makes of an error that is not a Status: 500, no reason."""
        return cls(message, code=500)

    @classmethod
    def internal_error(cls, problem: str) -> APIError:
        """``NewInternalError``: 500 InternalError, the problem as the one cause's message."""
        return cls(
            f"Internal error occurred: {problem}",
            reason="InternalError",
            code=500,
            details={"causes": [{"message": problem}]},
        )

    @classmethod
    def method_not_supported(cls, group_resource: GroupResource, verb: str) -> APIError:
        return cls(
            f'{verb} is not supported on resources of kind "{group_resource}"',
            reason="MethodNotAllowed",
            code=405,
            details={"group": group_resource.group, "kind": group_resource.resource},
        )

    @classmethod
    def expired(cls, message: str, list_continue: str | None = None) -> APIError:
        return cls(message, reason="Expired", code=410, list_continue=list_continue)

    @classmethod
    def forbidden(
        cls, group_resource: GroupResource, name: str, problem: str, causes: Sequence[Cause] = ()
    ) -> APIError:
        """``NewForbidden``: with no group and no resource (a non-resource path) the message is ``forbidden: <problem>``."""
        if not group_resource.group and not group_resource.resource:
            subject = ""
        else:
            subject = f'{group_resource} "{name}" is ' if name else f"{group_resource} is "
        details = _details(name, group_resource)
        if causes:
            details["causes"] = [cause.to_dict() for cause in causes]
        return cls(f"{subject}forbidden: {problem}", reason="Forbidden", code=403, details=details)

    @classmethod
    def too_large(cls, message: str) -> APIError:
        return cls(f"Request entity too large: {message}", reason="RequestEntityTooLarge", code=413)

    @classmethod
    def unsupported_media_type(cls, accepted: Sequence[str]) -> APIError:
        return cls(
            "the body of the request was in an unknown format - accepted media types include: " + ", ".join(accepted),
            reason="UnsupportedMediaType",
            code=415,
        )

    @classmethod
    def not_acceptable(cls, accepted: Sequence[str]) -> APIError:
        return cls(
            "only the following media types are accepted: " + ", ".join(accepted),
            reason="NotAcceptable",
            code=406,
        )


@dataclass(frozen=True)
class GroupResource:
    """A group and resource (or kind) as the apiserver names them in messages: ``foos.example.com``."""

    group: str
    resource: str

    def __str__(self) -> str:
        return f"{self.resource}.{self.group}" if self.group else self.resource


def _details(name: str, group_resource: GroupResource) -> dict[str, Any]:
    details: dict[str, Any] = {}
    if name:
        details["name"] = name
    if group_resource.group:
        details["group"] = group_resource.group
    if group_resource.resource:
        details["kind"] = group_resource.resource
    return details


def status_body(
    code: int,
    message: str,
    reason: str = "",
    details: dict[str, Any] | None = None,
    retry_after: int = 0,
    *,
    success: bool = False,
    list_continue: str | None = None,
) -> dict[str, Any]:
    """A Status object with its keys in the apiserver's order (a Go struct, not a sorted map)."""
    metadata: dict[str, Any] = {}
    if list_continue is not None:
        metadata["continue"] = list_continue
    body: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": metadata}
    body["status"] = "Success" if success else "Failure"
    if message:
        body["message"] = message
    if reason:
        body["reason"] = reason
    if details is not None:
        ordered: dict[str, Any] = {
            key: details[key] for key in ("name", "group", "kind", "uid", "causes") if key in details
        }
        if retry_after:
            ordered["retryAfterSeconds"] = retry_after
        body["details"] = ordered
    elif retry_after:
        body["details"] = {"retryAfterSeconds": retry_after}
    if code and not success:
        body["code"] = code
    return body
