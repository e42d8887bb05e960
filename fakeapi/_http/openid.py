"""The ServiceAccount issuer's discovery endpoints, as kube-apiserver serves them (docs/authentication.md).

``pkg/routes/openidmetadata.go``: ``/.well-known/openid-configuration`` (``application/json``) and
``/openid/v1/jwks`` (``application/jwk-set+json``), both ``Cache-Control: public, max-age=3600``,
the bodies rendered once by ``pkg/serviceaccount/openidmetadata.go`` as compact JSON without a
trailing newline. They are non-resource URLs: authorized like ``/version`` (the bootstrap policy
grants them to ``system:serviceaccounts`` through ``system:service-account-issuer-discovery``).

The apiserver's ``jwks_uri`` is ``https://`` and its external address; fakeapi's is its own URL,
``http://`` when it serves plain HTTP, so that a test can fetch the keys from where it says.
"""

from __future__ import annotations

import json

from aiohttp import web

from fakeapi._http.context import ServerState
from fakeapi._state.signing_keys import openid_configuration
from fakeapi._state.tokens import ISSUER

__all__ = ["JWKS_PATH", "OPENID_CONFIGURATION_PATH", "openid_response"]

OPENID_CONFIGURATION_PATH = "/.well-known/openid-configuration"
JWKS_PATH = "/openid/v1/jwks"


def openid_response(state: ServerState, path: str) -> web.Response:
    """The discovery document (``path`` :data:`OPENID_CONFIGURATION_PATH`) or the key set."""
    if path == JWKS_PATH:
        document, content_type = state.store.signing_key.key_set(), "application/jwk-set+json"
    else:
        jwks_uri = f"{state.server_scheme}://{state.server_address}{JWKS_PATH}"
        document, content_type = openid_configuration(ISSUER, jwks_uri), "application/json"
    body = json.dumps(document, separators=(",", ":")).encode()
    response = web.Response(body=body, content_type=content_type)
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response
