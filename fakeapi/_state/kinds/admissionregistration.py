"""``admissionregistration.k8s.io/v1``: webhook configurations and admission policies.

Their strategies bump the generation on every change of what they configure
(``pkg/registry/admissionregistration/<kind>/strategy.go``). Webhook configurations are validated as the
apiserver validates them (:mod:`fakeapi._state.validation.webhook_configurations`); policies and
bindings by :mod:`fakeapi._state.validation.admission_policies`.
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.defaults.admission import (
    mutating_webhook_configuration_defaults,
    validating_admission_policy_binding_defaults,
    validating_admission_policy_defaults,
    validating_webhook_configuration_defaults,
)
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.policy_type_checking import reconcile_policy_status
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.storeview import StoreView
from fakeapi._state.strategy import GenerationStrategy
from fakeapi._state.tables.access import (
    MUTATING_WEBHOOK_PRINTER,
    VALIDATING_ADMISSION_POLICY_BINDING_PRINTER,
    VALIDATING_ADMISSION_POLICY_PRINTER,
    VALIDATING_WEBHOOK_PRINTER,
)
from fakeapi._state.validation import field
from fakeapi._state.validation.admission_policies import validate_policy, validate_policy_binding
from fakeapi._state.validation.webhook_configurations import validate_webhook_configuration
from fakeapi.errors import Cause

__all__ = ["TYPES"]

_GROUP = "admissionregistration.k8s.io"
_EXTENSIONS = ("api-extensions",)


class WebhookConfigurationStrategy(GenerationStrategy):
    """Validates the webhooks after the metadata (``ValidateValidatingWebhookConfiguration[Update]``)."""

    def validate_rules(
        self,
        rtype: ResourceType,
        obj: dict[str, Any],
        old: dict[str, Any] | None,
        subresource: str,
        causes: list[Cause],
    ) -> list[Cause]:
        mutating = rtype.kind == "MutatingWebhookConfiguration"
        return field.causes(validate_webhook_configuration(obj, old, mutating=mutating))


_WEBHOOK_CONFIGURATION = WebhookConfigurationStrategy()


class AdmissionPolicyStrategy(GenerationStrategy):
    """Validates a ValidatingAdmissionPolicy's spec after the metadata; after a write that raised its generation,
    the status controller's type checking (:mod:`fakeapi._state.policy_type_checking`, docs/admission-policies.md)."""

    def validate_rules(
        self,
        rtype: ResourceType,
        obj: dict[str, Any],
        old: dict[str, Any] | None,
        subresource: str,
        causes: list[Cause],
    ) -> list[Cause]:
        if subresource:
            return []
        return field.causes(validate_policy(obj, old))

    def after_create(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        reconcile_policy_status(store, rtype, obj)

    def after_update(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any], old: dict[str, Any]) -> None:
        reconcile_policy_status(store, rtype, obj)


class AdmissionPolicyBindingStrategy(GenerationStrategy):
    """Validates a ValidatingAdmissionPolicyBinding's spec after the metadata (docs/admission-policies.md)."""

    def validate_rules(
        self,
        rtype: ResourceType,
        obj: dict[str, Any],
        old: dict[str, Any] | None,
        subresource: str,
        causes: list[Cause],
    ) -> list[Cause]:
        return field.causes(validate_policy_binding(obj))


TYPES: tuple[ResourceType, ...] = (
    builtin(
        _GROUP,
        "v1",
        "mutatingwebhookconfigurations",
        "MutatingWebhookConfiguration",
        False,
        categories=_EXTENSIONS,
        strategy=_WEBHOOK_CONFIGURATION,
        printer=MUTATING_WEBHOOK_PRINTER,
        defaulter=mutating_webhook_configuration_defaults,
    ),
    builtin(
        _GROUP,
        "v1",
        "validatingadmissionpolicies",
        "ValidatingAdmissionPolicy",
        False,
        categories=_EXTENSIONS,
        subresources=(Subresource("status"),),
        strategy=AdmissionPolicyStrategy(),
        printer=VALIDATING_ADMISSION_POLICY_PRINTER,
        defaulter=validating_admission_policy_defaults,
    ),
    builtin(
        _GROUP,
        "v1",
        "validatingadmissionpolicybindings",
        "ValidatingAdmissionPolicyBinding",
        False,
        categories=_EXTENSIONS,
        strategy=AdmissionPolicyBindingStrategy(),
        printer=VALIDATING_ADMISSION_POLICY_BINDING_PRINTER,
        defaulter=validating_admission_policy_binding_defaults,
    ),
    builtin(
        _GROUP,
        "v1",
        "validatingwebhookconfigurations",
        "ValidatingWebhookConfiguration",
        False,
        categories=_EXTENSIONS,
        strategy=_WEBHOOK_CONFIGURATION,
        printer=VALIDATING_WEBHOOK_PRINTER,
        defaulter=validating_webhook_configuration_defaults,
    ),
)
