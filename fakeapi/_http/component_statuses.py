"""GET of ``componentstatuses``: the apiserver's probe of its scheduler, controller-manager and etcd
(docs/control-plane-pods.md).

kube-apiserver 1.32 keeps no ComponentStatus objects: ``pkg/registry/core/componentstatus/rest.go``
probes, on every request, the servers ``storage_core.go`` ``serversToValidate`` names: ``scheduler``
(``https://127.0.0.1:10259/healthz``), ``controller-manager`` (``https://127.0.0.1:10257/healthz``) and
``etcd-0``. Each answers one ``Healthy`` condition (``getComponentStatus``): ``True`` with the healthz
body ``ok`` as its message (etcd's prober gives no message), or, when nothing listens, ``Unknown``
with the HTTP prober's error. Here the scheduler listens when the simulated ``scheduler`` runs, the
controller-manager when any of kube-controller-manager's simulated controllers does, and etcd always.

The list has no resourceVersion and ignores paging; label and field selectors filter the items
(``matchesPredicate``). A name that is not one of the three is a plain Go error, which the apiserver
answers as a 500 whose Status has no reason (``ErrorToAPIStatus``).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fakeapi._cluster.options import CONTROLLER_PROBES
from fakeapi._http.answers import answer_for, pretty, respond, served
from fakeapi._http.context import ServerState
from fakeapi._http.options import parse_list_options
from fakeapi._http.reads import selector_filter
from fakeapi._http.requestinfo import RequestInfo
from fakeapi._http.responses import object_response
from fakeapi._state.resources import ResourceType
from fakeapi._state.typed.ordering import partial_object_metadata
from fakeapi.errors import APIError

__all__ = ["handle_component_status", "handle_component_statuses"]

# The order kubectl shows most often; upstream the probes answer in whatever order they finish.
_COMPONENTS = (("scheduler", 10259), ("controller-manager", 10257), ("etcd-0", 0))


def component_statuses(running: frozenset[str]) -> list[dict[str, Any]]:
    """The three ComponentStatus objects as the apiserver's probes see the simulated control plane."""
    probed = {CONTROLLER_PROBES.get(controller) for controller in running}
    listening = {"scheduler": "scheduler" in probed, "controller-manager": "controller-manager" in probed}
    statuses = []
    for name, port in _COMPONENTS:
        condition: dict[str, Any] = {"type": "Healthy", "status": "True"}
        if name in listening and not listening[name]:
            url = f"https://127.0.0.1:{port}/healthz"
            condition = {
                "type": "Healthy",
                "status": "Unknown",
                "error": f'Get "{url}": dial tcp 127.0.0.1:{port}: connect: connection refused',
            }
        elif name in listening:
            condition["message"] = "ok"
        statuses.append(
            {
                "kind": "ComponentStatus",
                "apiVersion": "v1",
                "metadata": {"name": name, "creationTimestamp": None},
                "conditions": [condition],
            }
        )
    return statuses


async def handle_component_status(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer = answer_for(request)
    for status in component_statuses(state.running_controllers):
        if status["metadata"]["name"] == info.name:
            return respond(request, state, rtype, status, answer)
    raise APIError(f"Component not found: {info.name}", code=500)


async def handle_component_statuses(
    request: web.BaseRequest, state: ServerState, info: RequestInfo, rtype: ResourceType
) -> web.Response:
    answer = answer_for(request)
    options = parse_list_options(request.query, watch=False)
    matches, _ = selector_filter(rtype, options.label_selector, options.field_selector)
    items = [status for status in component_statuses(state.running_controllers) if matches(status)]
    if answer.transform == "Table":
        from fakeapi._state.tables import table_for

        table = table_for(
            rtype,
            [served(rtype, item) for item in items],
            list_metadata={},
            include_object=request.query.get("includeObject", ""),
            now=state.clock.now(),
        )
        return object_response(table, media_type=answer.media_type, pretty=pretty(request), ordered=True)
    if answer.transform == "PartialObjectMetadataList":
        version = f"meta.k8s.io/{answer.table_version}"
        body = {
            "kind": "PartialObjectMetadataList",
            "apiVersion": version,
            "metadata": {},
            "items": [partial_object_metadata(item, version) for item in items],
        }
        return object_response(body, media_type=answer.media_type, pretty=pretty(request), ordered=True)
    if answer.transform == "PartialObjectMetadata":
        raise APIError.not_acceptable(("application/json", "application/yaml", "application/vnd.kubernetes.protobuf"))
    body = {
        "kind": rtype.list_kind,
        "apiVersion": rtype.api_version,
        "metadata": {},
        "items": [{k: v for k, v in item.items() if k not in ("apiVersion", "kind")} for item in items],
    }
    return object_response(body, media_type=answer.media_type, pretty=pretty(request), ordered=rtype.struct_order)
