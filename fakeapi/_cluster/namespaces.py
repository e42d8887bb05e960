"""kube-controller-manager's namespace controller as a simulated controller: terminating namespaces
are emptied and finalized on the controller's own turn, not inside the write that deleted them.

Upstream the namespace controller is a separate process that learns of a deleted namespace from a
watch and empties it with requests of its own (``pkg/controller/namespace``), so a client sees the
namespace ``Terminating``, with its ``kubernetes`` finalizer, for a while, and its creates in it are
refused meanwhile (NamespaceLifecycle). With the ``namespace`` controller simulated, that window
exists here too: settling runs it like the other controllers, and stepped (scenarios) each of its
deletes, condition updates and ``/finalize`` writes is one step a client request can race. Without
it, the same pass runs inside the write that made it due (``controllers.finalize_namespace``).
docs/namespace-deletion.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fakeapi._state.controllers import finalize_namespace
from fakeapi._state.namespace_deleter import delete_namespace_content, terminating_namespaces

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext
    from fakeapi._state.store import Store

__all__ = ["hand_back_namespaces", "sync_namespaces"]


def sync_namespaces(simulation: ControllerContext) -> None:
    """One pass over every terminating namespace, in name order (upstream: a worker queue)."""
    for name in terminating_namespaces(simulation.store):
        delete_namespace_content(simulation.store, name)


def hand_back_namespaces(store: Store, *, simulated: bool) -> None:
    """Whether the simulated controller deletes namespaces from now on; when it stops, the inline
    controller takes over at once the namespaces it left terminating."""
    store.namespace_deletion_simulated = simulated
    if not simulated:
        for name in terminating_namespaces(store):
            finalize_namespace(store, name)
