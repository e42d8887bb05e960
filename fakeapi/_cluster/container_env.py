"""The environment a local process gets for its container (docs/process-containers.md).

The kubelet builds a container's environment in ``makeEnvironmentVariables``
(``pkg/kubelet/kubelet_pods.go``): each ``env`` entry in order, a literal ``value`` expanded with
``$(NAME)`` references to the entries before it (``third_party/forked/golang/expansion/expand.go``:
``$$`` is a ``$``, an unknown name is left as written, ``$(`` without a ``)`` too), a
``valueFrom.fieldRef`` read from the pod (``podFieldSelectorRuntimeValue``: ``spec.nodeName``,
``spec.serviceAccountName``, ``status.hostIP(s)``, ``status.podIP(s)``, the rest through
``fieldpath.ExtractFieldPathAsString``: ``metadata.name``, ``namespace``, ``uid``, and one label or
annotation as ``metadata.labels['key']``); the runtime adds ``HOSTNAME``.

A local process has no image to give it ``PATH`` and the like, so it starts from the server's own
environment; then ``HOSTNAME``, then the pod's variables, then the outcome's ``env`` over them.
Left out: variables from ConfigMaps, Secrets and resource fields (``configMapKeyRef``,
``secretKeyRef``, ``resourceFieldRef``, ``envFrom``), and the Service variables
(``enableServiceLinks``): the process does not get them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from fakeapi._state.objects import metadata_of

__all__ = ["container_environment", "expand"]

_ONE_KEY = re.compile(r"metadata\.(labels|annotations)\['(.*)'\]\Z")


def expand(text: str, lookup: Callable[[str], str | None]) -> str:
    """``expansion.Expand``: ``$(NAME)`` replaced by its value when known, ``$$`` by ``$``."""
    out: list[str] = []
    checkpoint = cursor = 0
    while cursor < len(text):
        if text[cursor] == "$" and cursor + 1 < len(text):
            out.append(text[checkpoint:cursor])
            rest = text[cursor + 1 :]
            if rest[0] == "$":
                out.append("$")
                advance = 1
            elif rest[0] == "(":
                closer = rest.find(")", 1)
                if closer == -1:
                    out.append("$(")
                    advance = 1
                else:
                    name = rest[1:closer]
                    value = lookup(name)
                    out.append(f"$({name})" if value is None else value)
                    advance = closer + 1
            else:
                out.append("$" + rest[0])
                advance = 1
            cursor += advance
            checkpoint = cursor + 1
        cursor += 1
    return "".join(out) + text[checkpoint:]


def _field_value(pod: dict[str, Any], path: str) -> str | None:
    spec, status, meta = pod.get("spec") or {}, pod.get("status") or {}, metadata_of(pod)
    direct: dict[str, Any] = {
        "spec.nodeName": spec.get("nodeName"),
        "spec.serviceAccountName": spec.get("serviceAccountName"),
        "status.hostIP": status.get("hostIP"),
        "status.hostIPs": ",".join(entry.get("ip", "") for entry in status.get("hostIPs") or []),
        "status.podIP": status.get("podIP"),
        "status.podIPs": ",".join(entry.get("ip", "") for entry in status.get("podIPs") or []),
        "metadata.name": meta.get("name"),
        "metadata.namespace": meta.get("namespace"),
        "metadata.uid": meta.get("uid"),
    }
    if path in direct:
        return str(direct[path] or "")
    one = _ONE_KEY.match(path)
    if one is not None:
        return str((meta.get(one[1]) or {}).get(one[2], ""))
    return None


def container_environment(
    pod: dict[str, Any], container: dict[str, Any], extra: Mapping[str, str], base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The variables a local process for ``container`` of ``pod`` starts with."""
    environment = dict(os.environ if base is None else base)
    spec, meta = pod.get("spec") or {}, metadata_of(pod)
    environment["HOSTNAME"] = str(spec.get("hostname") or meta.get("name") or "")
    defined: dict[str, str] = {}
    for entry in container.get("env") or []:
        if not isinstance(entry, dict) or not entry.get("name"):
            continue
        name = str(entry["name"])
        source = entry.get("valueFrom")
        if isinstance(source, dict):
            field_ref = source.get("fieldRef")
            value = _field_value(pod, str(field_ref.get("fieldPath", ""))) if isinstance(field_ref, dict) else None
            if value is None:
                continue  # a source left out (docs/process-containers.md)
        else:
            value = expand(str(entry.get("value") or ""), defined.get)
        defined[name] = value
    environment.update(defined)
    environment.update(extra)
    return environment
