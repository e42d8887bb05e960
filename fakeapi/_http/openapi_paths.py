"""The operations a group version's OpenAPI documents list, before either version spells them.

The apiserver's installer (apiserver ``pkg/endpoints/installer.go``) registers a route per verb and
kube-openapi turns each into an operation named by ``GetOperationIDAndTags``
(apiserver ``pkg/endpoints/openapi/openapi.go``): ``patchAppsV1NamespacedDeployment``, the group
without ``.k8s.io`` in title case, ``Core`` for the core group. Each operation carries
``x-kubernetes-action`` and ``x-kubernetes-group-version-kind``, and the query parameters of its
options struct (``UpdateOptions`` gives ``dryRun``, ``fieldManager``, ``fieldValidation``): kubectl
reads the PATCH operation's ``fieldValidation`` to leave field validation to the server
(kubectl ``query_param_verifier_v3.go``). Custom resources get the routes apiextensions-apiserver's
builder declares (``pkg/controller/openapi/builder/builder.go``, ``generateBuilder``).
"""

from __future__ import annotations

from dataclasses import dataclass

from fakeapi._http.openapi_definitions import META, kind_definition_name
from fakeapi._http.openapi_parameters import NAMESPACE, PRETTY, query_parameters
from fakeapi._state.registry import Registry
from fakeapi._state.resources import ResourceType

__all__ = ["Operation", "Parameter", "group_version_operations"]

_SCALE = "io.k8s.api.autoscaling.v1.Scale"
_STATUS = META + "Status"
_PATCH = META + "Patch"
_DELETE_OPTIONS = META + "DeleteOptions"

_VERB_OF_ACTION = {
    "get": "read",
    "list": "list",
    "post": "create",
    "put": "replace",
    "patch": "patch",
    "delete": "delete",
    "deletecollection": "delete",
}
# A built-in route consumes anything; the custom resource builder declares JSON and YAML.
_OTHER_CONSUMES = {False: ("*/*",), True: ("application/json", "application/yaml")}
_PATCH_TYPES = (
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
)


@dataclass(frozen=True)
class Parameter:
    name: str
    location: str  # "query" or "path"
    type: str
    description: str


@dataclass(frozen=True)
class Operation:
    """One route: method, id, what it reads and answers (definition names), and its extensions."""

    path: str
    method: str
    operation_id: str
    description: str
    action: str
    gvk: tuple[str, str, str]
    parameters: tuple[Parameter, ...]
    body: str | None
    body_required: bool
    responses: tuple[tuple[str, str, str], ...]  # code, description, definition
    consumes: tuple[str, ...]
    produces: tuple[str, ...]
    tag: str


def _group_words(group: str) -> list[str]:
    if not group:
        return ["core"]
    return group.removesuffix(".k8s.io").split(".")


def _article(kind: str) -> str:
    return " an " if kind[:1].lower() in "aeiou" else " a "


def _description(action: str, kind: str, subresource: str, *, list_word: str) -> str:
    sub = f" {subresource} of" if subresource else ""
    if action == "patch":
        return f"partially update{sub} the specified {kind}"
    if action == "deletecollection":
        return f"delete collection of{sub + ' a' if sub else ''} {kind}"
    if action == "list":
        return f"{list_word} objects of kind {kind}"
    if action in ("get", "put"):
        return f"{_VERB_OF_ACTION[action]}{sub} the specified {kind}"
    return f"{_VERB_OF_ACTION[action]}{sub}{_article(kind)}{kind}"


def _parameters(action: str, path: str, kind: str, *, custom: bool) -> tuple[Parameter, ...]:
    params = [Parameter(name, "query", kind_, text) for name, kind_, text in query_parameters(action, custom=custom)]
    params.append(Parameter("pretty", "query", "string", PRETTY))
    if "{name}" in path:
        params.append(Parameter("name", "path", "string", f"name of the {kind}"))
    if "{namespace}" in path:
        params.append(Parameter("namespace", "path", "string", NAMESPACE))
    return tuple(sorted(params, key=lambda param: (param.location != "path", param.name)))


def _responses(action: str, kind: str, list_kind: str, custom: bool) -> tuple[tuple[str, str, str], ...]:
    if action == "list":
        return (("200", "OK", list_kind),)
    if action == "deletecollection":
        return (("200", "OK", _STATUS),)
    if action == "post":
        return (("200", "OK", kind), ("201", "Created", kind), ("202", "Accepted", kind))
    if action == "put":
        return (("200", "OK", kind), ("201", "Created", kind))
    if action == "patch":
        return (("200", "OK", kind),) if custom else (("200", "OK", kind), ("201", "Created", kind))
    if action == "delete":
        return (("200", "OK", _STATUS if custom else kind), ("202", "Accepted", _STATUS if custom else kind))
    return (("200", "OK", kind),)


def _operations_of(registry: Registry, rtype: ResourceType) -> list[Operation]:
    words = _group_words(rtype.group)
    prefix = "".join(word[:1].upper() + word[1:] for word in words) + rtype.version[:1].upper() + rtype.version[1:]
    tag = words[0] + "".join(word[:1].upper() + word[1:] for word in words[1:]) + "_" + rtype.version
    kind_name = kind_definition_name(registry, rtype.group, rtype.version, rtype.kind, custom=rtype.custom)
    root = f"/apis/{rtype.group}/{rtype.version}" if rtype.group else f"/api/{rtype.version}"
    scoped = f"{root}/namespaces/{{namespace}}/{rtype.plural}" if rtype.namespaced else f"{root}/{rtype.plural}"
    namespaced = "Namespaced" if rtype.namespaced else ""
    verbs = set(rtype.verbs)
    produces = ("application/json", "application/yaml") + (
        () if rtype.custom else ("application/vnd.kubernetes.protobuf",)
    )
    patch_types = _PATCH_TYPES if not rtype.custom else tuple(t for t in _PATCH_TYPES if "strategic" not in t)
    routes: list[tuple[str, str, str, str, str, str]] = []  # path, method, action, id suffix, subresource, kind
    if "list" in verbs and rtype.namespaced:
        routes.append((f"{root}/{rtype.plural}", "get", "list", f"{rtype.kind}ForAllNamespaces", "", kind_name))
    for verb, method, action, name in (
        ("list", "get", "list", ""),
        ("create", "post", "post", ""),
        ("deletecollection", "delete", "deletecollection", "Collection"),
    ):
        if verb in verbs:
            routes.append((scoped, method, action, f"{name}{namespaced}{rtype.kind}", "", kind_name))
    for verb, method, action in (("get", "get", "get"), ("update", "put", "put"), ("delete", "delete", "delete")):
        if verb in verbs:
            routes.append((scoped + "/{name}", method, action, f"{namespaced}{rtype.kind}", "", kind_name))
    if "patch" in verbs:
        routes.append((scoped + "/{name}", "patch", "patch", f"{namespaced}{rtype.kind}", "", kind_name))
    for sub in ("status", "scale"):
        if sub in rtype.subresources:
            answer = _SCALE if sub == "scale" else kind_name
            for method, action in (("get", "get"), ("put", "put"), ("patch", "patch")):
                routes.append(
                    (f"{scoped}/{{name}}/{sub}", method, action, f"{namespaced}{rtype.kind}{sub.title()}", sub, answer)
                )
    operations = []
    for path, method, action, suffix, sub, answer in routes:
        operation_id = _VERB_OF_ACTION[action] + prefix + suffix
        body = {"post": answer, "put": answer, "patch": _PATCH, "delete": _DELETE_OPTIONS}.get(action)
        if action == "deletecollection" and not rtype.custom:
            body = _DELETE_OPTIONS
        operations.append(
            Operation(
                path=path,
                method=method,
                operation_id=operation_id,
                description=_description(
                    action, rtype.kind, sub, list_word="list" if rtype.custom else "list or watch"
                ),
                action=action,
                gvk=("autoscaling", "v1", "Scale") if sub == "scale" else (rtype.group, rtype.version, rtype.kind),
                parameters=_parameters(action, path, rtype.kind, custom=rtype.custom),
                body=body,
                body_required=action not in ("delete", "deletecollection"),
                responses=_responses(action, answer, kind_name + "List", rtype.custom),
                consumes=patch_types if action == "patch" else _OTHER_CONSUMES[rtype.custom],
                produces=produces,
                tag=tag,
            )
        )
    return operations


def group_version_operations(registry: Registry, types: list[ResourceType]) -> list[Operation]:
    """Every operation of one group version's resources, in path order."""
    operations = [operation for rtype in types for operation in _operations_of(registry, rtype)]
    return sorted(operations, key=lambda operation: operation.path)
