"""Who a request comes from, as an authenticator would name it: the one place that decides it.

The fake authenticates nothing (every request is allowed): a bearer token names the actor (the
pytest plugin's and the scenario engine's kubeconfigs set one per actor) and becomes the user
name; the kubeconfig ``fakeapi serve`` writes uses basic credentials for ``admin``; a request with
neither is ``system:anonymous``. Authenticated users are in ``system:masters``, the group an
allow-all server treats everyone as, and ``system:authenticated``, as every authenticator adds.
"""

from __future__ import annotations

import base64
import binascii

from aiohttp import web

from fakeapi._state.reviews import UserInfo

__all__ = ["user_of"]

_AUTHENTICATED = ("system:masters", "system:authenticated")


def user_of(request: web.BaseRequest) -> UserInfo:
    authorization = request.headers.get("Authorization", "")
    scheme, _, credentials = authorization.partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return UserInfo(credentials.strip(), _AUTHENTICATED)
    if scheme.lower() == "basic":
        try:
            username = base64.b64decode(credentials.strip(), validate=True).decode("utf-8").partition(":")[0]
        except (binascii.Error, UnicodeDecodeError):
            username = ""
        if username:
            return UserInfo(username, _AUTHENTICATED)
    return UserInfo("system:anonymous", ("system:unauthenticated",))
