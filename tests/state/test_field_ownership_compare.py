"""What a write added, changed and removed, as managedFields count it, whatever subtrees it shares.

``compare`` skips subtrees the old and new objects share by identity; whatever it skips, it must
find exactly what comparing deep copies finds, for built-in kinds (with map and set lists) and for
untyped objects. Random objects share some subtrees and copy others.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fakeapi._state.field_ownership.schema import DEDUCED, kind_atom
from fakeapi._state.field_ownership.typed import compare
from fakeapi._state.resources import ResourceType

_keys = st.sampled_from(["a", "b", "labels", "name"])
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from(["", "x", "y"]))
_values = st.recursive(
    _scalars,
    lambda children: st.one_of(st.lists(children, max_size=2), st.dictionaries(_keys, children, max_size=3)),
    max_leaves=10,
)
_containers = st.lists(
    st.fixed_dictionaries({"name": st.sampled_from(["a", "b", "c"])}, optional={"image": st.sampled_from(["x", "y"])}),
    max_size=3,
)
_pods = st.fixed_dictionaries(
    {
        "apiVersion": st.just("v1"),
        "kind": st.just("Pod"),
        "metadata": st.fixed_dictionaries(
            {}, optional={"finalizers": st.lists(st.sampled_from(["f/1", "f/2"]), max_size=2), "labels": _values}
        ),
    },
    optional={"spec": st.fixed_dictionaries({"containers": _containers}, optional={"nodeSelector": _values})},
)
_POD = ResourceType(group="", version="v1", plural="pods", singular="pod", kind="Pod", namespaced=True)


@st.composite
def _edited(draw: st.DrawFn, obj: dict[str, Any], parts: st.SearchStrategy[Any]) -> dict[str, Any]:
    """A new version of ``obj``: some top-level parts kept by identity, others copied or replaced."""
    new: dict[str, Any] = {}
    for key, value in obj.items():
        choice = draw(st.sampled_from(["share", "copy", "replace", "drop"]))
        if choice == "share" or key in ("apiVersion", "kind"):
            new[key] = value
        elif choice == "copy":
            new[key] = copy.deepcopy(value)
        elif choice == "replace":
            new[key] = draw(parts)
    return new


def _sets(old: Any, new: Any, atom: Any) -> tuple[set[Any], set[Any], set[Any]]:
    found = compare(old, new, atom)
    return found.added, found.modified, found.removed


@settings(max_examples=150, deadline=None)
@given(data=st.data(), old=_pods)
def test_a_pods_comparison_skips_shared_subtrees_and_misses_nothing(data: st.DataObject, old: dict[str, Any]) -> None:
    new = data.draw(_edited(old, _pods.map(lambda pod: pod.get("spec", {}))))
    atom = kind_atom(_POD)
    assert _sets(old, new, atom) == _sets(copy.deepcopy(old), copy.deepcopy(new), atom)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), old=st.dictionaries(_keys, _values, max_size=4))
def test_an_untyped_comparison_skips_shared_subtrees_and_misses_nothing(
    data: st.DataObject, old: dict[str, Any]
) -> None:
    new = data.draw(_edited(old, _values))
    assert _sets(old, new, DEDUCED) == _sets(copy.deepcopy(old), copy.deepcopy(new), DEDUCED)
