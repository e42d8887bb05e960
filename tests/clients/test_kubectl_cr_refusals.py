"""The real kubectl 1.32 against custom resources the apiserver refuses: duplicate items of
``x-kubernetes-list-type`` lists (docs/validation.md, "List types") and bodies at another version than the
endpoint's (docs/conversion.md, "A body at another version"), as a user reads the errors.

Shares ``test_kubectl``'s session (one ``fakeapi serve`` per module).
"""

from __future__ import annotations

import json

from tests.clients.test_kubectl import Kubectl, kubectl

__all__ = ["kubectl"]

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port]
                items:
                  type: object
                  required: [port]
                  properties:
                    port: {type: integer}
                    name: {type: string}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-preserve-unknown-fields: true
"""


def gizmo(name: str, spec: str) -> str:
    return f"apiVersion: example.com/v1\nkind: Gizmo\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n{spec}"


def test_kubectl_apply_shows_list_type_duplicates(kubectl: Kubectl) -> None:
    kubectl.ok("apply", "-f", "-", stdin=CRD)
    refused = kubectl.fails("apply", "-f", "-", stdin=gizmo("dup-tags", "  tags: [a, b, a]\n"))
    assert refused.stderr == ('The Gizmo "dup-tags" is invalid: spec.tags[2]: Duplicate value: "a"\n'), refused.explain(
        ["apply"]
    )
    both = kubectl.fails(
        "apply", "-f", "-", stdin=gizmo("dup-both", "  tags: [a, a]\n  ports: [{port: 80}, {port: 80, name: x}]\n")
    )
    # kubectl sends the spec's keys sorted; sibling fields are reported in the body's order (Go's is random).
    assert both.stderr == (
        'The Gizmo "dup-both" is invalid: \n'
        '* spec.ports[1]: Duplicate value: map[string]interface {}{"port":80}\n'
        '* spec.tags[1]: Duplicate value: "a"\n'
    ), both.explain(["apply"])
    kubectl.ok("apply", "--server-side", "-f", "-", stdin=gizmo("clean", "  tags: [a, b]\n"))
    # v2, which kubectl prefers, has no list types: the patch names v1.
    patched = kubectl.fails(
        "patch", "gizmos.v1.example.com", "clean", "--type=merge", "-p", '{"spec":{"tags":["x","x"]}}'
    )
    assert patched.stderr == 'The Gizmo "clean" is invalid: spec.tags[1]: Duplicate value: "x"\n', patched.explain(
        ["patch"]
    )
    assert kubectl.ok("get", "gizmo", "clean", "-o", "jsonpath={.spec.tags}") == '["a","b"]'
    assert kubectl("get", "gizmo", "dup-tags", "dup-both", "-o", "name").stdout == ""


def test_kubectl_sees_a_body_at_another_version_refused(kubectl: Kubectl) -> None:
    kubectl.ok("apply", "-f", "-", stdin=CRD)
    body = json.dumps(
        {"apiVersion": "example.com/v2", "kind": "Gizmo", "metadata": {"name": "other-version"}, "spec": {"x": 1}}
    )
    path = "/apis/example.com/v1/namespaces/default/gizmos"
    created = kubectl.fails("create", "--raw", path, "-f", "-", stdin=body)
    assert created.stderr == (
        "Error from server (BadRequest): the API version in the data (example.com/v2) does not match the expected "
        "API version (example.com/v1)\n"
    ), created.explain(["create", "--raw"])
    replaced = kubectl.fails("replace", "--raw", f"{path}/other-version", "-f", "-", stdin=body)
    assert replaced.stderr == created.stderr, replaced.explain(["replace", "--raw"])
    missing = kubectl("get", "gizmo", "other-version", "-o", "name")
    assert missing.stderr == 'Error from server (NotFound): gizmos.example.com "other-version" not found\n'
