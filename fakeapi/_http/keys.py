"""Typed keys for what the journaled handler (``app.journaled``) and the handlers keep on a request."""

from __future__ import annotations

from aiohttp import web

from fakeapi._http.context import WatchValve
from fakeapi._http.patching import PatchContext
from fakeapi._http.requestinfo import RequestInfo
from fakeapi._state.journal import Journal, JournalEntry

__all__ = [
    "ADMISSION_WARNINGS",
    "BODY_BYTES",
    "DEPRECATION",
    "ENTRY",
    "INFO",
    "JOURNAL",
    "PATCH_CONTEXT",
    "STALE_REVISION",
    "STREAM",
    "VALVE",
]

INFO: web.RequestKey[RequestInfo] = web.RequestKey("fakeapi_info", RequestInfo)
ENTRY: web.RequestKey[JournalEntry] = web.RequestKey("fakeapi_entry", JournalEntry)
JOURNAL: web.RequestKey[Journal] = web.RequestKey("fakeapi_journal", Journal)
PATCH_CONTEXT: web.RequestKey[PatchContext] = web.RequestKey("fakeapi_patch_context", PatchContext)
STALE_REVISION: web.RequestKey[int] = web.RequestKey("fakeapi_stale_revision", int)
VALVE: web.RequestKey[WatchValve] = web.RequestKey("fakeapi_valve", WatchValve)
# A streamed answer whose headers went out: what the journal records if the client leaves mid-stream.
STREAM: web.RequestKey[web.StreamResponse] = web.RequestKey("fakeapi_stream", web.StreamResponse)
# The deprecation warning of the resource the request reached: every answer on its path carries it first.
DEPRECATION: web.RequestKey[str] = web.RequestKey("fakeapi_deprecation", str)
# The warnings admission webhooks answered with: the response carries them, refused or not.
ADMISSION_WARNINGS: web.RequestKey[list[str]] = web.RequestKey("fakeapi_admission_warnings", list)
# The size of the request's body: a write whose body or object is large runs its stages in slices.
BODY_BYTES: web.RequestKey[int] = web.RequestKey("fakeapi_body_bytes", int)
