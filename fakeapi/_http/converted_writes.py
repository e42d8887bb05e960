"""Writes to a CRD whose conversion calls a webhook: computed at the request's version, stored at
the storage version, without holding the store while the webhook answers.

Upstream the storage converts inside ``GuaranteedUpdate`` and ``Create``
(``k8s.io/apiserver/pkg/storage/etcd3/store.go``): the current object is decoded into the request's
version, the update computed and admitted on it, the result encoded into the storage version and
written only if the stored revision is still the one read (else all again), then the written bytes
decoded back for the answer. Here the computing half is the store's own write run as a dry run on
the converted object, the webhook calls are awaited between the halves, and the persisting half
commits only if nothing was written meanwhile. A dry run converts only what it reads.
docs/conversion.md, "Writes".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi._http.context import ServerState
from fakeapi._http.converting import at_storage_version, converted_for_answer
from fakeapi._state.conversion import ConversionError
from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType
from fakeapi._state.storeview import Committed
from fakeapi.errors import APIError

__all__ = ["create_converted", "update_converted"]


async def _stored_form(state: ServerState, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    try:
        return await at_storage_version(state, rtype, obj)
    except ConversionError as error:
        raise APIError.internal(str(error)) from None


async def create_converted(
    state: ServerState,
    rtype: ResourceType,
    namespace: str,
    obj: dict[str, Any],
    *,
    dry_run: bool,
    manager: str,
    applied: dict[str, Any] | None = None,
) -> Committed:
    """``Create``: prepared and validated at the request's version, encoded (one webhook call),
    stored, decoded for the answer (another)."""
    prepared = state.store.create(
        rtype, namespace, {**obj, "apiVersion": rtype.api_version}, dry_run=True, manager=manager, applied=applied
    )
    if dry_run:
        return prepared
    stored_form = await _stored_form(state, rtype, prepared.object)
    committed = state.store.commit_converted_create(rtype, namespace, stored_form)
    answer = await converted_for_answer(state, rtype, committed.object)
    return Committed(answer, changed=True, warnings=prepared.warnings)


async def update_converted(
    state: ServerState,
    rtype: ResourceType,
    namespace: str,
    name: str,
    compute: Callable[[dict[str, Any]], dict[str, Any]],
    *,
    subresource: str = "",
    dry_run: bool = False,
    manager: str = "",
    unconditional: bool = False,
    track_fields: bool = True,
) -> Committed:
    """``GuaranteedUpdate``: read and decode, compute, encode, write if unchanged meanwhile, decode."""
    store = state.store
    while True:
        current = store.get(rtype, namespace, name)
        revision = metadata_of(current).get("resourceVersion")
        seen = await converted_for_answer(state, rtype, current)
        computed = store.update(
            rtype,
            namespace,
            name,
            compute,
            subresource=subresource,
            dry_run=True,
            manager=manager,
            unconditional=unconditional,
            track_fields=track_fields,
            seen=seen,
        )
        if computed.object is seen or dry_run:
            return computed
        if computed.deleted:
            latest = store.get(rtype, namespace, name)
            if metadata_of(latest).get("resourceVersion") != revision:
                continue
            store.delete_now(rtype, latest)
            return Committed(computed.object, changed=True, deleted=True, warnings=computed.warnings)
        stored_form = await _stored_form(state, rtype, computed.object)
        committed = store.commit_converted_update(rtype, namespace, name, str(revision), stored_form)
        if committed is None:
            continue
        answer = await converted_for_answer(state, rtype, committed.object)
        return Committed(answer, changed=True, warnings=computed.warnings)
