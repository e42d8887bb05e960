"""The messages of the built-in kinds fakeapi serves, as Kubernetes 1.32 sends them in protobuf.

Data only: one entry per message, its fields in Go struct order (the order ``encoding/json``
writes them), each as ``<number> <json name> <type><presence>``, separated by ``, ``.

- Field numbers and wire types are those of the ``generated.proto`` files of ``k8s.io/api`` v0.32
  (``core/v1``, ``apps/v1``, ``batch/v1``, ``events/v1``, ``coordination/v1``,
  ``authorization/v1``) and ``k8s.io/apimachinery`` (``pkg/apis/meta/v1``); JSON names and presence
  those of the Go struct tags and field types in the same packages' ``types.go``. Both were read
  from kubectl v1.32.4 itself (its compiled file descriptors and Go type information), so they are
  what that client sends.
- Types: ``s`` string, ``i32``/``i64`` varint integers, ``b`` bool, ``bytes`` (base64 in JSON),
  ``Time``, ``MicroTime``, ``Quantity``, ``IntOrString``, ``FieldsV1`` (their JSON is their own
  ``MarshalJSON``), or the name of another message. ``[T]`` is a repeated field (a Go slice),
  ``{T}`` a map from string (repeated entries, key 1, value 2).
- Presence, which decides what Go's ``encoding/json`` writes for the decoded struct: no mark is a
  value field always written (a zero value if absent); ``?`` a value field with ``omitempty``
  (a zero scalar, an empty slice or map is left out; Go ignores ``omitempty`` on structs); ``*`` a
  pointer with ``omitempty`` (written exactly when present on the wire, zero or not); ``^`` a
  pointer without ``omitempty`` (``null`` when absent).
- The JSON name ``...`` is an embedded struct written inline (``json:",inline"``).

The whole closure of each kind is here, so a Pod template sent by any client keeps every field.
``events.`` names the events.k8s.io messages whose names core/v1 also uses.
"""

from __future__ import annotations

__all__ = ["ANY_VERSION_KINDS", "MESSAGES"]

# Each kind's descriptor names its message (``fakeapi._state.kinds``). DeleteOptions is accepted
# under any apiVersion, as every group version registers it (``metav1.AddToGroupVersion``).
ANY_VERSION_KINDS: dict[str, str] = {"DeleteOptions": "DeleteOptions"}

MESSAGES: dict[str, str] = {
    # k8s.io/apimachinery/pkg/apis/meta/v1
    "Condition": "1 type s, 2 status s, 3 observedGeneration i64?, 4 lastTransitionTime Time, 5 reason s, 6 message s",
    "DeleteOptions": (
        "1 gracePeriodSeconds i64*, 2 preconditions Preconditions*, 3 orphanDependents b*, 4 propagationPolicy s*, "
        "5 dryRun [s]?, 6 ignoreStoreReadErrorWithClusterBreakingPotential b*"
    ),
    "FieldSelectorRequirement": "1 key s, 2 operator s, 3 values [s]?",
    "LabelSelector": "1 matchLabels {s}?, 2 matchExpressions [LabelSelectorRequirement]?",
    "LabelSelectorRequirement": "1 key s, 2 operator s, 3 values [s]?",
    "ManagedFieldsEntry": (
        "1 manager s?, 2 operation s?, 3 apiVersion s?, 4 time Time*, 6 fieldsType s?, 7 fieldsV1 FieldsV1*, "
        "8 subresource s?"
    ),
    "ObjectMeta": (
        "1 name s?, 2 generateName s?, 3 namespace s?, 4 selfLink s?, 5 uid s?, 6 resourceVersion s?, "
        "7 generation i64?, 8 creationTimestamp Time?, 9 deletionTimestamp Time*, "
        "10 deletionGracePeriodSeconds i64*, 11 labels {s}?, 12 annotations {s}?, "
        "13 ownerReferences [OwnerReference]?, 14 finalizers [s]?, 17 managedFields [ManagedFieldsEntry]?"
    ),
    "OwnerReference": "5 apiVersion s, 1 kind s, 3 name s, 4 uid s, 6 controller b*, 7 blockOwnerDeletion b*",
    "Preconditions": "1 uid s*, 2 resourceVersion s*",
    # k8s.io/api/core/v1
    "AWSElasticBlockStoreVolumeSource": "1 volumeID s, 2 fsType s?, 3 partition i32?, 4 readOnly b?",
    "Affinity": "1 nodeAffinity NodeAffinity*, 2 podAffinity PodAffinity*, 3 podAntiAffinity PodAntiAffinity*",
    "AppArmorProfile": "1 type s, 2 localhostProfile s*",
    "AzureDiskVolumeSource": "1 diskName s, 2 diskURI s, 3 cachingMode s*, 4 fsType s*, 5 readOnly b*, 6 kind s*",
    "AzureFileVolumeSource": "1 secretName s, 2 shareName s, 3 readOnly b?",
    "CSIVolumeSource": (
        "1 driver s, 2 readOnly b*, 3 fsType s*, 4 volumeAttributes {s}?, 5 nodePublishSecretRef LocalObjectReference*"
    ),
    "Capabilities": "1 add [s]?, 2 drop [s]?",
    "CephFSVolumeSource": (
        "1 monitors [s], 2 path s?, 3 user s?, 4 secretFile s?, 5 secretRef LocalObjectReference*, 6 readOnly b?"
    ),
    "CinderVolumeSource": "1 volumeID s, 2 fsType s?, 3 readOnly b?, 4 secretRef LocalObjectReference*",
    "ClientIPConfig": "1 timeoutSeconds i32*",
    "ClusterTrustBundleProjection": (
        "1 name s*, 2 signerName s*, 3 labelSelector LabelSelector*, 5 optional b*, 4 path s"
    ),
    "ConfigMap": "1 metadata ObjectMeta?, 4 immutable b*, 2 data {s}?, 3 binaryData {bytes}?",
    "ConfigMapEnvSource": "1 ... LocalObjectReference, 2 optional b*",
    "ConfigMapKeySelector": "1 ... LocalObjectReference, 2 key s, 3 optional b*",
    "ConfigMapProjection": "1 ... LocalObjectReference, 2 items [KeyToPath]?, 4 optional b*",
    "ConfigMapVolumeSource": "1 ... LocalObjectReference, 2 items [KeyToPath]?, 3 defaultMode i32*, 4 optional b*",
    "Container": (
        "1 name s, 2 image s?, 3 command [s]?, 4 args [s]?, 5 workingDir s?, 6 ports [ContainerPort]?, "
        "19 envFrom [EnvFromSource]?, 7 env [EnvVar]?, 8 resources ResourceRequirements?, "
        "23 resizePolicy [ContainerResizePolicy]?, 24 restartPolicy s*, 9 volumeMounts [VolumeMount]?, "
        "21 volumeDevices [VolumeDevice]?, 10 livenessProbe Probe*, 11 readinessProbe Probe*, "
        "22 startupProbe Probe*, 12 lifecycle Lifecycle*, 13 terminationMessagePath s?, "
        "20 terminationMessagePolicy s?, 14 imagePullPolicy s?, 15 securityContext SecurityContext*, 16 stdin b?, "
        "17 stdinOnce b?, 18 tty b?"
    ),
    "ContainerPort": "1 name s?, 2 hostPort i32?, 3 containerPort i32, 4 protocol s?, 5 hostIP s?",
    "ContainerResizePolicy": "1 resourceName s, 2 restartPolicy s",
    "ContainerState": (
        "1 waiting ContainerStateWaiting*, 2 running ContainerStateRunning*, 3 terminated ContainerStateTerminated*"
    ),
    "ContainerStateRunning": "1 startedAt Time?",
    "ContainerStateTerminated": (
        "1 exitCode i32, 2 signal i32?, 3 reason s?, 4 message s?, 5 startedAt Time?, 6 finishedAt Time?, "
        "7 containerID s?"
    ),
    "ContainerStateWaiting": "1 reason s?, 2 message s?",
    "ContainerStatus": (
        "1 name s, 2 state ContainerState?, 3 lastState ContainerState?, 4 ready b, 5 restartCount i32, 6 image s, "
        "7 imageID s, 8 containerID s?, 9 started b*, 10 allocatedResources {Quantity}?, "
        "11 resources ResourceRequirements*, 12 volumeMounts [VolumeMountStatus]?, 13 user ContainerUser*, "
        "14 allocatedResourcesStatus [ResourceStatus]?"
    ),
    "ContainerUser": "1 linux LinuxContainerUser*",
    "DownwardAPIProjection": "1 items [DownwardAPIVolumeFile]?",
    "DownwardAPIVolumeFile": (
        "1 path s, 2 fieldRef ObjectFieldSelector*, 3 resourceFieldRef ResourceFieldSelector*, 4 mode i32*"
    ),
    "DownwardAPIVolumeSource": "1 items [DownwardAPIVolumeFile]?, 2 defaultMode i32*",
    "EmptyDirVolumeSource": "1 medium s?, 2 sizeLimit Quantity*",
    "EnvFromSource": "1 prefix s?, 2 configMapRef ConfigMapEnvSource*, 3 secretRef SecretEnvSource*",
    "EnvVar": "1 name s, 2 value s?, 3 valueFrom EnvVarSource*",
    "EnvVarSource": (
        "1 fieldRef ObjectFieldSelector*, 2 resourceFieldRef ResourceFieldSelector*, "
        "3 configMapKeyRef ConfigMapKeySelector*, 4 secretKeyRef SecretKeySelector*"
    ),
    "EphemeralContainer": "1 ... EphemeralContainerCommon, 2 targetContainerName s?",
    "EphemeralContainerCommon": (
        "1 name s, 2 image s?, 3 command [s]?, 4 args [s]?, 5 workingDir s?, 6 ports [ContainerPort]?, "
        "19 envFrom [EnvFromSource]?, 7 env [EnvVar]?, 8 resources ResourceRequirements?, "
        "23 resizePolicy [ContainerResizePolicy]?, 24 restartPolicy s*, 9 volumeMounts [VolumeMount]?, "
        "21 volumeDevices [VolumeDevice]?, 10 livenessProbe Probe*, 11 readinessProbe Probe*, "
        "22 startupProbe Probe*, 12 lifecycle Lifecycle*, 13 terminationMessagePath s?, "
        "20 terminationMessagePolicy s?, 14 imagePullPolicy s?, 15 securityContext SecurityContext*, 16 stdin b?, "
        "17 stdinOnce b?, 18 tty b?"
    ),
    "EphemeralVolumeSource": "1 volumeClaimTemplate PersistentVolumeClaimTemplate*",
    "Event": (
        "1 metadata ObjectMeta, 2 involvedObject ObjectReference, 3 reason s?, 4 message s?, 5 source EventSource?, "
        "6 firstTimestamp Time?, 7 lastTimestamp Time?, 8 count i32?, 9 type s?, 10 eventTime MicroTime?, "
        "11 series EventSeries*, 12 action s?, 13 related ObjectReference*, 14 reportingComponent s, "
        "15 reportingInstance s"
    ),
    "EventSeries": "1 count i32?, 2 lastObservedTime MicroTime?",
    "EventSource": "1 component s?, 2 host s?",
    "ExecAction": "1 command [s]?",
    "FCVolumeSource": "1 targetWWNs [s]?, 2 lun i32*, 3 fsType s?, 4 readOnly b?, 5 wwids [s]?",
    "FlexVolumeSource": "1 driver s, 2 fsType s?, 3 secretRef LocalObjectReference*, 4 readOnly b?, 5 options {s}?",
    "FlockerVolumeSource": "1 datasetName s?, 2 datasetUUID s?",
    "GCEPersistentDiskVolumeSource": "1 pdName s, 2 fsType s?, 3 partition i32?, 4 readOnly b?",
    "GRPCAction": "1 port i32, 2 service s^",
    "GitRepoVolumeSource": "1 repository s, 2 revision s?, 3 directory s?",
    "GlusterfsVolumeSource": "1 endpoints s, 2 path s, 3 readOnly b?",
    "HTTPGetAction": "1 path s?, 2 port IntOrString, 3 host s?, 4 scheme s?, 5 httpHeaders [HTTPHeader]?",
    "HTTPHeader": "1 name s, 2 value s",
    "HostAlias": "1 ip s, 2 hostnames [s]?",
    "HostIP": "1 ip s",
    "HostPathVolumeSource": "1 path s, 2 type s*",
    "ISCSIVolumeSource": (
        "1 targetPortal s, 2 iqn s, 3 lun i32, 4 iscsiInterface s?, 5 fsType s?, 6 readOnly b?, 7 portals [s]?, "
        "8 chapAuthDiscovery b?, 11 chapAuthSession b?, 10 secretRef LocalObjectReference*, 12 initiatorName s*"
    ),
    "ImageVolumeSource": "1 reference s?, 2 pullPolicy s?",
    "KeyToPath": "1 key s, 2 path s, 3 mode i32*",
    "Lifecycle": "1 postStart LifecycleHandler*, 2 preStop LifecycleHandler*",
    "LifecycleHandler": (
        "1 exec ExecAction*, 2 httpGet HTTPGetAction*, 3 tcpSocket TCPSocketAction*, 4 sleep SleepAction*"
    ),
    "LinuxContainerUser": "1 uid i64, 2 gid i64, 3 supplementalGroups [i64]?",
    "LoadBalancerIngress": "1 ip s?, 2 hostname s?, 3 ipMode s*, 4 ports [PortStatus]?",
    "LoadBalancerStatus": "1 ingress [LoadBalancerIngress]?",
    "LocalObjectReference": "1 name s?",
    "NFSVolumeSource": "1 server s, 2 path s, 3 readOnly b?",
    "Namespace": "1 metadata ObjectMeta?, 2 spec NamespaceSpec?, 3 status NamespaceStatus?",
    "NamespaceCondition": "1 type s, 2 status s, 4 lastTransitionTime Time?, 5 reason s?, 6 message s?",
    "NamespaceSpec": "1 finalizers [s]?",
    "NamespaceStatus": "1 phase s?, 2 conditions [NamespaceCondition]?",
    "NodeAffinity": (
        "1 requiredDuringSchedulingIgnoredDuringExecution NodeSelector*, "
        "2 preferredDuringSchedulingIgnoredDuringExecution [PreferredSchedulingTerm]?"
    ),
    "NodeSelector": "1 nodeSelectorTerms [NodeSelectorTerm]",
    "NodeSelectorRequirement": "1 key s, 2 operator s, 3 values [s]?",
    "NodeSelectorTerm": "1 matchExpressions [NodeSelectorRequirement]?, 2 matchFields [NodeSelectorRequirement]?",
    "ObjectFieldSelector": "1 apiVersion s?, 2 fieldPath s",
    "ObjectReference": (
        "1 kind s?, 2 namespace s?, 3 name s?, 4 uid s?, 5 apiVersion s?, 6 resourceVersion s?, 7 fieldPath s?"
    ),
    "PersistentVolumeClaimSpec": (
        "1 accessModes [s]?, 4 selector LabelSelector*, 2 resources VolumeResourceRequirements?, 3 volumeName s?, "
        "5 storageClassName s*, 6 volumeMode s*, 7 dataSource TypedLocalObjectReference*, "
        "8 dataSourceRef TypedObjectReference*, 9 volumeAttributesClassName s*"
    ),
    "PersistentVolumeClaimTemplate": "1 metadata ObjectMeta?, 2 spec PersistentVolumeClaimSpec",
    "PersistentVolumeClaimVolumeSource": "1 claimName s, 2 readOnly b?",
    "PhotonPersistentDiskVolumeSource": "1 pdID s, 2 fsType s?",
    "Pod": "1 metadata ObjectMeta?, 2 spec PodSpec?, 3 status PodStatus?",
    "PodAffinity": (
        "1 requiredDuringSchedulingIgnoredDuringExecution [PodAffinityTerm]?, "
        "2 preferredDuringSchedulingIgnoredDuringExecution [WeightedPodAffinityTerm]?"
    ),
    "PodAffinityTerm": (
        "1 labelSelector LabelSelector*, 2 namespaces [s]?, 3 topologyKey s, 4 namespaceSelector LabelSelector*, "
        "5 matchLabelKeys [s]?, 6 mismatchLabelKeys [s]?"
    ),
    "PodAntiAffinity": (
        "1 requiredDuringSchedulingIgnoredDuringExecution [PodAffinityTerm]?, "
        "2 preferredDuringSchedulingIgnoredDuringExecution [WeightedPodAffinityTerm]?"
    ),
    "PodCondition": (
        "1 type s, 2 status s, 3 lastProbeTime Time?, 4 lastTransitionTime Time?, 5 reason s?, 6 message s?"
    ),
    "PodDNSConfig": "1 nameservers [s]?, 2 searches [s]?, 3 options [PodDNSConfigOption]?",
    "PodDNSConfigOption": "1 name s?, 2 value s*",
    "PodIP": "1 ip s",
    "PodOS": "1 name s",
    "PodReadinessGate": "1 conditionType s",
    "PodResourceClaim": "1 name s, 3 resourceClaimName s*, 4 resourceClaimTemplateName s*",
    "PodResourceClaimStatus": "1 name s, 2 resourceClaimName s*",
    "PodSchedulingGate": "1 name s",
    "PodSecurityContext": (
        "1 seLinuxOptions SELinuxOptions*, 8 windowsOptions WindowsSecurityContextOptions*, 2 runAsUser i64*, "
        "6 runAsGroup i64*, 3 runAsNonRoot b*, 4 supplementalGroups [i64]?, 12 supplementalGroupsPolicy s*, "
        "5 fsGroup i64*, 7 sysctls [Sysctl]?, 9 fsGroupChangePolicy s*, 10 seccompProfile SeccompProfile*, "
        "11 appArmorProfile AppArmorProfile*, 13 seLinuxChangePolicy s*"
    ),
    "PodSpec": (
        "1 volumes [Volume]?, 20 initContainers [Container]?, 2 containers [Container], "
        "34 ephemeralContainers [EphemeralContainer]?, 3 restartPolicy s?, 4 terminationGracePeriodSeconds i64*, "
        "5 activeDeadlineSeconds i64*, 6 dnsPolicy s?, 7 nodeSelector {s}?, 8 serviceAccountName s?, "
        "9 serviceAccount s?, 21 automountServiceAccountToken b*, 10 nodeName s?, 11 hostNetwork b?, 12 hostPID b?, "
        "13 hostIPC b?, 27 shareProcessNamespace b*, 14 securityContext PodSecurityContext*, "
        "15 imagePullSecrets [LocalObjectReference]?, 16 hostname s?, 17 subdomain s?, 18 affinity Affinity*, "
        "19 schedulerName s?, 22 tolerations [Toleration]?, 23 hostAliases [HostAlias]?, 24 priorityClassName s?, "
        "25 priority i32*, 26 dnsConfig PodDNSConfig*, 28 readinessGates [PodReadinessGate]?, "
        "29 runtimeClassName s*, 30 enableServiceLinks b*, 31 preemptionPolicy s*, 32 overhead {Quantity}?, "
        "33 topologySpreadConstraints [TopologySpreadConstraint]?, 35 setHostnameAsFQDN b*, 36 os PodOS*, "
        "37 hostUsers b*, 38 schedulingGates [PodSchedulingGate]?, 39 resourceClaims [PodResourceClaim]?, "
        "40 resources ResourceRequirements*"
    ),
    "PodStatus": (
        "1 phase s?, 2 conditions [PodCondition]?, 3 message s?, 4 reason s?, 11 nominatedNodeName s?, 5 hostIP s?, "
        "16 hostIPs [HostIP]?, 6 podIP s?, 12 podIPs [PodIP]?, 7 startTime Time*, "
        "10 initContainerStatuses [ContainerStatus]?, 8 containerStatuses [ContainerStatus]?, 9 qosClass s?, "
        "13 ephemeralContainerStatuses [ContainerStatus]?, 14 resize s?, "
        "15 resourceClaimStatuses [PodResourceClaimStatus]?"
    ),
    "PodTemplateSpec": "1 metadata ObjectMeta?, 2 spec PodSpec?",
    "PortStatus": "1 port i32, 2 protocol s, 3 error s*",
    "PortworxVolumeSource": "1 volumeID s, 2 fsType s?, 3 readOnly b?",
    "PreferredSchedulingTerm": "1 weight i32, 2 preference NodeSelectorTerm",
    "Probe": (
        "1 ... ProbeHandler, 2 initialDelaySeconds i32?, 3 timeoutSeconds i32?, 4 periodSeconds i32?, "
        "5 successThreshold i32?, 6 failureThreshold i32?, 7 terminationGracePeriodSeconds i64*"
    ),
    "ProbeHandler": "1 exec ExecAction*, 2 httpGet HTTPGetAction*, 3 tcpSocket TCPSocketAction*, 4 grpc GRPCAction*",
    "ProjectedVolumeSource": "1 sources [VolumeProjection], 2 defaultMode i32*",
    "QuobyteVolumeSource": "1 registry s, 2 volume s, 3 readOnly b?, 4 user s?, 5 group s?, 6 tenant s?",
    "RBDVolumeSource": (
        "1 monitors [s], 2 image s, 3 fsType s?, 4 pool s?, 5 user s?, 6 keyring s?, "
        "7 secretRef LocalObjectReference*, 8 readOnly b?"
    ),
    "ResourceClaim": "1 name s, 2 request s?",
    "ResourceFieldSelector": "1 containerName s?, 2 resource s, 3 divisor Quantity?",
    "ResourceHealth": "1 resourceID s, 2 health s?",
    "ResourceRequirements": "1 limits {Quantity}?, 2 requests {Quantity}?, 3 claims [ResourceClaim]?",
    "ResourceStatus": "1 name s, 2 resources [ResourceHealth]?",
    "SELinuxOptions": "1 user s?, 2 role s?, 3 type s?, 4 level s?",
    "ScaleIOVolumeSource": (
        "1 gateway s, 2 system s, 3 secretRef LocalObjectReference^, 4 sslEnabled b?, 5 protectionDomain s?, "
        "6 storagePool s?, 7 storageMode s?, 8 volumeName s?, 9 fsType s?, 10 readOnly b?"
    ),
    "SeccompProfile": "1 type s, 2 localhostProfile s*",
    "Secret": "1 metadata ObjectMeta?, 5 immutable b*, 2 data {bytes}?, 4 stringData {s}?, 3 type s?",
    "SecretEnvSource": "1 ... LocalObjectReference, 2 optional b*",
    "SecretKeySelector": "1 ... LocalObjectReference, 2 key s, 3 optional b*",
    "SecretProjection": "1 ... LocalObjectReference, 2 items [KeyToPath]?, 4 optional b*",
    "SecretVolumeSource": "1 secretName s?, 2 items [KeyToPath]?, 3 defaultMode i32*, 4 optional b*",
    "SecurityContext": (
        "1 capabilities Capabilities*, 2 privileged b*, 3 seLinuxOptions SELinuxOptions*, "
        "10 windowsOptions WindowsSecurityContextOptions*, 4 runAsUser i64*, 8 runAsGroup i64*, 5 runAsNonRoot b*, "
        "6 readOnlyRootFilesystem b*, 7 allowPrivilegeEscalation b*, 9 procMount s*, "
        "11 seccompProfile SeccompProfile*, 12 appArmorProfile AppArmorProfile*"
    ),
    "Service": "1 metadata ObjectMeta?, 2 spec ServiceSpec?, 3 status ServiceStatus?",
    "ServiceAccount": (
        "1 metadata ObjectMeta?, 2 secrets [ObjectReference]?, 3 imagePullSecrets [LocalObjectReference]?, "
        "4 automountServiceAccountToken b*"
    ),
    "ServiceAccountTokenProjection": "1 audience s?, 2 expirationSeconds i64*, 3 path s",
    "ServicePort": "1 name s?, 2 protocol s?, 6 appProtocol s*, 3 port i32, 4 targetPort IntOrString?, 5 nodePort i32?",
    "ServiceSpec": (
        "1 ports [ServicePort]?, 2 selector {s}?, 3 clusterIP s?, 18 clusterIPs [s]?, 4 type s?, 5 externalIPs [s]?, "
        "7 sessionAffinity s?, 8 loadBalancerIP s?, 9 loadBalancerSourceRanges [s]?, 10 externalName s?, "
        "11 externalTrafficPolicy s?, 12 healthCheckNodePort i32?, 13 publishNotReadyAddresses b?, "
        "14 sessionAffinityConfig SessionAffinityConfig*, 19 ipFamilies [s]?, 17 ipFamilyPolicy s*, "
        "20 allocateLoadBalancerNodePorts b*, 21 loadBalancerClass s*, 22 internalTrafficPolicy s*, "
        "23 trafficDistribution s*"
    ),
    "ServiceStatus": "1 loadBalancer LoadBalancerStatus?, 2 conditions [Condition]?",
    "SessionAffinityConfig": "1 clientIP ClientIPConfig*",
    "SleepAction": "1 seconds i64",
    "StorageOSVolumeSource": (
        "1 volumeName s?, 2 volumeNamespace s?, 3 fsType s?, 4 readOnly b?, 5 secretRef LocalObjectReference*"
    ),
    "Sysctl": "1 name s, 2 value s",
    "TCPSocketAction": "1 port IntOrString, 2 host s?",
    "Toleration": "1 key s?, 2 operator s?, 3 value s?, 4 effect s?, 5 tolerationSeconds i64*",
    "TopologySpreadConstraint": (
        "1 maxSkew i32, 2 topologyKey s, 3 whenUnsatisfiable s, 4 labelSelector LabelSelector*, 5 minDomains i32*, "
        "6 nodeAffinityPolicy s*, 7 nodeTaintsPolicy s*, 8 matchLabelKeys [s]?"
    ),
    "TypedLocalObjectReference": "1 apiGroup s^, 2 kind s, 3 name s",
    "TypedObjectReference": "1 apiGroup s^, 2 kind s, 3 name s, 4 namespace s*",
    "Volume": "1 name s, 2 ... VolumeSource",
    "VolumeDevice": "1 name s, 2 devicePath s",
    "VolumeMount": (
        "1 name s, 2 readOnly b?, 7 recursiveReadOnly s*, 3 mountPath s, 4 subPath s?, 5 mountPropagation s*, "
        "6 subPathExpr s?"
    ),
    "VolumeMountStatus": "1 name s, 2 mountPath s, 3 readOnly b?, 4 recursiveReadOnly s*",
    "VolumeProjection": (
        "1 secret SecretProjection*, 2 downwardAPI DownwardAPIProjection*, 3 configMap ConfigMapProjection*, "
        "4 serviceAccountToken ServiceAccountTokenProjection*, 5 clusterTrustBundle ClusterTrustBundleProjection*"
    ),
    "VolumeResourceRequirements": "1 limits {Quantity}?, 2 requests {Quantity}?",
    "VolumeSource": (
        "1 hostPath HostPathVolumeSource*, 2 emptyDir EmptyDirVolumeSource*, "
        "3 gcePersistentDisk GCEPersistentDiskVolumeSource*, "
        "4 awsElasticBlockStore AWSElasticBlockStoreVolumeSource*, 5 gitRepo GitRepoVolumeSource*, "
        "6 secret SecretVolumeSource*, 7 nfs NFSVolumeSource*, 8 iscsi ISCSIVolumeSource*, "
        "9 glusterfs GlusterfsVolumeSource*, 10 persistentVolumeClaim PersistentVolumeClaimVolumeSource*, "
        "11 rbd RBDVolumeSource*, 12 flexVolume FlexVolumeSource*, 13 cinder CinderVolumeSource*, "
        "14 cephfs CephFSVolumeSource*, 15 flocker FlockerVolumeSource*, 16 downwardAPI DownwardAPIVolumeSource*, "
        "17 fc FCVolumeSource*, 18 azureFile AzureFileVolumeSource*, 19 configMap ConfigMapVolumeSource*, "
        "20 vsphereVolume VsphereVirtualDiskVolumeSource*, 21 quobyte QuobyteVolumeSource*, "
        "22 azureDisk AzureDiskVolumeSource*, 23 photonPersistentDisk PhotonPersistentDiskVolumeSource*, "
        "26 projected ProjectedVolumeSource*, 24 portworxVolume PortworxVolumeSource*, "
        "25 scaleIO ScaleIOVolumeSource*, 27 storageos StorageOSVolumeSource*, 28 csi CSIVolumeSource*, "
        "29 ephemeral EphemeralVolumeSource*, 30 image ImageVolumeSource*"
    ),
    "VsphereVirtualDiskVolumeSource": "1 volumePath s, 2 fsType s?, 3 storagePolicyName s?, 4 storagePolicyID s?",
    "WeightedPodAffinityTerm": "1 weight i32, 2 podAffinityTerm PodAffinityTerm",
    "WindowsSecurityContextOptions": (
        "1 gmsaCredentialSpecName s*, 2 gmsaCredentialSpec s*, 3 runAsUserName s*, 4 hostProcess b*"
    ),
    # k8s.io/api/apps/v1
    "Deployment": "1 metadata ObjectMeta?, 2 spec DeploymentSpec?, 3 status DeploymentStatus?",
    "DeploymentCondition": (
        "1 type s, 2 status s, 6 lastUpdateTime Time?, 7 lastTransitionTime Time?, 4 reason s?, 5 message s?"
    ),
    "DeploymentSpec": (
        "1 replicas i32*, 2 selector LabelSelector^, 3 template PodTemplateSpec, 4 strategy DeploymentStrategy?, "
        "5 minReadySeconds i32?, 6 revisionHistoryLimit i32*, 7 paused b?, 9 progressDeadlineSeconds i32*"
    ),
    "DeploymentStatus": (
        "1 observedGeneration i64?, 2 replicas i32?, 3 updatedReplicas i32?, 7 readyReplicas i32?, "
        "4 availableReplicas i32?, 5 unavailableReplicas i32?, 6 conditions [DeploymentCondition]?, "
        "8 collisionCount i32*"
    ),
    "DeploymentStrategy": "1 type s?, 2 rollingUpdate RollingUpdateDeployment*",
    "RollingUpdateDeployment": "1 maxUnavailable IntOrString*, 2 maxSurge IntOrString*",
    # k8s.io/api/batch/v1
    "Job": "1 metadata ObjectMeta?, 2 spec JobSpec?, 3 status JobStatus?",
    "JobCondition": (
        "1 type s, 2 status s, 3 lastProbeTime Time?, 4 lastTransitionTime Time?, 5 reason s?, 6 message s?"
    ),
    "JobSpec": (
        "1 parallelism i32*, 2 completions i32*, 3 activeDeadlineSeconds i64*, "
        "11 podFailurePolicy PodFailurePolicy*, 16 successPolicy SuccessPolicy*, 7 backoffLimit i32*, "
        "12 backoffLimitPerIndex i32*, 13 maxFailedIndexes i32*, 4 selector LabelSelector*, 5 manualSelector b*, "
        "6 template PodTemplateSpec, 8 ttlSecondsAfterFinished i32*, 9 completionMode s*, 10 suspend b*, "
        "14 podReplacementPolicy s*, 15 managedBy s*"
    ),
    "JobStatus": (
        "1 conditions [JobCondition]?, 2 startTime Time*, 3 completionTime Time*, 4 active i32?, 5 succeeded i32?, "
        "6 failed i32?, 11 terminating i32*, 7 completedIndexes s?, 10 failedIndexes s*, "
        "8 uncountedTerminatedPods UncountedTerminatedPods*, 9 ready i32*"
    ),
    "PodFailurePolicy": "1 rules [PodFailurePolicyRule]",
    "PodFailurePolicyOnExitCodesRequirement": "1 containerName s*, 2 operator s, 3 values [i32]",
    "PodFailurePolicyOnPodConditionsPattern": "1 type s, 2 status s",
    "PodFailurePolicyRule": (
        "1 action s, 2 onExitCodes PodFailurePolicyOnExitCodesRequirement*, "
        "3 onPodConditions [PodFailurePolicyOnPodConditionsPattern]?"
    ),
    "SuccessPolicy": "1 rules [SuccessPolicyRule]",
    "SuccessPolicyRule": "1 succeededIndexes s*, 2 succeededCount i32*",
    "UncountedTerminatedPods": "1 succeeded [s]?, 2 failed [s]?",
    # k8s.io/api/events/v1
    "events.Event": (
        "1 metadata ObjectMeta, 2 eventTime MicroTime, 3 series events.EventSeries*, 4 reportingController s?, "
        "5 reportingInstance s?, 6 action s?, 7 reason s?, 8 regarding ObjectReference?, 9 related ObjectReference*, "
        "10 note s?, 11 type s?, 12 deprecatedSource EventSource?, 13 deprecatedFirstTimestamp Time?, "
        "14 deprecatedLastTimestamp Time?, 15 deprecatedCount i32?"
    ),
    "events.EventSeries": "1 count i32, 2 lastObservedTime MicroTime",
    # k8s.io/api/coordination/v1
    "Lease": "1 metadata ObjectMeta?, 2 spec LeaseSpec?",
    "LeaseSpec": (
        "1 holderIdentity s*, 2 leaseDurationSeconds i32*, 3 acquireTime MicroTime*, 4 renewTime MicroTime*, "
        "5 leaseTransitions i32*, 6 strategy s*, 7 preferredHolder s*"
    ),
    # k8s.io/api/authorization/v1
    "FieldSelectorAttributes": "1 rawSelector s?, 2 requirements [FieldSelectorRequirement]?",
    "LabelSelectorAttributes": "1 rawSelector s?, 2 requirements [LabelSelectorRequirement]?",
    "NonResourceAttributes": "1 path s?, 2 verb s?",
    "ResourceAttributes": (
        "1 namespace s?, 2 verb s?, 3 group s?, 4 version s?, 5 resource s?, 6 subresource s?, 7 name s?, "
        "8 fieldSelector FieldSelectorAttributes*, 9 labelSelector LabelSelectorAttributes*"
    ),
    "SelfSubjectAccessReview": (
        "1 metadata ObjectMeta?, 2 spec SelfSubjectAccessReviewSpec, 3 status SubjectAccessReviewStatus?"
    ),
    "SelfSubjectAccessReviewSpec": (
        "1 resourceAttributes ResourceAttributes*, 2 nonResourceAttributes NonResourceAttributes*"
    ),
    "SubjectAccessReviewStatus": "1 allowed b, 4 denied b?, 2 reason s?, 3 evaluationError s?",
}
