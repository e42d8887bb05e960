"""ControllerRevisions: the saved pod templates of StatefulSets and DaemonSets.

Both controllers keep their history as ControllerRevisions owned by the set, each holding the
strategic merge patch that restores the template (``getPatch`` in ``pkg/controller/statefulset/
stateful_set_utils.go`` and ``pkg/controller/daemon/update.go``): ``{"spec":{"template":{...,
"$patch":"replace"}}}``, built by ``json.Marshal`` of a decoded map, so every object's keys are
sorted, as :func:`fakeapi._patching.goencode.encode` writes them.

The StatefulSet's revision name is ``<set>-<hash>`` with the hash of ``pkg/controller/history/
controller_history.go`` ``HashControllerRevision``: FNV-1 (``fnv.New32``) over those patch bytes
and the collision count in decimal, printed in decimal and passed through apimachinery's
``rand.SafeEncodeString``. The DaemonSet's name uses ``controller.ComputeHash``, FNV-1a over
go-spew's dump of the Go ``PodTemplateSpec`` struct; that dump is not reproduced, so
:func:`daemon_set_hash` hashes the template's JSON the same way instead (a stand-in: same shape
and alphabet, different value).
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.controller_refs import owned_by
from fakeapi._patching.goencode import encode
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = [
    "CONTROLLER_REVISIONS",
    "daemon_set_hash",
    "owned_revisions",
    "revision_data",
    "safe_encode",
    "stateful_set_hash",
    "template_of",
]

CONTROLLER_REVISIONS = builtin_type("apps", "v1", "ControllerRevision")
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery/pkg/util/rand: no vowels, no bad words
_FNV_OFFSET, _FNV_PRIME = 0x811C9DC5, 0x01000193


def safe_encode(text: str) -> str:
    """``rand.SafeEncodeString``: each character mapped into the vowel-free alphabet."""
    return "".join(_ALPHANUMS[ord(character) % len(_ALPHANUMS)] for character in text)


def _fnv1(data: bytes) -> int:
    value = _FNV_OFFSET
    for byte in data:
        value = (value * _FNV_PRIME) & 0xFFFFFFFF
        value ^= byte
    return value


def _fnv1a(data: bytes) -> int:
    value = _FNV_OFFSET
    for byte in data:
        value ^= byte
        value = (value * _FNV_PRIME) & 0xFFFFFFFF
    return value


def revision_data(template: dict[str, Any]) -> dict[str, Any]:
    """The patch a revision stores, its keys sorted at every level as ``json.Marshal`` of a map writes them."""
    patch: dict[str, Any] = _sorted({"spec": {"template": {**template, "$patch": "replace"}}})
    return patch


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def template_of(revision: dict[str, Any]) -> dict[str, Any]:
    """The pod template a revision restores (``ApplyRevision`` of a template-only patch)."""
    template = dict((((revision.get("data") or {}).get("spec") or {}).get("template")) or {})
    template.pop("$patch", None)
    return template


def stateful_set_hash(data: dict[str, Any], collision_count: int) -> str:
    """``HashControllerRevision(revision, &collisionCount)``."""
    return safe_encode(str(_fnv1(encode(data) + str(collision_count).encode())))


def daemon_set_hash(template: dict[str, Any], collision_count: int | None) -> str:
    """``controller.ComputeHash``'s shape over the template's JSON (see the module docstring)."""
    data = encode(template)
    if collision_count is not None:
        data += struct.pack("<I", collision_count & 0xFFFFFFFF) + bytes(4)
    return safe_encode(str(_fnv1a(data)))


def owned_revisions(simulation: ControllerContext, owner: dict[str, Any]) -> list[dict[str, Any]]:
    """The owner's revisions, sorted as ``history.SortControllerRevisions`` sorts them."""
    namespace = metadata_of(owner).get("namespace", "")
    revisions = [r for r in simulation.store.items(CONTROLLER_REVISIONS, namespace) if owned_by(r, owner)]
    return sorted(
        revisions,
        key=lambda r: (
            int(r.get("revision") or 0),
            metadata_of(r).get("creationTimestamp") or "",
            metadata_of(r).get("name") or "",
        ),
    )
