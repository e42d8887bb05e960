"""The pod spec every workload holds, validated as ``pkg/apis/core/validation/validation.go`` does it.

``ValidatePodSpec`` in its order: terminationGracePeriodSeconds, volumes (a DNS label name, unique,
exactly one source, the common sources' required fields), containers and init containers
(:mod:`.containers`), the host network's ports, restartPolicy and dnsPolicy (``NotSupported`` with
the apiserver's list), nodeSelector, serviceAccountName, nodeName, activeDeadlineSeconds, hostname,
subdomain, tolerations, priorityClassName, preemptionPolicy. ``ValidatePodTemplateSpec`` adds the
template's labels and annotations (at ``<path>.labels``: the internal type embeds its ObjectMeta);
a Pod adds the checks only a pod gets (images without surrounding spaces, no ephemeral containers
on create). ``ValidatePodUpdate``: the containers' count and images, the deadline, only added
tolerations, and nothing else of the spec changed.

Not reproduced: the security contexts, affinity, DNS config, topology spread constraints,
readiness and scheduling gates, host aliases, resource claims, the OS-specific rules, and the
volume sources' fields beyond the common ones (docs/validation.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._patching.gostrconv import quote
from fakeapi._state.validation import field
from fakeapi._state.validation.containers import validate_containers, validate_init_containers
from fakeapi._state.validation.field import FieldError, Printed
from fakeapi._state.validation.names import is_dns1123_label, is_label_value, is_qualified_name, name_is_dns_subdomain
from fakeapi._state.validation.objectmeta import validate_annotations, validate_labels
from fakeapi._state.validation.placement import validate_affinity, validate_topology_spread_constraints
from fakeapi._state.validation.securitycontexts import validate_pod_security_context
from fakeapi._state.validation.values import ADDRESS

__all__ = [
    "UPDATABLE_POD_SPEC_FIELDS",
    "validate_pod",
    "validate_pod_spec",
    "validate_pod_template",
    "validate_pod_update",
]

Obj = Mapping[str, Any]

# validateVolumeSource's order; two "may not specify more than 1 volume type" paths are spelled as
# upstream spells them ("downwarAPI", "cephFS").
_VOLUME_SOURCES = (
    "emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs", "iscsi",
    "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "quobyte", "downwardAPI", "fc",
    "flexVolume", "configMap", "azureFile", "vsphereVolume", "photonPersistentDisk", "portworxVolume", "azureDisk",
    "storageos", "projected", "scaleIO", "csi", "ephemeral",
)  # fmt: skip
_SOURCE_PATHS = {"downwardAPI": "downwarAPI", "cephfs": "cephFS"}
_RESTART_POLICIES = ("Always", "OnFailure", "Never")
_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_MAX_INT32 = 2**31 - 1

UPDATABLE_POD_SPEC_FIELDS = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _invalid_each(path: str, value: str, problems: list[str]) -> list[FieldError]:
    return [field.invalid(path, value, problem) for problem in problems]


def _validate_enum(value: str, path: str, supported: tuple[str, ...]) -> list[FieldError]:
    if value in supported:
        return []
    if not value:
        return [field.required(path)]
    return [field.not_supported(path, value, supported)]


# -- pods and templates ----------------------------------------------------------------------------


def validate_pod(pod: Obj) -> list[FieldError]:
    """What ``ValidatePodCreate`` adds after ObjectMeta: the spec, and the pod-only checks."""
    errors = _validate_pod_metadata_and_spec(pod)
    if _list(_dict(pod.get("spec")).get("ephemeralContainers")):
        errors.append(field.forbidden("spec.ephemeralContainers", "cannot be set on create"))
    return errors


def _validate_pod_metadata_and_spec(pod: Obj) -> list[FieldError]:
    """``validatePodMetadataAndSpec`` past the metadata: the spec, then images without surrounding spaces."""
    spec = _dict(pod.get("spec"))
    errors = validate_pod_spec(spec, "spec", is_pod=True)
    for kind in ("containers", "initContainers"):
        for position, container in enumerate(_list(spec.get(kind))):
            image = _dict(container).get("image") or ""
            if image != image.strip():
                detail = "must not have leading or trailing whitespace"
                errors.append(field.invalid(f"spec.{kind}[{position}].image", image, detail))
    return errors


def validate_pod_template(template: Obj, path: str) -> list[FieldError]:
    """``ValidatePodTemplateSpec``: the template's labels and annotations, then its pod spec."""
    meta = _dict(template.get("metadata"))
    errors = validate_labels(_dict(meta.get("labels")), f"{path}.labels")
    errors += validate_annotations(_dict(meta.get("annotations")), f"{path}.annotations")
    spec = _dict(template.get("spec"))
    errors += validate_pod_spec(spec, f"{path}.spec", is_pod=False)
    if _list(spec.get("ephemeralContainers")):
        detail = "ephemeral containers not allowed in pod template"
        errors.append(field.forbidden(f"{path}.spec.ephemeralContainers", detail))
    return errors


def validate_pod_spec(spec: Obj, path: str, *, is_pod: bool) -> list[FieldError]:
    """``ValidatePodSpec``."""
    errors: list[FieldError] = []
    grace = spec.get("terminationGracePeriodSeconds")
    if grace is None:
        errors.append(field.required(f"{path}.terminationGracePeriodSeconds"))
    volumes, volume_errors = _validate_volumes(_list(spec.get("volumes")), f"{path}.volumes")
    errors += volume_errors
    containers = [_dict(item) for item in _list(spec.get("containers"))]
    init_containers = [_dict(item) for item in _list(spec.get("initContainers"))]
    host_users = spec.get("hostUsers") is not False
    errors += validate_containers(containers, volumes, grace, f"{path}.containers", host_users=host_users)
    errors += validate_init_containers(
        init_containers, containers, volumes, grace, f"{path}.initContainers", host_users=host_users
    )
    errors += _validate_host_network_ports(spec, containers, path, is_pod)
    errors += _validate_enum(spec.get("restartPolicy") or "", f"{path}.restartPolicy", _RESTART_POLICIES)
    errors += _validate_enum(spec.get("dnsPolicy") or "", f"{path}.dnsPolicy", _DNS_POLICIES)
    errors += validate_labels(_dict(spec.get("nodeSelector")), f"{path}.nodeSelector")
    errors += validate_pod_security_context(spec, path)
    errors += validate_affinity(spec.get("affinity"), f"{path}.affinity")
    errors += validate_topology_spread_constraints(
        _list(spec.get("topologySpreadConstraints")), f"{path}.topologySpreadConstraints"
    )
    for name in ("serviceAccountName", "nodeName"):
        value = spec.get(name) or ""
        if value:
            errors += _invalid_each(f"{path}.{name}", value, name_is_dns_subdomain(value, False))
    deadline = spec.get("activeDeadlineSeconds")
    if isinstance(deadline, int) and not 1 <= deadline <= _MAX_INT32:
        detail = f"must be between 1 and {_MAX_INT32}, inclusive"
        errors.append(field.invalid(f"{path}.activeDeadlineSeconds", deadline, detail))
    for name in ("hostname", "subdomain"):
        value = spec.get(name) or ""
        if value:
            errors += _invalid_each(f"{path}.{name}", value, is_dns1123_label(value))
    tolerations = _list(spec.get("tolerations"))
    if tolerations:
        errors += validate_tolerations(tolerations, f"{path}.tolerations")
    priority_class = spec.get("priorityClassName") or ""
    if priority_class:
        problems = name_is_dns_subdomain(priority_class, False)
        errors += _invalid_each(f"{path}.priorityClassName", priority_class, problems)
    if spec.get("preemptionPolicy") is not None:
        policy = spec.get("preemptionPolicy") or ""
        errors += _validate_enum(policy, f"{path}.preemptionPolicy", _PREEMPTION_POLICIES)
    return errors


# -- volumes ---------------------------------------------------------------------------------------


def _validate_volumes(volumes: list[Any], path: str) -> tuple[set[str], list[FieldError]]:
    """``ValidateVolumes``: the volumes that passed, by name (mounts must name one), and the errors."""
    errors: list[FieldError] = []
    valid: set[str] = set()
    for position, raw in enumerate(volumes):
        volume = _dict(raw)
        where = f"{path}[{position}]"
        name = volume.get("name") or ""
        own = _validate_volume_source(volume, where)
        if not name:
            own.append(field.required(f"{where}.name"))
        else:
            own += _invalid_each(f"{where}.name", name, is_dns1123_label(name))
        if name in valid:
            own.append(field.duplicate(f"{where}.name", name))
        if own:
            errors += own
        else:
            valid.add(name)
    return valid, errors


def _validate_volume_source(volume: Obj, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    found = 0
    for source in _VOLUME_SOURCES:
        value = volume.get(source)
        if value is None:
            continue
        if found:
            errors.append(
                field.forbidden(
                    f"{path}.{_SOURCE_PATHS.get(source, source)}", "may not specify more than 1 volume type"
                )
            )
            continue
        found += 1
        errors += _validate_source_fields(source, _dict(value), f"{path}.{source}")
    if not found:
        errors.append(field.required(path, "must specify a volume type"))
    return errors


def _validate_source_fields(source: str, value: Obj, path: str) -> list[FieldError]:
    if source == "configMap":
        return [] if value.get("name") else [field.required(f"{path}.name")]
    if source == "secret":
        return [] if value.get("secretName") else [field.required(f"{path}.secretName")]
    if source == "persistentVolumeClaim":
        return [] if value.get("claimName") else [field.required(f"{path}.claimName")]
    if source == "hostPath":
        return [] if value.get("path") else [field.required(f"{path}.path")]
    return []


# -- the host network and tolerations ----------------------------------------------------------


def _validate_host_network_ports(spec: Obj, containers: list[Obj], path: str, is_pod: bool) -> list[FieldError]:
    """``validatePodHostNetworkDeps``: with the host network, a host port is its container port."""
    if spec.get("hostNetwork") is not True:
        return []
    errors: list[FieldError] = []
    for index, container in enumerate(containers):
        for position, raw in enumerate(_list(container.get("ports"))):
            port = _dict(raw)
            host, own = port.get("hostPort") or 0, port.get("containerPort") or 0
            if (is_pod or host != 0) and host != own:
                errors.append(
                    field.invalid(
                        f"{path}.containers[{index}].ports[{position}].hostPort",
                        host,
                        "must match `containerPort` when `hostNetwork` is true",
                    )
                )
    return errors


def _printed_toleration(toleration: Obj) -> Printed:
    """A ``core.Toleration`` as ``%#v`` prints it (a set pointer as a stand-in address), and as JSON."""
    key, operator, value, effect = (str(toleration.get(name) or "") for name in ("key", "operator", "value", "effect"))
    seconds = toleration.get("tolerationSeconds")
    pointer = "(*int64)(nil)" if seconds is None else f"(*int64)({ADDRESS})"
    go = (
        f"core.Toleration{{Key:{quote(key)}, Operator:{quote(operator)}, Value:{quote(value)}, "
        f"Effect:{quote(effect)}, TolerationSeconds:{pointer}}}"
    )
    shown = "null" if seconds is None else str(seconds)
    json = (
        f'{{"Key":{quote(key)},"Operator":{quote(operator)},"Value":{quote(value)},'
        f'"Effect":{quote(effect)},"TolerationSeconds":{shown}}}'
    )
    return Printed(go, json)


def validate_tolerations(tolerations: list[Any], path: str) -> list[FieldError]:
    """``ValidateTolerations``."""
    errors: list[FieldError] = []
    for position, raw in enumerate(tolerations):
        toleration = _dict(raw)
        where = f"{path}[{position}]"
        key = toleration.get("key") or ""
        operator = toleration.get("operator") or ""
        value = toleration.get("value") or ""
        effect = toleration.get("effect") or ""
        if key:
            errors += _invalid_each(f"{where}.key", key, is_qualified_name(key))
        if not key and operator != "Exists":
            errors.append(
                field.invalid(
                    f"{where}.operator",
                    operator,
                    'operator must be Exists when `key` is empty, which means "match all values and all keys"',
                )
            )
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            errors.append(
                field.invalid(f"{where}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set")
            )
        if operator in ("Equal", ""):
            problems = is_label_value(value)
            if problems:
                errors.append(field.invalid(f"{where}.operator", value, ";".join(problems)))
        elif operator == "Exists":
            if value:
                detail = "value must be empty when `operator` is 'Exists'"
                errors.append(field.invalid(f"{where}.operator", _printed_toleration(toleration), detail))
        else:
            errors.append(field.not_supported(f"{where}.operator", operator, ("Equal", "Exists")))
        if effect and effect not in _TAINT_EFFECTS:
            errors.append(field.not_supported(f"{where}.effect", effect, _TAINT_EFFECTS))
    return errors


# -- pod updates -------------------------------------------------------------------------------------


def validate_pod_update(new: Obj, old: Obj) -> list[FieldError]:
    """``ValidatePodUpdate`` past the metadata: what a pod's spec may change after creation."""
    new_spec, old_spec = _dict(new.get("spec")), _dict(old.get("spec"))
    errors = _validate_pod_metadata_and_spec(new)
    for kind in ("containers", "initContainers"):
        new_containers, old_containers = _list(new_spec.get(kind)), _list(old_spec.get(kind))
        if len(new_containers) != len(old_containers):
            errors.append(field.forbidden(f"spec.{kind}", "pod updates may not add or remove containers"))
            return errors
        for position, container in enumerate(new_containers):
            image = _dict(container).get("image") or ""
            if not image:
                errors.append(field.required(f"spec.{kind}[{position}].image"))
            if image != image.strip():
                errors.append(
                    field.invalid(
                        f"spec.{kind}[{position}].image", image, "must not have leading or trailing whitespace"
                    )
                )
    deadline, old_deadline = new_spec.get("activeDeadlineSeconds"), old_spec.get("activeDeadlineSeconds")
    if isinstance(deadline, int):
        if not 0 <= deadline <= _MAX_INT32:
            errors.append(
                field.invalid("spec.activeDeadlineSeconds", deadline, f"must be between 0 and {_MAX_INT32}, inclusive")
            )
            return errors
        if isinstance(old_deadline, int) and old_deadline < deadline:
            errors.append(
                field.invalid("spec.activeDeadlineSeconds", deadline, "must be less than or equal to previous value")
            )
            return errors
    elif old_deadline is not None:
        errors.append(
            field.invalid("spec.activeDeadlineSeconds", None, "must not update from a positive integer to nil value")
        )
    errors += _validate_added_tolerations(_list(new_spec.get("tolerations")), _list(old_spec.get("tolerations")))
    if new_spec != old_spec and _munged(new_spec, old_spec) != old_spec:
        errors.append(
            field.forbidden(
                "spec", "pod updates may not change fields other than " + ",".join(UPDATABLE_POD_SPEC_FIELDS) + "\n"
            )
        )
    return errors


def _munged(new: Obj, old: Obj) -> dict[str, Any]:
    """The new spec with what an update may change taken from the old one."""
    munged = dict(new)
    for kind in ("containers", "initContainers"):
        if kind in new:
            munged[kind] = [
                {**_dict(container), "image": _dict(previous).get("image")} if "image" in _dict(previous) else container
                for container, previous in zip(_list(new.get(kind)), _list(old.get(kind)), strict=False)
            ]
    for name in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        if name in old:
            munged[name] = old[name]
        else:
            munged.pop(name, None)
    grace, old_grace = new.get("terminationGracePeriodSeconds"), old.get("terminationGracePeriodSeconds")
    if isinstance(old_grace, int) and old_grace < 0 and grace == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    return munged


def _validate_added_tolerations(new: list[Any], old: list[Any]) -> list[FieldError]:
    """``validateOnlyAddedTolerations``: every old toleration stays, its tolerationSeconds aside."""
    for previous in old:
        kept = {key: value for key, value in _dict(previous).items() if key != "tolerationSeconds"}
        if not any(
            {key: value for key, value in _dict(item).items() if key != "tolerationSeconds"} == kept for item in new
        ):
            return [
                field.forbidden(
                    "spec.tolerations", "existing toleration can not be modified except its tolerationSeconds"
                )
            ]
    return validate_tolerations(new, "spec.tolerations")
