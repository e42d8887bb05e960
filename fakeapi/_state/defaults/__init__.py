"""What kube-apiserver 1.32 fills in when it stores a built-in object, so a read shows the same fields.

Each kind's descriptor (``fakeapi._state.kinds``) names its defaulter, which fills a copy of the
object in place (``ResourceType.default``); each step of the real server is reproduced in one
module:

* versioned defaulting on every decode, so after every create, update and patch
  (``pkg/apis/core/v1/defaults.go``, ``pkg/apis/apps/v1/defaults.go``, ``pkg/apis/batch/v1/defaults.go``, ``pkg/apis/rbac/v1/defaults.go``
  and the declarative ``+default`` markers they generate from): Secret, Namespace, Service in
  :mod:`.core`, Pod and pod templates in :mod:`.pods`, the workloads in :mod:`.workloads`, the RBAC
  bindings in :mod:`.rbac`, all written with the Go idioms of :mod:`.fields`;
* the v1 to internal conversion folding ``Secret.stringData`` into ``data`` (:mod:`.core`);
* registry strategies: ``pkg/registry/core/namespace/strategy.go`` (status ``Active``, the
  ``kubernetes`` finalizer), ``pkg/registry/core/pod/strategy.go`` (status ``Pending`` with the QoS
  class of ``pkg/apis/core/helper/qos/qos.go``, :mod:`.qos`), ``pkg/registry/batch/job/strategy.go``
  (``generateSelector`` from the object's uid), ``pkg/registry/core/service/storage/alloc.go``
  (``initIPFamilyFields``, ``normalizeClusterIPs``; cluster IP and node port allocation, which the
  Service strategy calls on create, in :mod:`.allocation`);
* the default admission plugins that act like defaulting on pods: Priority and
  DefaultTolerationSeconds (:mod:`.pods`);
* typed serialization: struct fields that ``omitempty`` cannot drop are always written
  (``"resources":{}``, ``"status":{}``, a template's ``"creationTimestamp":null``, an Event's
  ``"reportingComponent":""``).

``creating`` says which write this is. ``True`` applies the create-only strategy steps as the
apiserver does (status reset, the namespace finalizer appended); ``False`` leaves them out (an update
keeps what the old object had); ``None`` (the default) fills them in only where missing, which
gives the create result for ordinary bodies and never undoes a status an update carried over.
"""

from __future__ import annotations

from fakeapi._state.defaults.allocation import allocate_cluster_ip, allocate_node_ports

__all__ = ["allocate_cluster_ip", "allocate_node_ports"]
