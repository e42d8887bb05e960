"""Field ownership: ``metadata.managedFields`` and server-side apply, as structured-merge-diff keeps them.

The apiserver's field manager (k8s.io/apimachinery ``util/managedfields``, over
sigs.k8s.io/structured-merge-diff v4.4.2 in Kubernetes 1.32) tracks, per manager, the set of fields
it owns, walking objects with the kind's schema: ``listType=map`` lists per key
(``k:{"name":"app"}``), ``listType=set`` lists per value (``v:"x"``), atomic lists and maps whole.
Updates take what they change (:mod:`.updating`); applies merge and own what they apply
(:mod:`.applying`), and kubectl's last-applied annotation lets ``kubectl`` take over what
``kubectl apply`` owned (:mod:`.last_applied`). docs/server-side-apply.md says what is reproduced
and from where.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from fakeapi._state.field_ownership.applying import applied_fields, check_applied, merge_applied
from fakeapi._state.field_ownership.conflicts import conflict_error
from fakeapi._state.field_ownership.entries import Renaming
from fakeapi._state.field_ownership.fieldpath import encode_fields
from fakeapi._state.field_ownership.last_applied import with_last_applied
from fakeapi._state.field_ownership.schema import Atom, kind_atom
from fakeapi._state.field_ownership.typed import TypedError
from fakeapi._state.field_ownership.updating import track
from fakeapi._state.typed.structs import go_structs
from fakeapi._state.typed.zeros import zero

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType

__all__ = [
    "Atom",
    "Renaming",
    "TypedError",
    "applied_fields",
    "check_applied",
    "conflict_error",
    "empty_object",
    "encode_fields",
    "kind_atom",
    "merge_applied",
    "track",
    "with_last_applied",
]


def empty_object(rtype: ResourceType) -> dict[str, Any]:
    """What a create is compared with: the zero Go struct of a built-in kind, nothing for the rest."""
    if rtype.custom:
        return {}
    return _zero_of(rtype.api_version, rtype.kind)


@functools.cache
def _zero_of(api_version: str, kind: str) -> dict[str, Any]:
    structs = go_structs()
    struct = structs.kind_struct(api_version, kind)
    if struct is None:
        return {}
    value = zero(structs, struct)
    return value if isinstance(value, dict) else {}
