"""The built-in API's OpenAPI definitions at one Kubernetes version, read from ``kubernetes-validate``.

The apiserver publishes every built-in type as an OpenAPI definition generated from the Go types
of ``k8s.io/api`` (kubernetes/kubernetes ``api/openapi-spec/swagger.json``): descriptions for
``kubectl explain``, and the ``x-kubernetes-*`` extensions that strategic merge patch and
server-side apply read. The PyPI package ``kubernetes-validate`` ships those definitions for every
version from 1.25 on, rewritten as JSON schema; docs/builtin-schemas.md says why it is the source.

Only its data is read: the package folder is found with :func:`importlib.util.find_spec` (its
code, which imports jsonschema, is never imported) and one version's ``_definitions.json`` is
parsed on first use, then kept for the process. The JSON-schema rewriting is undone so the result
is the definitions as ``swagger.json`` writes them:

- ``"type": ["string", "null"]`` is ``"type": "string"`` again;
- ``$ref`` points at ``#/definitions/<name>``;
- the ``enum`` the package adds to a kind's ``apiVersion`` and ``kind`` is dropped;
- ``IntOrString`` and ``Quantity``, written as ``oneOf`` string-or-number, are the string types
  their ``OpenAPISchemaType`` declares (apimachinery ``util/intstr``, ``api/resource``).
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from typing import Any

import orjson

from fakeapi._state.typed.structs import DEFAULT_KUBE_VERSION

__all__ = ["INT_OR_STRING", "QUANTITY", "builtin_definitions"]

INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"

_JSON_SCHEMA_REF = "#/$defs/"
_OPENAPI_REF = "#/definitions/"

# Keys whose value is one schema, a list of schemas, or a map of names to schemas.
_ONE_SCHEMA = ("items", "additionalProperties", "not")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf")
_SCHEMA_MAPS = ("properties", "patternProperties")

# The string types apimachinery declares for these two (``OpenAPISchemaType``/``OpenAPISchemaFormat``).
_STRING_TYPES: dict[str, dict[str, Any]] = {
    INT_OR_STRING: {"format": "int-or-string", "type": "string"},
    QUANTITY: {"type": "string"},
}


@functools.cache
def builtin_definitions(kube_version: str = DEFAULT_KUBE_VERSION) -> dict[str, dict[str, Any]]:
    """Every definition of the built-in API at ``kube_version`` (``"1.32"``), by its OpenAPI name.

    Names are the apiserver's (``io.k8s.api.core.v1.Pod``); each value is the definition as the
    OpenAPI v2 document holds it, ``$ref`` as ``#/definitions/<name>``. Loaded once per version and
    shared: callers must not change it. ``LookupError`` for a version the package does not ship.
    """
    path = _definitions_path(kube_version)
    raw: dict[str, Any] = orjson.loads(path.read_bytes())["$defs"]
    definitions: dict[str, dict[str, Any]] = {}
    for name, schema in raw.items():
        fixed = _STRING_TYPES.get(name)
        if fixed is not None:
            definitions[name] = dict(fixed)
            continue
        converted = _schema(schema)
        if "x-kubernetes-group-version-kind" in converted:
            for field in ("apiVersion", "kind"):
                converted.get("properties", {}).get(field, {}).pop("enum", None)
        definitions[name] = converted
    return definitions


def _definitions_path(kube_version: str) -> Path:
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        raise LookupError("the kubernetes-validate package is not installed")
    folder = Path(next(iter(spec.submodule_search_locations))) / "kubernetes-json-schema"
    path = folder / f"v{kube_version.removeprefix('v')}.0-local" / "_definitions.json"
    if not path.is_file():
        raise LookupError(f"kubernetes-validate has no schemas for Kubernetes {kube_version}")
    return path


def _schema(node: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, list):
            kinds = [kind for kind in value if kind != "null"]
            out[key] = kinds[0] if len(kinds) == 1 else kinds
        elif key == "$ref" and isinstance(value, str):
            out[key] = _OPENAPI_REF + value.removeprefix(_JSON_SCHEMA_REF)
        elif key in _ONE_SCHEMA and isinstance(value, dict):
            out[key] = _schema(value)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_schema(entry) for entry in value]
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _schema(entry) for name, entry in value.items()}
        else:
            out[key] = value
    return out
