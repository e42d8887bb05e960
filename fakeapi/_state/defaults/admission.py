"""Defaults of the admission configuration kinds: webhook configurations and ValidatingAdmissionPolicies.

Reproduced from kube-apiserver 1.32 ``pkg/apis/admissionregistration/v1/defaults.go``:
``SetDefaults_ValidatingWebhook`` and ``SetDefaults_MutatingWebhook`` (failure policy Fail, match
policy Equivalent, empty namespace and object selectors, a 10 second timeout, and for mutating
webhooks reinvocation Never), ``SetDefaults_Rule`` (scope ``*``), ``SetDefaults_ServiceReference``
(port 443), ``SetDefaults_ValidatingAdmissionPolicySpec`` (failure policy Fail),
``SetDefaults_MatchResources`` (match policy Equivalent, empty selectors) and
``SetDefaults_ParamRef`` (a missing parameter denies), applied where ``zz_generated.defaults.go``
applies them.
"""

from __future__ import annotations

from fakeapi._state.defaults.fields import Obj, default_if_absent, items, sub

__all__ = [
    "mutating_webhook_configuration_defaults",
    "validating_admission_policy_binding_defaults",
    "validating_admission_policy_defaults",
    "validating_webhook_configuration_defaults",
]


def _rules(parent: Obj, key: str) -> None:
    for rule in items(parent, key):
        default_if_absent(rule, "scope", "*")


def _webhook(webhook: Obj) -> None:
    default_if_absent(webhook, "failurePolicy", "Fail")
    default_if_absent(webhook, "matchPolicy", "Equivalent")
    sub(webhook, "namespaceSelector")
    sub(webhook, "objectSelector")
    default_if_absent(webhook, "timeoutSeconds", 10)
    _rules(webhook, "rules")
    client = webhook.get("clientConfig")
    if isinstance(client, dict) and isinstance(service := client.get("service"), dict):
        default_if_absent(service, "port", 443)


def validating_webhook_configuration_defaults(configuration: Obj, creating: bool | None) -> None:
    for webhook in items(configuration, "webhooks"):
        _webhook(webhook)


def mutating_webhook_configuration_defaults(configuration: Obj, creating: bool | None) -> None:
    for webhook in items(configuration, "webhooks"):
        _webhook(webhook)
        default_if_absent(webhook, "reinvocationPolicy", "Never")


def _match_resources(match: Obj) -> None:
    default_if_absent(match, "matchPolicy", "Equivalent")
    sub(match, "namespaceSelector")
    sub(match, "objectSelector")
    _rules(match, "resourceRules")
    _rules(match, "excludeResourceRules")


def validating_admission_policy_defaults(policy: Obj, creating: bool | None) -> None:
    if (spec := sub(policy, "spec")) is not None:
        default_if_absent(spec, "failurePolicy", "Fail")
        if isinstance(match := spec.get("matchConstraints"), dict):
            _match_resources(match)


def validating_admission_policy_binding_defaults(binding: Obj, creating: bool | None) -> None:
    if (spec := sub(binding, "spec")) is not None:
        if isinstance(match := spec.get("matchResources"), dict):
            _match_resources(match)
        if isinstance(param := spec.get("paramRef"), dict):
            default_if_absent(param, "parameterNotFoundAction", "Deny")
