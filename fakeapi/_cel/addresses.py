"""IP addresses and prefixes for CEL (k8s.io/apiserver ``pkg/cel/library/ip.go``, ``cidr.go``), parsed as Go's
``net/netip`` parses them, with its error texts.

``netip.ParseAddr``: dotted IPv4 without leading zeros, IPv6 with at most one ``::``, an embedded IPv4 in the
last 32 bits, a ``%zone``; errors ``ParseAddr("<in>"): <why>`` with `` (at "<rest>")`` where Go says where.
``netip.ParsePrefix``: ``<addr>/<bits>``, errors ``netip.ParsePrefix("<in>"): <why>``. The library then
refuses zones (``IP address "<in>" with zone value is not allowed``) and IPv4-mapped IPv6 addresses
(``IPv4-mapped IPv6 address "<in>" is not allowed``). An address prints as ``Addr.String`` does (RFC 5952,
which Python's ``ipaddress`` also follows); a prefix as ``<addr>/<bits>``, its host bits kept.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from fakeapi._patching.gostrconv import quote

__all__ = ["Address", "AddressError", "Prefix", "parse_address", "parse_prefix"]


class AddressError(ValueError):
    """A text Go's netip refuses, with Go's message."""


@dataclass(frozen=True)
class Address:
    """An IPv4 or IPv6 address (zones and IPv4-mapped IPv6 are refused before one is made)."""

    version: int
    value: int

    @property
    def ip(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
        return ipaddress.IPv4Address(self.value) if self.version == 4 else ipaddress.IPv6Address(self.value)

    def text(self) -> str:
        return self.ip.compressed

    @property
    def bits(self) -> int:
        return 32 if self.version == 4 else 128


@dataclass(frozen=True)
class Prefix:
    address: Address
    length: int

    def text(self) -> str:
        return f"{self.address.text()}/{self.length}"

    def masked(self) -> Prefix:
        host = self.address.bits - self.length
        value = (self.address.value >> host) << host
        return Prefix(Address(self.address.version, value), self.length)

    def contains(self, address: Address) -> bool:
        if address.version != self.address.version:
            return False
        host = self.address.bits - self.length
        return address.value >> host == self.address.value >> host

    def overlaps(self, other: Prefix) -> bool:
        if other.address.version != self.address.version:
            return False
        shortest = min(self.length, other.length)
        host = self.address.bits - shortest
        return self.address.value >> host == other.address.value >> host


def _addr_error(text: str, why: str, at: str = "") -> AddressError:
    message = f"ParseAddr({quote(text)}): {why}"
    return AddressError(message + (f" (at {quote(at)})" if at else ""))


def _ipv4(text: str, whole: str) -> int:
    fields: list[int] = []
    value, digits = 0, 0
    for index, char in enumerate(text):
        if "0" <= char <= "9":
            if digits == 1 and value == 0:
                raise _addr_error(whole, "IPv4 field has octet with leading zero")
            value = value * 10 + int(char)
            digits += 1
            if value > 255:
                raise _addr_error(whole, "IPv4 field has value >255")
        elif char == ".":
            if index == 0 or index == len(text) - 1 or text[index - 1] == ".":
                raise _addr_error(whole, "IPv4 field must have at least one digit", text[index:])
            if len(fields) == 3:
                raise _addr_error(whole, "IPv4 address too long")
            fields.append(value)
            value, digits = 0, 0
        else:
            raise _addr_error(whole, "unexpected character", text[index:])
    if len(fields) < 3:
        raise _addr_error(whole, "IPv4 address too short")
    fields.append(value)
    return fields[0] << 24 | fields[1] << 16 | fields[2] << 8 | fields[3]


def _ipv6(whole: str) -> tuple[int, str]:
    text, zone = whole, ""
    if "%" in text:
        text, zone = text.split("%", 1)
        if not zone:
            raise _addr_error(whole, "zone must be a non-empty string")
    groups: list[int] = []
    ellipsis = -1
    if text.startswith("::"):
        ellipsis = 0
        text = text[2:]
        if not text:
            return 0, zone
    while len(groups) < 8:
        offset, accumulated = 0, 0
        while offset < len(text) and text[offset] in "0123456789abcdefABCDEF":
            accumulated = (accumulated << 4) + int(text[offset], 16)
            offset += 1
            if accumulated > 0xFFFF:
                raise _addr_error(whole, "IPv6 field has value >=2^16", text)
        if offset == 0:
            raise _addr_error(whole, "each colon-separated field must have at least one digit", text)
        if offset < len(text) and text[offset] == ".":
            if ellipsis < 0 and len(groups) != 6:
                raise _addr_error(whole, "embedded IPv4 address must replace the final 2 fields of the address", text)
            if len(groups) + 2 > 8:
                raise _addr_error(whole, "too many hex fields to fit an embedded IPv4 at the end of the address", text)
            embedded = _ipv4(text, text)
            groups += [embedded >> 16, embedded & 0xFFFF]
            text = ""
            break
        groups.append(accumulated)
        text = text[offset:]
        if not text:
            break
        if text[0] != ":":
            raise _addr_error(whole, "unexpected character, want colon", text)
        if len(text) == 1:
            raise _addr_error(whole, "colon must be followed by more characters", text)
        text = text[1:]
        if text[0] == ":":
            if ellipsis >= 0:
                raise _addr_error(whole, "multiple :: in address", text)
            ellipsis = len(groups)
            text = text[1:]
            if not text:
                break
    if text:
        raise _addr_error(whole, "trailing garbage after address", text)
    if len(groups) < 8:
        if ellipsis < 0:
            raise _addr_error(whole, "address string too short")
        groups = groups[:ellipsis] + [0] * (8 - len(groups)) + groups[ellipsis:]
    elif ellipsis >= 0:
        raise _addr_error(whole, "the :: must expand to at least one field of zeros")
    value = 0
    for group in groups:
        value = value << 16 | group
    return value, zone


def _go_parse_addr(text: str) -> tuple[Address, str]:
    """``netip.ParseAddr``: the address and its zone."""
    for char in text:
        if char == ".":
            return Address(4, _ipv4(text, text)), ""
        if char == ":":
            value, zone = _ipv6(text)
            return Address(6, value), zone
        if char == "%":
            raise _addr_error(text, "missing IPv6 address")
    raise _addr_error(text, "unable to parse IP")


def _is_4in6(address: Address) -> bool:
    return address.version == 6 and address.value >> 32 == 0xFFFF


def parse_address(text: str) -> Address:
    """The library's ``parseIPAddr``."""
    try:
        address, zone = _go_parse_addr(text)
    except AddressError as error:
        raise AddressError(f"IP Address {quote(text)} parse error during conversion from string: {error}") from None
    if zone:
        raise AddressError(f"IP address {quote(text)} with zone value is not allowed")
    if _is_4in6(address):
        raise AddressError(f"IPv4-mapped IPv6 address {quote(text)} is not allowed")
    return address


def _prefix_error(text: str, why: str) -> AddressError:
    return AddressError(f"netip.ParsePrefix({quote(text)}): {why}")


def parse_prefix(text: str) -> Prefix:
    """The library's ``parseCIDR``."""
    slash = text.rfind("/")
    try:
        if slash < 0:
            raise _prefix_error(text, "no '/'")
        try:
            address, zone = _go_parse_addr(text[:slash])
        except AddressError as error:
            raise _prefix_error(text, str(error)) from None
        if zone:
            raise _prefix_error(text, "IPv6 zones cannot be present in a prefix")
        bits_text = text[slash + 1 :]
        bad = _prefix_error(text, f"bad bits after slash: {quote(bits_text)}")
        if len(bits_text) > 1 and not "1" <= bits_text[0] <= "9":
            raise bad
        body = bits_text[1:] if bits_text[:1] in "+-" else bits_text
        if not body or not body.isdigit() or not body.isascii():
            raise bad
        bits = int(bits_text)
        if bits < 0 or bits > address.bits:
            raise _prefix_error(text, "prefix length out of range")
    except AddressError as error:
        raise AddressError(f"network address parse error during conversion from string: {error}") from None
    if _is_4in6(address):
        raise AddressError(f"IPv4-mapped IPv6 address {quote(text)} is not allowed")
    return Prefix(address, bits)
