"""The printer of a custom resource: Name, then the version's ``additionalPrinterColumns``.

Reproduced from apiextensions-apiserver 1.32 ``pkg/registry/customresource/tableconvertor/tableconvertor.go``
(``New``, ``ConvertToTable``, ``cellForJSONValue``) and apiextensions ``serveDefaultColumnsIfEmpty``:
a version without columns gets one Age column. Each path is evaluated with :mod:`.jsonpath`; a
string column prints the first match with ``fmt.Fprint``, other types keep a value of the right
JSON type and null anything else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi._patching.gofloat import GoFloat
from fakeapi._patching.govalues import format_value
from fakeapi._state.tables.columns import CREATION_TIMESTAMP_DOC, NAME_COLUMN, Printer, column
from fakeapi._state.tables.durations import parse_time, since
from fakeapi._state.tables.fields import Obj, metadata
from fakeapi._state.tables.jsonpath import JSONPathError, compile_jsonpath

__all__ = ["custom_resource_printer"]


def custom_resource_printer(printer_columns: tuple[Obj, ...]) -> Printer:
    """The printer of a CRD version with these ``additionalPrinterColumns`` (``tableconvertor.New``)."""
    definitions = list(printer_columns) or [
        {
            "name": "Age",
            "type": "date",
            "description": CREATION_TIMESTAMP_DOC,
            "jsonPath": ".metadata.creationTimestamp",
        }
    ]
    columns = [NAME_COLUMN]
    paths: list[tuple[Callable[[Any], list[Any]] | None, str]] = []
    for definition in definitions:
        json_path = str(definition.get("jsonPath", ""))
        description = (
            definition.get("description") or f"Custom resource definition column (in JSONPath format): {json_path}"
        )
        columns.append(
            column(
                str(definition.get("name", "")),
                str(definition.get("type", "")),
                description,
                priority=int(definition.get("priority") or 0),
                format_=str(definition.get("format") or ""),
            )
        )
        try:
            paths.append((compile_jsonpath(json_path), str(definition.get("type", ""))))
        except JSONPathError:
            paths.append((None, ""))

    def cells(obj: Obj, now_ns: int) -> list[Any]:
        row: list[Any] = [metadata(obj).get("name", "")]
        for path, type_ in paths:
            try:
                found = path(obj) if path is not None else []
            except JSONPathError:
                found = []
            if not found:
                row.append(None)
            elif type_ == "string":
                row.append("<no value>" if found[0] is None else format_value(found[0]))
            else:
                row.append(_typed_cell(type_, found[0], now_ns))
        return row

    return Printer(tuple(columns), cells)


def _typed_cell(type_: str, value: Any, now_ns: int) -> Any:
    """``cellForJSONValue``: a value of the wrong JSON type is null."""
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if type_ == "integer" and is_number:
        return int(value)
    if type_ == "number" and is_number:
        return GoFloat(value)
    if type_ == "boolean" and isinstance(value, bool):
        return value
    if type_ == "date" and isinstance(value, str):
        if value in ("", "null"):
            return "<unknown>"
        parsed = parse_time(value)
        return "<invalid>" if parsed is None else since(parsed, now_ns)
    return None
