"""A CRD's ``spec.conversion``, validated as ``validateCustomResourceConversion`` does.

``apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`` validates the internal
type, whose field names the errors carry (``webhookClientConfig``, ``conversionReviewVersions``),
with ``ValidateWebhookURL`` and ``ValidateWebhookService`` of ``k8s.io/apiserver/pkg/util/webhook``.
Also ``spec.conversion``'s v1 defaults (``SetDefaults_CustomResourceDefinitionSpec``): strategy
None, a Service's port 443. docs/conversion.md, "Validation".
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError
from fakeapi._state.validation.names import is_dns1035_label, is_dns1123_subdomain

__all__ = ["conversion_defaults", "validate_conversion"]

_FORM = "; desired format: https://host[/path]"
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


def _webhook_url(path: str, url: str) -> list[FieldError]:
    """``ValidateWebhookURL`` with https forced."""
    parts = urlsplit(url)
    errors = []
    if parts.scheme.lower() != "https":
        errors.append(field.invalid(path, parts.scheme.lower(), "'https' is the only allowed URL scheme" + _FORM))
    if not parts.netloc.rpartition("@")[2]:
        errors.append(field.invalid(path, "", "host must be specified" + _FORM))
    if "@" in parts.netloc:
        errors.append(
            field.invalid(path, parts.netloc.rpartition("@")[0], "user information is not permitted in the URL")
        )
    if parts.fragment:
        errors.append(field.invalid(path, parts.fragment, "fragments are not permitted in the URL"))
    if parts.query:
        errors.append(field.invalid(path, parts.query, "query parameters are not permitted in the URL"))
    return errors


def _webhook_service(path: str, service: dict[str, Any]) -> list[FieldError]:
    """``ValidateWebhookService``."""
    errors = []
    if not service.get("name"):
        errors.append(field.required(field.child(path, "name"), "service name is required"))
    if not service.get("namespace"):
        errors.append(field.required(field.child(path, "namespace"), "service namespace is required"))
    port = service.get("port")
    if isinstance(port, int) and not 1 <= port <= 65535:
        errors.append(
            field.invalid(field.child(path, "port"), port, "port is not valid: must be between 1 and 65535, inclusive")
        )
    url_path = service.get("path")
    if not isinstance(url_path, str) or url_path in ("", "/"):
        return errors
    path_field = field.child(path, "path")
    if url_path == "//":
        return [*errors, field.invalid(path_field, url_path, "segment[0] may not be empty")]
    if not url_path.startswith("/"):
        errors.append(field.invalid(path_field, url_path, "must start with a '/'"))
    checked = url_path[1:]
    if checked.endswith("/"):
        checked = checked[:-1]
    for position, step in enumerate(checked.split("/")):
        if not step:
            errors.append(field.invalid(path_field, url_path, f"segment[{position}] may not be empty"))
            continue
        errors.extend(
            field.invalid(path_field, url_path, f"segment[{position}]: {problem}")
            for problem in is_dns1123_subdomain(step)
        )
    return errors


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
                errors.extend(_webhook_url(field.child(config_path, "url"), str(url)))
            elif isinstance(service, dict):
                errors.extend(_webhook_service(field.child(config_path, "service"), service))
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
