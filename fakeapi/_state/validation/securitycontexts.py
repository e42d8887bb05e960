"""A pod's and its containers' security contexts, as ``ValidatePodSpec`` and ``ValidateSecurityContext`` check them.

The pod's (``validatePodSpecSecurityContext``, at the internal type's path
``spec.securityContext``): ``fsGroup``, ``runAsUser``, ``runAsGroup`` and supplemental groups
between 0 and 2147483647 (``IsValidUserID``, ``IsValidGroupID``), ``shareProcessNamespace`` not
with ``hostPID``, sysctl names, ``fsGroupChangePolicy`` ``Always`` or ``OnRootMismatch``, the seccomp
and AppArmor profiles. A container's (``ValidateSecurityContext``): user and group ids, a
``procMount`` of ``Default`` or ``Unmasked`` (``Unmasked`` only with ``hostUsers: false``), the
seccomp and AppArmor profiles, and no CAP_SYS_ADMIN or privilege with
``allowPrivilegeEscalation: false``. Profiles: a ``type`` among ``Localhost``,
``RuntimeDefault``, ``Unconfined``; a ``localhostProfile`` exactly with ``Localhost``, a relative
path without ``..`` for seccomp, not padded and at most 4095 bytes for AppArmor.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fakeapi._patching.gostrconv import quote
from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError, GoText, Printed
from fakeapi._state.validation.values import ADDRESS

__all__ = ["validate_container_security_context", "validate_pod_security_context"]

Obj = Mapping[str, Any]

_ID_RANGE = "must be between 0 and 2147483647, inclusive"
_PROFILE_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")
_FS_GROUP_POLICIES = ("Always", "OnRootMismatch")
_PROC_MOUNTS = ("Default", "Unmasked")
_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL = "^(" + _SYSCTL_SEGMENT + "[\\./])*" + _SYSCTL_SEGMENT + "$"
_MAX_APPARMOR_PROFILE = 4095


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _id(value: Any, path: str) -> list[FieldError]:
    if isinstance(value, int) and not 0 <= value <= 2**31 - 1:
        return [field.invalid(path, value, _ID_RANGE)]
    return []


def _seccomp_profile(profile: Any, path: str) -> list[FieldError]:
    """``validateSeccompProfileField``."""
    if not isinstance(profile, dict):
        return []
    errors: list[FieldError] = []
    kind, localhost = profile.get("type") or "", profile.get("localhostProfile")
    if not kind:
        errors.append(field.required(f"{path}.type", "type is required when seccompProfile is set"))
    elif kind not in _PROFILE_TYPES:
        errors.append(field.not_supported(f"{path}.type", kind, _PROFILE_TYPES))
    if kind == "Localhost":
        if localhost is None:
            errors.append(field.required(f"{path}.localhostProfile", "must be set when seccomp type is Localhost"))
        else:
            errors += _local_descending_path(str(localhost), f"{path}.localhostProfile")
    elif localhost is not None:
        pointer = f"(*string)({ADDRESS})"
        shown = Printed(
            f"core.SeccompProfile{{Type:{quote(str(kind))}, LocalhostProfile:{pointer}}}",
            f'{{"Type":{quote(str(kind))},"LocalhostProfile":{quote(str(localhost))}}}',
        )
        errors.append(
            field.invalid(f"{path}.localhostProfile", shown, "can only be set when seccomp type is Localhost")
        )
    return errors


def _local_descending_path(target: str, path: str) -> list[FieldError]:
    """``validateLocalDescendingPath``."""
    errors: list[FieldError] = []
    if target.startswith("/"):
        errors.append(field.invalid(path, target, "must be a relative path"))
    if ".." in target.split("/"):
        errors.append(field.invalid(path, target, "must not contain '..'"))
    return errors


def _apparmor_profile(profile: Any, path: str) -> list[FieldError]:
    """``ValidateAppArmorProfileField``."""
    if not isinstance(profile, dict):
        return []
    errors: list[FieldError] = []
    kind, localhost = profile.get("type") or "", profile.get("localhostProfile")
    where = f"{path}.localhostProfile"
    if kind == "Localhost":
        if localhost is None:
            errors.append(field.required(where, "must be set when AppArmor type is Localhost"))
        else:
            text = str(localhost)
            if text.strip() != text:
                errors.append(field.invalid(where, text, "must not be padded with whitespace"))
            elif not text:
                errors.append(field.required(where, "must be set when AppArmor type is Localhost"))
            if len(text.encode()) > _MAX_APPARMOR_PROFILE:
                errors.append(field.too_long(where, _MAX_APPARMOR_PROFILE))
    elif kind in ("RuntimeDefault", "Unconfined"):
        if localhost is not None:
            errors.append(field.invalid(where, str(localhost), "can only be set when AppArmor type is Localhost"))
    elif not kind:
        errors.append(field.required(f"{path}.type", "type is required when appArmorProfile is set"))
    else:
        errors.append(field.not_supported(f"{path}.type", kind, _PROFILE_TYPES))
    return errors


def _sysctls(sysctls: list[Any], host_network: bool, host_ipc: bool, path: str) -> list[FieldError]:
    """``validateSysctls``: named, well-formed, once each, none of a namespace the pod shares with the host."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for position, item in enumerate(sysctls):
        name = str(_dict(item).get("name") or "")
        where = f"{path}[{position}].name"
        if not name:
            errors.append(field.required(where))
        elif len(name) > 253 or re.fullmatch(_SYSCTL, name) is None:
            errors.append(field.invalid(where, name, f"must have at most 253 characters and match regex {_SYSCTL}"))
        elif name in seen:
            errors.append(field.duplicate(where, name))
        if host_network and name.replace("/", ".").startswith("net."):
            errors.append(field.invalid(where, name, "may not be specified when 'hostNetwork' is true"))
        elif host_ipc and _is_ipc_sysctl(name.replace("/", ".")):
            errors.append(field.invalid(where, name, "may not be specified when 'hostIPC' is true"))
        seen.add(name)
    return errors


def _is_ipc_sysctl(name: str) -> bool:
    """``utilsysctl.GetNamespace``'s IPC namespace: ``kernel.sem`` and the ``kernel.shm``, ``kernel.msg`` and ``fs.mqueue.`` prefixes."""
    return name == "kernel.sem" or name.startswith(("kernel.shm", "kernel.msg", "fs.mqueue."))


def validate_pod_security_context(spec: Obj, path: str) -> list[FieldError]:
    """``validatePodSpecSecurityContext`` (the internal PodSecurityContext holds hostPID, hostNetwork and hostIPC)."""
    context = spec.get("securityContext")
    if not isinstance(context, dict):
        return []
    where = f"{path}.securityContext"
    errors = _id(context.get("fsGroup"), f"{where}.fsGroup")
    errors += _id(context.get("runAsUser"), f"{where}.runAsUser")
    errors += _id(context.get("runAsGroup"), f"{where}.runAsGroup")
    for position, group in enumerate(context.get("supplementalGroups") or []):
        errors += _id(group, f"{where}.supplementalGroups[{position}]")
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        detail = "ShareProcessNamespace and HostPID cannot both be enabled"
        errors.append(field.invalid(f"{where}.shareProcessNamespace", True, detail))
    if context.get("sysctls"):
        host_network, host_ipc = spec.get("hostNetwork") is True, spec.get("hostIPC") is True
        errors += _sysctls(list(context["sysctls"]), host_network, host_ipc, f"{where}.sysctls")
    policy = context.get("fsGroupChangePolicy")
    if policy is not None and policy not in _FS_GROUP_POLICIES:
        errors.append(field.not_supported(f"{where}.fsGroupChangePolicy", policy, _FS_GROUP_POLICIES))
    errors += _seccomp_profile(context.get("seccompProfile"), f"{where}.seccompProfile")
    errors += _apparmor_profile(context.get("appArmorProfile"), f"{where}.appArmorProfile")
    return errors


def validate_container_security_context(context: Any, host_users: bool, path: str) -> list[FieldError]:
    """``ValidateSecurityContext``. The two errors that print the whole internal ``core.SecurityContext``
    (its pointers as addresses) show it as ``core.SecurityContext{...}``."""
    if not isinstance(context, dict):
        return []
    errors = _id(context.get("runAsUser"), f"{path}.runAsUser")
    errors += _id(context.get("runAsGroup"), f"{path}.runAsGroup")
    proc_mount = context.get("procMount")
    if proc_mount is not None:
        if proc_mount not in _PROC_MOUNTS:
            errors.append(field.not_supported(f"{path}.procMount", proc_mount, _PROC_MOUNTS))
        if host_users and proc_mount == "Unmasked":
            errors.append(field.invalid(f"{path}.procMount", proc_mount, "`hostUsers` must be false to use `Unmasked`"))
    errors += _seccomp_profile(context.get("seccompProfile"), f"{path}.seccompProfile")
    if context.get("allowPrivilegeEscalation") is False:
        shown = GoText("core.SecurityContext{...}")
        if context.get("privileged") is True:
            detail = "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
            errors.append(field.invalid(path, shown, detail))
        for capability in _dict(context.get("capabilities")).get("add") or []:
            if capability == "CAP_SYS_ADMIN":
                detail = "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"
                errors.append(field.invalid(path, shown, detail))
    errors += _apparmor_profile(context.get("appArmorProfile"), f"{path}.appArmorProfile")
    return errors
