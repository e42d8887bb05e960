"""The admission chain of one server: mutating admission, then (after the registry's rules) validating admission.

``pkg/admission/chain.go`` runs the enabled plugins in kube-apiserver's order; ``reinvocation.go``
runs the mutating ones a second time when a webhook changed the object. Here the in-process plugins
of a create (NamespaceLifecycle, ServiceAccount, Priority: ``Store.admit``) run first, then the
mutating webhooks; when a webhook changed the object both run again, the webhooks only for those
with ``reinvocationPolicy: IfNeeded`` called before the change (``reinvocationcontext.go``).
Validating webhooks run after the object has been defaulted and validated, just before it is
stored (docs/admission.md).
"""

from __future__ import annotations

import random
import uuid
from typing import Any

from fakeapi._state.admission.attributes import CREATE, Attributes
from fakeapi._state.admission.authorizer_binding import Decide, always_allow
from fakeapi._state.admission.calling import ServiceAddresses, WebhookCaller
from fakeapi._state.admission.configurations import MUTATING, VALIDATING, Webhook, webhooks_of
from fakeapi._state.admission.dispatching import MutationRound, WebhookContext, mutate, validate
from fakeapi._state.admission.matching import exempt
from fakeapi._state.admission.plugins import MUTATING_WEBHOOK, VALIDATING_POLICY, VALIDATING_WEBHOOK
from fakeapi._state.admission.policies import BINDINGS, POLICIES, CompiledPolicy, PolicyHook, policy_hooks
from fakeapi._state.admission.policy_validating import dispatch
from fakeapi._state.storeview import StoreView

__all__ = ["AdmissionChain"]


class AdmissionChain:
    """Admission as one server runs it; ``caller`` makes the webhooks' HTTP calls."""

    def __init__(
        self, store: StoreView, caller: WebhookCaller, service_addresses: ServiceAddresses | None = None, seed: int = 0
    ) -> None:
        self.store = store
        self.caller = caller
        self.service_addresses: ServiceAddresses = dict(service_addresses or {})
        self._random: random.Random = random.Random(seed) if seed else random.SystemRandom()
        self._cache: dict[str, tuple[object, list[Webhook]]] = {}
        # The server's authorizer, which CEL conditions may ask (the server sets its own).
        self.decide: Decide = always_allow
        self._policy_cache: tuple[object, list[PolicyHook]] | None = None
        self._compiled: dict[tuple[str, str], CompiledPolicy] = {}

    def _new_uid(self) -> str:
        """``uuid.NewUUID``: a version 1 uuid, from the seed when the server has one, so runs replay."""
        return str(uuid.UUID(int=self._random.getrandbits(128), version=1))

    def _contents(self, plural: str) -> object:
        """What identifies the stored configurations of ``plural``: the store's epoch, the revision of their
        last write, and their bucket.

        It changes when one of them is written or the store restored, and not when anything else is
        written, so a write with no admission configurations in play does not read them again (nor
        walk them to find out).
        """
        rtype = self.store.registry.resolve("admissionregistration.k8s.io", "v1", plural)
        if rtype is None:
            return None
        store = self.store
        return (store.epoch, store.changed_at.get(rtype.storage_key, 0), id(store.bucket(rtype)))

    def _webhooks(self, plural: str) -> list[Webhook]:
        """The webhooks in force, read again only when a configuration was written (or the store restored)."""
        contents = self._contents(plural)
        cached = self._cache.get(plural)
        if cached is not None and cached[0] == contents:
            return cached[1]
        hooks = webhooks_of(self.store, plural)
        self._cache[plural] = (contents, hooks)
        return hooks

    def _policies(self) -> list[PolicyHook]:
        """The policies in force with their bindings, read again when a policy or binding was written; a
        policy with a ``paramKind`` resolves it in the registry, so then every time."""
        contents = (self._contents(POLICIES), self._contents(BINDINGS))
        cached = self._policy_cache
        if cached is not None and cached[0] == contents:
            return cached[1]
        hooks = policy_hooks(self.store, self._compiled)
        rtype = self.store.registry.resolve("admissionregistration.k8s.io", "v1", POLICIES)
        policies = self.store.bucket(rtype).values() if rtype is not None else ()
        with_params = any(isinstance(obj.get("spec"), dict) and obj["spec"].get("paramKind") for obj in policies)
        # A paramKind resolves in the registry, which other writes (a CRD's) change: no caching then.
        self._policy_cache = None if with_params else (contents, hooks)
        return hooks

    def _context(self, warnings: list[str]) -> WebhookContext:
        return WebhookContext(self.store, self.caller, self.service_addresses, warnings, self._new_uid, self.decide)

    def _in_process(self, attributes: Attributes, obj: dict[str, Any] | None) -> dict[str, Any] | None:
        if attributes.operation == CREATE and obj is not None and not attributes.subresource:
            return self.store.admit(attributes.rtype, attributes.namespace, obj)
        return obj

    async def admit(self, attributes: Attributes, warnings: list[str]) -> dict[str, Any] | None:
        """Mutating admission: the object to prepare and validate, or the refusal (:class:`APIError`)."""
        obj = self._in_process(attributes, attributes.object)
        if MUTATING_WEBHOOK not in self.store.admission_plugins or exempt(attributes):
            return obj
        hooks = self._webhooks(MUTATING)
        if not hooks:
            return obj
        if obj is not None and attributes.kind is None:
            # What the request's decoding has done upstream before admission (the scheme's defaults).
            obj = attributes.rtype.default(obj, creating=attributes.operation == CREATE)
        state = MutationRound()
        context = self._context(warnings)
        obj = await mutate(context, hooks, attributes.with_object(obj), state)
        if state.should_reinvoke:
            state.reinvoke = True
            obj = self._in_process(attributes, obj)
            obj = await mutate(context, hooks, attributes.with_object(obj), state)
        return obj

    def validates(self, attributes: Attributes) -> bool:
        """Whether validating admission has a policy or a webhook to run (else :meth:`validate` has nothing to do)."""
        if exempt(attributes):
            return False
        plugins = self.store.admission_plugins
        if VALIDATING_POLICY in plugins and self._policies():
            return True
        return VALIDATING_WEBHOOK in plugins and bool(self._webhooks(VALIDATING))

    async def validate(self, attributes: Attributes, warnings: list[str]) -> None:
        """Validating admission of the object about to be stored (``attributes.object``): the policies, then the
        webhooks, in kube-apiserver's plugin order (docs/admission-policies.md)."""
        if exempt(attributes):
            return
        plugins = self.store.admission_plugins
        if VALIDATING_POLICY in plugins:
            hooks = self._policies()
            if hooks:
                dispatch(self.store, hooks, attributes, warnings, self.decide)
        if VALIDATING_WEBHOOK in plugins:
            webhooks = self._webhooks(VALIDATING)
            if webhooks:
                await validate(self._context(warnings), webhooks, attributes)
