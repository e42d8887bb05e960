"""A CRD's ``spec.conversion``, validated as ``validateCustomResourceConversion`` does.

``apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`` validates the internal
type, whose field names the errors carry (``webhookClientConfig``, ``conversionReviewVersions``),
with ``ValidateWebhookURL`` and ``ValidateWebhookService`` of ``k8s.io/apiserver/pkg/util/webhook``.
Also ``spec.conversion``'s v1 defaults (``SetDefaults_CustomResourceDefinitionSpec``): strategy
None, a Service's port 443. docs/conversion.md, "Validation".
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError
from fakeapi._state.validation.names import is_dns1035_label
from fakeapi._state.validation.webhook_client_config import validate_webhook_service, validate_webhook_url

__all__ = ["conversion_defaults", "validate_conversion"]

_REVIEW_VERSIONS = ("v1", "v1beta1")


def conversion_defaults(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with ``conversion`` defaulted; the input is not changed."""
    conversion = spec.get("conversion")
    if conversion is None:
        return {**spec, "conversion": {"strategy": "None"}}
    if not isinstance(conversion, dict):
        return spec
    webhook = conversion.get("webhook")
    client_config = webhook.get("clientConfig") if isinstance(webhook, dict) else None
    service = client_config.get("service") if isinstance(client_config, dict) else None
    if conversion.get("strategy") == "Webhook" and isinstance(service, dict) and service.get("port") is None:
        assert isinstance(webhook, dict) and isinstance(client_config, dict)
        client_config = {**client_config, "service": {**service, "port": 443}}
        return {**spec, "conversion": {**conversion, "webhook": {**webhook, "clientConfig": client_config}}}
    return spec


def _review_versions(path: str, versions: list[Any]) -> list[FieldError]:
    """``validateConversionReviewVersions`` with a recognized version required."""
    if not versions:
        return [field.required(path)]
    errors = []
    seen: set[str] = set()
    for position, version in enumerate(versions):
        text = str(version)
        if text in seen:
            errors.append(field.invalid(field.index(path, position), text, "duplicate version"))
            continue
        seen.add(text)
        errors.extend(field.invalid(field.index(path, position), text, problem) for problem in is_dns1035_label(text))
    if not any(str(version) in _REVIEW_VERSIONS for version in versions):
        errors.append(field.invalid(path, versions, "must include at least one of v1, v1beta1", "[]string"))
    return errors


def validate_conversion(spec: dict[str, Any]) -> list[FieldError]:
    """``spec.conversion``'s errors, in the apiserver's order."""
    conversion = spec.get("conversion")
    if not isinstance(conversion, dict):
        return []
    path = "spec.conversion"
    strategy = conversion.get("strategy") or ""
    errors: list[FieldError] = []
    if strategy != "None" and spec.get("preserveUnknownFields", False) is not False:
        errors.append(
            field.invalid(field.child(path, "strategy"), strategy, "must be None if spec.preserveUnknownFields is true")
        )
    if not strategy:
        errors.append(field.required(field.child(path, "strategy")))
    elif strategy not in ("None", "Webhook"):
        errors.append(field.not_supported(field.child(path, "strategy"), strategy, ("None", "Webhook")))
    webhook_value = conversion.get("webhook")
    webhook: dict[str, Any] = webhook_value if isinstance(webhook_value, dict) else {}
    client_config = webhook.get("clientConfig")
    review_versions = list(webhook.get("conversionReviewVersions") or [])
    config_path = field.child(path, "webhookClientConfig")
    if strategy == "Webhook":
        if not isinstance(client_config, dict):
            errors.append(field.required(config_path, "required when strategy is set to Webhook"))
        else:
            url, service = client_config.get("url"), client_config.get("service")
            if (url is None) == (service is None):
                errors.append(field.required(config_path, "exactly one of url or service is required"))
            elif url is not None:
                errors.extend(validate_webhook_url(str(url), field.child(config_path, "url")))
            elif isinstance(service, dict):
                errors.extend(validate_webhook_service(service, field.child(config_path, "service")))
        errors.extend(_review_versions(field.child(path, "conversionReviewVersions"), review_versions))
        return errors
    if client_config is not None:
        errors.append(field.forbidden(config_path, "should not be set when strategy is not set to Webhook"))
    if review_versions:
        errors.append(
            field.forbidden(
                field.child(path, "conversionReviewVersions"), "should not be set when strategy is not set to Webhook"
            )
        )
    return errors
