"""The name a write's field manager goes by when the request does not give ``fieldManager``.

``prefixFromUserAgent`` (apiserver ``endpoints/handlers/rest.go``): the User-Agent up to its first
``/``, non-printable runes dropped, cut to 128 bytes. What a manager owns is
:mod:`fakeapi._state.field_ownership`'s.
"""

from __future__ import annotations

__all__ = ["MAX_MANAGER_LENGTH", "manager_from_user_agent"]

MAX_MANAGER_LENGTH = 128


def manager_from_user_agent(user_agent: str) -> str:
    """``prefixFromUserAgent``: up to the first ``/``, non-printable runes dropped, 128 bytes."""
    prefix = user_agent.split("/", 1)[0]
    printable = "".join(ch for ch in prefix if ch.isprintable())
    return printable.encode()[:MAX_MANAGER_LENGTH].decode(errors="ignore")
