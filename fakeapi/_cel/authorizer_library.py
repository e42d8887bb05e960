"""The CEL authorizer library of Kubernetes 1.32: ``authorizer`` and ``authorizer.requestResource``.

k8s.io/apiserver ``pkg/cel/library/authz.go`` (``Authz``, and ``AuthzSelectors``, which the 1.32 base
environment adds because the ``AuthorizeWithSelectors`` feature is on by default), with the variables
``pkg/admission/plugin/cel/compile.go`` declares when an environment has an authorizer. docs/cel-authorizer.md.

- ``authorizer.path(p)`` (``path must not be empty`` when ``p`` is blank) and ``.check(verb)``: a non-resource
  request's attributes;
- ``authorizer.group(g).resource(r)`` (``resource must not be empty``), then ``.subresource``, ``.namespace``,
  ``.name``, ``.fieldSelector``, ``.labelSelector``, each replacing that attribute, and ``.check(verb)``: a
  resource request's, at API version ``*``;
- ``authorizer.serviceAccount(namespace, name)``: the same authorizer for the ServiceAccount's user (its name
  and its two groups, nothing else), once the name is a DNS-1123 subdomain (else ``Invalid service account
  name``) and the namespace a DNS-1123 label (``Invalid service account namespace``);
- a Decision's ``allowed()``, ``reason()``, ``errored()`` and ``error()``;
- ``authorizer.requestResource``: the admission request's own resource check (``NewResourceAuthorizerVal``).

The builders are pure functions of the values (:mod:`.authorizer_types`). ``check`` asks the server's
authorizer, so it is bound per evaluation, in the activation, together with the variables: an environment
gets the declarations from :func:`add_declarations`, an evaluation its values from :func:`bind_authorizer`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from google.protobuf import descriptor_pool, message_factory

from fakeapi._cel.authorizer_types import (
    AUTHORIZER,
    DECISION,
    GROUP_CHECK,
    PATH_CHECK,
    RESOURCE_CHECK,
    add_checking_types,
)
from fakeapi._cel.name_formats import FORMATS
from fakeapi._cel.opaque import runtime_pool

__all__ = [
    "AuthorizationCheck",
    "AuthorizationDecision",
    "AuthorizerBinding",
    "RequestResource",
    "add_declarations",
    "bind_authorizer",
]

T = cel.Type
_AUTHORIZER, _PATH, _GROUP, _RESOURCE, _DECISION = (
    T(AUTHORIZER),
    T(PATH_CHECK),
    T(GROUP_CHECK),
    T(RESOURCE_CHECK),
    T(DECISION),
)
_LIBRARY = "kubernetes.authz"


@dataclass(frozen=True)
class AuthorizationCheck:
    """``authorizer.AttributesRecord`` as a ``check`` fills it: the user, the verb, and a path or a resource."""

    username: str
    groups: tuple[str, ...]
    verb: str
    resource_request: bool
    path: str = ""
    group: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    field_selector: str = ""
    label_selector: str = ""


@dataclass(frozen=True)
class AuthorizationDecision:
    """What the authorizer answered: allowed or not, its reason, and its error ("" when none)."""

    allowed: bool
    reason: str = ""
    error: str = ""


Authorize = Callable[[AuthorizationCheck], AuthorizationDecision]


@dataclass(frozen=True)
class RequestResource:
    """The request's resource, as ``authorizer.requestResource`` starts from it."""

    group: str
    resource: str
    subresource: str = ""
    namespace: str = ""
    name: str = ""


@dataclass(frozen=True)
class AuthorizerBinding:
    """One evaluation's values: the variables, and the ``check`` functions for the activation."""

    variables: dict[str, Any]
    functions: tuple[Any, ...]


@lru_cache(maxsize=8)
def _message_class(full_name: str) -> Any:
    return message_factory.GetMessageClass(runtime_pool().FindMessageTypeByName(full_name))


def _new(full_name: str, **fields: Any) -> Any:
    return _message_class(full_name)(**fields)


def _user(value: Any) -> dict[str, Any]:
    return {"username": value.username, "groups": list(value.groups)}


# -- the builders ---------------------------------------------------------------------------------


def _path(authorizer: Any, path: str) -> Any:
    if not path.strip():
        raise ValueError("path must not be empty")
    return _new(PATH_CHECK, **_user(authorizer), path=path)


def _group(authorizer: Any, group: str) -> Any:
    return _new(GROUP_CHECK, **_user(authorizer), group=group)


def _service_account(authorizer: Any, namespace: str, name: str) -> Any:
    if FORMATS["dns1123Subdomain"](name):
        raise ValueError("Invalid service account name")
    if FORMATS["dns1123Label"](namespace):
        raise ValueError("Invalid service account namespace")
    groups = ["system:serviceaccounts", f"system:serviceaccounts:{namespace}"]
    return _new(AUTHORIZER, username=f"system:serviceaccount:{namespace}:{name}", groups=groups)


def _resource(group_check: Any, resource: str) -> Any:
    if not resource.strip():
        raise ValueError("resource must not be empty")
    return _new(RESOURCE_CHECK, **_user(group_check), group=group_check.group, resource=resource)


def _replacing(field: str) -> Callable[[Any, str], Any]:
    """A builder that returns the resource check with one attribute replaced."""

    def replace(resource_check: Any, value: str) -> Any:
        result = _new(RESOURCE_CHECK)
        result.CopyFrom(resource_check)
        setattr(result, field, value)
        return result

    return replace


# (name, overload id, result, parameters, implementation); ``check`` is bound per evaluation
_FUNCTIONS: tuple[tuple[str, str, Any, tuple[Any, ...], Callable[..., Any] | None], ...] = (
    ("path", "authorizer_path", _PATH, (_AUTHORIZER, T.STRING), _path),
    ("group", "authorizer_group", _GROUP, (_AUTHORIZER, T.STRING), _group),
    ("serviceAccount", "authorizer_serviceaccount", _AUTHORIZER, (_AUTHORIZER, T.STRING, T.STRING), _service_account),
    ("resource", "groupcheck_resource", _RESOURCE, (_GROUP, T.STRING), _resource),
    ("subresource", "resourcecheck_subresource", _RESOURCE, (_RESOURCE, T.STRING), _replacing("subresource")),
    ("namespace", "resourcecheck_namespace", _RESOURCE, (_RESOURCE, T.STRING), _replacing("namespace")),
    ("name", "resourcecheck_name", _RESOURCE, (_RESOURCE, T.STRING), _replacing("name")),
    ("check", "pathcheck_check", _DECISION, (_PATH, T.STRING), None),
    ("check", "resourcecheck_check", _DECISION, (_RESOURCE, T.STRING), None),
    ("errored", "decision_errored", T.BOOL, (_DECISION,), lambda decision: decision.error != ""),
    ("error", "decision_error", T.STRING, (_DECISION,), lambda decision: decision.error),
    ("allowed", "decision_allowed", T.BOOL, (_DECISION,), lambda decision: decision.allowed),
    ("reason", "decision_reason", T.STRING, (_DECISION,), lambda decision: decision.reason),
    # ``AuthzSelectors``
    ("fieldSelector", "authorizer_fieldselector", _RESOURCE, (_RESOURCE, T.STRING), _replacing("fieldSelector")),
    ("labelSelector", "authorizer_labelselector", _RESOURCE, (_RESOURCE, T.STRING), _replacing("labelSelector")),
)


def _declarations(checked: bool) -> list[Any]:
    by_name: dict[str, list[Any]] = {}
    for name, overload, result, parameters, implementation in _FUNCTIONS:
        if not checked and overload == "pathcheck_check":
            # cel-cpp dispatches on the kind, and both checks are messages: one declaration, bound per evaluation.
            continue
        impl = None if checked else implementation
        declared = cel.Overload(overload, result, list(parameters), is_member=True, impl=impl)
        by_name.setdefault(name, []).append(declared)
    return [cel.FunctionDecl(name, overloads) for name, overloads in by_name.items()]


@lru_cache(maxsize=2)
def _extension(checked: bool) -> Any:
    return cel.CelExtension(_LIBRARY, _declarations(checked))


def add_declarations(
    pool: descriptor_pool.DescriptorPool, variables: dict[str, Any], extensions: list[Any], *, checked: bool
) -> None:
    """Add the library to what an environment is built from: its types to the checker's ``pool`` (the runtime's
    pool has them already), its two variables, its functions. ``checked`` for the environment that type-checks,
    where the variables have the library's types; the runtime's are dyn."""
    if checked:
        add_checking_types(pool)
        variables["authorizer"] = _AUTHORIZER
        variables["authorizer.requestResource"] = _RESOURCE
    else:
        variables["authorizer"] = T.DYN
    extensions.append(_extension(checked))


def _check(authorize: Authorize) -> Callable[[Any, str], Any]:
    def check(target: Any, verb: str) -> Any:
        user = (target.username, tuple(target.groups))
        if target.DESCRIPTOR.full_name == PATH_CHECK:
            asked = AuthorizationCheck(*user, verb=verb, resource_request=False, path=target.path)
        else:
            asked = AuthorizationCheck(
                *user,
                verb=verb,
                resource_request=True,
                group=target.group,
                resource=target.resource,
                subresource=target.subresource,
                namespace=target.namespace,
                name=target.name,
                field_selector=target.fieldSelector,
                label_selector=target.labelSelector,
            )
        decision = authorize(asked)
        return _new(DECISION, allowed=decision.allowed, reason=decision.reason, error=decision.error)

    return check


def bind_authorizer(
    username: str, groups: Sequence[str], authorize: Authorize, request_resource: RequestResource
) -> AuthorizerBinding:
    """The values of one evaluation for the requester (``NewAuthorizerVal``, ``NewResourceAuthorizerVal``):
    pass ``variables`` with the others, ``functions`` to the activation."""
    user = {"username": username, "groups": list(groups)}
    requested = _new(
        RESOURCE_CHECK,
        **user,
        group=request_resource.group,
        resource=request_resource.resource,
        subresource=request_resource.subresource,
        namespace=request_resource.namespace,
        name=request_resource.name,
    )
    authorizer = _new(AUTHORIZER, **user, requestResource=requested)
    check = cel.Function("check", [_RESOURCE, T.STRING], True, _check(authorize), _DECISION)
    return AuthorizerBinding({"authorizer": authorizer}, (check,))
