"""Calling the webhooks of one write: ``mutating/dispatcher.go`` and ``validating/dispatcher.go``.

Mutating webhooks are called one after the other in configuration order, each on the object as the
previous one left it; a JSON patch in the answer is applied (evanphx/json-patch v4), the result
defaulted again, and the webhook counted as having changed the object when it differs. Validating
webhooks are called all at once; the first refusal to arrive is the answer.

A refusal is ``webhookerrors.ToStatusErr``: the webhook's Status with ``admission webhook "<name>"
denied the request: <message>`` (or ``<reason>``, or ``without explanation``), code at least 400.
A call that failed (no answer, a bad answer, a timeout) is ignored under ``failurePolicy: Ignore``
and otherwise an internal error: ``Internal error occurred: failed calling webhook "<name>": ...``.
On a dry run a webhook whose ``sideEffects`` is not None or NoneOnDryRun is refused with 400
``admission webhook "<name>" does not support dry run`` before any call. Warnings in the answers
become the response's Warning headers, in the order they came.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fakeapi._patching.godecode import decode
from fakeapi._patching.goencode import encode
from fakeapi._patching.goscanner import GoSyntaxError
from fakeapi._patching.jsonpatch import apply_patch, decode_patch, json_kind
from fakeapi._patching.lazynode import GoError
from fakeapi._state.admission.attributes import CREATE, Attributes
from fakeapi._state.admission.authorizer_binding import Decide, always_allow
from fakeapi._state.admission.calling import ServiceAddresses, TransportError, WebhookCaller, resolve_call
from fakeapi._state.admission.configurations import Webhook
from fakeapi._state.admission.matching import Invocation, at_version, should_call
from fakeapi._state.admission.review import (
    FIND_KIND_TYPE,
    AdmissionResponse,
    CallFailed,
    read_response,
    review_request,
    review_version,
)
from fakeapi._state.storeview import StoreView
from fakeapi.errors import APIError

__all__ = ["MutationRound", "WebhookContext", "internal_error", "mutate", "validate"]


def internal_error(text: str) -> APIError:
    """``apierrors.NewInternalError``."""
    return APIError(
        f"Internal error occurred: {text}", reason="InternalError", code=500, details={"causes": [{"message": text}]}
    )


def denied(name: str, result: dict[str, Any] | None) -> APIError:
    """``webhookerrors.ToStatusErr``."""
    result = dict(result or {})
    denied_by = f'admission webhook "{name}" denied the request'
    message, reason = result.get("message") or "", result.get("reason") or ""
    if message:
        text = f"{denied_by}: {message}"
    elif reason:
        text = f"{denied_by}: {reason}"
    else:
        text = f"{denied_by} without explanation"
    raw_code = result.get("code")
    code = raw_code if isinstance(raw_code, int) else 0
    details = result.get("details") if isinstance(result.get("details"), dict) else None
    return APIError(text, reason=str(reason), code=max(code, 400), details=details)


def _dry_run_refusal(name: str, side_effects: Any) -> APIError | CallFailed | None:
    if side_effects is None:
        return CallFailed("Webhook SideEffects is nil")
    if side_effects not in ("None", "NoneOnDryRun"):
        return APIError.bad_request(f'admission webhook "{name}" does not support dry run')
    return None


@dataclass
class WebhookContext:
    """What the dispatchers need besides the write: the store, the HTTP call, the request's warnings."""

    store: StoreView
    caller: WebhookCaller
    service_addresses: ServiceAddresses
    warnings: list[str]
    new_uid: Callable[[], str] = lambda: str(uuid.uuid1())
    decide: Decide = always_allow


async def _call(
    context: WebhookContext, hook: Webhook, invocation: Invocation, attributes: Attributes, *, mutating: bool
) -> tuple[AdmissionResponse, dict[str, Any] | None]:
    """One webhook call: the verdict, and the object it was shown; :class:`CallFailed` when it failed."""
    versioned = invocation.versioned(attributes.object, attributes)
    shown = versioned
    # Validating admission sees objects the registry has laid out already; mutating, the request's.
    if mutating and versioned is not None and invocation.rtype.struct_order and attributes.kind is None:
        shown = context.store.in_struct_order(invocation.rtype, versioned)
    version = review_version(hook.spec)
    uid = context.new_uid()
    body = review_request(uid, invocation, attributes, shown, version)
    try:
        call = resolve_call(context.store, hook.spec, body, context.service_addresses)
    except CallFailed as error:
        raise CallFailed(f'could not get REST client: failed calling webhook "{hook.name}": {error.reason}') from None
    try:
        if call.dial_error:
            raise TransportError(call.dial_error)
        async with asyncio.timeout(call.timeout):
            answer = await context.caller(call)
    except TransportError as error:
        raise CallFailed(f'failed to call webhook: Post "{call.url}": {error}') from None
    except TimeoutError:
        raise CallFailed(f'failed to call webhook: Post "{call.url}": context deadline exceeded') from None
    response = read_response(answer, uid, mutating=mutating, version=version)
    context.warnings.extend(response.warnings)
    return response, shown


def _failure(hook: Webhook, error: CallFailed) -> APIError | None:
    """A failed call: nothing under ``failurePolicy: Ignore``, else the internal error."""
    if hook.spec.get("failurePolicy") == "Ignore":
        return None
    return internal_error(f'failed calling webhook "{hook.name}": {error.reason}')


# -- mutating ----------------------------------------------------------------------------------------


@dataclass
class MutationRound:
    """``webhookReinvokeContext``: what the first round left for a reinvocation."""

    reinvoke: bool = False
    should_reinvoke: bool = False
    last_output: dict[str, Any] | None = None
    previously_invoked: set[str] = field(default_factory=set)
    to_reinvoke: set[str] = field(default_factory=set)

    def require_reinvoking(self) -> None:
        self.to_reinvoke |= self.previously_invoked
        self.previously_invoked = set()


def _apply_webhook_patch(
    context: WebhookContext,
    hook: Webhook,
    invocation: Invocation,
    attributes: Attributes,
    shown: dict[str, Any] | None,
    response: AdmissionResponse,
) -> tuple[dict[str, Any], bool] | None:
    """The object after the webhook's patch (defaulted again) and whether it differs; None when the answer changes nothing."""
    if not response.patch:
        return None
    try:
        patch = decode_patch(response.patch)
    except (GoError, GoSyntaxError) as error:
        raise internal_error(str(error)) from None
    if not len(patch):
        return None
    if shown is None:
        raise internal_error(
            f'admission webhook "{hook.name}" attempted to modify the object, which is not supported for this operation'
        )
    if response.patch_type != "JSONPatch":
        raise CallFailed(f'unsupported patch type "{response.patch_type}"')
    rtype = invocation.rtype
    outcome = apply_patch(decode(encode(shown, in_order=rtype.struct_order)), patch)
    if not outcome.ok:
        raise internal_error(outcome.error or outcome.panic or "")
    patched = outcome.value()
    if not isinstance(patched, dict):
        raise internal_error(
            f"couldn't get version/kind; json parse error: json: cannot unmarshal {json_kind(patched)} "
            f"into Go value of type {FIND_KIND_TYPE}"
        )
    if attributes.kind is not None:
        # A subresource's own kind (a Scale, an Eviction): neither the resource's struct nor its defaults.
        return patched, patched != shown
    if rtype.struct_order:
        patched = context.store.in_struct_order(rtype, patched)
    changed = patched != shown
    defaulted = rtype.default(patched, creating=attributes.operation == CREATE)
    if rtype.api_version != attributes.rtype.api_version:
        defaulted = at_version(attributes.rtype, rtype, defaulted)
    return defaulted, changed


async def mutate(
    context: WebhookContext, hooks: list[Webhook], attributes: Attributes, state: MutationRound
) -> dict[str, Any] | None:
    """One pass of the mutating webhooks; the object as they leave it."""
    obj = attributes.object
    if state.reinvoke and state.last_output != obj:
        state.require_reinvoking()
    try:
        for hook in hooks:
            current = attributes.with_object(obj)
            invocation = should_call(context.store, hook.spec, current, context.decide)
            if invocation is None:
                continue
            if state.reinvoke and hook.uid not in state.to_reinvoke:
                continue
            changed = False
            failure: CallFailed | None = None
            try:
                if current.dry_run and (refusal := _dry_run_refusal(hook.name, hook.spec.get("sideEffects"))):
                    raise refusal
                response, shown = await _call(context, hook, invocation, current, mutating=True)
                if not response.allowed:
                    raise denied(hook.name, response.result)
                patched = _apply_webhook_patch(context, hook, invocation, current, shown, response)
                if patched is not None:
                    obj, changed = patched
            except CallFailed as error:
                failure = error
            if changed:
                state.require_reinvoking()
                state.should_reinvoke = True
            if hook.spec.get("reinvocationPolicy") == "IfNeeded":
                state.previously_invoked.add(hook.uid)
            if failure is not None:
                refused = _failure(hook, failure)
                if refused is not None:
                    raise refused
    finally:
        state.last_output = obj
    return obj


# -- validating --------------------------------------------------------------------------------------


async def validate(context: WebhookContext, hooks: list[Webhook], attributes: Attributes) -> None:
    """The validating webhooks, called together; the first refusal to arrive refuses the write."""
    relevant = [
        (hook, invocation)
        for hook in hooks
        if (invocation := should_call(context.store, hook.spec, attributes, context.decide))
    ]
    if not relevant:
        return
    errors: list[APIError] = []

    async def one(hook: Webhook, invocation: Invocation) -> None:
        try:
            if attributes.dry_run and (refusal := _dry_run_refusal(hook.name, hook.spec.get("sideEffects"))):
                raise refusal
            response, _ = await _call(context, hook, invocation, attributes, mutating=False)
        except CallFailed as error:
            refused = _failure(hook, error)
            if refused is not None:
                errors.append(refused)
            return
        except APIError as error:
            errors.append(error)
            return
        if not response.allowed:
            errors.append(denied(hook.name, response.result))

    if len(relevant) == 1:
        await one(*relevant[0])
    else:
        await asyncio.gather(*(one(hook, invocation) for hook, invocation in relevant))
    if errors:
        raise errors[0]
