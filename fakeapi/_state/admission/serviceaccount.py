"""The ServiceAccount admission plugin on pod create: the pod's ServiceAccount, its token volume, or a 403.

Reproduced from kubernetes ``plugin/pkg/admission/serviceaccount/admission.go`` (``Admit`` and
``Validate``) as kube-apiserver 1.32 runs it by default (docs/bootstrap.md):

* a pod without ``spec.serviceAccountName`` gets ``default``;
* the ServiceAccount must exist, or the create is refused with 403 ``error looking up service
  account <namespace>/<name>: serviceaccount "<name>" not found``;
* unless ``automountServiceAccountToken`` is false on the pod (which wins) or on the
  ServiceAccount, every init container and container without a mount at
  ``/var/run/secrets/kubernetes.io/serviceaccount`` gets one of the ``kube-api-access-<random>``
  volume (``mountServiceAccountToken``), and the pod gets that projected volume (a bound token,
  ``kube-root-ca.crt``'s ``ca.crt`` and the namespace: ``TokenVolumeSource``) unless it already
  has a volume whose name starts with ``kube-api-access-``;
* a pod without ``imagePullSecrets`` takes those of its ServiceAccount;
* a mirror pod (annotation ``kubernetes.io/config.mirror``) is left as it is and refused if it
  names a ServiceAccount, references a secret or projects a ServiceAccount token.

The apiserver runs this after NamespaceLifecycle (a missing namespace is 404 first) and before
the registry's validation (a pod refused here is 403 even when it is also invalid).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.objects import metadata_of
from fakeapi.errors import APIError, GroupResource

if TYPE_CHECKING:
    from fakeapi._state.storeview import StoreView

__all__ = ["admit_pod"]

DEFAULT_SERVICE_ACCOUNT = "default"
TOKEN_VOLUME_PREFIX = "kube-api-access-"
TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
# ``serviceaccount.WarnOnlyBoundTokenExpirationSeconds``: an hour and seven seconds, so that the
# apiserver can tell a token the kubelet refreshed from one it left to expire.
_TOKEN_EXPIRATION_SECONDS = 3607
_PROJECTED_DEFAULT_MODE = 0o644
_PODS = GroupResource("", "pods")
_SERVICE_ACCOUNTS = GroupResource("", "serviceaccount")
_CONTAINER_LISTS = ("initContainers", "containers")


def admit_pod(store: StoreView, namespace: str, pod: dict[str, Any]) -> dict[str, Any]:
    """The pod as the plugin leaves it, or :class:`APIError` 403 when it refuses it."""
    meta = metadata_of(pod)
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return pod
    annotations = meta.get("annotations")
    if isinstance(annotations, dict) and MIRROR_POD_ANNOTATION in annotations:
        _validate_mirror_pod(pod, spec)
        return pod
    spec = dict(spec)
    account_name = str(spec.get("serviceAccountName") or spec.get("serviceAccount") or DEFAULT_SERVICE_ACCOUNT)
    spec["serviceAccountName"] = spec["serviceAccount"] = account_name
    accounts = store.registry.resolve("", "v1", "serviceaccounts")
    assert accounts is not None
    account = store.find(accounts, namespace, account_name)
    if account is None:
        not_found = f'{_SERVICE_ACCOUNTS.resource} "{account_name}" not found'
        raise _forbidden(pod, f"error looking up service account {namespace}/{account_name}: {not_found}")
    if _should_automount(account, spec):
        _mount_token(store, spec)
    if not spec.get("imagePullSecrets"):
        pulls = account.get("imagePullSecrets")
        if isinstance(pulls, list) and pulls:
            spec["imagePullSecrets"] = [{"name": p.get("name", "")} for p in pulls if isinstance(p, dict)]
    return {**pod, "spec": spec}


def _forbidden(pod: dict[str, Any], message: str) -> APIError:
    """``admission.NewForbidden``: named after the pod, or its generateName before one is generated."""
    meta = metadata_of(pod)
    name = meta.get("name") or meta.get("generateName") or "Unknown"
    return APIError.forbidden(_PODS, str(name), message)


def _should_automount(account: dict[str, Any], spec: dict[str, Any]) -> bool:
    """``shouldAutomount``: the pod's choice, then the ServiceAccount's, then yes."""
    for choice in (spec.get("automountServiceAccountToken"), account.get("automountServiceAccountToken")):
        if isinstance(choice, bool):
            return choice
    return True


def _mount_token(store: StoreView, spec: dict[str, Any]) -> None:
    volumes = [v for v in spec.get("volumes") or [] if isinstance(v, dict)]
    existing = next((str(v["name"]) for v in volumes if str(v.get("name", "")).startswith(TOKEN_VOLUME_PREFIX)), "")
    volume_name = existing or store.generate_name(TOKEN_VOLUME_PREFIX)
    mount = {"name": volume_name, "readOnly": True, "mountPath": TOKEN_MOUNT_PATH}
    needs_volume = False
    for key in _CONTAINER_LISTS:
        containers = spec.get(key)
        if not isinstance(containers, list):
            continue
        mounted: list[Any] = []
        for container in containers:
            if isinstance(container, dict):
                mounts = [m for m in container.get("volumeMounts") or [] if isinstance(m, dict)]
                if not any(m.get("mountPath") == TOKEN_MOUNT_PATH for m in mounts):
                    container = {**container, "volumeMounts": [*(container.get("volumeMounts") or []), mount]}
                    needs_volume = True
            mounted.append(container)
        spec[key] = mounted
    if needs_volume and not existing:
        spec["volumes"] = [*(spec.get("volumes") or []), _token_volume(volume_name)]


def _token_volume(name: str) -> dict[str, Any]:
    """``TokenVolumeSource``: a bound token, the cluster's CA and the pod's namespace."""
    return {
        "name": name,
        "projected": {
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": _TOKEN_EXPIRATION_SECONDS, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {
                    "downwardAPI": {
                        "items": [
                            {"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}
                        ]
                    }
                },
            ],
            "defaultMode": _PROJECTED_DEFAULT_MODE,
        },
    }


def _validate_mirror_pod(pod: dict[str, Any], spec: dict[str, Any]) -> None:
    """``Validate`` for a mirror pod: it may reference neither a ServiceAccount nor a secret."""
    if spec.get("serviceAccountName") or spec.get("serviceAccount"):
        raise _forbidden(pod, "a mirror pod may not reference service accounts")
    if _references_secret(spec):
        raise _forbidden(pod, "a mirror pod may not reference secrets")
    for volume in spec.get("volumes") or []:
        projected = volume.get("projected") if isinstance(volume, dict) else None
        sources = projected.get("sources") if isinstance(projected, dict) else None
        for source in sources if isinstance(sources, list) else []:
            if isinstance(source, dict) and source.get("serviceAccountToken") is not None:
                raise _forbidden(pod, "a mirror pod may not use ServiceAccountToken volume projections")


# ``podutil.VisitPodSecretNames``: the volume sources that can name a secret, in the order its switch
# tries them (a volume's first source present decides), with the field that names it. Presence is
# enough, as the visitor is called whatever the name, except for azureFile's ``secretName``.
_VOLUME_SECRET_FIELDS = (
    ("azureFile", "secretName"),
    ("cephfs", "secretRef"),
    ("cinder", "secretRef"),
    ("flexVolume", "secretRef"),
    ("projected", "sources"),
    ("rbd", "secretRef"),
    ("secret", ""),
    ("scaleIO", "secretRef"),
    ("iscsi", "secretRef"),
    ("storageos", "secretRef"),
    ("csi", "nodePublishSecretRef"),
)


def _references_secret(spec: dict[str, Any]) -> bool:
    if spec.get("imagePullSecrets"):
        return True
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container in spec.get(key) or []:
            if isinstance(container, dict) and _container_references_secret(container):
                return True
    return any(isinstance(volume, dict) and _volume_references_secret(volume) for volume in spec.get("volumes") or [])


def _container_references_secret(container: dict[str, Any]) -> bool:
    for source in container.get("envFrom") or []:
        if isinstance(source, dict) and source.get("secretRef") is not None:
            return True
    for variable in container.get("env") or []:
        value_from = variable.get("valueFrom") if isinstance(variable, dict) else None
        if isinstance(value_from, dict) and value_from.get("secretKeyRef") is not None:
            return True
    return False


def _volume_references_secret(volume: dict[str, Any]) -> bool:
    for source_name, field in _VOLUME_SECRET_FIELDS:
        source = volume.get(source_name)
        if source is None:
            continue
        if not isinstance(source, dict):
            return False
        if source_name == "secret":
            return True
        if source_name == "azureFile":
            return bool(source.get(field))
        if source_name == "projected":
            sources = source.get(field)
            return any(isinstance(s, dict) and s.get("secret") is not None for s in sources or [])
        return source.get(field) is not None
    return False
