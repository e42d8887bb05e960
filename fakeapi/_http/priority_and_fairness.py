"""The API Priority and Fairness filter's headers: which FlowSchema and priority level a request got.

k8s.io/apiserver ``pkg/server/filters/priority-and-fairness.go``, ``WithPriorityAndFairness``: the
filter runs after authentication and impersonation and before authorization
(``DefaultBuildHandlerChain``), so it sees the user a request acts as, and every answer it lets
through carries ``X-Kubernetes-Pf-Flowschema-Uid`` and ``X-Kubernetes-Pf-Prioritylevel-Uid``, set
before the handler runs: the authorizer's 403s, the handlers' errors and the watches included, the
exempt requests too. A request that authentication refused never reaches it. The long-running
requests other than watches (kube-apiserver's ``BasicLongRunningRequestCheck``: the verbs ``watch``
and ``proxy``, the subresources ``attach``, ``exec``, ``proxy``, ``log`` and ``portforward``, and
``/debug/pprof/``) are served without classification, so without the headers
(docs/priority-and-fairness.md).
"""

from __future__ import annotations

from fakeapi._http.authentication import User
from fakeapi._http.requestinfo import RequestInfo
from fakeapi._state.flow_classification import FlowClassifier, RequestDigest

__all__ = ["FLOW_SCHEMA_UID", "PRIORITY_LEVEL_UID", "classification_headers"]

FLOW_SCHEMA_UID = "X-Kubernetes-Pf-Flowschema-Uid"
PRIORITY_LEVEL_UID = "X-Kubernetes-Pf-Prioritylevel-Uid"
_LONG_RUNNING_SUBRESOURCES = frozenset({"attach", "exec", "proxy", "log", "portforward"})
# ``RequestInfoFactory`` gives a resource request a verb only for these methods (or a verb in the path).
_RESOURCE_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"})


def _long_running(info: RequestInfo) -> bool:
    """``BasicLongRunningRequestCheck``, watches aside (they are classified)."""
    if not info.is_resource_request:
        return info.path.startswith("/debug/pprof/")
    # ``/api/v1/proxy/...``: the path-prefix verb ``proxy`` (requestinfo.go's ``specialVerbs``),
    # which this RequestInfo reads as a cluster-wide resource named ``proxy``.
    prefix_proxy = info.resource == "proxy" and not info.namespace and bool(info.name)
    return prefix_proxy or info.subresource in _LONG_RUNNING_SUBRESOURCES


def classification_headers(
    classifier: FlowClassifier, info: RequestInfo, user: User, method: str
) -> tuple[tuple[str, str], ...]:
    """The two headers for a request as ``user`` (after impersonation), or none for a long-running one."""
    if info.verb != "watch" and _long_running(info):
        return ()
    if info.is_resource_request:
        verb = info.verb if info.legacy_watch or method in _RESOURCE_METHODS else ""
        digest = RequestDigest(
            user.name,
            user.groups,
            True,
            verb,
            api_group=info.group,
            namespace=info.namespace,
            resource=info.resource,
            subresource=info.subresource,
        )
    else:
        digest = RequestDigest(user.name, user.groups, False, method.lower(), path=info.path)
    classification = classifier.classify(digest)
    return (
        (FLOW_SCHEMA_UID, classification.flow_schema_uid),
        (PRIORITY_LEVEL_UID, classification.priority_level_uid),
    )
