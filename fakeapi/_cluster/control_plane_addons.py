"""The addons a kind cluster's ``kube-system`` holds at boot, as their installers create them
(docs/control-plane-pods.md).

kubeadm's CoreDNS addon (``cmd/kubeadm/app/phases/addons/dns/manifests.go``: the ``coredns``
ServiceAccount, ConfigMap with the Corefile and Deployment of two replicas, and the ``kube-dns``
Service at the tenth address of the service range), kubeadm's kube-proxy addon
(``phases/addons/proxy/manifests.go``: its ServiceAccount and DaemonSet) and kind's CNI
(``pkg/build/nodeimage/const_cni.go``: the ``kindnet`` ServiceAccount and DaemonSet, created with
``kubectl create``). Each comes with the field manager its writer's client names. The images are
those of the release the server is and of the kind release that shipped its node image.
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.kinds import builtin_type
from fakeapi._state.releases import kube_release
from fakeapi._state.resources import ResourceType

__all__ = ["COREDNS_CONFIG", "KUBE_DNS_IP", "KUBE_SYSTEM", "addon_objects"]

KUBE_SYSTEM = "kube-system"
KUBE_DNS_IP = "10.96.0.10"
_KUBEADM, _KUBECTL_CREATE = "kubeadm", "kubectl-create"
# kubeadm's CoreDNSVersion per release; kind's kindnetd image per the kind release whose default node
# image is that release (v0.26.0: v1.32.0, v0.29.0: v1.33.1, v0.30.0: v1.34.0).
_COREDNS_VERSIONS = {"1.32": "v1.11.3", "1.33": "v1.12.0", "1.34": "v1.12.1"}
_KINDNETD_IMAGES = {
    "1.32": "docker.io/kindest/kindnetd:v20241212-9f82dd49",
    "1.33": "docker.io/kindest/kindnetd:v20250512-df8de77b",
    "1.34": "docker.io/kindest/kindnetd:v20250512-df8de77b",
}
_POD_SUBNET = "10.244.0.0/16"
COREDNS_CONFIG = """\
.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30 {
       disable success cluster.local
       disable denial cluster.local
    }
    loop
    reload
    loadbalance
}
"""
_LINUX = {"kubernetes.io/os": "linux"}
_XTABLES_LOCK = {"name": "xtables-lock", "hostPath": {"path": "/run/xtables.lock", "type": "FileOrCreate"}}
_LIB_MODULES = {"name": "lib-modules", "hostPath": {"path": "/lib/modules"}}


def addon_objects(version: str) -> list[tuple[ResourceType, dict[str, Any], str]]:
    """(resource type, object, field manager) in the order their installers create them."""
    service_accounts = builtin_type("", "v1", "ServiceAccount")
    daemon_sets = builtin_type("apps", "v1", "DaemonSet")
    return [
        (service_accounts, _service_account("coredns"), _KUBEADM),
        (builtin_type("", "v1", "ConfigMap"), _coredns_config_map(), _KUBEADM),
        (builtin_type("apps", "v1", "Deployment"), _coredns_deployment(version), _KUBEADM),
        (builtin_type("", "v1", "Service"), _kube_dns_service(), _KUBEADM),
        (service_accounts, _service_account("kube-proxy"), _KUBEADM),
        (daemon_sets, _kube_proxy_daemon_set(version), _KUBEADM),
        (service_accounts, _service_account("kindnet"), _KUBECTL_CREATE),
        (daemon_sets, _kindnet_daemon_set(version), _KUBECTL_CREATE),
    ]


def _service_account(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name, "namespace": KUBE_SYSTEM}}


def _coredns_config_map() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "coredns", "namespace": KUBE_SYSTEM},
        "data": {"Corefile": COREDNS_CONFIG},
    }


def _coredns_deployment(version: str) -> dict[str, Any]:
    dns_port = {"containerPort": 53, "name": "dns", "protocol": "UDP"}
    anti_affinity = {
        "weight": 100,
        "podAffinityTerm": {
            "labelSelector": {"matchExpressions": [{"key": "k8s-app", "operator": "In", "values": ["kube-dns"]}]},
            "topologyKey": "kubernetes.io/hostname",
        },
    }
    container = {
        "name": "coredns",
        "image": f"registry.k8s.io/coredns/coredns:{_COREDNS_VERSIONS[version]}",
        "imagePullPolicy": "IfNotPresent",
        "resources": {"limits": {"memory": "170Mi"}, "requests": {"cpu": "100m", "memory": "70Mi"}},
        "args": ["-conf", "/etc/coredns/Corefile"],
        "volumeMounts": [{"name": "config-volume", "mountPath": "/etc/coredns", "readOnly": True}],
        "ports": [
            dns_port,
            {**dns_port, "name": "dns-tcp", "protocol": "TCP"},
            {"containerPort": 9153, "name": "metrics", "protocol": "TCP"},
        ],
        "livenessProbe": {
            "httpGet": {"path": "/health", "port": 8080, "scheme": "HTTP"},
            "initialDelaySeconds": 60,
            "timeoutSeconds": 5,
            "successThreshold": 1,
            "failureThreshold": 5,
        },
        "readinessProbe": {"httpGet": {"path": "/ready", "port": 8181, "scheme": "HTTP"}},
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "capabilities": {"add": ["NET_BIND_SERVICE"], "drop": ["ALL"]},
            "readOnlyRootFilesystem": True,
        },
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "coredns", "namespace": KUBE_SYSTEM, "labels": {"k8s-app": "kube-dns"}},
        "spec": {
            "replicas": 2,
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
            "selector": {"matchLabels": {"k8s-app": "kube-dns"}},
            "template": {
                "metadata": {"labels": {"k8s-app": "kube-dns"}},
                "spec": {
                    "priorityClassName": "system-cluster-critical",
                    "serviceAccountName": "coredns",
                    "affinity": {
                        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [anti_affinity]}
                    },
                    "tolerations": [
                        {"key": "CriticalAddonsOnly", "operator": "Exists"},
                        {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"},
                    ],
                    "nodeSelector": dict(_LINUX),
                    "containers": [container],
                    "dnsPolicy": "Default",
                    "volumes": [
                        {
                            "name": "config-volume",
                            "configMap": {"name": "coredns", "items": [{"key": "Corefile", "path": "Corefile"}]},
                        }
                    ],
                },
            },
        },
    }


def _kube_dns_service() -> dict[str, Any]:
    def port(name: str, number: int, protocol: str) -> dict[str, Any]:
        return {"name": name, "port": number, "protocol": protocol, "targetPort": number}

    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": "kube-dns",
            "namespace": KUBE_SYSTEM,
            "labels": {"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true", "kubernetes.io/name": "CoreDNS"},
            "annotations": {"prometheus.io/port": "9153", "prometheus.io/scrape": "true"},
        },
        "spec": {
            "clusterIP": KUBE_DNS_IP,
            "ports": [port("dns", 53, "UDP"), port("dns-tcp", 53, "TCP"), port("metrics", 9153, "TCP")],
            "selector": {"k8s-app": "kube-dns"},
        },
    }


def _kube_proxy_daemon_set(version: str) -> dict[str, Any]:
    container = {
        "name": "kube-proxy",
        "image": f"registry.k8s.io/kube-proxy:{kube_release(version).git_version}",
        "imagePullPolicy": "IfNotPresent",
        "command": [
            "/usr/local/bin/kube-proxy",
            "--config=/var/lib/kube-proxy/config.conf",
            "--hostname-override=$(NODE_NAME)",
        ],
        "securityContext": {"privileged": True},
        "volumeMounts": [
            {"mountPath": "/var/lib/kube-proxy", "name": "kube-proxy"},
            {"mountPath": "/run/xtables.lock", "name": "xtables-lock", "readOnly": False},
            {"mountPath": "/lib/modules", "name": "lib-modules", "readOnly": True},
        ],
        "env": [{"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
    }
    return _daemon_set(
        "kube-proxy",
        {"k8s-app": "kube-proxy"},
        {"k8s-app": "kube-proxy"},
        {
            "containers": [container],
            "hostNetwork": True,
            "serviceAccountName": "kube-proxy",
            "volumes": [{"name": "kube-proxy", "configMap": {"name": "kube-proxy"}}, _XTABLES_LOCK, _LIB_MODULES],
            "tolerations": [{"operator": "Exists"}],
            "nodeSelector": dict(_LINUX),
            "priorityClassName": "system-node-critical",
        },
        update_strategy={"type": "RollingUpdate"},
    )


def _kindnet_daemon_set(version: str) -> dict[str, Any]:
    requests = {"cpu": "100m", "memory": "50Mi"}

    def from_field(name: str, path: str) -> dict[str, Any]:
        return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}

    container = {
        "name": "kindnet-cni",
        "image": _KINDNETD_IMAGES[version],
        "env": [
            from_field("HOST_IP", "status.hostIP"),
            from_field("POD_IP", "status.podIP"),
            {"name": "POD_SUBNET", "value": _POD_SUBNET},
        ],
        "volumeMounts": [
            {"name": "cni-cfg", "mountPath": "/etc/cni/net.d"},
            {"name": "xtables-lock", "mountPath": "/run/xtables.lock", "readOnly": False},
            {"name": "lib-modules", "mountPath": "/lib/modules", "readOnly": True},
        ],
        "resources": {"requests": requests, "limits": dict(requests)},
        "securityContext": {"privileged": False, "capabilities": {"add": ["NET_RAW", "NET_ADMIN"]}},
    }
    labels = {"tier": "node", "app": "kindnet", "k8s-app": "kindnet"}
    return _daemon_set(
        "kindnet",
        labels,
        {"app": "kindnet"},
        {
            "hostNetwork": True,
            "nodeSelector": dict(_LINUX),
            "tolerations": [{"operator": "Exists"}],
            "serviceAccountName": "kindnet",
            "containers": [container],
            "volumes": [{"name": "cni-cfg", "hostPath": {"path": "/etc/cni/net.d"}}, _XTABLES_LOCK, _LIB_MODULES],
        },
    )


def _daemon_set(
    name: str,
    labels: dict[str, str],
    selector: dict[str, str],
    pod_spec: dict[str, Any],
    update_strategy: dict[str, Any] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "selector": {"matchLabels": selector},
        "template": {"metadata": {"labels": dict(labels)}, "spec": pod_spec},
    }
    if update_strategy is not None:
        spec["updateStrategy"] = update_strategy
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": KUBE_SYSTEM, "labels": dict(labels)},
        "spec": spec,
    }
