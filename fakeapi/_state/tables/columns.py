"""What a printer is: its column definitions, the function that fills a row's cells, and the Name
and Age columns most printers share.

Column definitions are written in the order of Go's ``metav1.TableColumnDefinition`` struct; their
descriptions are the swagger docs the Go code reads (``metav1.ObjectMeta{}.SwaggerDoc()["name"]``,
``["creationTimestamp"]``), as in ``pkg/printers/internalversion/printers.go`` ``AddHandlers`` and
apiserver ``pkg/registry/rest/table.go``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakeapi._state.tables.fields import Obj

__all__ = ["AGE_COLUMN", "CREATION_TIMESTAMP_DOC", "NAME_COLUMN", "NAME_DOC", "Cells", "Printer", "column"]

NAME_DOC = (
    "Name must be unique within a namespace. Is required when creating resources, although some resources may "
    "allow a client to request the generation of an appropriate name automatically. Name is primarily intended "
    "for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
CREATION_TIMESTAMP_DOC = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. "
    "It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. "
    "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)


def column(name: str, type_: str, description: str, *, priority: int = 0, format_: str = "") -> Obj:
    """A ``TableColumnDefinition``; none of its fields is omitempty."""
    return {"name": name, "type": type_, "format": format_, "description": description, "priority": priority}


NAME_COLUMN = column("Name", "string", NAME_DOC, format_="name")
AGE_COLUMN = column("Age", "string", CREATION_TIMESTAMP_DOC)

Cells = Callable[[Obj, int], list[Any]]


@dataclass(frozen=True)
class Printer:
    """How a resource prints: its columns, each row's cells and conditions, and ``"rows":null`` when empty."""

    columns: tuple[Obj, ...]
    cells: Cells
    conditions: Callable[[Obj], list[Obj]] | None = None
    null_when_empty: bool = False
