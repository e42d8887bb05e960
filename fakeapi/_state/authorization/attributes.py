"""Who asks for what: the attributes every authorization decision reads (docs/rbac.md).

Reproduces k8s.io/apiserver ``pkg/authorization/authorizer/interfaces.go`` (``AttributesRecord``)
and ``pkg/authentication/user`` (``DefaultInfo`` and the ``system:`` groups), plus the
ServiceAccount user names of ``pkg/authentication/serviceaccount/util.go``. A resource request
names a verb, an API group, a resource, perhaps a subresource, a name and a namespace; any other
request (``/healthz``, ``/apis``, ``/version``) names a verb (the lower-cased HTTP method) and a
path. A list or watch has no name unless its field selector pins ``metadata.name``, which is why a
rule restricted by ``resourceNames`` never allows a plain list, watch, create or deletecollection.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "ALL_AUTHENTICATED",
    "ALL_SERVICE_ACCOUNTS",
    "ALL_UNAUTHENTICATED",
    "ANONYMOUS",
    "PRIVILEGED_GROUP",
    "Attributes",
    "UserInfo",
    "matches_service_account",
    "service_account_groups",
    "service_account_user",
    "service_account_username",
]

PRIVILEGED_GROUP = "system:masters"
ALL_AUTHENTICATED = "system:authenticated"
ALL_UNAUTHENTICATED = "system:unauthenticated"
ALL_SERVICE_ACCOUNTS = "system:serviceaccounts"
ANONYMOUS = "system:anonymous"
_SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
_SERVICE_ACCOUNT_GROUP_PREFIX = "system:serviceaccounts:"


@dataclass(frozen=True)
class UserInfo:
    """``user.Info`` as authorization sees it: a name and groups, in the order authentication gave them."""

    name: str
    groups: tuple[str, ...] = ()

    def in_group(self, group: str) -> bool:
        return group in self.groups


@dataclass(frozen=True)
class Attributes:
    """``authorizer.AttributesRecord``: one request to authorize.

    ``resource_request`` tells the two kinds apart; a non-resource request carries only ``user``,
    ``verb`` and ``path``. ``api_version`` is carried for reports and reviews (a review without a
    version asks about ``*``); RBAC never reads it.
    """

    user: UserInfo
    verb: str
    resource_request: bool = True
    namespace: str = ""
    api_group: str = ""
    api_version: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    path: str = ""

    @classmethod
    def for_resource(
        cls,
        user: UserInfo,
        verb: str,
        resource: str,
        *,
        api_group: str = "",
        api_version: str = "",
        namespace: str = "",
        name: str = "",
        subresource: str = "",
    ) -> Attributes:
        return cls(user, verb, True, namespace, api_group, api_version, resource, subresource, name)

    @classmethod
    def for_path(cls, user: UserInfo, verb: str, path: str) -> Attributes:
        return cls(user, verb, resource_request=False, path=path)

    @property
    def combined_resource(self) -> str:
        """``resource/subresource``, the form rules name a subresource by."""
        return f"{self.resource}/{self.subresource}" if self.subresource else self.resource


def service_account_username(namespace: str, name: str) -> str:
    """``serviceaccount.MakeUsername``: ``system:serviceaccount:<namespace>:<name>``."""
    return f"{_SERVICE_ACCOUNT_PREFIX}{namespace}:{name}"


def service_account_groups(namespace: str) -> tuple[str, str]:
    """``serviceaccount.MakeGroupNames``: every ServiceAccount's group, then its namespace's."""
    return (ALL_SERVICE_ACCOUNTS, _SERVICE_ACCOUNT_GROUP_PREFIX + namespace)


def service_account_user(namespace: str, name: str) -> UserInfo:
    """A ServiceAccount as its token authenticates it: its groups, then ``system:authenticated``.

    The token authenticator gives the two ServiceAccount groups; the authenticator chain then
    appends ``system:authenticated`` to every user it recognised.
    """
    return UserInfo(service_account_username(namespace, name), (*service_account_groups(namespace), ALL_AUTHENTICATED))


def matches_service_account(namespace: str, name: str, username: str) -> bool:
    """``serviceaccount.MatchesUsername``: does ``username`` name the ServiceAccount ``namespace/name``?"""
    return username == service_account_username(namespace, name)


def with_authenticated(groups: Sequence[str]) -> tuple[str, ...]:
    """``group.AuthenticatedGroupAdder``: ``system:authenticated`` appended, unless the user already
    is in it or in ``system:unauthenticated``."""
    if ALL_AUTHENTICATED in groups or ALL_UNAUTHENTICATED in groups:
        return tuple(groups)
    return (*groups, ALL_AUTHENTICATED)
