"""Which printer renders a resource: its descriptor's, or Name and Created At.

Reproduced from kube-apiserver 1.32: custom resources get the CRD version's columns
(:mod:`.custom_columns`, built with their descriptor); a built-in kind whose descriptor (:mod:`fakeapi._state.kinds`) names a
printer of ``pkg/printers/internalversion/printers.go`` (:mod:`.core`, :mod:`.pods`,
:mod:`.workloads`, :mod:`.events`) gets it; every other resource, CRDs included, gets apiserver
``pkg/registry/rest/table.go`` ``DefaultTableConvertor``: Name and Created At, with ``"rows":null``
for an empty list.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from fakeapi._state.tables.columns import CREATION_TIMESTAMP_DOC, NAME_COLUMN, Printer, column
from fakeapi._state.tables.durations import ZERO_TIME, parse_time
from fakeapi._state.tables.fields import Obj, metadata

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType

__all__ = ["printer_for"]


def printer_for(rtype: ResourceType) -> Printer:
    """The printer of ``rtype``'s Tables."""
    return rtype.printer or _DEFAULT_PRINTER


def _default_cells(obj: Obj, now_ns: int) -> list[Any]:
    """``Time.UTC().Format(time.RFC3339)``, the zero time included."""
    created = parse_time(metadata(obj).get("creationTimestamp")) or ZERO_TIME
    t = datetime(1, 1, 1, tzinfo=UTC) + timedelta(seconds=created[0] - ZERO_TIME[0])
    stamp = f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}Z"
    return [metadata(obj).get("name", ""), stamp]


_DEFAULT_PRINTER = Printer(
    (NAME_COLUMN, column("Created At", "date", CREATION_TIMESTAMP_DOC)),
    _default_cells,
    null_when_empty=True,
)
