"""The core group (``""/v1``): ``pkg/registry/core/<kind>``.

Namespaces finalize through ``spec.finalizers``, which the namespace controller clears
(``namespace/strategy.go``, ``storage.go``); Services get a cluster IP and node ports on create
(``service/storage/alloc.go``). Pods, ConfigMaps, Secrets, Services, ServiceAccounts and Namespaces are
validated as ``pkg/apis/core/validation`` does (:mod:`fakeapi._state.validation.core`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state import controllers, defaults, namespace_content
from fakeapi._state.admission.plugins import (
    CLAIM_RESIZE,
    DEFAULT_STORAGE_CLASS,
    PRIORITY,
    SERVICE_ACCOUNT,
    STORAGE_PROTECTION,
)
from fakeapi._state.admission.priority import admit_pod_priority
from fakeapi._state.admission.serviceaccount import admit_pod
from fakeapi._state.admission.storage import add_protection_finalizer, check_claim_resize, default_claim_class
from fakeapi._state.defaults.allocation import keep_allocated_values
from fakeapi._state.defaults.cluster import (
    limit_range_defaults,
    node_defaults,
    pod_template_defaults,
    replication_controller_defaults,
)
from fakeapi._state.defaults.core import core_event_defaults, namespace_defaults, secret_defaults, service_defaults
from fakeapi._state.defaults.networking import endpoints_defaults
from fakeapi._state.defaults.pods import pod_defaults
from fakeapi._state.defaults.storage import persistent_volume_claim_defaults, persistent_volume_defaults
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.kinds.events import EVENT_STRATEGY
from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.strategy import GenerationStrategy, Strategy
from fakeapi._state.tables.access import RESOURCE_QUOTA_PRINTER
from fakeapi._state.tables.cluster import (
    COMPONENT_STATUS_PRINTER,
    NODE_PRINTER,
    PERSISTENT_VOLUME_CLAIM_PRINTER,
    PERSISTENT_VOLUME_PRINTER,
)
from fakeapi._state.tables.core import (
    CONFIGMAP_PRINTER,
    NAMESPACE_PRINTER,
    SECRET_PRINTER,
    SERVICE_PRINTER,
    SERVICEACCOUNT_PRINTER,
)
from fakeapi._state.tables.events import EVENT_PRINTER
from fakeapi._state.tables.networking import ENDPOINTS_PRINTER
from fakeapi._state.tables.pods import POD_PRINTER
from fakeapi._state.tables.workloads import POD_TEMPLATE_PRINTER, REPLICATION_CONTROLLER_PRINTER
from fakeapi._state.validation import core as validation
from fakeapi._state.validation import field, services
from fakeapi._state.validation.field import FieldError
from fakeapi._state.validation.names import name_is_dns1035_label, name_is_dns_label
from fakeapi._state.validation.pods import validate_pod, validate_pod_update
from fakeapi._state.validation.rules import KindRules
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._state.storeview import StoreView

__all__ = ["TYPES"]

_STATUS = Subresource("status")
_PROXY = Subresource("proxy", ("create", "delete", "get", "patch", "update"))
_SCALE = Subresource("scale", kind="Scale", group="autoscaling", version="v1")
_POD_SUBRESOURCES = (
    Subresource("attach", ("create", "get"), kind="PodAttachOptions"),
    Subresource(
        "binding",
        ("create",),
        kind="Binding",
        writes=(("spec", "nodeName"), ("metadata", "annotations"), ("status", "conditions")),
    ),
    Subresource("ephemeralcontainers", writes=(("spec", "ephemeralContainers"),)),
    Subresource("eviction", ("create",), kind="Eviction", group="policy", version="v1"),
    Subresource("exec", ("create", "get"), kind="PodExecOptions"),
    Subresource("log", ("get",)),
    Subresource("portforward", ("create", "get"), kind="PodPortForwardOptions"),
    Subresource("proxy", ("create", "delete", "get", "patch", "update"), kind="PodProxyOptions"),
    _STATUS,
)


def _allocated(store: StoreView, rtype: ResourceType, skip: str | None = None) -> tuple[set[str], set[int]]:
    """The cluster IPs and node ports the stored Services hold (but the one whose uid is ``skip``)."""
    used_ips: set[str] = set()
    used_ports: set[int] = set()
    for service in store.bucket(rtype).values():
        if skip is not None and metadata_of(service).get("uid") == skip:
            continue
        spec = service.get("spec") or {}
        used_ips.update(ip for ip in spec.get("clusterIPs") or [spec.get("clusterIP")] if isinstance(ip, str))
        used_ports.update(p.get("nodePort") for p in spec.get("ports") or [] if isinstance(p.get("nodePort"), int))
        if isinstance(spec.get("healthCheckNodePort"), int):
            used_ports.add(spec["healthCheckNodePort"])
    return used_ips, used_ports


class ServiceStrategy(Strategy):
    """The Service registry (``pkg/registry/core/service/storage``): before validation, ``beginCreate``
    checks the IP family fields and allocates a cluster IP and node ports, refusing taken or
    out-of-range ones (:mod:`fakeapi._state.validation.services`); ``beginUpdate`` keeps what was
    allocated and the client left out, and refuses taken node ports."""

    def prepare_for_create(self, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        self._raise_errors(rtype, obj, services.family_errors(obj))
        return super().prepare_for_create(rtype, obj)

    def allocate(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        used_ips, used_ports = _allocated(store, rtype)
        self._raise_errors(rtype, obj, services.allocation_errors(obj, used_ips, used_ports))
        return defaults.allocate_node_ports(defaults.allocate_cluster_ip(obj, used_ips), used_ports)

    def before_update(
        self, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], subresource: str
    ) -> dict[str, Any]:
        new = super().before_update(rtype, new, old, subresource)
        return keep_allocated_values(new, old) if subresource == "" else new

    def validate_update(
        self, store: StoreView, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], subresource: str
    ) -> None:
        if subresource == "":
            _, used_ports = _allocated(store, rtype, skip=metadata_of(old).get("uid"))
            self._raise_errors(rtype, new, services.node_port_update_errors(new, old, used_ports))
        super().validate_update(store, rtype, new, old, subresource)

    def _raise_errors(self, rtype: ResourceType, obj: dict[str, Any], errors: list[FieldError]) -> None:
        if errors:
            raise APIError.invalid(rtype.group_kind, metadata_of(obj).get("name", ""), field.causes(errors))


class NamespaceStrategy(Strategy):
    """Namespaces finalize through ``spec.finalizers``, which the namespace controller clears; a new
    one gets what kube-controller-manager puts into every namespace (:mod:`..namespace_content`)."""

    def after_create(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        namespace_content.populate_namespace(store, metadata_of(obj).get("name", ""))

    def graceful(self, rtype: ResourceType, obj: dict[str, Any]) -> bool:
        return True

    def before_update(
        self, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], subresource: str
    ) -> dict[str, Any]:
        new = super().before_update(rtype, new, old, subresource)
        if subresource != "finalize" and "spec" in old:
            new = {**new, "spec": old["spec"]}
        return new

    def should_delete_during_update(self, new: dict[str, Any], old: dict[str, Any]) -> bool:
        """``ShouldDeleteNamespaceDuringUpdate``: the spec's finalizers must be gone too."""
        return super().should_delete_during_update(new, old) and not (new.get("spec") or {}).get("finalizers")

    def mark_for_deletion(
        self, rtype: ResourceType, obj: dict[str, Any], finalizers: list[str], now: str
    ) -> dict[str, Any]:
        marked = super().mark_for_deletion(rtype, obj, finalizers, now)
        return {**marked, "status": {**(marked.get("status") or {}), "phase": "Terminating"}}

    def after_update(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any], old: dict[str, Any]) -> None:
        if metadata_of(obj).get("deletionTimestamp") is not None:
            controllers.finalize_namespace(store, metadata_of(obj).get("name", ""))


class PodStrategy(Strategy):
    """A pod's create passes the ServiceAccount and Priority admission plugins
    (:mod:`..admission.serviceaccount`, :mod:`..admission.priority`), after NamespaceLifecycle has
    found its namespace. A pod is deleted gracefully (docs/graceful-deletion.md)."""

    def check_graceful_delete(self, rtype: ResourceType, obj: dict[str, Any], grace_period: int | None) -> int | None:
        """``podStrategy.CheckGracefulDelete`` (``pkg/registry/core/pod/strategy.go``)."""
        spec = obj.get("spec") or {}
        period = grace_period
        if period is None:
            default = spec.get("terminationGracePeriodSeconds")
            period = default if isinstance(default, int) and not isinstance(default, bool) else 0
        if not spec.get("nodeName") or (obj.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            period = 0
        return 1 if period < 0 else period

    def admit(self, store: StoreView, rtype: ResourceType, namespace: str, obj: dict[str, Any]) -> dict[str, Any]:
        if SERVICE_ACCOUNT in store.admission_plugins:
            obj = admit_pod(store, namespace, obj)
        if PRIORITY in store.admission_plugins:
            obj = admit_pod_priority(store, obj)
        return obj


class VolumeStrategy(Strategy):
    """Claims and volumes: a create passes DefaultStorageClass (claims) and StorageObjectInUseProtection,
    a claim's update PersistentVolumeClaimResize (:mod:`..admission.storage`)."""

    def admit(self, store: StoreView, rtype: ResourceType, namespace: str, obj: dict[str, Any]) -> dict[str, Any]:
        if rtype.plural == "persistentvolumeclaims" and DEFAULT_STORAGE_CLASS in store.admission_plugins:
            obj = default_claim_class(store, obj)
        if STORAGE_PROTECTION in store.admission_plugins:
            obj = add_protection_finalizer(store, rtype.plural, obj)
        return obj

    def validate_update(
        self, store: StoreView, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], subresource: str
    ) -> None:
        super().validate_update(store, rtype, new, old, subresource)
        # A validating plugin: it runs after the registry's validation and before the policies and
        # webhooks, first of the validating plugins fakeapi runs (kube-apiserver's plugin order).
        if rtype.plural == "persistentvolumeclaims" and not subresource and CLAIM_RESIZE in store.admission_plugins:
            check_claim_resize(store, rtype, new, old)


class NamespaceContentStrategy(Strategy):
    """ServiceAccounts and ConfigMaps: the ``default`` one and ``kube-root-ca.crt`` come back when
    deleted or changed, as kube-controller-manager keeps them (:mod:`..namespace_content`)."""

    def after_update(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any], old: dict[str, Any]) -> None:
        namespace_content.restore_namespace_content(store, rtype, obj)

    def after_delete(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        namespace_content.restore_namespace_content(store, rtype, obj)


TYPES: tuple[ResourceType, ...] = (
    builtin("", "v1", "bindings", "Binding", verbs=("create",)),
    builtin(
        "",
        "v1",
        "componentstatuses",
        "ComponentStatus",
        False,
        verbs=("get", "list"),
        short_names=("cs",),
        printer=COMPONENT_STATUS_PRINTER,
        deprecated_in="1.19",
    ),
    builtin(
        "",
        "v1",
        "endpoints",
        "Endpoints",
        short_names=("ep",),
        printer=ENDPOINTS_PRINTER,
        defaulter=endpoints_defaults,
        deprecated_in="1.33",
        replacement="discovery.k8s.io/v1 EndpointSlice",
    ),
    builtin("", "v1", "limitranges", "LimitRange", short_names=("limits",), defaulter=limit_range_defaults),
    builtin(
        "",
        "v1",
        "namespaces",
        "Namespace",
        False,
        verbs=("create", "delete", "get", "list", "patch", "update", "watch"),
        short_names=("ns",),
        subresources=(Subresource("finalize", ("update",)), _STATUS),
        strategy=NamespaceStrategy(KindRules(names=name_is_dns_label)),
        defaulter=namespace_defaults,
        printer=NAMESPACE_PRINTER,
    ),
    builtin(
        "",
        "v1",
        "nodes",
        "Node",
        False,
        short_names=("no",),
        subresources=(Subresource("proxy", _PROXY.verbs, kind="NodeProxyOptions"), _STATUS),
        printer=NODE_PRINTER,
        defaulter=node_defaults,
    ),
    builtin(
        "",
        "v1",
        "persistentvolumeclaims",
        "PersistentVolumeClaim",
        short_names=("pvc",),
        subresources=(_STATUS,),
        strategy=VolumeStrategy(),
        printer=PERSISTENT_VOLUME_CLAIM_PRINTER,
        defaulter=persistent_volume_claim_defaults,
    ),
    builtin(
        "",
        "v1",
        "persistentvolumes",
        "PersistentVolume",
        False,
        short_names=("pv",),
        subresources=(_STATUS,),
        strategy=VolumeStrategy(),
        printer=PERSISTENT_VOLUME_PRINTER,
        defaulter=persistent_volume_defaults,
    ),
    builtin(
        "",
        "v1",
        "podtemplates",
        "PodTemplate",
        strategy=GenerationStrategy(),
        printer=POD_TEMPLATE_PRINTER,
        defaulter=pod_template_defaults,
    ),
    builtin(
        "",
        "v1",
        "replicationcontrollers",
        "ReplicationController",
        short_names=("rc",),
        categories=("all",),
        subresources=(_SCALE, _STATUS),
        strategy=GenerationStrategy(),
        printer=REPLICATION_CONTROLLER_PRINTER,
        defaulter=replication_controller_defaults,
    ),
    builtin(
        "",
        "v1",
        "resourcequotas",
        "ResourceQuota",
        short_names=("quota",),
        subresources=(_STATUS,),
        printer=RESOURCE_QUOTA_PRINTER,
    ),
    builtin(
        "",
        "v1",
        "configmaps",
        "ConfigMap",
        short_names=("cm",),
        strategy=NamespaceContentStrategy(
            KindRules(create=validation.validate_config_map, update=validation.validate_config_map_update)
        ),
        printer=CONFIGMAP_PRINTER,
    ),
    builtin(
        "",
        "v1",
        "secrets",
        "Secret",
        strategy=Strategy(KindRules(create=validation.validate_secret, update=validation.validate_secret_update)),
        defaulter=secret_defaults,
        printer=SECRET_PRINTER,
    ),
    builtin(
        "",
        "v1",
        "services",
        "Service",
        short_names=("svc",),
        categories=("all",),
        subresources=(Subresource("proxy", _PROXY.verbs, kind="ServiceProxyOptions"), _STATUS),
        strategy=ServiceStrategy(
            KindRules(
                names=name_is_dns1035_label,
                create=validation.validate_service,
                update=validation.validate_service_update,
            )
        ),
        defaulter=service_defaults,
        printer=SERVICE_PRINTER,
    ),
    builtin(
        "",
        "v1",
        "serviceaccounts",
        "ServiceAccount",
        short_names=("sa",),
        subresources=(
            Subresource("token", ("create",), kind="TokenRequest", group="authentication.k8s.io", version="v1"),
        ),
        strategy=NamespaceContentStrategy(KindRules()),
        printer=SERVICEACCOUNT_PRINTER,
    ),
    builtin(
        "",
        "v1",
        "pods",
        "Pod",
        short_names=("po",),
        categories=("all",),
        subresources=_POD_SUBRESOURCES,
        strategy=PodStrategy(KindRules(create=validate_pod, update=validate_pod_update)),
        defaulter=pod_defaults,
        printer=POD_PRINTER,
    ),
    builtin(
        "",
        "v1",
        "events",
        "Event",
        short_names=("ev",),
        strategy=EVENT_STRATEGY,
        defaulter=core_event_defaults,
        printer=EVENT_PRINTER,
    ),
)
