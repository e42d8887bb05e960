"""Default TLS client contexts whose system CA certificates load the first time something needs them.

kubernetes_asyncio's ``RESTClientObject`` calls ``ssl.create_default_context()`` for every
``ApiClient``, and ``watch.Watch()`` makes an ``ApiClient`` of its own, so an operator that opens a
watch per tick builds a context per tick. Most of that is CPython's ``load_default_certs``: OpenSSL
parses the system's CA bundle (about 30 ms for 144 certificates with OpenSSL 3), whether or not the
client ever speaks TLS, and the engine's server speaks plain HTTP (docs/scenarios-client-costs.md).

While an engine runs, ``ssl.create_default_context`` for a server-authenticating context without an
explicit CA returns a context with every setting of the real function's (copied from one it built,
and checked equal when installed) whose certificates are loaded, by the same ``load_default_certs``
and before anything else touches the store, the first time the store matters: a handshake (every
``wrap_socket``, ``wrap_bio`` and asyncio's TLS go through ``_wrap_socket`` or ``_wrap_bio``), a look
at the store (``get_ca_certs``, ``cert_store_stats``) or a change to it. A context never used for TLS
never loads them. OpenSSL reads ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` when it loads, so their
values at creation are put back for that moment if they changed in between.
"""

from __future__ import annotations

import os
import ssl
import sys
import threading
from typing import Any

__all__ = ["install", "uninstall"]

_real_create = ssl.create_default_context
_SETTINGS = (
    "verify_mode",
    "check_hostname",
    "verify_flags",
    "options",
    "minimum_version",
    "maximum_version",
    "post_handshake_auth",
    "hostname_checks_common_name",
)
_ENVIRONMENT = (ssl.get_default_verify_paths().openssl_cafile_env, ssl.get_default_verify_paths().openssl_capath_env)


class _DeferredTrustContext(ssl.SSLContext):
    """An ``SSLContext`` that runs ``load_default_certs`` on first need instead of at creation."""

    _trust_lock: threading.RLock  # load_default_certs calls set_default_verify_paths, which comes back here
    _trust_environment: tuple[str | None, ...] | None

    def _load_deferred(self) -> None:
        with self._trust_lock:
            environment, self._trust_environment = self._trust_environment, None
            if environment is None:
                return
            now = tuple(os.environ.get(name) for name in _ENVIRONMENT)
            if now == environment:
                ssl.SSLContext.load_default_certs(self, ssl.Purpose.SERVER_AUTH)
                return
            _set_environment(environment)
            try:
                ssl.SSLContext.load_default_certs(self, ssl.Purpose.SERVER_AUTH)
            finally:
                _set_environment(now)

    def _wrap_socket(self, *args: Any, **kwargs: Any) -> Any:
        self._load_deferred()
        return super()._wrap_socket(*args, **kwargs)  # type: ignore[misc]

    def _wrap_bio(self, *args: Any, **kwargs: Any) -> Any:
        self._load_deferred()
        return super()._wrap_bio(*args, **kwargs)  # type: ignore[misc]

    def get_ca_certs(self, binary_form: bool = False) -> Any:
        self._load_deferred()
        return super().get_ca_certs(binary_form)

    def cert_store_stats(self) -> dict[str, int]:
        self._load_deferred()
        return super().cert_store_stats()

    def load_verify_locations(self, *args: Any, **kwargs: Any) -> None:
        self._load_deferred()
        super().load_verify_locations(*args, **kwargs)

    def load_default_certs(self, purpose: ssl.Purpose = ssl.Purpose.SERVER_AUTH) -> None:
        self._load_deferred()
        super().load_default_certs(purpose)

    def set_default_verify_paths(self) -> None:
        self._load_deferred()
        super().set_default_verify_paths()


def _set_environment(values: tuple[str | None, ...]) -> None:
    for name, value in zip(_ENVIRONMENT, values, strict=True):
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


class _Recipe:
    """The settings ``ssl.create_default_context()`` gives a client context, read from one it built."""

    def __init__(self) -> None:
        built = _real_create()
        bare = ssl.SSLContext(built.protocol)
        self.settings = {
            name: getattr(built, name) for name in _SETTINGS if getattr(bare, name) != getattr(built, name)
        }
        self.exact = _readable(self.make()) == _readable(built)

    def make(self) -> _DeferredTrustContext:
        context = _DeferredTrustContext(ssl.PROTOCOL_TLS_CLIENT)
        # check_hostname needs verify_mode set first, in the order the real function sets them
        for name, value in self.settings.items():
            setattr(context, name, value)
        keylog = os.environ.get("SSLKEYLOGFILE")
        if keylog and not sys.flags.ignore_environment:
            context.keylog_filename = keylog
        context._trust_lock = threading.RLock()
        context._trust_environment = tuple(os.environ.get(name) for name in _ENVIRONMENT)
        return context


def _readable(context: ssl.SSLContext) -> tuple[Any, ...]:
    """Every setting Python lets one read back, the store apart."""
    settings = tuple(getattr(context, name) for name in _SETTINGS)
    return (context.protocol, *settings, context.get_ciphers(), context.keylog_filename)


class _Installation:
    recipe: _Recipe | None = None
    users = 0


def _create(
    purpose: ssl.Purpose = ssl.Purpose.SERVER_AUTH,
    *,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | bytes | None = None,
) -> ssl.SSLContext:
    recipe = _Installation.recipe
    default = purpose == ssl.Purpose.SERVER_AUTH and not (cafile or capath or cadata)
    if not default or recipe is None or ssl.SSLContext is not _BASE:
        return _real_create(purpose, cafile=cafile, capath=capath, cadata=cadata)
    return recipe.make()


_BASE = ssl.SSLContext


def install() -> None:
    """Defer the certificates of default client contexts (until the matching :func:`uninstall`)."""
    _Installation.users += 1
    if _Installation.users > 1:
        return
    if _Installation.recipe is None:
        recipe = _Recipe()
        _Installation.recipe = recipe if recipe.exact else None
    if ssl.create_default_context is _real_create:
        ssl.create_default_context = _create  # type: ignore[assignment]


def uninstall() -> None:
    _Installation.users -= 1
    if _Installation.users == 0 and ssl.create_default_context is _create:
        ssl.create_default_context = _real_create
