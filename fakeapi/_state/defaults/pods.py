"""Defaults of a Pod and of the pod template inside a Deployment or a Job.

Reproduced from kube-apiserver 1.32:

* ``pkg/apis/core/v1/defaults.go``: ``SetDefaults_Pod`` (requests from limits, service links, host
  ports on the host network), ``SetDefaults_PodSpec`` and the defaulters of what a PodSpec holds:
  volumes, containers, probes, lifecycle handlers; the image pull policy follows the tag that
  ``pkg/util/parsers/parsers.go`` ``ParseImageName`` reports;
* ``pkg/registry/core/pod/strategy.go``: status ``Pending`` with its QoS class (:mod:`.qos`);
* the default admission plugins that act like defaulting on pods (``plugin/pkg/admission``):
  Priority (``priority``, ``preemptionPolicy``) and DefaultTolerationSeconds (the two 300 s
  ``NoExecute`` tolerations). ServiceAccount admission needs the ServiceAccount object, so it
  is a strategy hook (:mod:`fakeapi._state.admission.serviceaccount`);
* ``pkg/apis/core/v1/conversion.go``: ``serviceAccount`` as the alias of ``serviceAccountName``;
* typed serialization: ``"resources":{}`` and a template's ``"creationTimestamp":null``.
"""

from __future__ import annotations

import re

from fakeapi._state.defaults.fields import Obj, default, default_if_absent, items, sub
from fakeapi._state.defaults.qos import qos_class

__all__ = ["pod_defaults", "pod_spec_defaults", "template_defaults"]

_SYSTEM_PRIORITIES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
_VOLUME_SOURCES = (
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi",
    "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
    "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected",
    "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image",
)  # fmt: skip
_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


def pod_defaults(pod: Obj, creating: bool | None) -> None:
    spec = sub(pod, "spec")
    if spec is not None:
        _pod_only_defaults(spec)
        pod_spec_defaults(spec)
        _pod_admission(spec)
    if creating:
        pod["status"] = {"phase": "Pending", "qosClass": qos_class(spec or {})}
        return
    status = sub(pod, "status")
    if status is not None and creating is None:
        default(status, "phase", "Pending")
        default(status, "qosClass", qos_class(spec or {}))


def _pod_only_defaults(spec: Obj) -> None:
    """``SetDefaults_Pod``: what a Pod gets and a pod template does not."""
    for key in ("containers", "initContainers"):
        for container in items(spec, key):
            resources = container.get("resources")
            limits = resources.get("limits") if isinstance(resources, dict) else None
            if not isinstance(resources, dict) or not isinstance(limits, dict) or not limits:
                continue
            requests = resources.get("requests")
            if not isinstance(requests, dict):
                requests = resources["requests"] = {}
            for name, quantity in limits.items():
                requests.setdefault(name, quantity)
    default_if_absent(spec, "enableServiceLinks", True)
    if spec.get("hostNetwork") is True:
        for key in ("containers", "initContainers"):
            for container in items(spec, key):
                for port in items(container, "ports"):
                    if not port.get("hostPort"):
                        port["hostPort"] = port.get("containerPort", 0)


def pod_spec_defaults(spec: Obj) -> None:
    """``SetDefaults_PodSpec`` and the defaulters of everything a PodSpec holds."""
    default(spec, "dnsPolicy", "ClusterFirst")
    default(spec, "restartPolicy", "Always")
    default_if_absent(spec, "securityContext", {})
    default_if_absent(spec, "terminationGracePeriodSeconds", 30)
    default(spec, "schedulerName", "default-scheduler")
    _service_account_alias(spec)
    for volume in items(spec, "volumes"):
        _volume_defaults(volume)
    for key in _CONTAINER_LISTS:
        for container in items(spec, key):
            _container_defaults(container)


def _service_account_alias(spec: Obj) -> None:
    """``pkg/apis/core/v1/conversion.go``: ``serviceAccount`` is the deprecated spelling of
    ``serviceAccountName``, read when the new one is empty and always written as its copy."""
    name = spec.get("serviceAccountName") or spec.get("serviceAccount")
    if isinstance(name, str) and name:
        spec["serviceAccountName"] = spec["serviceAccount"] = name
    else:
        spec.pop("serviceAccount", None)


def _volume_defaults(volume: Obj) -> None:
    if all(volume.get(source) is None for source in _VOLUME_SOURCES):
        volume["emptyDir"] = {}
    if isinstance(host_path := volume.get("hostPath"), dict):
        default_if_absent(host_path, "type", "")
    for source in ("secret", "configMap", "downwardAPI", "projected"):
        if isinstance(value := volume.get(source), dict):
            default_if_absent(value, "defaultMode", 420)
    if isinstance(downward := volume.get("downwardAPI"), dict):
        _downward_items_defaults(downward)
    if isinstance(projected := volume.get("projected"), dict):
        for projection in items(projected, "sources"):
            if isinstance(downward := projection.get("downwardAPI"), dict):
                _downward_items_defaults(downward)
            if isinstance(token := projection.get("serviceAccountToken"), dict):
                default_if_absent(token, "expirationSeconds", 3600)
    ephemeral = volume.get("ephemeral")
    template = ephemeral.get("volumeClaimTemplate") if isinstance(ephemeral, dict) else None
    if isinstance(template, dict) and isinstance(claim_spec := template.get("spec"), dict):
        default_if_absent(claim_spec, "volumeMode", "Filesystem")


def _downward_items_defaults(downward: Obj) -> None:
    for item in items(downward, "items"):
        if isinstance(field_ref := item.get("fieldRef"), dict):
            default(field_ref, "apiVersion", "v1")


def _container_defaults(container: Obj) -> None:
    if not container.get("imagePullPolicy"):
        image = container.get("image")
        tag = _image_tag(image if isinstance(image, str) else "")
        container["imagePullPolicy"] = "Always" if tag == "latest" else "IfNotPresent"
    default(container, "terminationMessagePath", "/dev/termination-log")
    default(container, "terminationMessagePolicy", "File")
    for port in items(container, "ports"):
        default(port, "protocol", "TCP")
    for env in items(container, "env"):
        value_from = env.get("valueFrom")
        if isinstance(value_from, dict) and isinstance(field_ref := value_from.get("fieldRef"), dict):
            default(field_ref, "apiVersion", "v1")
    for key in _PROBES:
        if isinstance(probe := container.get(key), dict):
            default(probe, "timeoutSeconds", 1)
            default(probe, "periodSeconds", 10)
            default(probe, "successThreshold", 1)
            default(probe, "failureThreshold", 3)
            _handler_defaults(probe)
            if isinstance(grpc := probe.get("grpc"), dict):
                default_if_absent(grpc, "service", "")
    if isinstance(lifecycle := container.get("lifecycle"), dict):
        for hook in ("postStart", "preStop"):
            if isinstance(handler := lifecycle.get(hook), dict):
                _handler_defaults(handler)
    sub(container, "resources")


def _handler_defaults(handler: Obj) -> None:
    if isinstance(http_get := handler.get("httpGet"), dict):
        default(http_get, "path", "/")
        default(http_get, "scheme", "HTTP")


_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = re.compile(rf"^{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*(?::[0-9]+)?$")
_PATH_COMPONENT = re.compile(r"^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*$")
_TAG = re.compile(r"^[\w][\w.-]{0,127}$")
_DIGEST = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$")


def _image_tag(image: str) -> str:
    """The tag ``parsers.ParseImageName`` reports: ``latest`` when neither tag nor digest, ``""`` if unparsable."""
    name, _, digest = image.partition("@")
    if digest and not _DIGEST.match(digest):
        return ""
    head, _, last = name.rpartition("/")
    last, _, tag = last.partition(":")
    if tag and not _TAG.match(tag):
        return ""
    components = [*head.split("/"), last] if head else [last]
    first = components[0]
    if len(components) > 1 and (any(c in first for c in ".:") or first == "localhost" or first.lower() != first):
        if not _DOMAIN.match(first):
            return ""
        components = components[1:]
    if len(name) > 255 or not all(_PATH_COMPONENT.match(component) for component in components):
        return ""
    return tag or ("" if digest else "latest")


def _pod_admission(spec: Obj) -> None:
    """The Priority and DefaultTolerationSeconds admission plugins (pods only, not templates)."""
    if spec.get("priority") is None:
        spec["priority"] = _SYSTEM_PRIORITIES.get(str(spec.get("priorityClassName") or ""), 0)
    default_if_absent(spec, "preemptionPolicy", "PreemptLowerPriority")
    tolerations = spec.get("tolerations")
    if tolerations is not None and not isinstance(tolerations, list):
        return
    tolerations = list(tolerations or [])
    for taint in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"):
        tolerated = any(
            isinstance(t, dict) and t.get("key") in (taint, "", None) and t.get("effect") in ("NoExecute", "", None)
            for t in tolerations
        )
        if not tolerated:
            tolerations.append({"key": taint, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300})
    spec["tolerations"] = tolerations


def template_defaults(spec: Obj) -> Obj | None:
    """A pod template's defaults; returns the template so callers can look at its labels."""
    template = sub(spec, "template")
    if template is None:
        return None
    if (meta := sub(template, "metadata")) is not None:
        meta.setdefault("creationTimestamp", None)
    if (pod_spec := sub(template, "spec")) is not None:
        pod_spec_defaults(pod_spec)
    return template
