"""The bootstrap RBAC policy: the roles and bindings kube-apiserver writes at boot (docs/rbac.md).

kube-apiserver's ``rbac/bootstrap-roles`` post-start hook (kubernetes
``pkg/registry/rbac/rest/storage_rbac.go``, ``EnsureRBACPolicy``) creates the objects
``plugin/pkg/auth/authorizer/rbac/bootstrappolicy`` builds: the ClusterRoles of ``policy.go`` and
``controller_policy.go``, their ClusterRoleBindings, and the Roles and RoleBindings of
``namespace_policy.go`` in ``kube-system`` and ``kube-public``. Each carries the label
``kubernetes.io/bootstrapping: rbac-defaults`` and the annotation
``rbac.authorization.kubernetes.io/autoupdate: "true"``. It runs whatever the authorization mode,
since the RBAC API is served either way.

The objects are not retyped here: they are read from upstream's own dump of that policy,
``bootstrappolicy/testdata/*.yaml``, kept in ``bootstrap_rbac/`` one file per kind as upstream
has them, so a later release's files replace them as they are. Only what the Go objects hold is
kept of their metadata (name, namespace, labels, annotations): the dump's ``creationTimestamp:
null`` is the serializer's, not the object's. The aggregated ClusterRoles (``admin``, ``edit``,
``view``) are written with no rules, as the hook writes them; the clusterrole-aggregation
controller fills them in (``kinds/rbac.py``) once every object is written, as kube-controller-manager's
would after the hook.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import TYPE_CHECKING, Any

import orjson
import yaml

from fakeapi._state.kinds import builtin_type
from fakeapi._state.kinds.rbac import aggregation_after

if TYPE_CHECKING:
    from fakeapi._state.store import Store

__all__ = ["POLICY_FILES", "bootstrap_policy", "policy_objects"]

_GROUP = "rbac.authorization.k8s.io"
# In the order the hook writes them: roles before the bindings that name them, cluster-wide first.
POLICY_FILES = (
    ("ClusterRole", "cluster-roles.yaml"),
    ("ClusterRole", "controller-roles.yaml"),
    ("ClusterRoleBinding", "cluster-role-bindings.yaml"),
    ("ClusterRoleBinding", "controller-role-bindings.yaml"),
    ("Role", "namespace-roles.yaml"),
    ("RoleBinding", "namespace-role-bindings.yaml"),
)
_KEPT_METADATA = ("name", "namespace", "labels", "annotations")


def _as_created(item: dict[str, Any], kind: str) -> dict[str, Any]:
    metadata = item.get("metadata") or {}
    obj = {k: v for k, v in item.items() if k != "metadata"}
    obj["metadata"] = {k: metadata[k] for k in _KEPT_METADATA if k in metadata}
    # ``rules: null`` is how the dump spells the aggregated roles' empty rules.
    if obj.get("rules") is None:
        obj.pop("rules", None)
    if obj.get("kind") != kind or obj.get("apiVersion") != f"{_GROUP}/v1":
        raise ValueError(f"bootstrap policy: {obj.get('apiVersion')} {obj.get('kind')} where {kind} was expected")
    return obj


@functools.cache
def _load() -> bytes:
    """The policy as one JSON array: read and checked once, decoded into fresh objects on every boot."""
    objects: list[dict[str, Any]] = []
    for kind, file_name in POLICY_FILES:
        text = resources.files("fakeapi._state").joinpath("bootstrap_rbac", file_name).read_text(encoding="utf-8")
        objects.extend(_as_created(item, kind) for item in yaml.safe_load(text)["items"])
    return orjson.dumps(objects)


def policy_objects() -> list[dict[str, Any]]:
    """Every object of the policy, as the hook creates them, in the order it does (fresh copies)."""
    objects: list[dict[str, Any]] = orjson.loads(_load())
    return objects


def bootstrap_policy(store: Store, manager: str) -> None:
    """Create the policy in ``store``, written by ``manager`` (the apiserver's loopback client)."""
    with aggregation_after(store):
        for obj in policy_objects():
            rtype = builtin_type(_GROUP, "v1", obj["kind"])
            store.create(rtype, obj["metadata"].get("namespace", ""), obj, manager=manager)
