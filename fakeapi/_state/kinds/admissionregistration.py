"""``admissionregistration.k8s.io/v1``: webhook configurations and admission policies.

Stored and served only: no admission webhook is called and no policy is evaluated. Their
strategies bump the generation on every change of what they configure
(``pkg/registry/admissionregistration/<kind>/strategy.go``).
"""

from __future__ import annotations

from fakeapi._state.defaults.admission import (
    mutating_webhook_configuration_defaults,
    validating_admission_policy_binding_defaults,
    validating_admission_policy_defaults,
    validating_webhook_configuration_defaults,
)
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.strategy import GenerationStrategy
from fakeapi._state.tables.access import (
    MUTATING_WEBHOOK_PRINTER,
    VALIDATING_ADMISSION_POLICY_BINDING_PRINTER,
    VALIDATING_ADMISSION_POLICY_PRINTER,
    VALIDATING_WEBHOOK_PRINTER,
)

__all__ = ["TYPES"]

_GROUP = "admissionregistration.k8s.io"
_EXTENSIONS = ("api-extensions",)
_GENERATION = GenerationStrategy()

TYPES: tuple[ResourceType, ...] = (
    builtin(
        _GROUP,
        "v1",
        "mutatingwebhookconfigurations",
        "MutatingWebhookConfiguration",
        False,
        categories=_EXTENSIONS,
        strategy=_GENERATION,
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
        strategy=_GENERATION,
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
        strategy=_GENERATION,
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
        strategy=_GENERATION,
        printer=VALIDATING_WEBHOOK_PRINTER,
        defaulter=validating_webhook_configuration_defaults,
    ),
)
