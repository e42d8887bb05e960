"""Where ``/openapi/v2`` lists a parameter: in each operation, once for its path, or once for the document.

kube-openapi's v2 builder (``pkg/builder/openapi.go``, ``buildPaths`` and ``findCommonParameters``)
lists a parameter that every operation of a path has (same name and location; a body never) once
in the path's ``parameters``, and sorts both lists by name, then location. ``deduplicateParameters``
(``pkg/builder/parameters.go``) then moves every parameter to the document's ``parameters`` and
leaves a ``{"$ref": "#/parameters/<name>-<hash>"}`` in its place, except ``name``, ``dryRun`` and
``fieldValidation`` (kubectl once read the last two to detect server support) and a body whose
schema is the kind's own. The hash is FNV-1 64 of the parameter as kube-openapi marshals it,
its first six bytes in URL-safe base64 (docs/openapi.md).
"""

from __future__ import annotations

import base64
import json
from typing import Any

__all__ = ["hoisted", "shared"]

_GENERIC_BODY = "#/definitions/io.k8s.apimachinery"
_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK = (1 << 64) - 1


def _order(param: dict[str, Any]) -> tuple[str, str]:
    return (param["name"], param["in"])


def hoisted(operations: dict[str, dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """A path's common parameters, and its operations with theirs left out (``buildPaths``)."""
    counts: dict[tuple[str, str], int] = {}
    last: dict[tuple[str, str], dict[str, Any]] = {}
    for operation in operations.values():
        for param in operation["parameters"]:
            counts[_order(param)] = counts.get(_order(param), 0) + 1
            last[_order(param)] = param
    common = {key: param for key, param in last.items() if counts[key] == len(operations) and param["in"] != "body"}
    kept: dict[str, dict[str, Any]] = {}
    for method, operation in operations.items():
        params = sorted((param for param in operation["parameters"] if _order(param) not in common), key=_order)
        kept[method] = {**operation, "parameters": params} if params else _without_parameters(operation)
    return sorted(common.values(), key=_order), kept


def _without_parameters(operation: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in operation.items() if key != "parameters"}


def _is_shared(param: dict[str, Any]) -> bool:
    name, where = param["name"], param["in"]
    if name == "name" and where in ("query", "path"):
        return False
    if where == "query" and name in ("fieldValidation", "dryRun"):
        return False
    return not (where == "body" and not str(param.get("schema", {}).get("$ref", "")).startswith(_GENERIC_BODY))


def _marshaled(param: dict[str, Any]) -> str:
    """``Parameter.MarshalNextJSON``: validations, then the simple schema, then the properties."""
    order = ("uniqueItems", "type", "description", "name", "in", "required", "schema")
    fields = [
        f"{json.dumps(key)}:{json.dumps(param[key], ensure_ascii=False, separators=(',', ':'))}"
        for key in order
        if key in param
    ]
    return "{" + ",".join(fields) + "}"


def _hash(text: str) -> str:
    value = _FNV_OFFSET
    for byte in text.encode():
        value = (value * _FNV_PRIME) & _MASK
        value ^= byte
    return base64.urlsafe_b64encode(value.to_bytes(8, "big")[:6]).decode()


def shared(paths: dict[str, dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """``deduplicateParameters``: the paths with references in place of the shared parameters, and those."""
    found: dict[str, dict[str, Any]] = {}
    for item in paths.values():
        for entry in _parameter_lists(item):
            for param in entry:
                if _is_shared(param):
                    found.setdefault(_marshaled(param), param)
    names: dict[str, str] = {}
    definitions: dict[str, dict[str, Any]] = {}
    for key in sorted(found):
        base = found[key]["name"] or "param"
        name, attempt = f"{base}-{_hash(key)}", 0
        while name in definitions:
            attempt += 1
            name = f"{base}-{attempt}"
        definitions[name] = found[key]
        names[key] = name
    return {path: _referring(item, names) for path, item in paths.items()}, definitions


def _parameter_lists(item: dict[str, Any]) -> list[list[dict[str, Any]]]:
    lists = [item.get("parameters") or []]
    lists += [value.get("parameters") or [] for key, value in item.items() if key != "parameters"]
    return lists


def _references(params: list[dict[str, Any]], names: dict[str, str]) -> list[dict[str, Any]]:
    return [{"$ref": "#/parameters/" + names[_marshaled(param)]} if _is_shared(param) else param for param in params]


def _referring(item: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in item.items():
        if key == "parameters":
            out[key] = _references(value, names)
        elif "parameters" in value:
            out[key] = {**value, "parameters": _references(value["parameters"], names)}
        else:
            out[key] = value
    return out
