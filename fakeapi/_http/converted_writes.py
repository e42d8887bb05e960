"""The committing half of a write to a CRD version stored at another version: the planned object
converted to the storage version, stored only if unchanged meanwhile, converted back for the answer.

Upstream the storage converts inside ``GuaranteedUpdate`` and ``Create``
(``k8s.io/apiserver/pkg/storage/etcd3/store.go``): the current object is decoded into the request's
version, the update computed and admitted on it, the result encoded into the storage version and
written only if the stored revision is still the one read (else all again), then the written bytes
decoded back for the answer. Here :mod:`.admitting` plans and admits the write on the converted
object; these functions await the webhook calls of the encoding and the decoding without holding
the store, and commit only if the stored object is still the one the write was planned from. A dry
run converts only what it reads. docs/conversion.md, "Writes".
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fakeapi._http.context import ServerState
from fakeapi._http.converting import at_storage_version, converted_for_answer
from fakeapi._state.conversion import ConversionError
from fakeapi._state.store import CreatePlan, UpdatePlan
from fakeapi._state.storeview import Committed
from fakeapi.errors import APIError

__all__ = ["commit_converted_create", "commit_converted_update"]


async def _stored_form(state: ServerState, plan: CreatePlan | UpdatePlan, obj: dict[str, Any]) -> dict[str, Any]:
    try:
        return await at_storage_version(state, plan.rtype, obj)
    except ConversionError as error:
        raise APIError.internal(str(error)) from None


async def commit_converted_create(state: ServerState, plan: CreatePlan, *, dry_run: bool) -> Committed:
    """``Create``'s end: the prepared object (at the request's version) encoded (one webhook call),
    stored, and decoded for the answer (another)."""
    if dry_run:
        return state.store.commit_create(plan, dry_run=True)
    stored_form = await _stored_form(state, plan, plan.object)
    committed = state.store.commit_create(replace(plan, object=stored_form))
    answer = await converted_for_answer(state, plan.rtype, committed.object)
    return Committed(answer, changed=True, warnings=plan.warnings)


async def commit_converted_update(
    state: ServerState, plan: UpdatePlan, current: dict[str, Any], *, dry_run: bool
) -> Committed | None:
    """``GuaranteedUpdate``'s end for an update planned from ``current`` as the request's version sees
    it: encoded, written if ``current`` is still stored (else None: compute again), decoded. An update
    that changes nothing answers with what was seen; one that deletes the object deletes ``current``."""
    if dry_run or plan.unchanged:
        return state.store.commit_update(plan, dry_run=dry_run)
    stored_plan = replace(plan, current=current)
    if state.store.commit_update(stored_plan, dry_run=True).deleted:
        return state.store.commit_update(stored_plan)
    stored_form = await _stored_form(state, plan, plan.new)
    committed = state.store.commit_converted_update(plan, current, stored_form)
    if committed is None:
        return None
    answer = await converted_for_answer(state, plan.rtype, committed.object)
    return Committed(answer, changed=True, warnings=plan.warnings)
