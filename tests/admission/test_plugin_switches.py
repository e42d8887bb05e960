"""kube-apiserver's --enable-admission-plugins and --disable-admission-plugins, in the API and the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from fakeapi.server import FakeAPIServer
from tests.admission.conftest import WebhookServer, allow, configuration, webhook
from tests.conftest import RawClient

REPOSITORY = Path(__file__).resolve().parents[2]
PODS = "/api/v1/namespaces/default/pods"
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p"},
    "spec": {"containers": [{"name": "a", "image": "x"}]},
}


def test_the_default_plugins_are_kube_apiservers() -> None:
    server = FakeAPIServer()
    assert {
        "NamespaceLifecycle",
        "ServiceAccount",
        "Priority",
        "MutatingAdmissionWebhook",
        "ValidatingAdmissionWebhook",
    } <= server.admission_plugins
    assert "AlwaysPullImages" not in server.admission_plugins
    assert "AlwaysPullImages" in FakeAPIServer(enable_admission_plugins=["AlwaysPullImages"]).admission_plugins


# A 1.32 kube-apiserver's --enable-admission-plugins help: the default-on plugins in the order it runs
# them, then every name it registers (sorted); docs/admission.md says where the list was checked.
DEFAULT_ON_1_32 = [
    "NamespaceLifecycle",
    "LimitRanger",
    "ServiceAccount",
    "TaintNodesByCondition",
    "PodSecurity",
    "Priority",
    "DefaultTolerationSeconds",
    "DefaultStorageClass",
    "StorageObjectInUseProtection",
    "PersistentVolumeClaimResize",
    "RuntimeClass",
    "CertificateApproval",
    "CertificateSigning",
    "ClusterTrustBundleAttest",
    "CertificateSubjectRestriction",
    "DefaultIngressClass",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionWebhook",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook",
    "ResourceQuota",
]
REGISTERED_1_32 = [
    "AlwaysAdmit",
    "AlwaysDeny",
    "AlwaysPullImages",
    "CertificateApproval",
    "CertificateSigning",
    "CertificateSubjectRestriction",
    "ClusterTrustBundleAttest",
    "DefaultIngressClass",
    "DefaultStorageClass",
    "DefaultTolerationSeconds",
    "DenyServiceExternalIPs",
    "EventRateLimit",
    "ExtendedResourceToleration",
    "ImagePolicyWebhook",
    "LimitPodHardAntiAffinityTopology",
    "LimitRanger",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionWebhook",
    "NamespaceAutoProvision",
    "NamespaceExists",
    "NamespaceLifecycle",
    "NodeRestriction",
    "OwnerReferencesPermissionEnforcement",
    "PersistentVolumeClaimResize",
    "PodNodeSelector",
    "PodSecurity",
    "PodTolerationRestriction",
    "Priority",
    "ResourceQuota",
    "RuntimeClass",
    "ServiceAccount",
    "StorageObjectInUseProtection",
    "TaintNodesByCondition",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook",
]


def test_the_plugin_names_and_defaults_are_those_of_1_32() -> None:
    assert FakeAPIServer().admission_plugins == frozenset(DEFAULT_ON_1_32)
    everything = FakeAPIServer(enable_admission_plugins=[",".join(REGISTERED_1_32)]).admission_plugins
    assert everything == frozenset(REGISTERED_1_32)
    for later in ("PodTopologyLabels", "PodGroupProtection", "DisableServiceLinks"):
        with pytest.raises(ValueError, match=f'^enable-admission-plugins plugin "{later}" is unknown$'):
            FakeAPIServer(enable_admission_plugins=[later])


@pytest.mark.parametrize(
    ("enable", "disable", "message"),
    [
        (["Nope"], [], 'enable-admission-plugins plugin "Nope" is unknown'),
        ([], ["ServiceAccount,Nope"], 'disable-admission-plugins plugin "Nope" is unknown'),
        (["Priority"], ["Priority"], "[Priority] in enable-admission-plugins and disable-admission-plugins overlapped"),
        (
            ["A"],
            ["B"],
            '[enable-admission-plugins plugin "A" is unknown, disable-admission-plugins plugin "B" is unknown]',
        ),
    ],
)
def test_an_unknown_plugin_is_kube_apiservers_error(enable: list[str], disable: list[str], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        FakeAPIServer(enable_admission_plugins=enable, disable_admission_plugins=disable)
    assert str(raised.value) == message


@pytest.mark.asyncio
async def test_disabled_plugins_do_nothing(hooks: WebhookServer) -> None:
    hooks.answers["/deny"] = allow(allowed=False)
    disabled = ["ValidatingAdmissionWebhook,ServiceAccount", "NamespaceLifecycle"]
    async with FakeAPIServer(disable_admission_plugins=disabled) as server, aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        config = configuration(
            "ValidatingWebhookConfiguration",
            "v",
            webhook("deny.example.com", hooks.client_config("/deny"), resources=["*"]),
        )
        assert (
            await client.post("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", config)
        ).status == 201
        created = await client.post(PODS, POD)
        assert created.status == 201, created.body
        assert "serviceAccountName" not in created.json()["spec"]
        assert "volumes" not in created.json()["spec"]
        elsewhere = await client.post(
            "/api/v1/namespaces/nowhere/configmaps",
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
        )
        assert elsewhere.status == 201
        assert hooks.received == []


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    return subprocess.run(
        [sys.executable, "-m", "fakeapi", "serve", *args], capture_output=True, text=True, env=environment, timeout=60
    )


def test_fakeapi_serve_refuses_an_unknown_plugin_as_kube_apiserver_does() -> None:
    done = serve("--enable-admission-plugins", "AlwaysPullImages,Nope")
    assert (done.returncode, done.stdout, done.stderr) == (
        1,
        "",
        'Error: enable-admission-plugins plugin "Nope" is unknown\n',
    )


def test_fakeapi_serve_help_names_the_switches() -> None:
    done = serve("--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "--enable-admission-plugins NAMES" in text
    assert "--disable-admission-plugins NAMES" in text
    assert "--webhook-service NAMESPACE/NAME[:PORT]=HOST:PORT" in text
    assert "(NamespaceLifecycle, LimitRanger, ServiceAccount, TaintNodesByCondition, PodSecurity, Priority," in text


def test_fakeapi_serve_refuses_a_malformed_webhook_service() -> None:
    done = serve("--webhook-service", "hooks=127.0.0.1:9443")
    assert done.returncode == 2
    assert "a webhook service must be namespace/name[:port], not 'hooks'" in done.stderr
