"""Who the write being stored is for, where a strategy needs to know (the apiserver's request context).

kube-apiserver hands the request's context, with its user and attributes, down to the registry:
the RBAC kinds' storage reads it to refuse a Role or binding that grants more than its writer holds
(kubernetes ``pkg/registry/rbac/*/policybased``). Under RBAC authorization the HTTP layer sets the
current request's :class:`Requester` around its handling; store code reads it with
:func:`current_requester`. A write with none (loading manifests, a controller, any write when
authorization is off) is not checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from fakeapi._state.authorization import Attributes

__all__ = ["Requester", "acting_for", "current_requester"]


@dataclass(frozen=True)
class Requester:
    """The request being served, as the authorizer saw it: user, verb, resource, namespace, name."""

    attributes: Attributes


_current: ContextVar[Requester | None] = ContextVar("fakeapi_requester", default=None)


def current_requester() -> Requester | None:
    return _current.get()


@contextmanager
def acting_for(requester: Requester | None) -> Iterator[None]:
    token = _current.set(requester)
    try:
        yield
    finally:
        _current.reset(token)
