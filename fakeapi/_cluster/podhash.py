"""The ``pod-template-hash`` of a Deployment's ReplicaSet, as kube-controller-manager computes it.

``pkg/controller/controller_utils.go`` ``ComputeHash`` writes the template, a ``v1.PodTemplateSpec``
value, into an FNV-1a 32-bit hash with ``hashutil.DeepHashObject`` (go-spew's ``%#v`` under
``SortKeys``, ``DisableMethods``, ``SpewKeys``), adds ``collisionCount`` as 8 little-endian bytes
when the Deployment has one, and renders the decimal sum with ``rand.SafeEncodeString``
(``k8s.io/apimachinery/pkg/util/rand``): every digit becomes ``bcdfghjklmnpqrstvwxz2456789[d % 27]``.

The text spew writes is reproduced here from the Go structs of the API (:mod:`..typed.structs`):
every field of every struct in declaration order, typed as ``(v1.RestartPolicy)Always``, nil
pointers ``(*v1.Probe)<nil>``, strings unquoted, maps with sorted keys, elements of slices and
maps without their type. The controller reads the template from its informer, which decodes
protobuf, so an empty list or map is nil there (protobuf cannot tell them apart) and is written
``<nil>`` here too. A ``resource.Quantity`` is written from its unexported fields
(``int64Amount``, ``infDecAmount``, the cached string, the format): that layout is as recalled from
``quantity.go``, not read for this module, so a template with resources may hash differently from
a real cluster; a template without quantities hashes as the real one. So does one without a ``creationTimestamp``
of its own (a set one carries the controller's time zone, which is not reproduced).
"""

from __future__ import annotations

import re
from typing import Any

from fakeapi._state.clock import parse_timestamp
from fakeapi._state.typed.quantities import QuantityError, canonical_quantity
from fakeapi._state.typed.structs import GoStructs, go_structs

__all__ = ["compute_hash", "safe_encode", "spew_template"]

ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
_FNV_OFFSET, _FNV_PRIME = 0x811C9DC5, 0x01000193
_PACKAGE = re.compile(r"[a-z0-9]+/(v[0-9a-z]+)\.")
_UNIX_TO_INTERNAL = 62135596800  # seconds from year 1 to 1970, as time.Time counts them
_ZERO_TIME = "{Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}"
_INTS = frozenset(("int8", "int16", "int32", "int64", "int", "uint8", "uint16", "uint32", "uint64", "uint"))
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}


def compute_hash(template: dict[str, Any], collision_count: int | None = None) -> str:
    """``controller.ComputeHash(&template, collisionCount)``."""
    data = spew_template(template).encode()
    if collision_count is not None:
        data += (collision_count & 0xFFFFFFFF).to_bytes(4, "little") + bytes(4)
    return safe_encode(str(_fnv32a(data)))


def safe_encode(text: str) -> str:
    """``rand.SafeEncodeString``."""
    return "".join(ALPHANUMS[ord(char) % len(ALPHANUMS)] for char in text)


def spew_template(template: dict[str, Any]) -> str:
    """What ``DeepHashObject`` writes for a ``v1.PodTemplateSpec`` value."""
    return _Spew(go_structs()).value("core/v1.PodTemplateSpec", template, typed=True)


def _fnv32a(data: bytes) -> int:
    hashed = _FNV_OFFSET
    for byte in data:
        hashed = ((hashed ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return hashed


def _go_name(go_type: str) -> str:
    """``reflect.Type.String()``: the package's last element, not its path."""
    return _PACKAGE.sub(r"\1.", go_type)


class _Spew:
    """go-spew's ``formatter`` with the ``#`` flag (types shown), over decoded JSON values."""

    def __init__(self, structs: GoStructs) -> None:
        self._structs = structs

    def value(self, go_type: str, value: Any, *, typed: bool) -> str:
        if go_type.startswith("*"):
            return self._pointer(go_type, value, typed=typed)
        prefix = f"({_go_name(go_type)})" if typed else ""
        return prefix + self._bare(go_type, value)

    def _pointer(self, go_type: str, value: Any, *, typed: bool) -> str:
        if value is None:
            return "<nil>" if not typed else f"({_go_name(go_type)})<nil>"
        head = f"({_go_name(go_type)})" if typed else "<*>"
        return head + self._bare(go_type[1:], value)

    def _bare(self, go_type: str, value: Any) -> str:
        if go_type == "meta/v1.Time":
            return _ZERO_TIME if value is None else self._time(value)
        if go_type == "resource.Quantity":
            return _quantity(value)
        if go_type == "intstr.IntOrString":
            if isinstance(value, str):
                return f"{{Type:(intstr.Type)1 IntVal:(int32)0 StrVal:(string){value}}}"
            return f"{{Type:(intstr.Type)0 IntVal:(int32){int(value or 0)} StrVal:(string)}}"
        underlying = self._structs.underlying(go_type)
        if go_type in self._structs.structs:
            return self._struct(go_type, value or {})
        if underlying.startswith("[]"):
            if not value:
                return "<nil>"
            element = underlying[2:]
            return "[" + " ".join(self.value(element, item, typed=False) for item in value) + "]"
        if underlying.startswith("map["):
            if not value:
                return "<nil>"
            key_type, value_type = _map_types(underlying)
            entries = (
                f"{self.value(key_type, key, typed=False)}:{self.value(value_type, value[key], typed=False)}"
                for key in sorted(value)
            )
            return "map[" + " ".join(entries) + "]"
        if underlying == "bool":
            return "true" if value else "false"
        if underlying in _INTS:
            return str(int(value or 0))
        if underlying == "string":
            return str(value or "")
        raise ValueError(f"no spew rendering for Go type {go_type}")

    def _struct(self, go_type: str, value: dict[str, Any]) -> str:
        parts = []
        for field in self._structs.structs[go_type]:
            if field.inline:
                inner = value if field.json_name == "" else value.get(field.json_name)
                parts.append(f"{field.go_name}:{self.value(field.go_type, inner, typed=True)}")
            else:
                parts.append(f"{field.go_name}:{self.value(field.go_type, value.get(field.json_name), typed=True)}")
        return "{" + " ".join(parts) + "}"

    def _time(self, value: Any) -> str:
        """A set timestamp (a template's ``creationTimestamp`` written by hand): seconds and nanoseconds as
        ``time.Time`` keeps them, but the ``*time.Location`` of the controller's zone is not reproduced."""
        seconds = parse_timestamp(str(value))
        if seconds is None:
            return _ZERO_TIME
        whole = int(seconds)
        nanos = round((seconds - whole) * 1_000_000_000)
        return f"{{Time:(time.Time){{wall:(uint64){nanos} ext:(int64){whole + _UNIX_TO_INTERNAL} loc:(*time.Location)<nil>}}}}"


def _map_types(go_type: str) -> tuple[str, str]:
    depth = 0
    for index, char in enumerate(go_type[4:], start=4):
        if char == "[":
            depth += 1
        elif char == "]":
            if depth == 0:
                return go_type[4:index], go_type[index + 1 :]
            depth -= 1
    raise ValueError(f"not a map type: {go_type}")


def _quantity(value: Any) -> str:
    """A ``resource.Quantity`` as ``ParseQuantity`` leaves it (as recalled; see the module docstring).

    The informer decodes the canonical text the apiserver stored; its fast path keeps that text in
    the cached string when it is already canonical and leaves the string empty otherwise.
    """
    text = str(value if value is not None else "0")
    try:
        text = canonical_quantity(text)
    except QuantityError:
        text = "0"
    match = re.fullmatch(r"(-?)([0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][-+]?[0-9]+|[numkMGTPE]?)", text)
    negative, digits, suffix = match.groups() if match else ("", "0", "")
    sign = -1 if negative else 1
    if suffix in _BINARY:
        amount, scale, form = sign * (int(digits) << _BINARY[suffix]), 0, "BinarySI"
        kept = _BINARY[suffix] % 10 == 0 and int(digits) & 7 != 0
    else:
        exponent = int(suffix[1:]) if suffix[:1] in ("e", "E") else _DECIMAL[suffix]
        form = "DecimalExponent" if suffix[:1] in ("e", "E") else "DecimalSI"
        amount, scale = sign * int(digits), exponent
        kept = scale % 3 == 0 and not digits.endswith("000") and digits[0] != "0"
    if text == "0":
        amount, scale, kept = 0, 0, False
    cached = text if kept else ""
    return (
        f"{{i:(resource.int64Amount){{value:(int64){amount} scale:(resource.Scale){scale}}} "
        f"d:(resource.infDecAmount){{Dec:(*inf.Dec)<nil>}} s:(string){cached} Format:(resource.Format){form}}}"
    )
