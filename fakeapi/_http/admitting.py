"""Writes through the admission chain, as the handlers and the generic store run it (docs/admission.md).

``create.go`` runs mutating admission, then ``Store.Create`` prepares and validates the object and
calls validating admission just before storage; ``update.go`` and ``patch.go`` run mutating
admission inside ``GuaranteedUpdate``'s update function, on the object computed from the stored one,
and validating admission after the registry's rules; ``delete.go`` runs mutating admission with no
object before anything is read, and validating admission on the stored object once the
preconditions hold. A webhook may take its time, and the store is not held meanwhile: the write is
planned from a stored version, admitted, and committed only if that version is still the stored
one, else computed again from the new one (etcd3's ``GuaranteedUpdate`` on a revision conflict).
A CRD version stored at another version is planned and admitted on the object converted to the
request's version, and committed by :mod:`.converted_writes`; a delete of a webhook-converted CRD
reads (converts) the object first (docs/conversion.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from aiohttp import web

from fakeapi._http.answers import served
from fakeapi._http.context import ServerState
from fakeapi._http.converted_writes import commit_converted_create, commit_converted_update
from fakeapi._http.converting import converted_for_answer, writes_convert
from fakeapi._http.identity import user_of
from fakeapi._http.keys import ADMISSION_WARNINGS, BODY_BYTES
from fakeapi._http.options import DeleteOptions
from fakeapi._http.requestinfo import RequestInfo
from fakeapi._http.slicing import in_slices
from fakeapi._state.admission import CREATE, DELETE, UPDATE, Attributes, RequestUser, operation_options
from fakeapi._state.admission.plugins import NAMESPACE_LIFECYCLE
from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType
from fakeapi._state.storeview import Committed
from fakeapi._state.strategy import strategy_of

__all__ = [
    "SubresourceView",
    "admission_warnings",
    "admit_delete",
    "admit_subresource_create",
    "admitted_create",
    "admitted_delete",
    "admitted_update",
    "delete_options_object",
]


def admission_warnings(request: web.BaseRequest) -> list[str]:
    warnings = request.get(ADMISSION_WARNINGS)
    if warnings is None:
        warnings = []
        request[ADMISSION_WARNINGS] = warnings
    return warnings


def request_user(request: web.BaseRequest) -> RequestUser:
    user = user_of(request)
    return RequestUser(
        user.username, user.uid, tuple(user.groups), {key: list(values) for key, values in user.extra.items()}
    )


def _options(request: web.BaseRequest, kind: str, dry_run: bool) -> dict[str, Any]:
    return operation_options(
        kind,
        dry_run=dry_run,
        field_manager=request.query.get("fieldManager"),
        field_validation=request.query.get("fieldValidation", ""),
    )


def _attributes(
    request: web.BaseRequest,
    rtype: ResourceType,
    info: RequestInfo,
    operation: str,
    obj: dict[str, Any] | None,
    old: dict[str, Any] | None,
    *,
    name: str,
    dry_run: bool,
    options: dict[str, Any],
) -> Attributes:
    namespace = info.namespace if rtype.namespaced else ""
    return Attributes(
        operation, rtype, info.subresource, namespace, name, obj, old, dry_run, options, request_user(request)
    )


async def admitted_create(
    request: web.BaseRequest,
    state: ServerState,
    rtype: ResourceType,
    info: RequestInfo,
    obj: dict[str, Any],
    *,
    dry_run: bool,
    manager: str,
    applied: dict[str, Any] | None = None,
) -> Committed:
    """A create: mutating admission, the registry's rules, validating admission, the commit."""
    warnings = admission_warnings(request)
    name = str(metadata_of(obj).get("name") or "")
    attributes = _attributes(
        request,
        rtype,
        info,
        CREATE,
        obj,
        None,
        name=name,
        dry_run=dry_run,
        options=_options(request, "CreateOptions", dry_run),
    )
    admitted = await state.admission.admit(attributes, warnings)
    assert admitted is not None
    namespace = attributes.namespace
    plan = await in_slices(
        request.get(BODY_BYTES, 0),
        state.store.plan_create,
        rtype,
        namespace,
        admitted,
        manager=manager,
        applied=applied,
        admitted=True,
        decoded=obj,
    )
    prepared = plan.object
    await state.admission.validate(
        replace(attributes, object=prepared, name=str(metadata_of(prepared).get("name"))), warnings
    )
    if writes_convert(rtype):
        return await commit_converted_create(state, plan, dry_run=dry_run)
    return state.store.commit_create(plan, dry_run=dry_run)


@dataclass(frozen=True)
class SubresourceView:
    """What admission sees of a write through a subresource of another kind (``/scale``: a Scale).

    ``kind`` is its group, version and kind; ``of`` makes it from the object; ``written`` is the
    object once the admitted view is written back into ``current``.
    """

    kind: tuple[str, str, str]
    of: Callable[[dict[str, Any]], dict[str, Any]]
    written: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]


async def admitted_update(
    request: web.BaseRequest,
    state: ServerState,
    rtype: ResourceType,
    info: RequestInfo,
    compute: Callable[[dict[str, Any]], dict[str, Any]],
    *,
    dry_run: bool,
    manager: str,
    unconditional: bool = False,
    track_fields: bool = True,
    view: SubresourceView | None = None,
) -> Committed:
    """An update or patch of the stored object, admitted inside a guaranteed update.

    With a ``view``, ``compute`` maps the current view to the new one, and admission sees views.
    """
    warnings = admission_warnings(request)
    namespace = info.namespace if rtype.namespaced else ""
    options = _options(request, "UpdateOptions", dry_run)
    converted = writes_convert(rtype)
    while True:
        current = state.store.get(rtype, namespace, info.name)
        # What the request's version sees of the stored object (itself unless converted).
        seen = await converted_for_answer(state, rtype, current) if converted else current
        old = served(rtype, seen) if view is None else view.of(seen)
        # A small patch of a large object works on all of it.
        size = request.get(BODY_BYTES, 0) + len(state.store.encoding_of(rtype, current))
        new = await in_slices(size, compute, seen if view is None else old)
        attributes = _attributes(
            request, rtype, info, UPDATE, new, old, name=info.name, dry_run=dry_run, options=options
        )
        if view is not None:
            attributes = replace(attributes, kind=view.kind)
        admitted = await state.admission.admit(attributes, warnings)
        assert admitted is not None
        if not state.store.is_stored(rtype, current):
            continue
        plan = await in_slices(
            size,
            state.store.plan_update,
            rtype,
            seen,
            admitted if view is None else view.written(seen, admitted),
            subresource=info.subresource,
            manager=manager,
            unconditional=unconditional,
            track_fields=track_fields,
        )
        if not state.store.is_stored(rtype, current):
            continue  # written while the plan paused: computed again, as after a webhook
        if state.admission.validates(attributes):
            shown = served(rtype, plan.new) if view is None else view.of(plan.new)
            await state.admission.validate(attributes.with_object(shown), warnings)
            if not state.store.is_stored(rtype, current):
                continue
        if converted:
            committed = await commit_converted_update(state, plan, current, dry_run=dry_run)
            if committed is None:
                continue
            return committed
        return state.store.commit_update(plan, dry_run=dry_run)


async def admit_subresource_create(
    request: web.BaseRequest,
    state: ServerState,
    rtype: ResourceType,
    info: RequestInfo,
    obj: dict[str, Any],
    kind: tuple[str, str, str],
    *,
    name: str,
    dry_run: bool = False,
) -> dict[str, Any]:
    """A create on a subresource (``pods/binding``, ``pods/eviction``, ``serviceaccounts/token``):
    mutating then validating admission of the body, before the subresource acts on it.
    NamespaceLifecycle, the first plugin, refuses it in a missing or terminating namespace."""
    if rtype.namespaced and NAMESPACE_LIFECYCLE in state.store.admission_plugins:
        parent = {"metadata": {"name": name, "namespace": info.namespace}}
        strategy_of(rtype).check_namespace(state.store, rtype, parent)
    warnings = admission_warnings(request)
    options = _options(request, "CreateOptions", dry_run)
    attributes = _attributes(request, rtype, info, CREATE, obj, None, name=name, dry_run=dry_run, options=options)
    attributes = replace(attributes, kind=kind)
    admitted = await state.admission.admit(attributes, warnings)
    assert admitted is not None
    await state.admission.validate(attributes.with_object(admitted), warnings)
    return admitted


def delete_options_object(options: DeleteOptions) -> dict[str, Any]:
    """The DeleteOptions as the handler passes them to admission (``meta.k8s.io/v1``, struct order)."""
    body: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"}
    if options.grace_period is not None:
        body["gracePeriodSeconds"] = options.grace_period
    if options.uid is not None or options.resource_version is not None:
        preconditions: dict[str, Any] = {}
        if options.uid is not None:
            preconditions["uid"] = options.uid
        if options.resource_version is not None:
            preconditions["resourceVersion"] = options.resource_version
        body["preconditions"] = preconditions
    if options.orphan_dependents is not None:
        body["orphanDependents"] = options.orphan_dependents
    if options.propagation is not None:
        body["propagationPolicy"] = options.propagation
    if options.dry_run:
        body["dryRun"] = ["All"]
    return body


async def admit_delete(
    request: web.BaseRequest,
    state: ServerState,
    rtype: ResourceType,
    info: RequestInfo,
    options: DeleteOptions,
    name: str,
) -> Attributes:
    """Mutating admission of a delete (no object: webhooks may refuse it, not change it)."""
    attributes = _attributes(
        request,
        rtype,
        info,
        DELETE,
        None,
        None,
        name=name,
        dry_run=options.dry_run,
        options=delete_options_object(options),
    )
    await state.admission.admit(attributes, admission_warnings(request))
    return attributes


async def admitted_delete(
    request: web.BaseRequest,
    state: ServerState,
    rtype: ResourceType,
    attributes: Attributes,
    name: str,
    delete: Callable[[dict[str, Any]], Committed],
    *,
    uid: str | None = None,
    resource_version: str | None = None,
    read: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None,
) -> Committed:
    """Validating admission of a delete on the stored object, then the delete (``delete(current)``).

    ``read`` decodes the stored object as the registry's read before a delete does (a conversion by
    webhook, docs/conversion.md): it runs before the preconditions, and admission sees its result.
    """
    namespace = attributes.namespace if rtype.namespaced else ""
    warnings = admission_warnings(request)
    while True:
        seen: dict[str, Any] | None = None
        if read is not None:
            stored = state.store.get(rtype, namespace, name)
            seen = await read(stored)
            if not state.store.is_stored(rtype, stored):
                continue
        current = state.store.check_delete_preconditions(
            rtype, namespace, name, uid=uid, resource_version=resource_version
        )
        old = served(rtype, seen if seen is not None else current)
        validated = replace(attributes, name=name, namespace=namespace, old_object=old)
        if state.admission.validates(validated):
            await state.admission.validate(validated, warnings)
            if not state.store.is_stored(rtype, current):
                continue
        return delete(current)
