"""The built-in kinds as Go types: their structs, read from a data file per Kubernetes version.

:mod:`.structs` loads ``data/structs-<version>.json``, which ``tools/gostructs/generate.py`` records
from the Go sources of ``k8s.io/api`` and ``k8s.io/apimachinery``: every struct's fields in Go
declaration order with JSON names, Go types, ``omitempty``, protobuf numbers and patch tags.
"""

from __future__ import annotations

from fakeapi._state.typed.structs import DEFAULT_KUBE_VERSION, GoField, GoStructs, go_structs

__all__ = ["DEFAULT_KUBE_VERSION", "GoField", "GoStructs", "go_structs"]
