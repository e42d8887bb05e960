"""The real kubectl over the built-in kinds a 1.32 kube-apiserver serves: discovery and the generators.

Shares ``test_kubectl``'s session (one ``fakeapi serve`` per module). The generators (``kubectl
create role``, ``create token``, ``autoscale``, ...) send their objects as protobuf, so each one
that succeeds is a kind whose protobuf message decodes.
"""

from __future__ import annotations

import base64
import json
import re

from tests.clients.test_kubectl import Kubectl, kubectl, table

__all__ = ["kubectl"]

# `kubectl api-resources` against a kube-apiserver 1.32 with its default groups.
API_RESOURCES = """\
NAME                                SHORTNAMES   APIVERSION                        NAMESPACED   KIND
bindings                                         v1                                true         Binding
componentstatuses                   cs           v1                                false        ComponentStatus
configmaps                          cm           v1                                true         ConfigMap
endpoints                           ep           v1                                true         Endpoints
events                              ev           v1                                true         Event
limitranges                         limits       v1                                true         LimitRange
namespaces                          ns           v1                                false        Namespace
nodes                               no           v1                                false        Node
persistentvolumeclaims              pvc          v1                                true         PersistentVolumeClaim
persistentvolumes                   pv           v1                                false        PersistentVolume
pods                                po           v1                                true         Pod
podtemplates                                     v1                                true         PodTemplate
replicationcontrollers              rc           v1                                true         ReplicationController
resourcequotas                      quota        v1                                true         ResourceQuota
secrets                                          v1                                true         Secret
serviceaccounts                     sa           v1                                true         ServiceAccount
services                            svc          v1                                true         Service
mutatingwebhookconfigurations                    admissionregistration.k8s.io/v1   false        MutatingWebhookConfiguration
validatingadmissionpolicies                      admissionregistration.k8s.io/v1   false        ValidatingAdmissionPolicy
validatingadmissionpolicybindings                admissionregistration.k8s.io/v1   false        ValidatingAdmissionPolicyBinding
validatingwebhookconfigurations                  admissionregistration.k8s.io/v1   false        ValidatingWebhookConfiguration
customresourcedefinitions           crd,crds     apiextensions.k8s.io/v1           false        CustomResourceDefinition
apiservices                                      apiregistration.k8s.io/v1         false        APIService
controllerrevisions                              apps/v1                           true         ControllerRevision
daemonsets                          ds           apps/v1                           true         DaemonSet
deployments                         deploy       apps/v1                           true         Deployment
replicasets                         rs           apps/v1                           true         ReplicaSet
statefulsets                        sts          apps/v1                           true         StatefulSet
selfsubjectreviews                               authentication.k8s.io/v1          false        SelfSubjectReview
tokenreviews                                     authentication.k8s.io/v1          false        TokenReview
localsubjectaccessreviews                        authorization.k8s.io/v1           true         LocalSubjectAccessReview
selfsubjectaccessreviews                         authorization.k8s.io/v1           false        SelfSubjectAccessReview
selfsubjectrulesreviews                          authorization.k8s.io/v1           false        SelfSubjectRulesReview
subjectaccessreviews                             authorization.k8s.io/v1           false        SubjectAccessReview
horizontalpodautoscalers            hpa          autoscaling/v2                    true         HorizontalPodAutoscaler
cronjobs                            cj           batch/v1                          true         CronJob
jobs                                             batch/v1                          true         Job
certificatesigningrequests          csr          certificates.k8s.io/v1            false        CertificateSigningRequest
leases                                           coordination.k8s.io/v1            true         Lease
endpointslices                                   discovery.k8s.io/v1               true         EndpointSlice
events                              ev           events.k8s.io/v1                  true         Event
flowschemas                                      flowcontrol.apiserver.k8s.io/v1   false        FlowSchema
prioritylevelconfigurations                      flowcontrol.apiserver.k8s.io/v1   false        PriorityLevelConfiguration
ingressclasses                                   networking.k8s.io/v1              false        IngressClass
ingresses                           ing          networking.k8s.io/v1              true         Ingress
networkpolicies                     netpol       networking.k8s.io/v1              true         NetworkPolicy
runtimeclasses                                   node.k8s.io/v1                    false        RuntimeClass
poddisruptionbudgets                pdb          policy/v1                         true         PodDisruptionBudget
clusterrolebindings                              rbac.authorization.k8s.io/v1      false        ClusterRoleBinding
clusterroles                                     rbac.authorization.k8s.io/v1      false        ClusterRole
rolebindings                                     rbac.authorization.k8s.io/v1      true         RoleBinding
roles                                            rbac.authorization.k8s.io/v1      true         Role
priorityclasses                     pc           scheduling.k8s.io/v1              false        PriorityClass
csidrivers                                       storage.k8s.io/v1                 false        CSIDriver
csinodes                                         storage.k8s.io/v1                 false        CSINode
csistoragecapacities                             storage.k8s.io/v1                 true         CSIStorageCapacity
storageclasses                      sc           storage.k8s.io/v1                 false        StorageClass
volumeattachments                                storage.k8s.io/v1                 false        VolumeAttachment
"""


def test_api_resources_lists_every_built_in_resource_of_1_32(kubectl: Kubectl) -> None:
    assert kubectl.ok("api-resources") == API_RESOURCES


def test_the_generators_create_rbac_objects(kubectl: Kubectl) -> None:
    assert kubectl.ok("create", "role", "gen-reader", "--verb=get,list", "--resource=pods") == (
        "role.rbac.authorization.k8s.io/gen-reader created\n"
    )
    assert kubectl.ok("create", "rolebinding", "gen-reader", "--role=gen-reader", "--user=jane") == (
        "rolebinding.rbac.authorization.k8s.io/gen-reader created\n"
    )
    assert kubectl.ok("create", "clusterrole", "gen-viewer", "--verb=get", "--resource=nodes") == (
        "clusterrole.rbac.authorization.k8s.io/gen-viewer created\n"
    )
    assert kubectl.ok("create", "clusterrolebinding", "gen-viewer", "--clusterrole=gen-viewer", "--group=ops") == (
        "clusterrolebinding.rbac.authorization.k8s.io/gen-viewer created\n"
    )
    role = json.loads(kubectl.ok("get", "role", "gen-reader", "-o", "json"))
    assert role["rules"] == [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]
    binding = json.loads(kubectl.ok("get", "rolebinding", "gen-reader", "-o", "json"))
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "gen-reader"}
    assert binding["subjects"] == [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "jane"}]
    assert re.fullmatch(r"NAME\s+CREATED AT\ngen-viewer\s+\S+Z\n", kubectl.ok("get", "clusterrole", "gen-viewer"))


def test_the_generators_create_policy_scheduling_and_networking_objects(kubectl: Kubectl) -> None:
    created = [
        kubectl.ok("create", "pdb", "gen-pdb", "--selector=app=gen", "--min-available=1"),
        kubectl.ok("create", "priorityclass", "gen-high", "--value=1000", "--description=important"),
        kubectl.ok("create", "quota", "gen-quota", "--hard=pods=4,requests.cpu=2"),
        kubectl.ok("create", "ingress", "gen-web", "--rule=example.com/app=web:8080"),
        kubectl.ok("create", "cronjob", "gen-nightly", "--image=busybox:1.36", "--schedule=0 3 * * *"),
    ]
    assert created == [
        "poddisruptionbudget.policy/gen-pdb created\n",
        "priorityclass.scheduling.k8s.io/gen-high created\n",
        "resourcequota/gen-quota created\n",
        "ingress.networking.k8s.io/gen-web created\n",
        "cronjob.batch/gen-nightly created\n",
    ]
    quota = json.loads(kubectl.ok("get", "quota", "gen-quota", "-o", "json"))
    assert quota["spec"] == {"hard": {"pods": "4", "requests.cpu": "2"}}
    pdb = json.loads(kubectl.ok("get", "pdb", "gen-pdb", "-o", "json"))
    assert pdb["spec"] == {"minAvailable": 1, "selector": {"matchLabels": {"app": "gen"}}}
    assert pdb["metadata"]["generation"] == 1
    cronjob = json.loads(kubectl.ok("get", "cronjob", "gen-nightly", "-o", "json"))
    assert cronjob["spec"]["schedule"] == "0 3 * * *"
    assert table(kubectl.ok("get", "priorityclass", "gen-high", "-o", "name")) == [
        "priorityclass.scheduling.k8s.io/gen-high"
    ]


def test_autoscale_creates_a_horizontal_pod_autoscaler(kubectl: Kubectl) -> None:
    kubectl.ok("create", "deployment", "gen-scaled", "--image=nginx:1.27")
    assert kubectl.ok("autoscale", "deployment", "gen-scaled", "--max=3", "--cpu-percent=60") == (
        "horizontalpodautoscaler.autoscaling/gen-scaled autoscaled\n"
    )
    hpa = json.loads(kubectl.ok("get", "hpa.v1.autoscaling", "gen-scaled", "-o", "json"))
    assert hpa["spec"] == {
        "scaleTargetRef": {"kind": "Deployment", "name": "gen-scaled", "apiVersion": "apps/v1"},
        "minReplicas": 1,
        "maxReplicas": 3,
        "targetCPUUtilizationPercentage": 60,
    }


def test_create_token_and_auth_commands(kubectl: Kubectl) -> None:
    kubectl.ok("create", "serviceaccount", "gen-robot")
    token = kubectl.ok("create", "token", "gen-robot", "--duration=20m").strip()
    payload = token.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims["sub"] == "system:serviceaccount:default:gen-robot"
    assert claims["exp"] - claims["iat"] == 1200
    short = kubectl.fails("create", "token", "gen-robot", "--duration=1m")
    assert short.stderr == (
        'error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: '
        "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes\n"
    )
    assert table(kubectl.ok("auth", "whoami")) == [
        "ATTRIBUTE   VALUE",
        "Username    system:anonymous",
        "Groups      [system:unauthenticated]",
    ]
    assert kubectl.ok("auth", "can-i", "delete", "deployments") == "yes\n"
    assert table(kubectl.ok("auth", "can-i", "--list"))[:3] == [
        "Resources   Non-Resource URLs   Resource Names   Verbs",
        "*.*         []                  []               [*]",
        "            [*]                 []               [*]",
    ]


def test_logs_and_exec_of_a_pod_on_no_node(kubectl: Kubectl) -> None:
    kubectl.ok("run", "gen-pod", "--image=busybox:1.36", "--labels=suite=gen")
    assert kubectl.ok("logs", "gen-pod") == ""
    failed = kubectl.fails("exec", "gen-pod", "--", "ls")
    assert failed.stderr == "Error from server (BadRequest): pod gen-pod does not have a host assigned\n"


def test_scale_of_the_built_in_workloads(kubectl: Kubectl) -> None:
    statefulset = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "gen-db"},
        "spec": {
            "replicas": 1,
            "serviceName": "gen-db",
            "selector": {"matchLabels": {"app": "gen-db"}},
            "template": {
                "metadata": {"labels": {"app": "gen-db"}},
                "spec": {"containers": [{"name": "db", "image": "postgres:16"}]},
            },
        },
    }
    kubectl.ok("apply", "-f", "-", stdin=json.dumps(statefulset))
    assert kubectl.ok("scale", "statefulset", "gen-db", "--replicas=3") == "statefulset.apps/gen-db scaled\n"
    assert kubectl.ok("get", "statefulset", "gen-db", "-o", "jsonpath={.spec.replicas}") == "3"
    scale = json.loads(kubectl.ok("get", "--raw", "/apis/apps/v1/namespaces/default/statefulsets/gen-db/scale"))
    assert scale["status"]["selector"] == "app=gen-db"


def keys_in_order(text: str, *path: str | int) -> list[str]:
    """The keys of the object at ``path`` in the order the server wrote them."""
    value = json.loads(text, object_pairs_hook=lambda pairs: pairs)
    for step in path:
        value = dict(value)[step] if isinstance(step, str) else value[step]
    return [key for key, _ in value]


def test_built_in_objects_read_back_in_the_apiservers_key_order(kubectl: Kubectl) -> None:
    kubectl.ok("create", "namespace", "order")
    kubectl.ok("create", "configmap", "order-cm", "-n", "order", "--from-literal=b=2", "--from-literal=a=1")
    kubectl.ok("create", "deployment", "order-web", "-n", "order", "--image=nginx:1.27", "--replicas=2")
    kubectl.ok("create", "service", "clusterip", "order-web", "-n", "order", "--tcp=80:8080")
    kubectl.ok("run", "order-pod", "-n", "order", "--image=busybox:1.36", "--labels=suite=order")
    meta = ["name", "namespace", "uid", "resourceVersion", "creationTimestamp"]

    configmap = kubectl.ok("get", "--raw", "/api/v1/namespaces/order/configmaps/order-cm")
    assert keys_in_order(configmap) == ["kind", "apiVersion", "metadata", "data"]
    assert keys_in_order(configmap, "metadata") == [*meta, "managedFields"]
    assert keys_in_order(configmap, "metadata", "managedFields", 0) == [
        "manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1",
    ]  # fmt: skip
    assert keys_in_order(configmap, "data") == ["a", "b"]

    deployment = kubectl.ok("get", "--raw", "/apis/apps/v1/namespaces/order/deployments/order-web")
    assert keys_in_order(deployment) == ["kind", "apiVersion", "metadata", "spec", "status"]
    assert keys_in_order(deployment, "metadata") == ["name", "namespace", "uid", "resourceVersion", "generation",
                                                     "creationTimestamp", "labels", "managedFields"]  # fmt: skip
    assert keys_in_order(deployment, "spec") == [
        "replicas", "selector", "template", "strategy", "revisionHistoryLimit", "progressDeadlineSeconds",
    ]  # fmt: skip
    assert keys_in_order(deployment, "spec", "template", "spec") == [
        "containers", "restartPolicy", "terminationGracePeriodSeconds", "dnsPolicy", "securityContext", "schedulerName",
    ]  # fmt: skip
    assert keys_in_order(deployment, "spec", "template", "spec", "containers", 0) == [
        "name", "image", "resources", "terminationMessagePath", "terminationMessagePolicy", "imagePullPolicy",
    ]  # fmt: skip

    service = kubectl.ok("get", "--raw", "/api/v1/namespaces/order/services/order-web")
    assert keys_in_order(service, "spec") == [
        "ports", "selector", "clusterIP", "clusterIPs", "type", "sessionAffinity", "ipFamilies", "ipFamilyPolicy",
        "internalTrafficPolicy",
    ]  # fmt: skip
    assert keys_in_order(service, "spec", "ports", 0) == ["name", "protocol", "port", "targetPort"]

    pod = kubectl.ok("get", "--raw", "/api/v1/namespaces/order/pods/order-pod")
    assert keys_in_order(pod) == ["kind", "apiVersion", "metadata", "spec", "status"]
    # ServiceAccount admission adds the token volume and the account's name (docs/bootstrap.md).
    assert keys_in_order(pod, "spec") == [
        "volumes", "containers", "restartPolicy", "terminationGracePeriodSeconds", "dnsPolicy",
        "serviceAccountName", "serviceAccount", "securityContext", "schedulerName", "tolerations", "priority",
        "enableServiceLinks", "preemptionPolicy",
    ]  # fmt: skip
    assert keys_in_order(pod, "spec", "tolerations", 0) == ["key", "operator", "effect", "tolerationSeconds"]
    assert keys_in_order(pod, "status") == ["phase", "qosClass"]
    listed = kubectl.ok("get", "--raw", "/api/v1/namespaces/order/pods")
    assert keys_in_order(listed) == ["kind", "apiVersion", "metadata", "items"]
    assert keys_in_order(listed, "items", 0) == ["metadata", "spec", "status"]
    kubectl.ok("delete", "namespace", "order", "--wait=false")


def test_kubectl_scale_owns_the_replicas_through_the_scale_subresource(kubectl: Kubectl) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "scaled-owner"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "scaled-owner"}},
            "template": {
                "metadata": {"labels": {"app": "scaled-owner"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
        },
    }
    kubectl.ok("apply", "--server-side", "-f", "-", stdin=json.dumps(deployment))
    assert kubectl.ok("scale", "deployment", "scaled-owner", "--replicas=3") == "deployment.apps/scaled-owner scaled\n"
    stored = json.loads(kubectl.ok("get", "deployment", "scaled-owner", "-o", "json", "--show-managed-fields"))
    scale_entries = [entry for entry in stored["metadata"]["managedFields"] if entry.get("subresource") == "scale"]
    assert [(entry["manager"], entry["operation"]) for entry in scale_entries] == [("kubectl", "Update")]
    assert scale_entries[0]["fieldsV1"] == {"f:spec": {"f:replicas": {}}}

    refused = kubectl.fails("apply", "--server-side", "-f", "-", stdin=json.dumps(deployment))
    assert 'conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas' in refused.stderr
