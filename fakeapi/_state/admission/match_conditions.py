"""A webhook's ``matchConditions``, evaluated as k8s.io/apiserver 1.32 does (docs/admission.md).

``webhook/matchconditions/matcher.go`` (``Match``): the conditions run in order on the object at the
version the webhook matched; the first one that is false skips the webhook, whatever errors came before
it. When none is false and some failed, ``failurePolicy: Fail`` (the default) refuses the write and
``Ignore`` skips the webhook. ``generic/webhook.go`` (``ShouldCallHook``) words the refusal
``apierrors.NewForbidden(<request resource>, <name>, <the errors aggregated>)``: 403,
``<resource> "<name>" is forbidden: <error>`` (``[e1, e2]`` for several).

The variables (``cel/condition.go``, ``CreateAdmissionRequest``): ``object`` and ``oldObject`` are the
objects (null when there is none), ``request`` the AdmissionRequest as the unstructured converter leaves
it: empty optional fields (``subResource``, ``name``, ``namespace``, ``userInfo``'s fields) are absent, so
reading one is ``no such key``; ``kind`` is the matched kind, ``resource`` the request's own resource;
``authorizer`` and ``authorizer.requestResource`` ask the server's authorizer (:mod:`.authorizer_binding`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fakeapi._state.admission.attributes import Attributes
from fakeapi._state.admission.authorizer_binding import Decide, authorizer_binding
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._state.admission.matching import Invocation

__all__ = ["match_conditions_hold"]


def _request(invocation: Invocation, attributes: Attributes) -> dict[str, Any]:
    """``CreateAdmissionRequest`` through ``ToUnstructured``: omitempty fields left out when empty."""
    kind_group, kind_version, kind = invocation.kind
    group, version, resource = attributes.group_version_resource
    request_group, request_version, request_kind = attributes.group_version_kind
    user: dict[str, Any] = {}
    if attributes.user.username:
        user["username"] = attributes.user.username
    if attributes.user.uid:
        user["uid"] = attributes.user.uid
    if attributes.user.groups:
        user["groups"] = list(attributes.user.groups)
    if attributes.user.extra:
        user["extra"] = {key: list(values) for key, values in attributes.user.extra.items()}
    request: dict[str, Any] = {
        "kind": {"group": kind_group, "version": kind_version, "kind": kind},
        "resource": {"group": group, "version": version, "resource": resource},
        "requestKind": {"group": request_group, "version": request_version, "kind": request_kind},
        "requestResource": {"group": group, "version": version, "resource": resource},
        "operation": attributes.operation,
        "userInfo": user,
        "dryRun": attributes.dry_run,
    }
    if attributes.subresource:
        request["subResource"] = attributes.subresource
        request["requestSubResource"] = attributes.subresource
    if attributes.name:
        request["name"] = attributes.name
    if attributes.namespace:
        request["namespace"] = attributes.namespace
    if attributes.options is not None:
        request["options"] = attributes.options
    return request


def _aggregate(errors: list[str]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: one message, or ``[m1, m2]`` without repeats."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def match_conditions_hold(
    webhook: Mapping[str, Any], invocation: Invocation, attributes: Attributes, decide: Decide
) -> bool:
    """Whether the webhook is called; raises the 403 when a condition failed under ``failurePolicy: Fail``.
    ``decide`` answers the conditions' authorization checks."""
    # Imported here: a server whose webhooks have no conditions never loads the CEL runtime.
    from fakeapi._cel.admission_conditions import compile_condition, evaluate_condition

    variables = {
        "object": invocation.versioned(attributes.object, attributes),
        "oldObject": invocation.versioned(attributes.old_object, attributes),
        "request": _request(invocation, attributes),
        "namespaceObject": None,
    }
    authorizer = authorizer_binding(decide, attributes)
    variables.update(authorizer.variables)
    errors: list[str] = []
    for condition in webhook.get("matchConditions") or []:
        expression = condition.get("expression") if isinstance(condition, dict) else None
        compiled = compile_condition(expression if isinstance(expression, str) else "")
        outcome = evaluate_condition(compiled, variables, authorizer.functions)
        if outcome is False:
            return False
        if isinstance(outcome, str):
            errors.append(outcome)
    if not errors:
        return True
    if webhook.get("failurePolicy") == "Ignore":
        return False
    raise APIError.forbidden(attributes.rtype.group_resource, attributes.name, _aggregate(errors))
