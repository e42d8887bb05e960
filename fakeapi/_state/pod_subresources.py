"""What the pods' action subresources do to the store, and what they answer with no kubelet (docs/subresources.md).

* ``pods/binding`` and ``bindings`` (``pod/storage/storage.go`` ``BindingREST``,
  ``setPodNodeAndMetadata``): the pod gets ``spec.nodeName`` and the binding's annotations, and a
  ``PodScheduled`` condition; a pod already on a node is a 409 Conflict on ``binding``.
* ``pods/eviction``: :mod:`fakeapi._state.pod_eviction`.
* ``pods/log``, ``exec``, ``attach``, ``portforward`` and ``proxy`` (``pod/strategy.go``
  ``LogLocation``, ``streamLocation``, ``PortForwardLocation``, ``ResourceLocation``): there is no
  kubelet to connect to. With no node a log is an empty stream (204) and exec, attach and
  port-forward are 400 ``pod <name> does not have a host assigned``; with a node they fail as a
  kubelet that cannot be reached does (:func:`connect_through_node`). The proxy is 400 ``address
  not allowed`` until the pod has an IP, then a refused dial.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.objects import metadata_of, with_metadata
from fakeapi._state.validation import field
from fakeapi.errors import APIError, GroupResource

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.store import Store

__all__ = ["bind_pod", "connect_through_node", "container_for", "node_address", "refused"]

_BINDING = GroupResource("", "binding")


def bind_pod(store: Store, pods: ResourceType, namespace: str, name: str, binding: dict[str, Any]) -> None:
    """Assign the pod to the binding's target node."""
    if metadata_of(binding).get("name") != name:
        raise APIError.bad_request("name in URL does not match name in Binding object")
    target = _mapping(binding.get("target"))
    causes = []
    if target.get("kind") not in (None, "", "Node"):
        shown = field.GoText(f'"{target.get("kind")}"')
        causes.append(field.not_supported("target.kind", shown, ("Node", "<empty>")).cause())
    if not target.get("name"):
        causes.append(field.required("target.name").cause())
    if causes:
        raise APIError.invalid(GroupResource("", "Binding"), name, causes)
    node = target["name"]
    annotations = metadata_of(binding).get("annotations") or {}

    def assign(pod: dict[str, Any]) -> dict[str, Any]:
        meta = metadata_of(pod)
        if meta.get("deletionTimestamp") is not None:
            raise APIError.internal(f"pod {name} is being deleted, cannot be assigned to a host")
        current = (pod.get("spec") or {}).get("nodeName")
        if current:
            raise APIError.conflict(_BINDING, name, f'pod {name} is already assigned to node "{current}"')
        status = dict(pod.get("status") or {})
        conditions = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
        conditions.append(
            {
                "type": "PodScheduled",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": store.clock.timestamp(),
            }
        )
        status["conditions"] = conditions
        bound = {**pod, "spec": {**(pod.get("spec") or {}), "nodeName": node}, "status": status}
        if annotations:
            bound = with_metadata(bound, annotations={**(meta.get("annotations") or {}), **annotations})
        return bound

    store.update(pods, namespace, name, assign, subresource="binding", unconditional=True, track_fields=False)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def container_for(pod: dict[str, Any], requested: str, *, name: str) -> str:
    """``validateContainer``: the named container, or the only one."""
    spec = pod.get("spec") or {}

    def names(key: str) -> list[str]:
        return [c.get("name", "") for c in spec.get(key) or [] if isinstance(c, dict)]

    containers, init = names("containers"), names("initContainers")
    if requested:
        if requested not in (*containers, *init, *names("ephemeralContainers")):
            raise APIError.bad_request(f"container {requested} is not valid for pod {name}")
        return requested
    if len(containers) == 1:
        return containers[0]
    if not containers:
        raise APIError.bad_request(f"the pod {name} does not have any containers")
    text = f"a container name must be specified for pod {name}, choose one of: [{' '.join(containers)}]"
    if init:
        text += f" or one of the init containers: [{' '.join(init)}]"
    raise APIError.bad_request(text)


def connect_through_node(store: Store, nodes: ResourceType, pod: dict[str, Any], name: str) -> APIError:
    """What a connection to a container through its pod's node ends in, with no kubelet anywhere.

    No node: ``pod <name> does not have a host assigned``. A node that does not exist: its NotFound.
    A node without addresses: ``GetPreferredNodeAddress``'s error, a 500. Otherwise the dial to the
    kubelet's port is refused.
    """
    node_name = (pod.get("spec") or {}).get("nodeName")
    if not node_name:
        return APIError.bad_request(f"pod {name} does not have a host assigned")
    node = store.find(nodes, "", node_name)
    if node is None:
        return APIError.not_found(nodes.group_resource, node_name)
    address, port = node_address(node)
    return APIError.internal(
        f"error dialing backend: dial tcp {_host_port(address, port)}: connect: connection refused"
    )


def node_address(node: dict[str, Any]) -> tuple[str, int]:
    """The kubelet's address and port (``GetConnectionInfo``); a node without addresses is its 500."""
    status = node.get("status") or {}
    addresses = [a for a in status.get("addresses") or [] if isinstance(a, dict) and a.get("address")]
    if not addresses:
        raise APIError.internal("no preferred addresses found; known addresses: []")
    port = ((status.get("daemonEndpoints") or {}).get("kubeletEndpoint") or {}).get("Port") or 10250
    return str(addresses[0]["address"]), int(port)


def refused(address: str, port: int | str) -> APIError:
    """A proxy to an address nothing listens on (``UpgradeAwareHandler``'s error responder)."""
    return APIError(
        f"error trying to reach service: dial tcp {_host_port(address, port)}: connect: connection refused",
        reason="ServiceUnavailable",
        code=503,
    )


def _host_port(host: str, port: int | str) -> str:
    """``net.JoinHostPort``: IPv6 addresses in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
