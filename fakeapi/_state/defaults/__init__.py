"""What kube-apiserver 1.32 fills in when it stores a built-in object, so a read shows the same fields.

This module dispatches by kind; each step of the real server is reproduced in one module, and all
of them together make one pure function:

* versioned defaulting on every decode, so after every create, update and patch
  (``pkg/apis/core/v1/defaults.go``, ``pkg/apis/apps/v1/defaults.go``, ``pkg/apis/batch/v1/defaults.go``
  and the declarative ``+default`` markers they generate from): Secret, Namespace, Service in
  :mod:`.core`, Pod and pod templates in :mod:`.pods`, Deployment and Job in :mod:`.workloads`,
  all written with the Go idioms of :mod:`.fields`;
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

import copy
from collections.abc import Callable

from fakeapi._state.defaults.allocation import allocate_cluster_ip, allocate_node_ports
from fakeapi._state.defaults.core import (
    core_event_defaults,
    events_event_defaults,
    lease_defaults,
    namespace_defaults,
    secret_defaults,
    service_defaults,
)
from fakeapi._state.defaults.fields import Obj
from fakeapi._state.defaults.pods import pod_defaults
from fakeapi._state.defaults.workloads import deployment_defaults, job_defaults

__all__ = ["allocate_cluster_ip", "allocate_node_ports", "apply_defaults"]


def apply_defaults(group: str, version: str, kind: str, obj: Obj, *, creating: bool | None = None) -> Obj:
    """The object as the apiserver would store it; other kinds come back as they are, never mutated."""
    defaulter = _DEFAULTERS.get((group, version, kind))
    if defaulter is None:
        return obj
    out = copy.deepcopy(obj)
    defaulter(out, creating)
    return out


_DEFAULTERS: dict[tuple[str, str, str], Callable[[Obj, bool | None], None]] = {
    ("", "v1", "Namespace"): namespace_defaults,
    ("", "v1", "Secret"): secret_defaults,
    ("", "v1", "Service"): service_defaults,
    ("", "v1", "Pod"): pod_defaults,
    ("", "v1", "Event"): core_event_defaults,
    ("events.k8s.io", "v1", "Event"): events_event_defaults,
    ("coordination.k8s.io", "v1", "Lease"): lease_defaults,
    ("apps", "v1", "Deployment"): deployment_defaults,
    ("batch", "v1", "Job"): job_defaults,
}
