"""Pools of adversarial strings, number spellings, keys and pointer tokens.

Each pool targets a behaviour of the apiserver (docs/json-encoding.md, json-patch.md, merge-patch.md):
characters Go escapes (`<>&`, U+2028/2029, control characters) or does not (`/`, 0x7f, non-ASCII),
number spellings that kjson turns into int64 or float64 (or rejects), and pointer tokens that
evanphx/json-patch v4 unescapes or parses leniently.
"""

from __future__ import annotations

from .jsontext import Raw

# Strings whose Go spelling differs from what Python or orjson clients send, plus plain ones.
STRINGS = [
    "plain",
    "",
    " ",
    "a<b",
    "x > y",
    "a&&b",
    "<>&",
    'sh -c "echo hi > /tmp/x"',
    "if a < b && c > d",
    "line\u2028sep",
    "para\u2029sep",
    "tab\tnl\ncr\r",
    "bs\bff\f",
    "nul\x00",
    "ctl\x01\x1f",
    "del\x7f",
    "/path/to/file",
    "http://example.com/a?b=c&d=e",
    "café",
    "é",
    "日本語",
    "😀",
    "emoji 👍🏽 mix",
    "\ufffd",
    "\ufeffbom",
    "back\\slash",
    "\\u003c",
    "\\u0008",
    'quote"d',
    "'single'",
    "~0~1",
    "null",
    "1",
    "true",
    "1.0",
    "lone\ud800",
    "low\udc00",
]

# Strings for values the generator treats as "ordinary" (random docs, names).
WORDS = ["alpha", "beta", "gamma", "delta", "job-1", "worker", "ready", "Pending", "Running", "done"]

# Numbers as Python values: the doc text is json.dumps-like, the stored text is Go's.
NUMBERS = [
    0,
    1,
    -1,
    42,
    1.0,
    1.5,
    -0.0,
    0.1,
    0.30000000000000004,
    1e20,
    1e21,
    1.5e21,
    1e-6,
    1e-7,
    2.5e-3,
    1e300,
    123456789.0,
    9223372036854775807,
    -9223372036854775808,
    9223372036854775808,
    12345678901234567890,
    2**70,
    3.14159,
    100.0,
    1e16,
]

# Number spellings as raw JSON text (some invalid JSON, some out of float64 range).
NUMBER_SPELLINGS = [
    "1",
    "1.0",
    "1.00",
    "1e0",
    "1e3",
    "1E3",
    "1e+3",
    "1E-3",
    "10e-1",
    "-0",
    "-0.0",
    "0.0",
    "0e0",
    "-0e0",
    "1e21",
    "1e20",
    "100000000000000000000",
    "1000000000000000000000",
    "1e-7",
    "1e-6",
    "0.000001",
    "0.0000001",
    "0.1",
    "0.10",
    "1.5",
    "15e-1",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "12345678901234567890",
    "1e400",
    "-1e400",
    "1e-400",
    "4.9e-324",
    "1.7976931348623157e308",
    "123456789012345678901234567890",
    "01",
    "-01",
    "00",
    "1.",
    ".5",
    "+1",
    "0x10",
    "NaN",
    "Infinity",
    "1_000",
]

# Raw string spellings no Python serializer produces.
RAW_STRINGS = [
    '"a\\u003cb"',
    '"a\\u003Cb"',
    '"a<b"',
    '"a\\/b"',
    '"a/b"',
    '"caf\\u00e9"',
    '"caf\\u00E9"',
    '"café"',
    '"\\ud83d\\ude00"',
    '"\\uD83D\\uDE00"',
    '"😀"',
    '"\\ud800"',
    '"\\udc00x"',
    '"\\ud800\\ud800"',
    '"\\u0008\\u000c"',
    '"\\b\\f"',
    '"\\u2028"',
    '"\u2028"',
    '"\\u007f"',
    '"\x7f"',
    '"\\u0000"',
    '"\\u00"',
    '"\\x41"',
    '"\\a"',
    '"tab\tinside"',
    '"nl\ninside"',
]

BAD_RAW_STRINGS = ['"\\u00"', '"\\x41"', '"\\a"', '"tab\tinside"', '"nl\ninside"']

# Raw strings with invalid UTF-8 bytes (stored as U+FFFD by kjson; compared raw by json-patch).
INVALID_UTF8 = [
    b'"\xff"',
    b'"a\xfeb"',
    b'"\xc3"',
    b'"\xc3\x28"',
    b'"\xc0\xaf"',
    b'"\xed\xa0\x80"',
    b'"\xe2\x82"',
    b'"\xf4\x90\x80\x80"',
    b'"ok\x80"',
]

# Object keys that stress pointers and Go's escaping.
KEYS = [
    "",
    "a/b",
    "a~b",
    "~1",
    "~01",
    "a~0b",
    "/",
    "~",
    " ",
    "a<b",
    "é",
    "\u2028",
    "tab\t",
    "0",
    "-",
    "-1",
    "01",
    "null",
    "a.b",
    "A",
    "a",
]

# Pointer tokens used as array indices (v4: strconv.Atoi, negatives count from the end).
INDEX_TOKENS = [
    "0",
    "1",
    "2",
    "3",
    "-",
    "-1",
    "-2",
    "-3",
    "-4",
    "+1",
    "01",
    "00",
    "-0",
    "1.0",
    " 1",
    "1 ",
    "1e0",
    "0x1",
    "a",
    "",
    "99",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "~0",
    "~1",
]


# Spellings that are not JSON numbers at all, or overflow float64.
BAD_NUMBER_SPELLINGS = [
    "1e400",
    "-1e400",
    "01",
    "-01",
    "00",
    "1.",
    ".5",
    "+1",
    "0x10",
    "NaN",
    "Infinity",
    "1_000",
]


def raw_numbers(valid_only: bool = False) -> list[Raw]:
    return [Raw(s) for s in NUMBER_SPELLINGS if not (valid_only and s in BAD_NUMBER_SPELLINGS)]


def raw_strings(valid_only: bool = False) -> list[Raw]:
    """Raw string spellings; valid_only leaves out those that are not JSON (invalid UTF-8 is kept)."""
    texts = [s for s in RAW_STRINGS if not (valid_only and s in BAD_RAW_STRINGS)]
    return [Raw(s) for s in texts] + [Raw(b) for b in INVALID_UTF8]
