"""What kube-controller-manager puts into every namespace: the ``default`` ServiceAccount and ``kube-root-ca.crt``.

Two controllers watch namespaces (docs/bootstrap.md):

* the service account controller (``pkg/controller/serviceaccount/serviceaccounts_controller.go``,
  ``syncNamespace``) creates the ServiceAccount ``default`` in every active namespace, and again
  when it is deleted;
* the root CA publisher (``pkg/controller/certificates/rootcacertpublisher/publisher.go``,
  ``syncNamespace``) creates the ConfigMap ``kube-root-ca.crt`` holding the cluster's CA as
  ``ca.crt`` with its ``kubernetes.io/description`` annotation, again when it is deleted, and
  sets its data back when it is changed, adding the annotation if it went (an annotation given
  another value is left as it is).

A real cluster does this within a second of the namespace's creation; fakeapi does it inside the
write that creates the namespace (or deletes the object), as its other controllers do, so a
client sees the objects as soon as its request returns. Neither touches a namespace that is
terminating. ``Store.namespace_controllers`` turns both off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.storeview import StoreView

__all__ = [
    "DEFAULT_SERVICE_ACCOUNT",
    "ROOT_CA_CONFIGMAP",
    "ROOT_CA_DESCRIPTION",
    "populate_namespace",
    "restore_namespace_content",
]

CONTROLLER_MANAGER = "kube-controller-manager"
DEFAULT_SERVICE_ACCOUNT = "default"
ROOT_CA_CONFIGMAP = "kube-root-ca.crt"
_DESCRIPTION_ANNOTATION = "kubernetes.io/description"
ROOT_CA_DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as "
    "the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of "
    "Kubernetes clusters."
)


def _active(store: StoreView, namespace: str) -> bool:
    found = store.find(store.registry.namespaces, "", namespace)
    return found is not None and metadata_of(found).get("deletionTimestamp") is None


def _types(store: StoreView) -> tuple[ResourceType, ResourceType]:
    accounts = store.registry.resolve("", "v1", "serviceaccounts")
    configmaps = store.registry.resolve("", "v1", "configmaps")
    assert accounts is not None and configmaps is not None
    return accounts, configmaps


def populate_namespace(store: StoreView, namespace: str) -> None:
    """Both controllers' sync of one namespace: what is missing is created."""
    if not store.namespace_controllers or not _active(store, namespace):
        return
    accounts, configmaps = _types(store)
    if store.find(accounts, namespace, DEFAULT_SERVICE_ACCOUNT) is None:
        account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": DEFAULT_SERVICE_ACCOUNT}}
        store.create(accounts, namespace, _in(account, namespace), manager=CONTROLLER_MANAGER)
    current = store.find(configmaps, namespace, ROOT_CA_CONFIGMAP)
    if current is None:
        configmap = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": ROOT_CA_CONFIGMAP, "annotations": {_DESCRIPTION_ANNOTATION: ROOT_CA_DESCRIPTION}},
            "data": _root_ca_data(store),
        }
        store.create(configmaps, namespace, _in(configmap, namespace), manager=CONTROLLER_MANAGER)
    elif _needs_reset(store, current):
        store.update(configmaps, namespace, ROOT_CA_CONFIGMAP, _reset(store), manager=CONTROLLER_MANAGER)


def restore_namespace_content(store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
    """After a ServiceAccount or ConfigMap changed or went: put back what the controllers keep."""
    meta = metadata_of(obj)
    name = meta.get("name", "")
    if (rtype.kind, name) in (("ServiceAccount", DEFAULT_SERVICE_ACCOUNT), ("ConfigMap", ROOT_CA_CONFIGMAP)):
        populate_namespace(store, meta.get("namespace", ""))


def _in(obj: dict[str, Any], namespace: str) -> dict[str, Any]:
    return {**obj, "metadata": {**obj["metadata"], "namespace": namespace}}


def _root_ca_data(store: StoreView) -> dict[str, str]:
    return {"ca.crt": store.root_ca}


def _needs_reset(store: StoreView, configmap: dict[str, Any]) -> bool:
    annotations = metadata_of(configmap).get("annotations") or {}
    return configmap.get("data") != _root_ca_data(store) or not annotations.get(_DESCRIPTION_ANNOTATION)


def _reset(store: StoreView) -> Any:
    """The publisher's update: the data replaced, the annotation added only where it is absent."""

    def reset(current: dict[str, Any]) -> dict[str, Any]:
        meta = metadata_of(current)
        annotations = {_DESCRIPTION_ANNOTATION: ROOT_CA_DESCRIPTION, **(meta.get("annotations") or {})}
        return {**current, "metadata": {**meta, "annotations": annotations}, "data": _root_ca_data(store)}

    return reset
