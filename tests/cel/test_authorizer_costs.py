"""The estimated cost of the authorizer library's calls: upstream's own table (k8s.io/apiserver v0.32
``pkg/cel/library/cost_test.go``, ``TestAuthzLibrary``), each expression's estimate exactly as recorded there
(docs/cel-authorizer.md)."""

from __future__ import annotations

import pytest
from cel_expr_python import cel
from google.protobuf import descriptor_pool

from fakeapi._cel.authorizer_library import add_declarations
from fakeapi._cel.costs import estimate_cost
from fakeapi._cel.declarations import Declared
from fakeapi._cel.syntax_tree import read_checked

RESOURCE = "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')"
SELECTOR = "spec.nodeName=example-node-name.fully.qualified.domain.name.example.com"

UPSTREAM = [
    ("authorizer.path('/healthz')", 2),
    (RESOURCE, 6),
    (f"authorizer.group('').resource('pods').fieldSelector('{SELECTOR}')", 1821),
    (f"authorizer.group('').resource('pods').labelSelector('{SELECTOR}')", 1821),
    ("authorizer.path('/healthz').check('get').allowed()", 350003),
    (f"{RESOURCE}.check('create').allowed()", 350007),
    (f"{RESOURCE}.check('create').reason()", 350007),
    (f"{RESOURCE}.check('create').errored()", 350007),
    (f"{RESOURCE}.check('create').error()", 350007),
]


def _environment() -> object:
    variables: dict[str, object] = {}
    extensions: list[object] = []
    pool = descriptor_pool.DescriptorPool()
    add_declarations(pool, variables, extensions, checked=True)
    return cel.NewEnv(pool, variables=variables, extensions=extensions)


@pytest.mark.parametrize(("expression", "cost"), UPSTREAM)
def test_the_estimated_cost_is_upstreams(expression: str, cost: int) -> None:
    checked = _environment().compile(expression)  # type: ignore[attr-defined]
    estimate = estimate_cost(read_checked(checked.serialize()), Declared("dyn", {}, cel.Type.DYN))
    assert (estimate.min, estimate.max) == (cost, cost)
