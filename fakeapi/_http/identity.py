"""Who a request comes from, as the reviews read it: the user authentication left on the request.

Authentication (:mod:`fakeapi._http.authentication`, docs/authentication.md) runs before any
handler and leaves the user on the request; this gives that user the shape the reviews answer
with (``user.Info`` as ``SelfSubjectReview`` writes it). Without ``--token-auth`` a bearer token
names the user, in ``system:masters`` and ``system:authenticated``; a request without one (basic
credentials included, which the apiserver has ignored since 1.19) is ``system:anonymous``.
"""

from __future__ import annotations

from aiohttp import web

from fakeapi._http.authentication import ANONYMOUS, USER
from fakeapi._state.reviews import UserInfo

__all__ = ["user_of"]


def user_of(request: web.BaseRequest) -> UserInfo:
    user = request.get(USER, ANONYMOUS)
    return UserInfo(user.name, user.groups, user.uid, {key: list(values) for key, values in user.extra.items()})
