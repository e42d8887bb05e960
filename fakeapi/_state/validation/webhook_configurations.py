"""Webhook configurations as kube-apiserver 1.32 validates them on create and update.

``pkg/apis/admissionregistration/validation/validation.go``: ``validateValidatingWebhookConfiguration``
and ``validateMutatingWebhookConfiguration`` check, after the metadata, each webhook in turn
(``validateValidatingWebhook``, ``validateMutatingWebhook``: its name, its rules
(``validateRuleWithOperations``), failure policy, match policy, side effects, timeout, namespace and
object selectors, reinvocation policy for a mutating one, client config (:mod:`.webhook_client_config`),
match conditions (:mod:`.admissionregistration`)), then its ``admissionReviewVersions``, then whether
its name repeats an earlier one's. The errors come in that order, as the apiserver lists them.

An update is checked with the same rules, made lenient by what the stored object already holds
(``ValidateValidatingWebhookConfigurationUpdate``): side effects other than ``None`` and
``NoneOnDryRun`` are accepted when a stored webhook has them (or has none), review versions the server
does not know when a stored webhook names only such versions, repeated names when the stored names
repeat, label values that are not label values in selectors when a stored selector is invalid, and
the match conditions are not checked again when every webhook keeps its own.

The sets an error lists are Go's sorted ``sets.String`` lists (``"Fail", "Ignore"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from fakeapi._state.validation import field
from fakeapi._state.validation.admissionregistration import conditions_unchanged, validate_match_conditions
from fakeapi._state.validation.field import FieldError
from fakeapi._state.validation.names import is_dns1035_label, is_dns1123_subdomain
from fakeapi._state.validation.objectmeta import validate_label_selector
from fakeapi._state.validation.webhook_client_config import validate_webhook_service, validate_webhook_url

__all__ = ["validate_webhook_configuration"]

Obj = Mapping[str, Any]

FAILURE_POLICIES = ("Fail", "Ignore")
MATCH_POLICIES = ("Equivalent", "Exact")
SIDE_EFFECTS = ("None", "NoneOnDryRun", "Some", "Unknown")
NO_SIDE_EFFECTS = ("None", "NoneOnDryRun")
OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
REINVOCATION_POLICIES = ("IfNeeded", "Never")
SCOPES = ("*", "Cluster", "Namespaced")
REVIEW_VERSIONS = ("v1", "v1beta1")
_OPERATION_LIST = "[]admissionregistration.OperationType"


class Options(NamedTuple):
    """``validationOptions``: what a create requires, loosened on an update by the stored object."""

    check_match_conditions: bool = True
    require_no_side_effects: bool = True
    require_recognized_review_version: bool = True
    require_unique_names: bool = True
    allow_invalid_label_values: bool = False


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> list[str]:
    return [item for item in _list(value) if isinstance(item, str)]


def _fully_qualified_name(name: Any, path: str) -> list[FieldError]:
    """``IsFullyQualifiedName``: a DNS subdomain of at least three segments."""
    if not isinstance(name, str) or not name:
        return [field.required(path)]
    if problems := is_dns1123_subdomain(name):
        return [field.invalid(path, name, ",".join(problems))]
    if len(name.split(".")) < 3:
        return [field.invalid(path, name, "should be a domain with at least three segments separated by dots")]
    return []


def _resources(resources: list[str], path: str) -> list[FieldError]:
    """``validateResources``: subresource wildcards that overlap, ``*/*`` or ``*`` beside others."""
    errors: list[FieldError] = []
    if not resources:
        errors.append(field.required(path))
    wildcard_subresources: set[str] = set()
    wildcard_resources: set[str] = set()
    double_wildcard = single_wildcard = plain_resource = False
    for number, written in enumerate(resources):
        if not written:
            errors.append(field.required(field.index(path, number)))
            continue
        double_wildcard = double_wildcard or written == "*/*"
        single_wildcard = single_wildcard or written == "*"
        resource, slash, subresource = written.partition("/")
        if not slash:
            plain_resource = written != "*"
            continue
        if resource in wildcard_subresources:
            errors.append(
                field.invalid(
                    field.index(path, number), written, f"if '{resource}/*' is present, must not specify {written}"
                )
            )
        if subresource in wildcard_resources:
            errors.append(
                field.invalid(
                    field.index(path, number), written, f"if '*/{subresource}' is present, must not specify {written}"
                )
            )
        if subresource == "*":
            wildcard_subresources.add(resource)
        if resource == "*":
            wildcard_resources.add(subresource)
    if len(resources) > 1 and double_wildcard:
        errors.append(
            field.invalid(path, resources, "if '*/*' is present, must not specify other resources", "[]string")
        )
    if single_wildcard and plain_resource:
        errors.append(
            field.invalid(
                path, resources, "if '*' is present, must not specify other resources without subresources", "[]string"
            )
        )
    return errors


def _rule(rule: Obj, path: str) -> list[FieldError]:
    """``validateRuleWithOperations`` then ``validateRule`` with subresources allowed."""
    errors: list[FieldError] = []
    operations = _strings(rule.get("operations"))
    if not operations:
        errors.append(field.required(field.child(path, "operations")))
    if len(operations) > 1 and "*" in operations:
        errors.append(
            field.invalid(
                field.child(path, "operations"),
                operations,
                "if '*' is present, must not specify other operations",
                _OPERATION_LIST,
            )
        )
    for number, operation in enumerate(operations):
        if operation not in OPERATIONS:
            errors.append(
                field.not_supported(field.index(field.child(path, "operations"), number), operation, OPERATIONS)
            )
    groups = _strings(rule.get("apiGroups"))
    if not groups:
        errors.append(field.required(field.child(path, "apiGroups")))
    if len(groups) > 1 and "*" in groups:
        errors.append(
            field.invalid(
                field.child(path, "apiGroups"),
                groups,
                "if '*' is present, must not specify other API groups",
                "[]string",
            )
        )
    versions = _strings(rule.get("apiVersions"))
    if not versions:
        errors.append(field.required(field.child(path, "apiVersions")))
    if len(versions) > 1 and "*" in versions:
        errors.append(
            field.invalid(
                field.child(path, "apiVersions"),
                versions,
                "if '*' is present, must not specify other API versions",
                "[]string",
            )
        )
    for number, version in enumerate(versions):
        if not version:
            errors.append(field.required(field.index(field.child(path, "apiVersions"), number)))
    errors += _resources(_strings(rule.get("resources")), field.child(path, "resources"))
    scope = rule.get("scope")
    if isinstance(scope, str) and scope not in SCOPES:
        errors.append(field.not_supported(field.child(path, "scope"), scope, SCOPES))
    return errors


def _one_of(hook: Obj, name: str, supported: tuple[str, ...], path: str) -> list[FieldError]:
    value = hook.get(name)
    if isinstance(value, str) and value not in supported:
        return [field.not_supported(field.child(path, name), value, supported)]
    return []


def _client_config(config: Obj, path: str) -> list[FieldError]:
    url, service = config.get("url"), config.get("service")
    if (url is None) == (service is None):
        return [field.required(path, "exactly one of url or service is required")]
    if isinstance(url, str):
        return validate_webhook_url(url, field.child(path, "url"))
    return validate_webhook_service(_dict(service), field.child(path, "service"))


def _webhook(hook: Obj, mutating: bool, options: Options, path: str) -> list[FieldError]:
    """``validateValidatingWebhook`` / ``validateMutatingWebhook``."""
    errors = _fully_qualified_name(hook.get("name"), field.child(path, "name"))
    for number, rule in enumerate(_list(hook.get("rules"))):
        errors += _rule(_dict(rule), field.index(field.child(path, "rules"), number))
    errors += _one_of(hook, "failurePolicy", FAILURE_POLICIES, path)
    errors += _one_of(hook, "matchPolicy", MATCH_POLICIES, path)
    allowed = NO_SIDE_EFFECTS if options.require_no_side_effects else SIDE_EFFECTS
    side_effects = hook.get("sideEffects")
    if side_effects is None:
        errors.append(field.required(field.child(path, "sideEffects"), "must specify one of " + ", ".join(allowed)))
    else:
        errors += _one_of(hook, "sideEffects", allowed, path)
    timeout = hook.get("timeoutSeconds")
    if isinstance(timeout, int) and not 1 <= timeout <= 30:
        errors.append(
            field.invalid(
                field.child(path, "timeoutSeconds"), timeout, "the timeout value must be between 1 and 30 seconds"
            )
        )
    for selector in ("namespaceSelector", "objectSelector"):
        if isinstance(hook.get(selector), dict):
            errors += validate_label_selector(
                hook[selector],
                field.child(path, selector),
                allow_invalid_label_values=options.allow_invalid_label_values,
            )
    if mutating:
        errors += _one_of(hook, "reinvocationPolicy", REINVOCATION_POLICIES, path)
    errors += _client_config(_dict(hook.get("clientConfig")), field.child(path, "clientConfig"))
    if options.check_match_conditions:
        errors += validate_match_conditions(hook.get("matchConditions"), field.child(path, "matchConditions"))
    return errors


def _review_versions(versions: list[str], required: bool, path: str) -> list[FieldError]:
    """``validateAdmissionReviewVersions``."""
    if not versions:
        return [field.required(path, "must specify one of " + ", ".join(REVIEW_VERSIONS))]
    errors: list[FieldError] = []
    seen: set[str] = set()
    for number, version in enumerate(versions):
        if version in seen:
            errors.append(field.invalid(field.index(path, number), version, "duplicate version"))
            continue
        seen.add(version)
        errors.extend(
            field.invalid(field.index(path, number), version, problem) for problem in is_dns1035_label(version)
        )
    if required and not seen & set(REVIEW_VERSIONS):
        errors.append(
            field.invalid(path, versions, "must include at least one of " + ", ".join(REVIEW_VERSIONS), "[]string")
        )
    return errors


def _selector_is_invalid(hook: Obj) -> bool:
    return any(
        isinstance(hook.get(selector), dict) and validate_label_selector(hook[selector], "")
        for selector in ("namespaceSelector", "objectSelector")
    )


def _update_options(new: Obj, old: Obj) -> Options:
    """What ``Validate...WebhookConfigurationUpdate`` derives from the stored webhooks."""
    stored = [_dict(hook) for hook in _list(old.get("webhooks"))]
    names = [hook.get("name") or "" for hook in stored]
    return Options(
        check_match_conditions=not conditions_unchanged(new, old),
        require_no_side_effects=all(hook.get("sideEffects") in NO_SIDE_EFFECTS for hook in stored),
        require_recognized_review_version=all(
            not _strings(hook.get("admissionReviewVersions"))
            or any(version in REVIEW_VERSIONS for version in _strings(hook.get("admissionReviewVersions")))
            for hook in stored
        ),
        require_unique_names=len(set(names)) == len(names),
        allow_invalid_label_values=any(_selector_is_invalid(hook) for hook in stored),
    )


def validate_webhook_configuration(new: Obj, old: Obj | None, *, mutating: bool) -> list[FieldError]:
    """Every webhook of a configuration, after its metadata: the errors at ``webhooks[i]...``."""
    options = Options() if old is None else _update_options(new, old)
    errors: list[FieldError] = []
    names: set[str] = set()
    for number, hook in enumerate(_list(new.get("webhooks"))):
        hook = _dict(hook)
        path = field.index("webhooks", number)
        errors += _webhook(hook, mutating, options, path)
        errors += _review_versions(
            _strings(hook.get("admissionReviewVersions")),
            options.require_recognized_review_version,
            field.child(path, "admissionReviewVersions"),
        )
        name = hook.get("name")
        if options.require_unique_names and isinstance(name, str) and name:
            if name in names:
                errors.append(field.duplicate(field.child(path, "name"), name))
            names.add(name)
    return errors
