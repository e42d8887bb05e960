"""YAML to JSON as the apiserver converts it: sigs.k8s.io/yaml ``YAMLToJSON`` over its yaml.v2 fork.

Every YAML body the apiserver reads (``application/yaml`` creates and updates, server-side apply)
goes through ``yaml.Unmarshal`` into ``interface{}``, ``convertToJSONableObject`` and
``json.Marshal``. What that means, and what this module reproduces (docs/yaml.md has the sources):

- scalars resolve by yaml.v2's table (``resolve.go``, :mod:`fakeapi._patching.yamlscalars`):
  ``y``/``n``/``on``/``off`` are booleans, ``!!binary`` is decoded, NaN has no JSON spelling;
- map keys become strings: int and bool keys as written by ``strconv``, float keys with float32
  precision; a null, uint64, map or list key is refused;
- aliases are followed, but a node that contains itself is an error, and so is a document whose
  decoding is mostly alias expansion (``decode.go allowedAliasRatio``, the CVE-2019-11253 fix);
- the scanner refuses more than 10,000 nested flow collections or block indents.

PyYAML parses the text (its scanner and parser follow libyaml, as yaml.v2's do); the node graph is
then decoded here, because PyYAML's own constructor expands aliases without limit, loops forever on
a self-reference and resolves scalars by the YAML 1.1 table, not yaml.v2's.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.scanner import Scanner, ScannerError

from fakeapi._patching.godecode import normalize
from fakeapi._patching.goencode import encode
from fakeapi._patching.gostrconv import quote
from fakeapi._patching.lazynode import deep_recursion
from fakeapi._patching.slices import pause
from fakeapi._patching.yamlscalars import MERGE, PLAIN, STR, Uint64, YAMLToJSONError, go_special, scalar_value

__all__ = ["YAMLToJSONError", "yaml_to_json", "yaml_to_value"]

MAX_DEPTH = 10000
"""``max_flow_level`` and ``max_indents`` in yaml.v2's ``scannerc.go``."""


class _Scalar:
    __slots__ = ("tag", "value")

    def __init__(self, tag: str, value: str) -> None:
        self.tag = tag
        self.value = value


class _Sequence:
    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[_Node] = []


class _Mapping:
    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[_Node] = []  # key, value, key, value, ...


class _Alias:
    """An alias occurrence, kept apart from the node it names, as yaml.v2's ``aliasNode``."""

    __slots__ = ("anchor", "target")

    def __init__(self, anchor: str, target: _Node) -> None:
        self.anchor = anchor
        self.target = target


_Node = _Scalar | _Sequence | _Mapping | _Alias


class _PureParser(Reader, Scanner, Parser):
    """PyYAML's own parser, with yaml.v2's depth limits, where PyYAML was built without libyaml."""

    def __init__(self, stream: bytes) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)

    def fetch_flow_collection_start(self, TokenClass: Any) -> None:
        if self.flow_level >= MAX_DEPTH:
            raise ScannerError("while increasing flow level", None, _DEPTH_PROBLEM, self.get_mark())
        super().fetch_flow_collection_start(TokenClass)

    def add_indent(self, column: int) -> bool:
        if self.indent < column and len(self.indents) >= MAX_DEPTH:
            raise ScannerError("while increasing indent level", None, _DEPTH_PROBLEM, self.get_mark())
        added: bool = super().add_indent(column)
        return added


_DEPTH_PROBLEM = f"exceeded max depth of {MAX_DEPTH}"


def _libyaml_parser() -> Any:
    """libyaml's parser, its nesting limit (1,000 by default, flow and block levels together) raised
    past yaml.v2's, which :func:`_compose_first_document` enforces as yaml.v2 counts them."""
    try:
        import ctypes

        from yaml import _yaml

        ctypes.CDLL(_yaml.__file__).yaml_set_max_nest_level(4 * MAX_DEPTH)
    except (ImportError, OSError, AttributeError):
        return _PureParser
    return _yaml.CParser


_EventParser = _libyaml_parser()


def _syntax_error(error: yaml.MarkedYAMLError) -> YAMLToJSONError:
    """``parser.fail``: the line of the problem (one-based for scanner errors), else of its context."""
    problem = error.problem or "unknown problem parsing YAML content"
    if problem == "exceeded maximum nesting depth":  # libyaml's words for the same limit
        problem = _DEPTH_PROBLEM
    line = 0
    if error.problem_mark is not None and error.problem_mark.line != 0:
        line = error.problem_mark.line + (1 if isinstance(error, ScannerError) else 0)
    elif error.context_mark is not None:
        line = error.context_mark.line
    where = f"line {line}: " if line else ""
    return YAMLToJSONError(f"yaml: {where}{problem}")


def yaml_to_value(body: bytes) -> Any:
    """The first YAML document as the JSON-able value ``convertToJSONableObject`` returns."""
    try:
        node = _compose_first_document(_EventParser(body))
    except yaml.MarkedYAMLError as error:
        raise _syntax_error(error) from None
    except yaml.YAMLError as error:
        raise YAMLToJSONError(f"yaml: {error}") from None
    if node is None:
        return None
    with deep_recursion():
        return _Decoder().value(node)


_EVENT_UNITS = 8
"""What scanning and parsing one event costs in the budget's elements (PyYAML's pure-Python parser)."""


def _compose_first_document(parser: Any) -> _Node | None:
    """yaml.v2's ``parser``: the node graph of the first document (``Unmarshal`` ignores the rest).

    Iterative, so that 10,000 levels cost no recursion; an anchor is known from its node's start
    on, so ``&s {a: *s}`` is a node that contains an alias of itself.
    """
    anchors: dict[str, _Node] = {}
    stack: list[_Sequence | _Mapping] = []
    flows: list[bool] = []  # whether each open collection is a flow one
    depths = {True: 0, False: 0}  # open flow collections, open block collections
    root: _Node | None = None
    while parser.check_event():
        event = parser.get_event()
        pause(_EVENT_UNITS)
        node: _Node
        if isinstance(event, (StreamStartEvent, DocumentStartEvent)):
            continue
        if isinstance(event, (DocumentEndEvent, StreamEndEvent)):
            break
        if isinstance(event, (SequenceEndEvent, MappingEndEvent)):
            depths[flows.pop()] -= 1
            finished = stack.pop()
            if not stack:
                root = finished
                break
            continue
        if isinstance(event, AliasEvent):
            name = event.anchor or ""
            target = anchors.get(name)
            if target is None:
                raise YAMLToJSONError(f"yaml: unknown anchor '{name}' referenced")
            node = _Alias(name, target)
        elif isinstance(event, ScalarEvent):
            tag = event.tag or (PLAIN if event.implicit[0] else STR)
            node = _Scalar(tag, event.value)
        else:
            node = _Sequence() if isinstance(event, SequenceStartEvent) else _Mapping()
        anchor = getattr(event, "anchor", None)
        if anchor is not None and not isinstance(event, AliasEvent):
            anchors[anchor] = node
        if stack:
            stack[-1].items.append(node)
        if isinstance(node, (_Sequence, _Mapping)):
            flow = bool(event.flow_style)
            depths[flow] += 1
            if depths[flow] > MAX_DEPTH:  # scannerc.go: max_flow_level, max_indents
                line = event.start_mark.line
                raise YAMLToJSONError(f"yaml: {f'line {line + 1}: ' if line else ''}{_DEPTH_PROBLEM}")
            stack.append(node)
            flows.append(flow)
        elif not stack:
            root = node
            break
    return root


def yaml_to_json(body: bytes) -> bytes:
    """``yaml.YAMLToJSON``: the first document as Go's JSON (map keys sorted), or its error."""
    value = yaml_to_value(body)
    return encode(normalize(value)) if value is not None else b"null"


class _Decoder:
    """``decoder.unmarshal`` into ``interface{}``, with its alias accounting, then the key conversion."""

    def __init__(self) -> None:
        self.decode_count = 1  # the document node
        self.alias_count = 0
        self.alias_depth = 0
        self.expanding: set[int] = set()

    def value(self, node: _Node) -> Any:
        pause()
        self.decode_count += 1
        if self.alias_depth > 0:
            self.alias_count += 1
        if (
            self.alias_count > 100
            and self.decode_count > 1000
            and self.alias_count / self.decode_count > _allowed_alias_ratio(self.decode_count)
        ):
            raise YAMLToJSONError("yaml: document contains excessive aliasing")
        if isinstance(node, _Alias):
            return self._alias(node)
        if isinstance(node, _Scalar):
            return scalar_value(node.tag, node.value)
        if isinstance(node, _Sequence):
            return [self.value(child) for child in node.items]
        mapping: dict[str, Any] = {}
        self._mapping(node, mapping)
        return mapping

    def _alias(self, node: _Alias) -> Any:
        if id(node) in self.expanding:
            raise YAMLToJSONError(f"yaml: anchor '{node.anchor}' value contains itself")
        self.expanding.add(id(node))
        self.alias_depth += 1
        try:
            return self.value(node.target)
        finally:
            self.alias_depth -= 1
            self.expanding.discard(id(node))

    def _mapping(self, node: _Mapping, into: dict[str, Any]) -> None:
        items = node.items
        for index in range(0, len(items), 2):
            key_node, value_node = items[index], items[index + 1]
            if _is_merge(key_node):
                self._merge(value_node, into)
                continue
            key = self.value(key_node)
            if isinstance(key, (dict, list)):
                raise YAMLToJSONError(f"yaml: invalid map key: {_go_syntax(key)}")
            value = self.value(value_node)
            into[_json_key(key, value)] = value

    def _merge(self, node: _Node, into: dict[str, Any]) -> None:
        """``decoder.merge``: a map, an alias of one, or a list of those (the last one first)."""
        target = node.target if isinstance(node, _Alias) else node
        if isinstance(target, _Mapping):
            self._decode_merged(node, into)
            return
        if isinstance(target, _Sequence):
            for item in reversed(target.items):
                resolved = item.target if isinstance(item, _Alias) else item
                if not isinstance(resolved, _Mapping):
                    break
                self._decode_merged(item, into)
            else:
                return
        raise YAMLToJSONError("yaml: map merge requires map or sequence of maps as the value")

    def _decode_merged(self, node: _Node, into: dict[str, Any]) -> None:
        self.decode_count += 1
        if not isinstance(node, _Alias):
            assert isinstance(node, _Mapping)
            self._mapping(node, into)
            return
        if id(node) in self.expanding:
            raise YAMLToJSONError(f"yaml: anchor '{node.anchor}' value contains itself")
        self.expanding.add(id(node))
        self.alias_depth += 1
        try:
            target = node.target
            assert isinstance(target, _Mapping)
            self._mapping(target, into)
        finally:
            self.alias_depth -= 1
            self.expanding.discard(id(node))


def _allowed_alias_ratio(decode_count: int) -> float:
    """``allowedAliasRatio``: 99 % of a small document may come from aliases, 10 % of a huge one."""
    low, high = 400_000, 4_000_000
    if decode_count <= low:
        return 0.99
    if decode_count >= high:
        return 0.10
    return 0.99 - 0.89 * ((decode_count - low) / (high - low))


def _is_merge(node: _Node) -> bool:
    return isinstance(node, _Scalar) and node.value == "<<" and node.tag in (PLAIN, "!", MERGE)


def _json_key(key: Any, value: Any) -> str:
    """A map key as ``convertToJSONableObject`` spells it, or its refusal."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int) and not isinstance(key, Uint64):
        return str(key)
    if isinstance(key, float):
        return _float32_key(key)
    type_name = "%!s(<nil>)" if key is None else "uint64"
    raise YAMLToJSONError(
        f"unsupported map key of type: {type_name}, key: {_go_syntax(key)}, value: {_go_syntax(value)}"
    )


def _float32_key(value: float) -> str:
    """``strconv.FormatFloat(key, 'g', -1, 32)``, with yaml's names for the special values."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    try:
        single = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return ".inf" if value > 0 else "-.inf"
    if single == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    for precision in range(1, 10):
        digits = f"{single:.{precision}e}" if precision else ""
        if struct.unpack("f", struct.pack("f", float(digits)))[0] == single:
            break
    mantissa, _, exponent_text = digits.partition("e")
    exponent = int(exponent_text)
    significant = mantissa.replace("-", "").replace(".", "").rstrip("0") or "0"
    sign = "-" if single < 0 else ""
    if exponent < -4 or exponent >= 6:
        head = significant[0] + ("." + significant[1:] if len(significant) > 1 else "")
        return f"{sign}{head}e{'+' if exponent >= 0 else '-'}{abs(exponent):02d}"
    point = exponent + 1
    if point <= 0:
        return f"{sign}0.{'0' * -point}{significant}"
    if point >= len(significant):
        return sign + significant + "0" * (point - len(significant))
    return f"{sign}{significant[:point]}.{significant[point:]}"


def _go_syntax(value: Any) -> str:
    """``%+#v`` of a value yaml.v2 decoded into ``interface{}``."""
    if value is None:
        return "<nil>"
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Uint64):
        return hex(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else go_special(value)
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(_go_syntax(item) for item in value) + "}"
    members = ", ".join(f"{quote(key)}:{_go_syntax(item)}" for key, item in sorted(value.items()))
    return "map[string]interface {}{" + members + "}"
