"""The store's key order kept in step with every write: creates, updates and deletes in any mix.

After each write, a list across namespaces and a list of each namespace hold exactly the objects
stored, in etcd's key order (``<namespace>/<name>`` compared as strings), each at its latest version.
A list is read between writes, so the order built for it must follow the writes that come after.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fakeapi._state.objects import with_metadata
from fakeapi.server import FakeAPIServer

NAMESPACES = ("a", "a-b", "b", "default")
NAMES = ("x", "x-1", "y", "z0")
_writes = st.lists(
    st.tuples(st.sampled_from(("create", "update", "delete")), st.sampled_from(NAMESPACES), st.sampled_from(NAMES)),
    min_size=1,
    max_size=40,
)


def _config_map(namespace: str, name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace}}


@settings(max_examples=150, deadline=None)
@given(writes=_writes, list_every=st.integers(1, 4))
def test_lists_between_writes_follow_every_create_update_and_delete(
    writes: list[tuple[str, str, str]], list_every: int
) -> None:
    server = FakeAPIServer()
    store = server._state.store
    rtype = server.resource_type("v1", "ConfigMap")
    for namespace in NAMESPACES[:3]:
        server.load({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    # key -> resourceVersion, starting from each namespace's kube-root-ca.crt
    expected: dict[tuple[str, str], str] = {
        (item["metadata"]["namespace"], item["metadata"]["name"]): item["metadata"]["resourceVersion"]
        for item in store.items(rtype, None)
    }
    for step, (verb, namespace, name) in enumerate(writes):
        key = (namespace, name)
        if verb == "create" and key not in expected:
            stored = store.create(rtype, namespace, _config_map(namespace, name)).object
        elif verb == "update" and key in expected:

            def relabel(current: dict[str, Any], step: int = step) -> dict[str, Any]:
                return with_metadata(current, labels={"step": str(step)})

            stored = store.update(rtype, namespace, name, relabel, unconditional=True).object
        elif verb == "delete" and key in expected:
            store.delete(rtype, namespace, name)
            del expected[key]
            stored = None
        else:
            continue
        if stored is not None:
            expected[key] = stored["metadata"]["resourceVersion"]
        if step % list_every == 0:
            _check(store.items(rtype, None), expected, None)
            _check(store.items(rtype, namespace), expected, namespace)
    _check(store.items(rtype, None), expected, None)
    for namespace in NAMESPACES:
        _check(store.items(rtype, namespace), expected, namespace)


def _check(items: list[dict[str, Any]], expected: dict[tuple[str, str], str], namespace: str | None) -> None:
    wanted = sorted(
        ((f"{ns}/{name}", revision) for (ns, name), revision in expected.items() if namespace in (None, ns)),
    )
    seen = [
        (f"{item['metadata']['namespace']}/{item['metadata']['name']}", item["metadata"]["resourceVersion"])
        for item in items
    ]
    assert seen == wanted
