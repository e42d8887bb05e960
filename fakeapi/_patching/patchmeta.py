"""Strategic merge patch metadata of the built-in kinds fakeapi serves, as data.

The apiserver finds a field's merge strategy and merge key in the ``patchStrategy`` and
``patchMergeKey`` struct tags of the versioned Go type (k8s.io/apimachinery
``strategicpatch.PatchMetaFromStruct`` over ``third_party/forked/golang/json`` ``LookupPatchMetadataForStruct``).
This module writes those tags down for Namespace, ConfigMap, Secret, Service, ServiceAccount, Pod,
Event (core/v1 and events.k8s.io/v1), Lease, Deployment and Job and the types they embed; each
kind's descriptor (``fakeapi._state.kinds``) names its top-level struct. The tags
were checked against the struct tags compiled into kubectl v1.32.4 and the k8s.io/api sources
(core/v1, apps/v1, batch/v1, meta/v1 ``types.go``).

Only the fields that carry a tag, and the path down to them, are described. Any other field is
plain, as an untagged Go field is: an object merges key by key and a list is replaced whole. Unlike
the Go lookup, a field the Go type lacks is not an error here (the apiserver answers it with 500
``unable to find api field in struct ...``, which needs a stored object with an unknown field).

``retainKeys`` is recorded for completeness: the server honours a ``$retainKeys`` directive in any
map of the patch, whatever the tags say; only clients (``kubectl apply``) read the tag.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["PLAIN", "FieldMeta", "PatchMeta", "patch_meta"]

MERGE = "merge"
REPLACE = "replace"
RETAIN_KEYS = "retainKeys"


@dataclass(frozen=True)
class FieldMeta:
    """One struct field's tags: ``patchStrategy`` split at commas, ``patchMergeKey``, and where to go next.

    ``schema`` names the struct of the field's value, or of its list items, when something below it
    is described. ``item_kind`` is the Go ``reflect.Kind`` of list items, which the error
    ``cannot merge lists without merge key for <kind>`` names.
    """

    strategies: tuple[str, ...] = ()
    merge_key: str = ""
    schema: str = ""
    item_kind: str = "struct"

    @property
    def strategy(self) -> str:
        """``merge``, ``replace`` or ``""``: the strategy besides ``retainKeys``."""
        others = [s for s in self.strategies if s != RETAIN_KEYS]
        return others[0] if others else ""

    @property
    def retain_keys(self) -> bool:
        return RETAIN_KEYS in self.strategies


_PLAIN_FIELD = FieldMeta()


def _merge(key: str = "", schema: str = "", item_kind: str = "struct") -> FieldMeta:
    return FieldMeta((MERGE,), key, schema, item_kind)


def _merge_retain(key: str, schema: str = "") -> FieldMeta:
    return FieldMeta((MERGE, RETAIN_KEYS), key, schema)


def _to(schema: str) -> FieldMeta:
    return FieldMeta(schema=schema)


def _atomic(item_kind: str = "struct") -> FieldMeta:
    return FieldMeta(item_kind=item_kind)


_CONDITIONS = _merge("type")

_STRUCTS: dict[str, dict[str, FieldMeta]] = {
    # k8s.io/apimachinery/pkg/apis/meta/v1
    "ObjectMeta": {
        "finalizers": _merge(item_kind="string"),
        "ownerReferences": _merge("uid"),
        "managedFields": _atomic(),
    },
    "LabelSelector": {"matchExpressions": _atomic()},
    # k8s.io/api/core/v1
    "Namespace": {"metadata": _to("ObjectMeta"), "spec": _to("NamespaceSpec"), "status": _to("NamespaceStatus")},
    "NamespaceSpec": {"finalizers": _atomic("string")},
    "NamespaceStatus": {"conditions": _CONDITIONS},
    "ConfigMap": {"metadata": _to("ObjectMeta")},
    "Secret": {"metadata": _to("ObjectMeta")},
    "Service": {"metadata": _to("ObjectMeta"), "spec": _to("ServiceSpec"), "status": _to("ServiceStatus")},
    "ServiceSpec": {
        "ports": _merge("port"),
        "clusterIPs": _atomic("string"),
        "externalIPs": _atomic("string"),
        "ipFamilies": _atomic("string"),
        "loadBalancerSourceRanges": _atomic("string"),
    },
    "ServiceStatus": {"conditions": _CONDITIONS, "loadBalancer": _to("LoadBalancerStatus")},
    "LoadBalancerStatus": {"ingress": _atomic()},
    "ServiceAccount": {
        "metadata": _to("ObjectMeta"),
        "secrets": _merge("name"),
        "imagePullSecrets": _atomic(),
    },
    "Pod": {"metadata": _to("ObjectMeta"), "spec": _to("PodSpec"), "status": _to("PodStatus")},
    "PodTemplateSpec": {"metadata": _to("ObjectMeta"), "spec": _to("PodSpec")},
    "PodSpec": {
        "volumes": _merge_retain("name", "Volume"),
        "initContainers": _merge("name", "Container"),
        "containers": _merge("name", "Container"),
        "ephemeralContainers": _merge("name", "Container"),
        "imagePullSecrets": _merge("name"),
        "hostAliases": _merge("ip"),
        "topologySpreadConstraints": _merge("topologyKey"),
        "schedulingGates": _merge("name"),
        "resourceClaims": _merge_retain("name"),
        "tolerations": _atomic(),
        "readinessGates": _atomic(),
        "securityContext": _to("PodSecurityContext"),
        "dnsConfig": _to("PodDNSConfig"),
    },
    "PodSecurityContext": {"supplementalGroups": _atomic("int64"), "sysctls": _atomic()},
    "PodDNSConfig": {"nameservers": _atomic("string"), "searches": _atomic("string"), "options": _atomic()},
    # EphemeralContainer inlines EphemeralContainerCommon, whose tags are Container's.
    "Container": {
        "ports": _merge("containerPort"),
        "env": _merge("name"),
        "volumeMounts": _merge("mountPath"),
        "volumeDevices": _merge("devicePath"),
        "command": _atomic("string"),
        "args": _atomic("string"),
        "envFrom": _atomic(),
        "resizePolicy": _atomic(),
    },
    "Volume": {},
    "PodStatus": {
        "conditions": _CONDITIONS,
        "podIPs": _merge("ip"),
        "hostIPs": _merge("ip"),
        "resourceClaimStatuses": _merge_retain("name"),
        "initContainerStatuses": _atomic(),
        "containerStatuses": _atomic(),
        "ephemeralContainerStatuses": _atomic(),
    },
    "Event": {"metadata": _to("ObjectMeta")},
    # k8s.io/api/events/v1, coordination/v1
    "EventsV1Event": {"metadata": _to("ObjectMeta")},
    "Lease": {"metadata": _to("ObjectMeta")},
    # k8s.io/api/apps/v1
    "Deployment": {"metadata": _to("ObjectMeta"), "spec": _to("DeploymentSpec"), "status": _to("DeploymentStatus")},
    "DeploymentSpec": {
        "selector": _to("LabelSelector"),
        "template": _to("PodTemplateSpec"),
        "strategy": FieldMeta((RETAIN_KEYS,)),
    },
    "DeploymentStatus": {"conditions": _CONDITIONS},
    # k8s.io/api/batch/v1
    "Job": {"metadata": _to("ObjectMeta"), "spec": _to("JobSpec"), "status": _to("JobStatus")},
    "JobSpec": {"selector": _to("LabelSelector"), "template": _to("PodTemplateSpec")},
    "JobStatus": {"conditions": _CONDITIONS},
}

_FOLD_TO_ASCII = str.maketrans({"\u212a": "k", "\u017f": "s"})


def _fold(name: str) -> str:
    """The key ``bytes.EqualFold`` compares: ASCII case, the Kelvin sign as k, the long s as s."""
    return "".join(ch.lower() if ch.isascii() else ch for ch in name.translate(_FOLD_TO_ASCII))


@dataclass(frozen=True, eq=False)
class PatchMeta:
    """The patch metadata of one struct type: what ``LookupPatchMeta`` answers for its fields."""

    name: str
    fields: Mapping[str, FieldMeta]

    def field(self, key: str) -> FieldMeta:
        """The tags of the field a JSON key names; the JSON library's rule: exact name first, then case-folded."""
        exact = self.fields.get(key)
        if exact is not None:
            return exact
        folded = _fold(key)
        for name, meta in self.fields.items():
            if len(name) == len(key) and _fold(name) == folded:
                return meta
        return _PLAIN_FIELD

    def child(self, key: str) -> PatchMeta:
        """The metadata of the field's value (an object) or of its items (a list)."""
        schema = self.field(key).schema
        return _schema(schema) if schema else PLAIN

    def lookup(self, path: str | Sequence[str]) -> FieldMeta:
        """The tags of the field at a dotted path; list items are stepped through, as in ``spec.containers.env``."""
        keys = path.split(".") if isinstance(path, str) else list(path)
        meta: PatchMeta = self
        for key in keys[:-1]:
            meta = meta.child(key)
        return meta.field(keys[-1]) if keys else _PLAIN_FIELD


PLAIN = PatchMeta("", {})
"""A type with no tagged field anywhere below it."""


def _schema(name: str) -> PatchMeta:
    return PatchMeta(name, _STRUCTS[name])


def patch_meta(struct: str) -> PatchMeta:
    """The metadata of a built-in kind's top-level struct (its descriptor names it); ``KeyError`` if unknown."""
    try:
        return _schema(struct)
    except KeyError:
        raise KeyError(f"no strategic merge patch metadata for {struct}") from None
