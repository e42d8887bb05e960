"""Impersonation headers, as kube-apiserver's ``WithImpersonation`` filter reads them (docs/rbac.md).

k8s.io/apiserver ``pkg/endpoints/filters/impersonation.go``: after authentication and before
authorization, ``Impersonate-User``, ``Impersonate-Group`` (repeated), ``Impersonate-Uid`` and
``Impersonate-Extra-<key>`` replace the request's user. Each is first authorized for the sender
with the verb ``impersonate``: on ``users``, ``groups`` or ``serviceaccounts`` (a user name that
reads ``system:serviceaccount:<ns>:<name>``) in the core group, on ``uids`` and ``userextras/<key>``
in ``authentication.k8s.io``; the first refusal is the 403 of that check. Groups, extra or uid
without a user is a 500 with Go's plain-text ``http.Error``. Without ``Impersonate-Group`` a
ServiceAccount gets its two groups; every impersonated user but the anonymous one also gets
``system:authenticated`` unless ``system:authenticated`` or ``system:unauthenticated`` was asked for,
the anonymous one ``system:unauthenticated``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote

from multidict import CIMultiDictProxy

from fakeapi._http.authentication import User
from fakeapi._state.authorization import (
    ALL_AUTHENTICATED,
    ALL_UNAUTHENTICATED,
    ANONYMOUS,
    Attributes,
    Decision,
    forbidden_error,
    service_account_username,
)
from fakeapi._state.authorization.attributes import service_account_groups

__all__ = ["ImpersonationError", "impersonate"]

_USER = "Impersonate-User"
_GROUP = "Impersonate-Group"
_UID = "Impersonate-Uid"
_EXTRA = "impersonate-extra-"
_SERVICE_ACCOUNT = "system:serviceaccount:"


class ImpersonationError(Exception):
    """A request the filter answers with ``responsewriters.InternalError``: a plain-text 500."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem

    def text(self, uri: str) -> str:
        """``http.Error`` of ``Internal Server Error: %q: %v`` (the request URI quoted as Go quotes
        it), through the writers' sanitizer, which escapes & < > as HTML does."""
        text = f"Internal Server Error: {_go_quote(uri)}: {self.problem}"
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") + "\n"


@dataclass(frozen=True)
class _Reference:
    """An ``ObjectReference`` the filter builds for each thing to impersonate."""

    kind: str
    name: str
    namespace: str = ""
    api_version: str = ""
    field_path: str = ""

    def go_text(self) -> str:
        """``%v`` of the struct: its seven fields joined by spaces, empty ones included."""
        return "{" + " ".join((self.kind, self.namespace, self.name, "", self.api_version, "", self.field_path)) + "}"


def _split_service_account(name: str) -> tuple[str, str] | None:
    """``serviceaccount.SplitUsername``."""
    if not name.startswith(_SERVICE_ACCOUNT):
        return None
    parts = name[len(_SERVICE_ACCOUNT) :].split(":")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return None
    return parts[0], parts[1]


def _references(headers: CIMultiDictProxy[str]) -> list[_Reference]:
    """``buildImpersonationRequests``."""
    references: list[_Reference] = []
    requested_user = headers.get(_USER, "")
    if requested_user:
        account = _split_service_account(requested_user)
        if account is not None:
            references.append(_Reference("ServiceAccount", account[1], account[0]))
        else:
            references.append(_Reference("User", requested_user))
    groups = headers.getall(_GROUP, [])
    references += [_Reference("Group", group) for group in groups]
    extras = [
        _Reference("UserExtra", value, api_version="authentication.k8s.io/v1", field_path=_extra_key(name))
        for name, value in headers.items()
        if name.lower().startswith(_EXTRA)
    ]
    references += extras
    uid = headers.get(_UID, "")
    if uid:
        references.append(_Reference("UID", uid, api_version="authentication.k8s.io/v1"))
    if (groups or extras or uid) and not requested_user:
        listed = " ".join(reference.go_text() for reference in references)
        raise ImpersonationError(f"requested [{listed}] without impersonating a user")
    return references


def _extra_key(header: str) -> str:
    return unquote(header[len(_EXTRA) :].lower())


def _attributes(requester: User, reference: _Reference) -> Attributes:
    group = reference.api_version.partition("/")[0] if "/" in reference.api_version else ""
    resource, subresource = {
        "ServiceAccount": ("serviceaccounts", ""),
        "User": ("users", ""),
        "Group": ("groups", ""),
        "UserExtra": ("userextras", reference.field_path),
        "UID": ("uids", ""),
    }[reference.kind]
    return Attributes.for_resource(
        requester.info(),
        "impersonate",
        resource,
        api_group=group,
        api_version=reference.api_version.rpartition("/")[2] if reference.api_version else "",
        namespace=reference.namespace,
        name=reference.name,
        subresource=subresource,
    )


def impersonate(headers: CIMultiDictProxy[str], requester: User, authorize: Callable[[Attributes], Decision]) -> User:
    """The user the request acts as: ``requester`` itself without impersonation headers."""
    for name in headers:
        if name[0] in "Ii" and name[:12].lower() == "impersonate-":
            break
    else:
        return requester
    references = _references(headers)
    if not references:
        return requester
    groups_given = bool(headers.getall(_GROUP, []))
    name, uid = "", ""
    groups: list[str] = []
    extra: dict[str, list[str]] = {}
    for reference in references:
        decision = authorize(_attributes(requester, reference))
        if not decision.allowed:
            raise forbidden_error(_attributes(requester, reference), decision.reason)
        if reference.kind == "ServiceAccount":
            name = service_account_username(reference.namespace, reference.name)
            if not groups_given:
                groups = list(service_account_groups(reference.namespace))
        elif reference.kind == "User":
            name = reference.name
        elif reference.kind == "Group":
            groups.append(reference.name)
        elif reference.kind == "UserExtra":
            extra.setdefault(reference.field_path, []).append(reference.name)
        else:
            uid = reference.name
    if name != ANONYMOUS:
        if not any(group in (ALL_AUTHENTICATED, ALL_UNAUTHENTICATED) for group in groups):
            groups.append(ALL_AUTHENTICATED)
    elif ALL_UNAUTHENTICATED not in groups:
        groups.append(ALL_UNAUTHENTICATED)
    return User(
        name,
        tuple(groups),
        uid=uid,
        extra={key: tuple(values) for key, values in extra.items()},
        actor=requester.actor_name or "",
    )


def _go_quote(text: str) -> str:
    """``%q`` of a string: double quotes, backslash escapes for quotes, backslashes and controls."""
    out = []
    for char in text:
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'
