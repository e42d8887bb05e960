"""The conversion webhook's HTTPS call, made by the admission webhooks' client.

k8s.io/apiserver's ``pkg/util/webhook`` serves both callers: one client manager, one way of posting
a review over client-go's transport. Here :class:`~fakeapi._http.webhook_client.WebhookClient` (TLS
trusting the ``caBundle`` for the target's server name, Go's words for a call that got no answer,
connections kept between calls) posts a conversion review to a
:class:`~fakeapi._state.webhook_client.HookTarget`; the whole call is bounded by the target's
timeout, and what net/http would say of a call that got no answer is the
:class:`~fakeapi._state.webhook_client.HookError` raised (docs/conversion.md, "The webhook client").
"""

from __future__ import annotations

import asyncio

from fakeapi._http.webhook_client import WebhookClient
from fakeapi._state.admission import CallFailed, HTTPAnswer, TransportError, WebhookCall
from fakeapi._state.webhook_client import HookError, HookResponse, HookTarget

__all__ = ["HttpsTransport"]


class HttpsTransport:
    """POSTs a conversion review through the server's webhook client."""

    def __init__(self, client: WebhookClient) -> None:
        self._client = client

    async def __call__(self, target: HookTarget, body: bytes) -> HookResponse:
        """POST ``body`` as ``application/json`` and read the whole answer."""
        try:
            answer = await self._post(target, body)
        except TransportError as error:
            if str(error) != "EOF":
                raise target.failure(str(error)) from None
            # A kept connection the webhook closed meanwhile: net/http sends the request again.
            try:
                answer = await self._post(target, body)
            except TransportError as again:
                raise target.failure(str(again)) from None
        return HookResponse(answer.status, answer.content_type, answer.body)

    async def _post(self, target: HookTarget, body: bytes) -> HTTPAnswer:
        call = WebhookCall(
            "",
            target.url,
            target.connect_host,
            target.connect_port,
            target.server_name,
            target.ca_bundle,
            body,
            target.timeout,
        )
        try:
            async with asyncio.timeout(target.timeout):
                return await self._client(call)
        except TimeoutError:
            raise target.failure("context deadline exceeded") from None
        except CallFailed as error:
            # The REST client could not be built (an unreadable caBundle): no call was made.
            raise HookError(error.reason.removeprefix("could not get REST client: ")) from None
