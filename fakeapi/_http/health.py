"""The health endpoints, ``/healthz``, ``/livez`` and ``/readyz``, as kube-apiserver 1.32 answers them.

Each endpoint is one list of named checks (``InstallPathHandler`` in k8s.io/apiserver
``pkg/server/healthz/healthz.go``): the root path runs them all (``handleRootHealth``): ``ok``, or
with ``?verbose`` one ``[+]NAME ok`` line each and ``NAME check passed``; ``?exclude=NAME`` turns a
check's line into ``[+]NAME excluded: ok`` and an exclude that names no check adds a ``warn:`` line.
Each check also answers alone on ``<root>/<check name>`` (``adaptCheckToHandler``), with a bare
``ok`` and none of the root's headers. Any other path under a root (a trailing slash included) is
registered by nobody and gets Go's ``404 page not found``. The checks of a 1.32 server, and where
that list comes from, are in docs/health.md; fakeapi's checks always pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aiohttp import web
from multidict import MultiMapping

from fakeapi._patching.gostrconv import quote

__all__ = ["CHECKS", "health_response"]

_PLAIN_TEXT = "text/plain; charset=utf-8"

# The kube-apiserver's own post-start hooks and those of the apiextensions and aggregator servers it
# delegates to, in the order the outermost server lists them (docs/health.md).
_POST_START_CHECKS = (
    "poststarthook/start-apiserver-admission-initializer",
    "poststarthook/generic-apiserver-start-informers",
    "poststarthook/priority-and-fairness-config-consumer",
    "poststarthook/priority-and-fairness-filter",
    "poststarthook/storage-object-count-tracker-hook",
    "poststarthook/start-apiextensions-informers",
    "poststarthook/start-apiextensions-controllers",
    "poststarthook/crd-informer-synced",
    "poststarthook/start-system-namespaces-controller",
    "poststarthook/start-cluster-authentication-info-controller",
    "poststarthook/start-kube-apiserver-identity-lease-controller",
    "poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
    "poststarthook/start-legacy-token-tracking-controller",
    "poststarthook/start-service-ip-repair-controllers",
    "poststarthook/rbac/bootstrap-roles",
    "poststarthook/scheduling/bootstrap-system-priority-classes",
    "poststarthook/priority-and-fairness-config-producer",
    "poststarthook/bootstrap-controller",
    "poststarthook/aggregator-reload-proxy-client-cert",
    "poststarthook/start-kube-aggregator-informers",
    "poststarthook/apiservice-status-local-available-controller",
    "poststarthook/apiservice-status-remote-available-controller",
    "poststarthook/apiservice-registration-controller",
    "poststarthook/apiservice-discovery-controller",
    "poststarthook/kube-apiserver-autoregistration",
    "autoregister-completion",
    "poststarthook/apiservice-openapi-controller",
    "poststarthook/apiservice-openapiv3-controller",
)

CHECKS: Mapping[str, Sequence[str]] = {
    "healthz": ("ping", "log", "etcd", *_POST_START_CHECKS),
    "livez": ("ping", "log", "etcd", *_POST_START_CHECKS),
    "readyz": ("ping", "log", "etcd", "etcd-readiness", "informer-sync", *_POST_START_CHECKS, "shutdown"),
}
"""The checks of each endpoint, in the order its verbose answer lists them."""


def _root_body(endpoint: str, checks: Sequence[str], query: MultiMapping[str]) -> str:
    """``handleRootHealth`` with every check passing: ``ok``, or the verbose listing."""
    if "verbose" not in query:
        return "ok"
    excluded = set(query.getall("exclude", []))
    lines = []
    for name in checks:
        if name in excluded:
            excluded.discard(name)
            lines.append(f"[+]{name} excluded: ok\n")
        else:
            lines.append(f"[+]{name} ok\n")
    if excluded:
        unmatched = ",".join(quote(name) for name in sorted(excluded))
        lines.append(f"warn: some health checks cannot be excluded: no matches for {unmatched}\n")
    return "".join(lines) + f"{endpoint} check passed\n"


def health_response(request: web.BaseRequest) -> web.Response | None:
    """The answer to a health path, Go's 404 for an unregistered path under one; None for any other path."""
    parts = request.path.split("/", 2)
    endpoint = parts[1] if len(parts) > 1 else ""
    checks = CHECKS.get(endpoint)
    if checks is None:
        return None
    if len(parts) == 2:
        body = _root_body(endpoint, checks, request.query)
        return web.Response(text=body, headers={"Content-Type": _PLAIN_TEXT, "X-Content-Type-Options": "nosniff"})
    if parts[2] in checks:
        # Go's ResponseWriter sniffs the type of a body written without one.
        return web.Response(text="ok", headers={"Content-Type": _PLAIN_TEXT})
    response = web.Response(status=404, text="404 page not found\n", headers={"Content-Type": _PLAIN_TEXT})
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
