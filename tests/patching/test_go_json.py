"""Go's JSON spelling: the encoder, the decoder and the scanner's error texts (docs/json-encoding.md)."""

from __future__ import annotations

import pytest

from fakeapi._patching import GoFloat, GoSyntaxError, decode, encode
from fakeapi._patching.godecode import GoNumberRangeError
from fakeapi._patching.goencode import format_float


def test_the_verified_map_encodes_as_go_does() -> None:
    value = decode(
        b'{"b":"a<b>&c\\u2028","a":1,"e":"\xc3\xa9","f":1.5,"g":1e21,"h":1e-7,"i":[1,null],"n":null,"z":{"y":2,"x":1}}'
    )
    assert encode(value) == (
        b'{"a":1,"b":"a\\u003cb\\u003e\\u0026c\\u2028","e":"\xc3\xa9","f":1.5,"g":1e+21,"h":1e-7,'
        b'"i":[1,null],"n":null,"z":{"x":1,"y":2}}'
    )


@pytest.mark.parametrize(
    ("literal", "spelling"),
    [
        ("1.0", "1"),
        ("1e3", "1000"),
        ("1E3", "1000"),
        ("1e20", "100000000000000000000"),
        ("1e21", "1e+21"),
        ("1e-7", "1e-7"),
        ("1e-6", "0.000001"),
        ("1.5e-7", "1.5e-7"),
        ("1e-300", "1e-300"),
        ("1.5e21", "1.5e+21"),
        ("12345678901234567890.0", "12345678901234567000"),
        ("-0.0", "-0"),
        ("0.1", "0.1"),
        ("12345678901234567890", "12345678901234567000"),
        ("-0", "0"),
        ("9223372036854775807", "9223372036854775807"),
        ("9223372036854775808", "9223372036854776000"),
    ],
)
def test_numbers_are_stored_in_go_spelling(literal: str, spelling: str) -> None:
    assert encode(decode(literal.encode())) == spelling.encode()


def test_integers_that_fit_int64_stay_integers_and_others_become_floats() -> None:
    assert type(decode(b"9223372036854775807")) is int
    assert type(decode(b"9223372036854775808")) is GoFloat
    assert type(decode(b"1.0")) is GoFloat


def test_a_number_beyond_float64_is_an_error_not_infinity() -> None:
    with pytest.raises(GoNumberRangeError, match=r"cannot unmarshal number 1e400 into Go value of type float64"):
        decode(b"[1e400]")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\b\f\n\r\t", '"\\b\\f\\n\\r\\t"'),
        ("\x00\x1f\x7f", '"\\u0000\\u001f\x7f"'),
        ("/", '"/"'),
        ("\u2028\u2029", '"\\u2028\\u2029"'),
        ("é😀", '"é😀"'),
        ('"\\', '"\\"\\\\"'),
    ],
)
def test_strings_are_escaped_as_go_escapes_them(text: str, expected: str) -> None:
    assert encode(text) == expected.encode()


@pytest.mark.parametrize(
    ("raw", "decoded"),
    [
        (b'"\\ud800"', "\ufffd"),
        (b'"\\ud83d\\ude00"', "😀"),
        (b'"\\udc00\\ud800x"', "\ufffd\ufffdx"),
        (b'"\\ud800\\ud800\\udc00"', "\ufffd\U00010000"),
        (b'"a\xffb"', "a\ufffdb"),
        (b'"\xe2\x80A"', "\ufffd\ufffdA"),
        (b'"\xed\xa0\x80"', "\ufffd\ufffd\ufffd"),
    ],
)
def test_invalid_utf8_and_lone_surrogates_become_replacement_characters(raw: bytes, decoded: str) -> None:
    assert decode(raw) == decoded


def test_duplicate_keys_keep_the_last_value() -> None:
    assert decode(b'{"a":1,"a":2}') == {"a": 2}


def test_nesting_deeper_than_orjson_allows_still_decodes_up_to_go_limit() -> None:
    depth = 5000
    value = decode(b"[" * depth + b"]" * depth)
    for _ in range(depth - 1):
        value = value[0]
    assert value == []
    assert encode(decode(b"[" * depth + b"]" * depth)) == b"[" * depth + b"]" * depth


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "unexpected end of JSON input"),
        (b"not json", "invalid character 'o' in literal null (expecting 'u')"),
        (b"nul", "invalid character ' ' in literal null (expecting 'l')"),
        (b"[1,]", "invalid character ']' looking for beginning of value"),
        (b'{"a" 1}', "invalid character '1' after object key"),
        (b"01", "invalid character '1' after top-level value"),
        (b"[01]", "invalid character '1' after array element"),
        (b"-", "invalid character ' ' in numeric literal"),
        (b"1.", "invalid character ' ' after decimal point in numeric literal"),
        (b"1e+", "invalid character ' ' in exponent of numeric literal"),
        (b'"\\x"', "invalid character 'x' in string escape code"),
        (b'"\\u12"', "invalid character '\"' in \\u hexadecimal character escape"),
        (b'"a\x01"', "invalid character '\\x01' in string literal"),
        (b"[" * 10001, "invalid character '[' exceeded max depth"),
        (b'{"a":1}}', "invalid character '}' after top-level value"),
        (b"\xc3\xa9", "invalid character 'Ã' looking for beginning of value"),
        (b"'", "invalid character '\\'' looking for beginning of value"),
        (b'{"a":1,}', "invalid character '}' looking for beginning of object key string"),
        (b"\xef\xbb\xbf{}", "invalid character 'ï' looking for beginning of value"),
    ],
)
def test_syntax_errors_carry_go_scanner_texts(body: bytes, message: str) -> None:
    with pytest.raises(GoSyntaxError) as caught:
        decode(body)
    assert str(caught.value) == message


def test_ten_thousand_levels_are_allowed() -> None:
    body = b"[" * 10000 + b"]" * 10000
    assert encode(decode(body)) == body


def test_format_float_rejects_nan() -> None:
    with pytest.raises(ValueError, match="unsupported value: NaN"):
        format_float(float("nan"))


def test_equal_floats_with_different_spellings_stay_apart() -> None:
    # 0.0 and -0.0 are equal (and hash alike) but Go spells them differently, whatever came first.
    assert encode([GoFloat(0.0), GoFloat(-0.0), GoFloat(-0.0), GoFloat(0.0)]) == b"[0,-0,-0,0]"
    assert encode([GoFloat(-0.0), GoFloat(0.0)]) == b"[-0,0]"
    assert encode({"a": GoFloat(2.5), "b": GoFloat(2.5), "c": 2}) == b'{"a":2.5,"b":2.5,"c":2}'
