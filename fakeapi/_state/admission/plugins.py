"""The admission plugins kube-apiserver 1.32 knows, which are on by default, and the two switches.

``--enable-admission-plugins`` and ``--disable-admission-plugins`` as k8s.io/apiserver
``pkg/server/options/admission.go`` reads them (``Validate`` and ``enabledPluginNames``): a plugin
is on when it is in the default-on set or enabled, and not disabled; a name kube-apiserver does not
register is refused with ``enable-admission-plugins plugin "X" is unknown`` (or ``disable-...``), and
a name in both lists with ``[X] in enable-admission-plugins and disable-admission-plugins
overlapped``. The names, their order and the default-on set are kube-apiserver 1.32's
(``AllOrderedPlugins`` and ``DefaultOffAdmissionPlugins`` of ``pkg/kubeapiserver/options/plugins.go``).
No copy of that file at a 1.32 commit could be read; the list was checked against the copies on either
side (one without MutatingAdmissionPolicy, added in 1.32; one with the plugins added in 1.33 and later)
and against a 1.32 kube-apiserver's ``--enable-admission-plugins`` help, which prints the default-on
set in this order and every registered name: docs/admission.md says how. fakeapi runs the plugins of
:data:`REPRODUCED`; the others are accepted by name and do nothing here (docs/admission.md says so).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "ALL_ORDERED_PLUGINS",
    "DEFAULT_ON_PLUGINS",
    "REPRODUCED",
    "RESOURCE_QUOTA",
    "AdmissionPluginError",
    "default_enabled",
    "enabled_plugins",
]

NAMESPACE_LIFECYCLE = "NamespaceLifecycle"
SERVICE_ACCOUNT = "ServiceAccount"
PRIORITY = "Priority"
MUTATING_WEBHOOK = "MutatingAdmissionWebhook"
VALIDATING_WEBHOOK = "ValidatingAdmissionWebhook"
RESOURCE_QUOTA = "ResourceQuota"
VALIDATING_POLICY = "ValidatingAdmissionPolicy"
DEFAULT_STORAGE_CLASS = "DefaultStorageClass"
STORAGE_PROTECTION = "StorageObjectInUseProtection"
CLAIM_RESIZE = "PersistentVolumeClaimResize"

ALL_ORDERED_PLUGINS: tuple[str, ...] = (
    "AlwaysAdmit",
    "NamespaceAutoProvision",
    NAMESPACE_LIFECYCLE,
    "NamespaceExists",
    "LimitPodHardAntiAffinityTopology",
    "LimitRanger",
    SERVICE_ACCOUNT,
    "NodeRestriction",
    "TaintNodesByCondition",
    "AlwaysPullImages",
    "ImagePolicyWebhook",
    "PodSecurity",
    "PodNodeSelector",
    PRIORITY,
    "DefaultTolerationSeconds",
    "PodTolerationRestriction",
    "EventRateLimit",
    "ExtendedResourceToleration",
    DEFAULT_STORAGE_CLASS,
    STORAGE_PROTECTION,
    "OwnerReferencesPermissionEnforcement",
    CLAIM_RESIZE,
    "RuntimeClass",
    "CertificateApproval",
    "CertificateSigning",
    "ClusterTrustBundleAttest",
    "CertificateSubjectRestriction",
    "DefaultIngressClass",
    "DenyServiceExternalIPs",
    "MutatingAdmissionPolicy",
    MUTATING_WEBHOOK,
    VALIDATING_POLICY,
    VALIDATING_WEBHOOK,
    RESOURCE_QUOTA,
    "AlwaysDeny",
)

DEFAULT_ON_PLUGINS: frozenset[str] = frozenset(
    {
        NAMESPACE_LIFECYCLE,
        "LimitRanger",
        SERVICE_ACCOUNT,
        DEFAULT_STORAGE_CLASS,
        CLAIM_RESIZE,
        "DefaultTolerationSeconds",
        MUTATING_WEBHOOK,
        VALIDATING_WEBHOOK,
        RESOURCE_QUOTA,
        STORAGE_PROTECTION,
        PRIORITY,
        "TaintNodesByCondition",
        "RuntimeClass",
        "CertificateApproval",
        "CertificateSigning",
        "ClusterTrustBundleAttest",
        "CertificateSubjectRestriction",
        "DefaultIngressClass",
        "PodSecurity",
        "MutatingAdmissionPolicy",
        VALIDATING_POLICY,
    }
)

REPRODUCED: frozenset[str] = frozenset(
    {
        NAMESPACE_LIFECYCLE,
        SERVICE_ACCOUNT,
        PRIORITY,
        DEFAULT_STORAGE_CLASS,
        STORAGE_PROTECTION,
        CLAIM_RESIZE,
        MUTATING_WEBHOOK,
        VALIDATING_POLICY,
        VALIDATING_WEBHOOK,
        RESOURCE_QUOTA,
    }
)


class AdmissionPluginError(ValueError):
    """The switches named a plugin kube-apiserver does not know; ``str()`` is its error text."""


def default_enabled() -> tuple[str, ...]:
    """The default-on plugins in the order kube-apiserver lists (and runs) them."""
    return tuple(name for name in ALL_ORDERED_PLUGINS if name in DEFAULT_ON_PLUGINS)


def _split(values: Iterable[str]) -> list[str]:
    """A ``StringSlice`` flag: each value is comma-separated, repeats add up."""
    names: list[str] = []
    for value in values:
        names.extend(name.strip() for name in value.split(",") if name.strip())
    return names


def enabled_plugins(enable: Iterable[str] = (), disable: Iterable[str] = ()) -> frozenset[str]:
    """The plugins on after the two switches, or :class:`AdmissionPluginError` with kube-apiserver's text."""
    enabled, disabled = _split(enable), _split(disable)
    errors = [
        f'enable-admission-plugins plugin "{name}" is unknown' for name in enabled if name not in ALL_ORDERED_PLUGINS
    ]
    errors += [
        f'disable-admission-plugins plugin "{name}" is unknown' for name in disabled if name not in ALL_ORDERED_PLUGINS
    ]
    overlap = sorted(set(enabled) & set(disabled))
    if overlap:
        errors.append(f"[{' '.join(overlap)}] in enable-admission-plugins and disable-admission-plugins overlapped")
    if errors:
        raise AdmissionPluginError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
    return frozenset(
        name for name in ALL_ORDERED_PLUGINS if (name in DEFAULT_ON_PLUGINS or name in enabled) and name not in disabled
    )
