"""A pod spec's containers as ``pkg/apis/core/validation/validation.go`` validates them.

``validateContainers`` (required, unique names, lifecycle handlers and probes, no restartPolicy on
a regular container, host ports once across containers) and ``validateInitContainers`` (names
unique across both lists, ``restartPolicy`` only ``Always``, probes and lifecycle only on such
sidecars, host ports per container) around ``validateContainerCommon``: the name a DNS-1123
label, an image, the termination message policy, the ports (``validateContainerPorts``), the
environment variable names (``IsRelaxedEnvVarName``, as the RelaxedEnvironmentVariableValidation
gate is on in 1.32), the volume mounts (a volume of that name, a mount path, each once), the image
pull policy, and the resources (no negative quantity; a request within its limit, equal to it for
a resource that cannot be overcommitted).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._state.typed.quantities import QuantityError, quantity_amount
from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError
from fakeapi._state.validation.names import is_dns1123_label, is_env_var_name, is_port_name, name_is_dns_subdomain
from fakeapi._state.validation.objectmeta import IS_NEGATIVE, validate_nonnegative
from fakeapi._state.validation.securitycontexts import validate_container_security_context

__all__ = ["validate_containers", "validate_init_containers", "validate_port_num_or_name"]

Obj = Mapping[str, Any]

_PROTOCOLS = ("SCTP", "TCP", "UDP")
_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
_HTTP_SCHEMES = ("HTTP", "HTTPS")
_PORT_RANGE = "must be between 1 and 65535, inclusive"
_INIT_HOOK = "may not be set for init containers without restartPolicy=Always"


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _each(path: str, value: Any, problems: list[str]) -> list[FieldError]:
    return [field.invalid(path, value, problem) for problem in problems]


def _enum(value: str, path: str, supported: tuple[str, ...]) -> list[FieldError]:
    if value in supported:
        return []
    if not value:
        return [field.required(path)]
    return [field.not_supported(path, value, supported)]


def validate_containers(
    containers: list[Obj], volumes: set[str], grace: Any, path: str, *, host_users: bool = True
) -> list[FieldError]:
    """``validateContainers``."""
    if not containers:
        return [field.required(path)]
    errors: list[FieldError] = []
    names: set[str] = set()
    for position, container in enumerate(containers):
        where = f"{path}[{position}]"
        errors += _validate_common(container, volumes, where, host_users)
        name = container.get("name") or ""
        if name in names:
            errors.append(field.duplicate(f"{where}.name", name))
        else:
            names.add(name)
        errors += _validate_hooks(container, grace, where)
        if container.get("restartPolicy") is not None:
            errors.append(field.forbidden(f"{where}.restartPolicy", "may not be set for non-init containers"))
    return errors + _host_port_conflicts(containers, path)


def validate_init_containers(
    containers: list[Obj], regular: list[Obj], volumes: set[str], grace: Any, path: str, *, host_users: bool = True
) -> list[FieldError]:
    """``validateInitContainers``."""
    errors: list[FieldError] = []
    names = {container.get("name") or "" for container in regular}
    for position, container in enumerate(containers):
        where = f"{path}[{position}]"
        errors += _validate_common(container, volumes, where, host_users)
        restart = container.get("restartPolicy")
        if restart is not None and restart != "Always":
            errors.append(field.not_supported(f"{where}.restartPolicy", restart, ("Always",)))
        name = container.get("name") or ""
        if name in names:
            errors.append(field.duplicate(f"{where}.name", name))
        elif name:
            names.add(name)
        errors += _host_port_conflicts([container], path)
        if restart == "Always":
            errors += _validate_hooks(container, grace, where)
        else:
            for hook in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
                if container.get(hook) is not None:
                    errors.append(field.forbidden(f"{where}.{hook}", _INIT_HOOK))
    return errors


def _validate_common(container: Obj, volumes: set[str], path: str, host_users: bool) -> list[FieldError]:
    """``validateContainerCommon``."""
    errors: list[FieldError] = []
    name = container.get("name") or ""
    if not name:
        errors.append(field.required(f"{path}.name"))
    else:
        errors += _each(f"{path}.name", name, is_dns1123_label(name))
    if not container.get("image"):
        errors.append(field.required(f"{path}.image"))
    policy = container.get("terminationMessagePolicy") or ""
    errors += _enum(policy, f"{path}.terminationMessagePolicy", _TERMINATION_MESSAGE_POLICIES)
    errors += _validate_ports(_list(container.get("ports")), f"{path}.ports")
    errors += _validate_env(_list(container.get("env")), f"{path}.env")
    errors += _validate_env_from(_list(container.get("envFrom")), f"{path}.envFrom")
    errors += _validate_mounts(_list(container.get("volumeMounts")), volumes, f"{path}.volumeMounts")
    errors += _enum(container.get("imagePullPolicy") or "", f"{path}.imagePullPolicy", _PULL_POLICIES)
    errors += _validate_resources(_dict(container.get("resources")), f"{path}.resources")
    security = container.get("securityContext")
    errors += validate_container_security_context(security, host_users, f"{path}.securityContext")
    return errors


def _validate_ports(ports: list[Any], path: str) -> list[FieldError]:
    """``validateContainerPorts``."""
    errors: list[FieldError] = []
    names: set[str] = set()
    for position, raw in enumerate(ports):
        port = _dict(raw)
        where = f"{path}[{position}]"
        name = port.get("name") or ""
        if name:
            problems = is_port_name(name)
            if problems:
                errors += _each(f"{where}.name", name, problems)
            elif name in names:
                errors.append(field.duplicate(f"{where}.name", name))
            else:
                names.add(name)
        container_port = port.get("containerPort") or 0
        if not container_port:
            errors.append(field.required(f"{where}.containerPort"))
        elif not 1 <= container_port <= 65535:
            errors.append(field.invalid(f"{where}.containerPort", container_port, _PORT_RANGE))
        host_port = port.get("hostPort") or 0
        if host_port and not 1 <= host_port <= 65535:
            errors.append(field.invalid(f"{where}.hostPort", host_port, _PORT_RANGE))
        protocol = port.get("protocol") or ""
        if not protocol:
            errors.append(field.required(f"{where}.protocol"))
        elif protocol not in _PROTOCOLS:
            errors.append(field.not_supported(f"{where}.protocol", protocol, _PROTOCOLS))
    return errors


def _host_port_conflicts(containers: list[Obj], path: str) -> list[FieldError]:
    """``AccumulateUniqueHostPorts``: ``<protocol>/<hostIP>/<hostPort>`` once across the containers."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, container in enumerate(containers):
        for position, raw in enumerate(_list(container.get("ports"))):
            port = _dict(raw)
            if not port.get("hostPort"):
                continue
            key = f"{port.get('protocol') or ''}/{port.get('hostIP') or ''}/{port['hostPort']}"
            if key in seen:
                errors.append(field.duplicate(f"{path}[{index}].ports[{position}].hostPort", key))
            seen.add(key)
    return errors


def _validate_env(env: list[Any], path: str) -> list[FieldError]:
    """``ValidateEnv``'s names."""
    errors: list[FieldError] = []
    for position, raw in enumerate(env):
        name = _dict(raw).get("name") or ""
        where = f"{path}[{position}].name"
        if not name:
            errors.append(field.required(where))
        else:
            errors += _each(where, name, is_env_var_name(name))
    return errors


def _validate_env_from(sources: list[Any], path: str) -> list[FieldError]:
    """``ValidateEnvFrom``: a prefix that is an environment variable name, exactly one named source.

    The source names are checked as name prefixes (``ValidateConfigMapName(name, true)``), as upstream does.
    """
    errors: list[FieldError] = []
    for position, raw in enumerate(sources):
        source, where = _dict(raw), f"{path}[{position}]"
        prefix = source.get("prefix") or ""
        if prefix:
            errors += _each(f"{where}.prefix", prefix, is_env_var_name(prefix))
        given = [name for name in ("configMapRef", "secretRef") if isinstance(source.get(name), dict)]
        for name in given:
            ref_name = source[name].get("name") or ""
            if not ref_name:
                errors.append(field.required(f"{where}.{name}.name"))
            else:
                errors += _each(f"{where}.{name}.name", ref_name, name_is_dns_subdomain(ref_name, True))
        if not given:
            errors.append(field.invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif len(given) > 1:
            errors.append(field.invalid(path, "", "may not have more than one field specified at a time"))
    return errors


def _validate_mounts(mounts: list[Any], volumes: set[str], path: str) -> list[FieldError]:
    """``ValidateVolumeMounts``: a volume of that name, a mount path, each mount path once."""
    errors: list[FieldError] = []
    paths: set[str] = set()
    for position, raw in enumerate(mounts):
        mount = _dict(raw)
        where = f"{path}[{position}]"
        name = mount.get("name") or ""
        if not name:
            errors.append(field.required(f"{where}.name"))
        if name not in volumes:
            errors.append(field.not_found(f"{where}.name", name))
        mount_path = mount.get("mountPath") or ""
        if not mount_path:
            errors.append(field.required(f"{where}.mountPath"))
        if mount_path in paths:
            errors.append(field.invalid(f"{where}.mountPath", mount_path, "must be unique"))
        paths.add(mount_path)
        if mount.get("subPath") and mount.get("subPathExpr"):
            errors.append(
                field.invalid(
                    f"{where}.subPathExpr", mount["subPathExpr"], "subPathExpr and subPath are mutually exclusive"
                )
            )
    return errors


def _overcommit_allowed(name: str) -> bool:
    """``IsOvercommitAllowed``: a native resource (no domain, or a kubernetes.io one) but hugepages."""
    native = "/" not in name or "kubernetes.io/" in name
    return native and not name.startswith("hugepages-")


def _amount(quantity: Any) -> Any:
    try:
        return quantity_amount(quantity) if isinstance(quantity, str) else None
    except QuantityError:
        return None


def _validate_resources(resources: Obj, path: str) -> list[FieldError]:
    """``ValidateResourceRequirements``: no negative quantity, requests within their limits."""
    errors: list[FieldError] = []
    limits = _dict(resources.get("limits"))
    requests = _dict(resources.get("requests"))
    for name, quantity in limits.items():
        amount = _amount(quantity)
        if amount is not None and amount < 0:
            errors.append(field.invalid(f"{path}.limits[{name}]", quantity, IS_NEGATIVE))
    for name, quantity in requests.items():
        amount = _amount(quantity)
        if amount is not None and amount < 0:
            errors.append(field.invalid(f"{path}.requests[{name}]", quantity, IS_NEGATIVE))
        if name in limits:
            limit = _amount(limits[name])
            if amount is None or limit is None:
                continue
            if amount != limit and not _overcommit_allowed(name):
                detail = f"must be equal to {name} limit of {limits[name]}"
                errors.append(field.invalid(f"{path}.requests", quantity, detail))
            elif amount > limit:
                detail = f"must be less than or equal to {name} limit of {limits[name]}"
                errors.append(field.invalid(f"{path}.requests", quantity, detail))
        elif not _overcommit_allowed(name):
            errors.append(field.required(f"{path}.limits", "Limit must be set for non overcommitable resources"))
    return errors


def _validate_hooks(container: Obj, grace: Any, path: str) -> list[FieldError]:
    """The lifecycle handlers, then the liveness, readiness and startup probes."""
    errors: list[FieldError] = []
    lifecycle = container.get("lifecycle")
    if isinstance(lifecycle, dict):
        for hook in ("postStart", "preStop"):
            if isinstance(lifecycle.get(hook), dict):
                kinds = ("exec", "httpGet", "tcpSocket", "sleep")
                errors += _validate_handler(lifecycle[hook], grace, f"{path}.lifecycle.{hook}", kinds)
    for probe_name in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = container.get(probe_name)
        if isinstance(probe, dict):
            errors += _validate_probe(probe, probe_name, grace, f"{path}.{probe_name}")
    return errors


def _validate_probe(probe: Obj, kind: str, grace: Any, path: str) -> list[FieldError]:
    """``validateProbe`` and the liveness, readiness and startup rules after it."""
    errors = _validate_handler(probe, grace, path, ("exec", "httpGet", "tcpSocket", "grpc"))
    for name in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        errors += validate_nonnegative(probe.get(name) or 0, f"{path}.{name}")
    own_grace = probe.get("terminationGracePeriodSeconds")
    if isinstance(own_grace, int) and own_grace <= 0:
        errors.append(field.invalid(f"{path}.terminationGracePeriodSeconds", own_grace, "must be greater than 0"))
    if kind in ("livenessProbe", "startupProbe") and (probe.get("successThreshold") or 0) != 1:
        errors.append(field.invalid(f"{path}.successThreshold", probe.get("successThreshold") or 0, "must be 1"))
    if kind == "readinessProbe" and own_grace is not None:
        detail = "must not be set for readinessProbes"
        errors.append(field.invalid(f"{path}.terminationGracePeriodSeconds", own_grace, detail))
    return errors


def _validate_handler(handler: Obj, grace: Any, path: str, kinds: tuple[str, ...]) -> list[FieldError]:
    """``validateHandler``: exactly one handler type, and its action's fields."""
    errors: list[FieldError] = []
    count = 0
    for kind in kinds:
        if handler.get(kind) is None:
            continue
        if count:
            errors.append(field.forbidden(f"{path}.{kind}", "may not specify more than 1 handler type"))
            continue
        count += 1
        action = _dict(handler[kind])
        if kind == "exec" and not _list(action.get("command")):
            errors.append(field.required(f"{path}.exec.command"))
        elif kind == "httpGet":
            if not action.get("path"):
                errors.append(field.required(f"{path}.httpGet.path"))
            errors += validate_port_num_or_name(action.get("port"), f"{path}.httpGet.port")
            scheme = action.get("scheme") or ""
            if scheme not in _HTTP_SCHEMES:
                errors.append(field.not_supported(f"{path}.httpGet.scheme", scheme, _HTTP_SCHEMES))
        elif kind in ("tcpSocket", "grpc"):
            errors += validate_port_num_or_name(action.get("port"), f"{path}.{kind}.port")
        elif kind == "sleep" and isinstance(grace, int):
            seconds = action.get("seconds") or 0
            if seconds <= 0 or seconds > grace:
                detail = f"must be greater than 0 and less than terminationGracePeriodSeconds ({grace})"
                errors.append(field.invalid(f"{path}.sleep", seconds, detail))
    if count == 0:
        errors.append(field.required(path, "must specify a handler type"))
    return errors


def validate_port_num_or_name(port: Any, path: str) -> list[FieldError]:
    """``ValidatePortNumOrName``: an IntOrString port number or IANA name."""
    if isinstance(port, str):
        return _each(path, port, is_port_name(port))
    number = port if isinstance(port, int) else 0
    if not 1 <= number <= 65535:
        return [field.invalid(path, number, _PORT_RANGE)]
    return []
