"""One encoding per write: the no-op comparison's bytes and the stored object's bytes from one pass.

Whatever the object holds, the bytes must be exactly what encoding each object on its own gives;
otherwise a write that changed nothing would be stored, or an answer would differ from a GET.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fakeapi._patching.goencode import encode
from fakeapi._state.encodings import with_revision_slot
from fakeapi._state.objects import with_metadata, without_resource_version

_PLACEHOLDER = "\ue000fakeapi-resource-version\ue001"
_keys = st.sampled_from(
    ["annotations", "labels", "name", "namespace", "resourceVersion", "selfLink", "uid", "zzz", "a", _PLACEHOLDER]
)
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.text(max_size=8), st.just(_PLACEHOLDER)
)
_values = st.recursive(
    _scalars,
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(_keys, children, max_size=4)),
    max_leaves=12,
)


def _check(obj: dict[str, Any], revision: str, in_order: bool = False) -> None:
    slot = with_revision_slot(obj, in_order=in_order)
    assert slot.without_revision == encode(without_resource_version(obj), in_order=in_order)
    filled = slot.filled(revision)
    if filled is not None:
        assert filled == encode(with_metadata(obj, resourceVersion=revision), in_order=in_order)


@settings(max_examples=400, deadline=None)
@given(
    metadata=st.dictionaries(_keys, _values, max_size=6),
    rest=st.dictionaries(_keys, _values, max_size=4),
    revision=st.integers(1, 10**12).map(str),
    in_order=st.booleans(),
)
def test_both_encodings_are_those_of_each_object_alone(
    metadata: dict[str, Any], rest: dict[str, Any], revision: str, in_order: bool
) -> None:
    """Sorted (a custom resource) or in the dicts' own order (a built-in laid out as its Go struct)."""
    _check({**rest, "metadata": metadata}, revision, in_order)


def test_the_revision_goes_first_last_or_alone_among_the_metadata_keys() -> None:
    for metadata in ({}, {"uid": "u"}, {"name": "n"}, {"name": "n", "uid": "u"}, {"resourceVersion": "7"}):
        _check({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata}, "12")
        _check({"kind": "ConfigMap", "apiVersion": "v1", "metadata": metadata}, "12", in_order=True)


def test_an_object_that_holds_the_placeholder_is_encoded_the_plain_way() -> None:
    obj = {"kind": "X", "metadata": {"name": "n"}, "spec": {"text": _PLACEHOLDER}}
    slot = with_revision_slot(obj, in_order=False)
    assert slot.filled("5") is None
    assert slot.without_revision == encode(obj)


def test_a_resource_version_key_elsewhere_in_the_object_is_left_alone() -> None:
    obj = {
        "metadata": {"annotations": {"resourceVersion": "1"}, "name": "n"},
        "spec": {"ref": {"resourceVersion": "2"}},
    }
    _check(obj, "3")
    assert b'"resourceVersion":"3"' in (with_revision_slot(obj, in_order=False).filled("3") or b"")
