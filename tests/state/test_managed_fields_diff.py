"""What a write touched, for managed fields: the leaf paths it set or changed, and those it removed.

The walk skips subtrees the old and new objects share; whatever it skips, it must find exactly what
comparing every leaf of both objects finds (a leaf is a scalar, a list, or an empty map, as
``fieldsV1`` counts them). Random objects share some subtrees and copy others.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fakeapi._state.managedfields import Path, _diff, _leaves, _same

_keys = st.sampled_from(["a", "b", "c", "labels", "name", "uid"])
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from(["", "x", "y"]))
_values = st.recursive(
    _scalars,
    lambda children: st.one_of(st.lists(children, max_size=2), st.dictionaries(_keys, children, max_size=3)),
    max_leaves=10,
)
_objects = st.fixed_dictionaries(
    {"apiVersion": st.just("v1"), "kind": st.just("Thing"), "metadata": st.dictionaries(_keys, _values, max_size=3)},
    optional={"spec": _values, "status": _values},
)


def _touched(old: dict[str, Any], new: dict[str, Any]) -> tuple[set[Path], set[Path]]:
    before: dict[Path, Any] = {}
    after: dict[Path, Any] = {}
    _leaves(old, (), before, root=True)
    _leaves(new, (), after, root=True)
    changed = {path for path, value in after.items() if path not in before or not _same(before[path], value)}
    return changed, set(before) - set(after)


@st.composite
def _edited(draw: st.DrawFn, obj: dict[str, Any]) -> dict[str, Any]:
    """A new version of ``obj``: some top-level parts kept by identity, others copied or replaced."""
    new: dict[str, Any] = {}
    for key, value in obj.items():
        # Every stored object keeps its metadata map: only its keys come and go.
        choices = ["share", "copy", "replace"] if key == "metadata" else ["share", "copy", "replace", "drop"]
        choice = draw(st.sampled_from(choices))
        if choice == "share" or key in ("apiVersion", "kind"):
            new[key] = value
        elif choice == "copy":
            new[key] = copy.deepcopy(value)
        elif choice == "replace":
            new[key] = draw(st.dictionaries(_keys, _values, max_size=3)) if key == "metadata" else draw(_values)
    if draw(st.booleans()):
        new["spec"] = draw(_values)
    return new


@settings(max_examples=500, deadline=None)
@given(data=st.data(), old=_objects)
def test_the_walk_finds_what_comparing_every_leaf_finds(data: st.DataObject, old: dict[str, Any]) -> None:
    new = data.draw(_edited(old))
    changed: set[Path] = set()
    removed: set[Path] = set()
    _diff(old, new, (), changed, removed, root=True)
    assert (changed, removed) == _touched(old, new)
