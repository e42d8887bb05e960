"""Requests that act rather than store: reviews, tokens, the pods' subresources (docs/subresources.md).

* A create of a review kind is answered by its strategy and stored nowhere (:mod:`fakeapi._state.reviews`).
* ``POST serviceaccounts/<name>/token`` answers a TokenRequest (:mod:`fakeapi._state.token_requests`).
* ``POST pods/<name>/binding`` and ``POST bindings`` assign a pod to a node; ``POST pods/<name>/eviction``
  deletes it. Both answer ``201`` with a Success Status, as ``rest.Creater`` subresources that
  return ``metav1.Status`` do.
* ``pods/<name>/log``, ``exec``, ``attach`` and ``portforward`` of a pod the simulated kubelet runs
  are its answers (:mod:`fakeapi._http.container_logs`, :mod:`fakeapi._http.remote_commands`,
  :mod:`fakeapi._http.port_forwarding`, docs/kubelet-endpoints.md); for any other pod they and
  ``proxy`` answer as a server with no kubelet does (:mod:`fakeapi._state.pod_subresources`),
  ``services/<name>/proxy`` as one whose pods listen nowhere (:mod:`fakeapi._state.service_proxy`).

Bodies are decoded as the kind they carry (TokenRequest, Binding, Eviction), with the same decoder
as any create.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from aiohttp import web

from fakeapi._http.admitting import admission_warnings, admit_subresource_create
from fakeapi._http.answers import answer_for, read_body
from fakeapi._http.bodies import decode_object_body
from fakeapi._http.container_logs import serve_container_log
from fakeapi._http.context import ServerState
from fakeapi._http.identity import user_of
from fakeapi._http.negotiation import body_media_type
from fakeapi._http.options import parse_write_options
from fakeapi._http.port_forwarding import serve_port_forward
from fakeapi._http.remote_commands import serve_remote_command
from fakeapi._http.requestinfo import RequestInfo
from fakeapi._http.responses import object_response, wants_pretty
from fakeapi._state.kinds import builtin_type
from fakeapi._state.kinds.declaring import body_type
from fakeapi._state.objects import metadata_of, with_metadata
from fakeapi._state.pod_eviction import evict_pod
from fakeapi._state.pod_log_options import parse_log_options
from fakeapi._state.pod_subresources import (
    bind_pod,
    connect_through_node,
    container_for,
    node_address,
    refused,
)
from fakeapi._state.resources import ResourceType
from fakeapi._state.reviews import ReviewContext, ReviewStrategy
from fakeapi._state.service_proxy import service_location
from fakeapi._state.strategy import strategy_of
from fakeapi._state.token_requests import request_token
from fakeapi.errors import APIError

__all__ = [
    "handle_binding",
    "handle_connect",
    "handle_eviction",
    "handle_log",
    "handle_proxy",
    "handle_review",
    "handle_token",
]

_TOKEN_REQUEST = body_type("authentication.k8s.io", "v1", "TokenRequest")
_EVICTION = body_type("policy", "v1", "Eviction")
_SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def _pretty(request: web.BaseRequest) -> bool:
    return wants_pretty(request.query, request.headers.get("User-Agent", ""))


async def _decoded(
    request: web.BaseRequest, state: ServerState, rtype: ResourceType
) -> tuple[dict[str, object], list[str]]:
    body = await read_body(request)
    options = parse_write_options("CreateOptions", request.query, request.headers.get("User-Agent", ""))
    media_type = body_media_type(request.headers.get("Content-Type"))
    decoded = decode_object_body(rtype, body, media_type, options.field_validation, state.store.registry.structs)
    api_version = decoded.obj.get("apiVersion") or ""
    group = api_version.split("/")[0] if isinstance(api_version, str) and "/" in api_version else ""
    if group != rtype.group:
        raise APIError.bad_request(
            f"the API version in the data ({api_version}) does not match the expected API version ({rtype.api_version})"
        )
    return decoded.obj, decoded.warnings


async def handle_review(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer_for(request)
    review, warnings = await _decoded(request, state, rtype)
    strategy = strategy_of(rtype)
    assert isinstance(strategy, ReviewStrategy)
    if rtype.namespaced:
        body_namespace = metadata_of(review).get("namespace") or ""
        if body_namespace and body_namespace != info.namespace:
            # EnsureObjectNamespaceMatchesRequestNamespace, as for every namespaced create
            raise APIError.bad_request(
                "the namespace of the provided object does not match the namespace sent on the request"
            )
        review = with_metadata(review, namespace=info.namespace)
    authorization = state.authorization
    rbac = authorization.source if authorization.enforcing else None
    context = ReviewContext(user_of(request), state.authentication.authenticate_token, rbac)
    answered = strategy.answer({**review, "apiVersion": rtype.api_version}, context)
    return object_response(answered, status=201, pretty=_pretty(request), warnings=warnings, ordered=True)


async def handle_token(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer_for(request)
    token_request, warnings = await _decoded(request, state, _TOKEN_REQUEST)
    kind = ("authentication.k8s.io", "v1", "TokenRequest")
    token_request = await admit_subresource_create(request, state, rtype, info, token_request, kind, name=info.name)
    warnings = warnings + admission_warnings(request)
    answered = request_token(state.store, info.namespace, info.name, token_request)
    return object_response(answered, status=201, pretty=_pretty(request), warnings=warnings, ordered=True)


async def handle_binding(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    bindings = builtin_type("", "v1", "Binding")
    binding, warnings = await _decoded(request, state, bindings)
    name = info.name if info.subresource else str(metadata_of(binding).get("name") or "")
    binding = await admit_subresource_create(request, state, rtype, info, binding, ("", "v1", "Binding"), name=name)
    warnings = warnings + admission_warnings(request)
    pods = builtin_type("", "v1", "Pod")
    bind_pod(state.store, pods, info.namespace, name, binding)
    return object_response(_SUCCESS, status=201, pretty=_pretty(request), warnings=warnings, ordered=True)


async def handle_eviction(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    eviction, warnings = await _decoded(request, state, _EVICTION)
    eviction = await admit_subresource_create(
        request, state, rtype, info, eviction, ("policy", "v1", "Eviction"), name=info.name
    )
    warnings = warnings + admission_warnings(request)
    budgets = builtin_type("policy", "v1", "PodDisruptionBudget")
    answer = evict_pod(state.store, rtype, budgets, info.namespace, info.name, eviction)
    return object_response(answer or _SUCCESS, status=201, pretty=_pretty(request), warnings=warnings, ordered=True)


async def handle_log(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.StreamResponse:
    """``LogREST.Get``: the options validated, then ``LogLocation``: the container is checked; a pod
    on no node has no log stream, which is 204; the simulated kubelet answers for its pods."""
    options = parse_log_options(request.query, info.name)
    pod = state.store.get(rtype, info.namespace, info.name)
    kubelet = state.kubelet
    if kubelet is not None and kubelet.runs(pod):
        return await serve_container_log(request, state, kubelet, rtype, pod, options)
    container_for(pod, options.container, name=info.name)
    if (pod.get("spec") or {}).get("nodeName"):
        raise connect_through_node(state.store, builtin_type("", "v1", "Node"), pod, info.name)
    return web.Response(status=204)


async def handle_connect(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.StreamResponse:
    """exec, attach, portforward: through the pod's node (``streamLocation``, ``PortForwardLocation``)."""
    pod = state.store.get(rtype, info.namespace, info.name)
    kubelet = state.kubelet
    if kubelet is not None and kubelet.runs(pod):
        if info.subresource == "portforward":
            return await serve_port_forward(request, kubelet, pod)
        return await serve_remote_command(request, state, kubelet, rtype, pod, info.subresource)
    if info.subresource != "portforward":
        container_for(pod, request.query.get("container", ""), name=info.name)
    raise connect_through_node(state.store, builtin_type("", "v1", "Node"), pod, info.name)


async def handle_proxy(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    """``ResourceLocation`` of pods, services and nodes: ``[scheme:]name[:port]`` in the URL's name."""
    parts = info.name.split(":")
    scheme, name, port = (
        (parts[0], parts[1], parts[2]) if len(parts) == 3 else ("", parts[0], parts[1] if len(parts) == 2 else "")
    )
    if len(parts) > 3 or not name or scheme not in ("", "http", "https"):
        raise APIError.bad_request(f'invalid {rtype.singular} request "{info.name}"')
    if rtype.kind == "Service":
        raise service_location(state.store, info.namespace, info.name, name, port)
    obj = state.store.get(rtype, info.namespace, name)
    if rtype.kind == "Node":
        address, kubelet_port = node_address(obj)
        raise refused(address, port or kubelet_port)
    if not port:
        port = next((str(c["ports"][0].get("containerPort")) for c in _containers(obj) if c.get("ports")), "")
    pod_ip = (obj.get("status") or {}).get("podIP")
    if not isinstance(pod_ip, str) or not _global_unicast(pod_ip):
        raise APIError.bad_request("address not allowed")
    raise refused(pod_ip, port or 80)


def _containers(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in (pod.get("spec") or {}).get("containers") or [] if isinstance(c, dict)]


def _global_unicast(text: str) -> bool:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return not (address.is_loopback or address.is_link_local or address.is_multicast or address.is_unspecified)
