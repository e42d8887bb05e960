"""The functions of the Kubernetes library's own types (k8s.io/apiserver ``pkg/cel/library``).

``quantity.go``: ``quantity``, ``isQuantity``, ``sign``, ``isGreaterThan``, ``isLessThan``, ``compareTo``,
``asApproximateFloat``, ``asInteger``, ``isInteger``, ``add``, ``sub``. ``ip.go``: ``ip``, ``isIP``,
``ip.isCanonical``, ``family``, ``isUnspecified``, ``isLoopback``, ``isLinkLocalMulticast``,
``isLinkLocalUnicast``, ``isGlobalUnicast``, ``string``. ``cidr.go``: ``cidr``, ``isCIDR``, ``containsIP``,
``containsCIDR``, ``ip``, ``prefixLength``, ``masked``, ``string``. ``urls.go``: ``url``, ``isURL``,
``getScheme``, ``getHost``, ``getHostname``, ``getPort``, ``getEscapedPath``, ``getQuery``. Parsing and its
error texts: :mod:`.quantities`, :mod:`.addresses`, :mod:`.urls`.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from cel_expr_python import cel

from fakeapi._cel.addresses import Address, AddressError, Prefix, parse_address, parse_prefix
from fakeapi._cel.functions import Function
from fakeapi._cel.opaque import opaque, text_of
from fakeapi._cel.quantities import QUANTITY, QuantityError, parse_quantity, quantity_value, to_quantity
from fakeapi._cel.urls import ParsedURL, URLError, escaped_path, parse_request_url, query_of

__all__ = ["OPAQUE_FUNCTIONS"]

T = cel.Type
Q = T(QUANTITY)
IP = T("net.IP")
CIDR = T("net.CIDR")
URL = T("kubernetes.URL")
_INT64 = 1 << 63


def _same(name: str, member: bool, overload: str, result: Any, parameters: tuple[Any, ...], impl: Any) -> Function:
    """A function whose typed and runtime overloads are the same one."""
    return Function(name, member, ((overload, result, parameters),), ((overload, result, parameters, impl),))


# -- quantity -------------------------------------------------------------------------------------


def _quantity(text: str) -> Any:
    try:
        return to_quantity(parse_quantity(text))
    except QuantityError as error:
        raise ValueError(str(error)) from None


def _is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True


def _compare(left: Any, right: Any) -> int:
    a, b = quantity_value(left), quantity_value(right)
    return (a > b) - (a < b)


def _as_integer(value: Any) -> int:
    exact = quantity_value(value)
    if exact.denominator != 1 or not -_INT64 <= exact.numerator < _INT64:
        raise ValueError("cannot convert value to integer")
    return exact.numerator


def _is_integer(value: Any) -> bool:
    exact = quantity_value(value)
    return exact.denominator == 1 and -_INT64 <= exact.numerator < _INT64


def _quantity_functions() -> list[Function]:
    def sign(value: Any) -> int:
        exact = quantity_value(value)
        return (exact > 0) - (exact < 0)

    return [
        _same("quantity", False, "string_to_quantity", Q, (T.STRING,), _quantity),
        _same("isQuantity", False, "is_quantity_string", T.BOOL, (T.STRING,), _is_quantity),
        _same("sign", True, "quantity_sign", T.INT, (Q,), sign),
        _same("isGreaterThan", True, "quantity_is_greater_than", T.BOOL, (Q, Q), lambda a, b: _compare(a, b) == 1),
        _same("isLessThan", True, "quantity_is_less_than", T.BOOL, (Q, Q), lambda a, b: _compare(a, b) == -1),
        _same("compareTo", True, "quantity_compare_to", T.INT, (Q, Q), _compare),
        _same("asApproximateFloat", True, "quantity_get_float", T.DOUBLE, (Q,), lambda q: float(quantity_value(q))),
        _same("asInteger", True, "quantity_get_int", T.INT, (Q,), _as_integer),
        _same("isInteger", True, "quantity_is_integer", T.BOOL, (Q,), _is_integer),
        Function(
            "add",
            True,
            (("quantity_add", Q, (Q, Q)), ("quantity_add_int", Q, (Q, T.INT))),
            (
                ("quantity_add", Q, (Q, Q), lambda a, b: to_quantity(quantity_value(a) + quantity_value(b))),
                ("quantity_add_int", Q, (Q, T.INT), lambda a, b: to_quantity(quantity_value(a) + b)),
            ),
        ),
        Function(
            "sub",
            True,
            (("quantity_sub", Q, (Q, Q)), ("quantity_sub_int", Q, (Q, T.INT))),
            (
                ("quantity_sub", Q, (Q, Q), lambda a, b: to_quantity(quantity_value(a) - quantity_value(b))),
                ("quantity_sub_int", Q, (Q, T.INT), lambda a, b: to_quantity(quantity_value(a) - b)),
            ),
        ),
    ]


# -- ip and cidr ----------------------------------------------------------------------------------


def _to_ip(address: Address) -> Any:
    return opaque("net.IP", f"{address.version}:{address.value}")


def _address(value: Any) -> Address:
    version, _, number = text_of(value).partition(":")
    return Address(int(version), int(number))


def _to_cidr(prefix: Prefix) -> Any:
    return opaque("net.CIDR", f"{prefix.address.version}:{prefix.address.value}/{prefix.length}")


def _prefix(value: Any) -> Prefix:
    address, _, length = text_of(value).partition("/")
    version, _, number = address.partition(":")
    return Prefix(Address(int(version), int(number)), int(length))


def _ip(text: str) -> Any:
    try:
        return _to_ip(parse_address(text))
    except AddressError as error:
        raise ValueError(str(error)) from None


def _cidr(text: str) -> Any:
    try:
        return _to_cidr(parse_prefix(text))
    except AddressError as error:
        # ``stringToCIDR`` wraps ``parseCIDR``'s error, which already says the same: the words come twice.
        raise ValueError(f"network address parse error during conversion from string: {error}") from None


def _parses(parse: Any, text: str) -> bool:
    try:
        parse(text)
    except AddressError:
        return False
    return True


def _is_canonical(text: str) -> bool:
    try:
        return parse_address(text).text() == text
    except AddressError as error:
        raise ValueError(str(error)) from None


def _ip_property(check: str) -> Any:
    def test(value: Any) -> bool:
        ip = _address(value).ip
        if check == "unspecified":
            return ip.is_unspecified
        if check == "loopback":
            return ip.is_loopback
        if check == "link_local_multicast":
            if ip.version == 4:
                return ip in ipaddress.ip_network("224.0.0.0/24")
            return ip.is_multicast and (int(ip) >> 112) & 0xF == 2
        if check == "link_local_unicast":
            return ip in ipaddress.ip_network("169.254.0.0/16" if ip.version == 4 else "fe80::/10")
        # Go's IsGlobalUnicast: not unspecified, loopback, multicast, link-local, or the IPv4 broadcast.
        return not (
            ip.is_unspecified
            or ip.is_loopback
            or ip.is_multicast
            or ip in ipaddress.ip_network("169.254.0.0/16" if ip.version == 4 else "fe80::/10")
            or (ip.version == 4 and int(ip) == 0xFFFFFFFF)
        )

    return test


def _contains_cidr(outer: Any, inner: Any) -> bool:
    a, b = _prefix(outer), _prefix(inner)
    return a.overlaps(b) and a.length <= b.length


def _address_text(value: Any) -> str:
    if value.DESCRIPTOR.full_name == "net.CIDR":
        return _prefix(value).text()
    return _address(value).text()


def _network_functions() -> list[Function]:
    properties = [
        ("isUnspecified", "ip_is_unspecified", "unspecified"),
        ("isLoopback", "ip_is_loopback", "loopback"),
        ("isLinkLocalMulticast", "ip_is_link_local_multicast", "link_local_multicast"),
        ("isLinkLocalUnicast", "ip_is_link_local_unicast", "link_local_unicast"),
        ("isGlobalUnicast", "ip_is_global_unicast", "global_unicast"),
    ]
    return [
        Function(
            "ip",
            False,
            (("string_to_ip", IP, (T.STRING,)),),
            (("string_to_ip", IP, (T.STRING,), _ip),),
        ),
        Function(
            "ip", True, (("cidr_ip", IP, (CIDR,)),), (("cidr_ip", IP, (CIDR,), lambda c: _to_ip(_prefix(c).address)),)
        ),
        _same("isIP", False, "is_ip", T.BOOL, (T.STRING,), lambda text: _parses(parse_address, text)),
        _same("ip.isCanonical", False, "ip_is_canonical", T.BOOL, (T.STRING,), _is_canonical),
        _same("family", True, "ip_family", T.INT, (IP,), lambda value: _address(value).version),
        *(_same(name, True, overload, T.BOOL, (IP,), _ip_property(check)) for name, overload, check in properties),
        _same("cidr", False, "string_to_cidr", CIDR, (T.STRING,), _cidr),
        _same("isCIDR", False, "is_cidr", T.BOOL, (T.STRING,), lambda text: _parses(parse_prefix, text)),
        Function(
            "containsIP",
            True,
            (("cidr_contains_ip_string", T.BOOL, (CIDR, T.STRING)), ("cidr_contains_ip_ip", T.BOOL, (CIDR, IP))),
            (
                (
                    "cidr_contains_ip_string",
                    T.BOOL,
                    (CIDR, T.STRING),
                    lambda c, s: _prefix(c).contains(_address(_ip(s))),
                ),
                ("cidr_contains_ip_ip", T.BOOL, (CIDR, IP), lambda c, ip: _prefix(c).contains(_address(ip))),
            ),
        ),
        Function(
            "containsCIDR",
            True,
            (("cidr_contains_cidr_string", T.BOOL, (CIDR, T.STRING)), ("cidr_contains_cidr", T.BOOL, (CIDR, CIDR))),
            (
                ("cidr_contains_cidr_string", T.BOOL, (CIDR, T.STRING), lambda c, s: _contains_cidr(c, _cidr(s))),
                ("cidr_contains_cidr", T.BOOL, (CIDR, CIDR), _contains_cidr),
            ),
        ),
        _same("prefixLength", True, "cidr_prefix_length", T.INT, (CIDR,), lambda c: _prefix(c).length),
        _same("masked", True, "cidr_masked", CIDR, (CIDR,), lambda c: _to_cidr(_prefix(c).masked())),
        Function(
            "string",
            False,
            (("ip_to_string", T.STRING, (IP,)), ("cidr_to_string", T.STRING, (CIDR,))),
            # cel-cpp dispatches on the kind, and both are messages: one implementation tells them apart.
            (("address_to_string", T.STRING, (IP,), _address_text),),
        ),
    ]


# -- url ------------------------------------------------------------------------------------------


def _url(text: str) -> Any:
    try:
        parse_request_url(text)
    except URLError as error:
        raise ValueError(f"URL parse error during conversion from string: {error}") from None
    return opaque("kubernetes.URL", text)


def _parsed(value: Any) -> ParsedURL:
    return parse_request_url(text_of(value))


def _is_url(text: str) -> bool:
    try:
        parse_request_url(text)
    except URLError:
        return False
    return True


def _url_functions() -> list[Function]:
    getters = [
        ("getScheme", "url_get_scheme", lambda u: _parsed(u).scheme),
        ("getHost", "url_get_host", lambda u: _parsed(u).host),
        ("getHostname", "url_get_hostname", lambda u: _parsed(u).hostname()),
        ("getPort", "url_get_port", lambda u: _parsed(u).port()),
        ("getEscapedPath", "url_get_escaped_path", lambda u: escaped_path(_parsed(u).path)),
    ]
    query = T.Map(T.STRING, T.List(T.STRING))
    return [
        _same("url", False, "string_to_url", URL, (T.STRING,), _url),
        _same("isURL", False, "is_url_string", T.BOOL, (T.STRING,), _is_url),
        *(_same(name, True, overload, T.STRING, (URL,), getter) for name, overload, getter in getters),
        _same("getQuery", True, "url_get_query", query, (URL,), lambda u: query_of(_parsed(u))),
    ]


OPAQUE_FUNCTIONS: tuple[Function, ...] = (*_quantity_functions(), *_network_functions(), *_url_functions())
