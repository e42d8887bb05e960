"""Field paths and field sets as structured-merge-diff v4.4.2 (Kubernetes 1.32) spells and orders them.

A path is a tuple of path elements (sigs.k8s.io/structured-merge-diff ``fieldpath/element.go``):

- ``("f", name)``: a field of a map or struct, serialized ``f:<name>``, printed ``.<name>``;
- ``("k", ((name, value), ...))``: an element of a ``listType=map`` list by its key fields, sorted by
  name, serialized ``k:{"name":"app"}``, printed ``[name="app"]``;
- ``("v", value)``: an element of a ``listType=set`` list, serialized ``v:"x"``, printed ``[="x"]``.

(``i:<index>`` exists upstream but 1.32 never builds one: an atomic list is owned whole.) Values in
keys are held frozen (tuples for JSON arrays and objects) so paths hash.

A field set is a Python set of paths; a path is in it as a *member*. ``fieldsV1`` is the set as a
tree (``fieldpath/serialize.go``): at each node the members and children merged in
``PathElement.Compare`` order, a member with children written with ``".": {}`` inside. The order
puts field names before keys before values, each sorted, keys field by field with
``value.Compare`` (numbers, then strings, then booleans, then lists, maps and null).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import orjson

from fakeapi._patching.goencode import encode, format_float
from fakeapi._patching.gostrconv import quote
from fakeapi._patching.slices import SLICE_UNITS, paused, release_in_slices, sorted_in_slices

__all__ = [
    "Element",
    "FieldSet",
    "Path",
    "decode_fields",
    "element_order",
    "encode_fields",
    "frozen",
    "path_text",
    "set_order",
    "thawed",
]

Element = tuple[str, Any]
Path = tuple[Element, ...]
FieldSet = set[Path]

_KIND_RANK = {"f": 0, "k": 1, "v": 2, "i": 3}


def frozen(value: Any) -> Any:
    """A JSON value as a hashable one: arrays as tuples, objects as tagged tuples of items."""
    if isinstance(value, list):
        return tuple(frozen(item) for item in value)
    if isinstance(value, dict):
        return ("{}", tuple((key, frozen(item)) for key, item in value.items()))
    return value


def thawed(value: Any) -> Any:
    """The JSON value a frozen one stands for."""
    if isinstance(value, tuple):
        if len(value) == 2 and value[0] == "{}" and isinstance(value[1], tuple):
            return {key: thawed(item) for key, item in value[1]}
        return [thawed(item) for item in value]
    return value


def _value_order(value: Any) -> tuple[Any, ...]:
    """``value.Compare``: numbers (ints and floats numerically), strings, booleans, lists, maps, null."""
    if value is None:
        return (5,)
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, int | float):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "{}":
        return (4, tuple((key, _value_order(item)) for key, item in sorted(value[1])))
    if isinstance(value, tuple):
        return (3, tuple(_value_order(item) for item in value))
    return (6,)


def element_order(element: Element) -> tuple[Any, ...]:
    """``PathElement.Compare`` as a sort key."""
    kind, content = element
    if kind == "f":
        return (0, content)
    if kind == "k":
        return (1, tuple((name, _value_order(value)) for name, value in content))
    if kind == "v":
        return (2, _value_order(content))
    return (_KIND_RANK.get(kind, 4), content)


def set_order(path: Path) -> tuple[tuple[int, tuple[Any, ...]], ...]:
    """``Set.Iterate``'s order: at each level the members, sorted, before the children, sorted."""
    return tuple((0 if depth == len(path) - 1 else 1, element_order(element)) for depth, element in enumerate(path))


def _value_json(value: Any) -> str:
    return encode(thawed(value)).decode()


def _serialized(element: Element) -> str:
    """``SerializePathElement``."""
    kind, content = element
    if kind == "f":
        return "f:" + str(content)
    if kind == "k":
        return "k:{" + ",".join(f"{_value_json(name)}:{_value_json(value)}" for name, value in content) + "}"
    if kind == "v":
        return "v:" + _value_json(content)
    return f"i:{content}"


def _deserialized(text: str) -> Element | None:
    """``DeserializePathElement``, or None for what it would refuse."""
    if len(text) < 2 or text[1] != ":":
        return None
    kind, rest = text[0], text[2:]
    if kind == "f":
        return ("f", rest)
    try:
        parsed = orjson.loads(rest)
    except orjson.JSONDecodeError:
        return None
    if kind == "k" and isinstance(parsed, dict):
        return ("k", tuple(sorted((name, frozen(value)) for name, value in parsed.items())))
    if kind == "v":
        return ("v", frozen(parsed))
    if kind == "i" and isinstance(parsed, int):
        return ("i", parsed)
    return None


def _to_string(value: Any) -> str:
    """``value.ToString``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "{}":
        return "".join(f"{key}={_to_string(item)}" for key, item in value[1])
    if isinstance(value, tuple):
        return "[" + ",".join(_to_string(item) for item in value) + "]"
    return "{{undefined}}"


def path_text(path: Path) -> str:
    """``fieldpath.Path.String``: ``.spec.containers[name="app"].image``."""
    parts: list[str] = []
    for kind, content in path:
        if kind == "f":
            parts.append(f".{content}")
        elif kind == "k":
            parts.append("[" + ",".join(f"{name}={_to_string(value)}" for name, value in content) + "]")
        elif kind == "v":
            parts.append(f"[={_to_string(content)}]")
        else:
            parts.append(f"[{content}]")
    return "".join(parts)


def encode_fields(paths: Collection[Path]) -> dict[str, Any]:
    """A field set as its ``fieldsV1`` tree, keys in ``Set`` order."""
    members: set[Element] = set()
    children: dict[Element, set[Path]] = {}
    for path in paused(paths, len(paths)):
        if len(path) == 1:
            members.add(path[0])
        elif path:
            children.setdefault(path[0], set()).add(path[1:])
    return _emit(members, children, include_self=False)


def _emit(members: set[Element], children: dict[Element, set[Path]], *, include_self: bool) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    if include_self and (members or children):
        tree["."] = {}
    elements = sorted_in_slices(members | set(children), key=element_order)
    for element in paused(elements, len(elements)):
        below = children.get(element)
        if below is None:
            tree[_serialized(element)] = {}
        else:
            tree[_serialized(element)] = _subtree(below, include_self=element in members)
    large = [below for below in paused(children.values(), len(children)) if len(below) > SLICE_UNITS]
    release_in_slices(*large, children, members)
    return tree


def _subtree(paths: set[Path], *, include_self: bool) -> dict[str, Any]:
    members: set[Element] = set()
    children: dict[Element, set[Path]] = {}
    for path in paused(paths, len(paths)):
        if len(path) == 1:
            members.add(path[0])
        else:
            children.setdefault(path[0], set()).add(path[1:])
    return _emit(members, children, include_self=include_self)


def decode_fields(fields: Any) -> FieldSet:
    """A ``fieldsV1`` tree as a field set; what does not parse is left out."""
    out: set[Path] = set()
    _decode(fields, (), out)
    return out


def _decode(fields: Any, prefix: Path, out: set[Path]) -> None:
    if not isinstance(fields, dict):
        return
    for key, child in paused(fields.items(), len(fields)):
        if key == "." or not isinstance(key, str):
            if key == "." and prefix:
                out.add(prefix)
            continue
        element = _deserialized(key)
        if element is None:
            continue
        path = (*prefix, element)
        if isinstance(child, dict) and child:
            _decode(child, path, out)
        else:
            out.add(path)
