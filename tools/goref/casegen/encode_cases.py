"""Encoder families: what the apiserver stores for a document (docs/json-encoding.md).

kjson decodes with PreserveInts (an int literal that fits int64 stays int64, anything else is
float64, out-of-range floats fail), invalid UTF-8 and lone surrogates become U+FFFD, duplicate keys
keep the last value; Go's encoder then sorts keys, HTML-escapes `<>&` and U+2028/2029, writes
\\b \\f \\n \\r \\t short (Go >= 1.22) and other control bytes as lower-case \\u00xx, and formats
floats with the shortest digits ('e' form below 1e-6 and from 1e21).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from . import docs, values
from .jsontext import STYLES, Obj, Raw, dump, spell_string
from .patches import TEMPLATES_END, Case

# Every ASCII code point, then the edges Go's encoder and decoder treat specially.
CODE_POINTS = [
    *range(0x80),
    0x80,
    0x9F,
    0xA0,
    0xFF,
    0x2027,
    0x2028,
    0x2029,
    0x202A,
    0xFEFF,
    0xFFFD,
    0xFFFE,
    0xFFFF,
]
CODE_POINTS += [0x10000, 0x1F600, 0x10FFFF]


def strings(rng: random.Random) -> Iterator[Case]:
    """Every interesting character, in values and keys, in every spelling."""
    for s in values.STRINGS:
        for mode in ("go", "ascii", "raw", "upper", "allu", "slash", "gohtml"):
            text = spell_string(s, mode)
            yield Case(b'{"s":' + text + b"}")
            yield Case(b"{" + text + b":1}")
        yield Case(Raw(spell_string(s, "raw")))
    for cp in CODE_POINTS:
        yield Case(b'{"c":' + spell_string(chr(cp), "allu") + b"}")
        if cp >= 0x20 and chr(cp) not in '"\\':
            yield Case(b'{"c":"' + chr(cp).encode() + b'"}')
    for raw in values.raw_strings():
        yield Case(b'{"s":' + raw.text + b"}")
    yield TEMPLATES_END

    while True:
        s = "".join(rng.choice(values.STRINGS) for _ in range(rng.randint(1, 3)))
        yield Case(dump({"k": s, s: [s]}, rng.choice(STYLES)))


def numbers(rng: random.Random) -> Iterator[Case]:
    """Every number spelling at the top level, in arrays and in objects."""
    for text in values.NUMBER_SPELLINGS:
        yield Case(text.encode())
        yield Case(b"[" + text.encode() + b"]")
        yield Case(b'{"n":' + text.encode() + b"}")
        yield Case(b'{"n":-' + text.encode() + b"}")
    for n in values.NUMBERS:
        for style in ("pyc", "go"):
            yield Case(dump({"n": n}, style))
    for exp in range(-330, 330, 7):
        for mantissa in ("1", "1.5", "9.999999999999999", "2.2250738585072014", "123456789"):
            yield Case(f'{{"n":{mantissa}e{exp}}}'.encode())
    for digits in range(15, 22):
        yield Case(f'{{"n":{"9" * digits}}}'.encode())
        yield Case(f'{{"n":1{"0" * digits}}}'.encode())
        yield Case(f'{{"n":-{"9" * digits}}}'.encode())
    yield TEMPLATES_END

    while True:
        pick = rng.random()
        if pick < 0.4:
            text = f"{rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30)!r}"
        elif pick < 0.7:
            text = str(rng.randint(-(2**66), 2**66))
        else:
            text = f"{rng.randint(0, 999)}.{rng.randint(0, 999):03d}e{rng.randint(-25, 25)}"
        yield Case(f'{{"n":{text},"a":[{text}]}}'.encode())


def structure(rng: random.Random) -> Iterator[Case]:
    """Key order, duplicate keys, nesting depth, whitespace, empty containers, realistic documents."""
    keys = [
        "b",
        "a",
        "B",
        "A",
        "",
        "é",
        "z",
        "Z",
        "\u2028",
        "~",
        "_",
        "-",
        "0",
        "10",
        "9",
        "aa",
        "a\x00",
        "😀",
        "\uffff",
    ]
    yield Case(dump({k: i for i, k in enumerate(keys)}, "pyc"))
    yield Case(dump({k: {k2: i for i, k2 in enumerate(reversed(keys))} for k in keys[:5]}, "utf8"))
    for body in [
        b"{}",
        b"[]",
        b"null",
        b"true",
        b'""',
        b"[{}]",
        b'{"a":{}}',
        b'{"a":[]}',
        b"[[],[[]]]",
        b'{"a":1,"a":2}',
        b'{"a":{"x":1},"a":{"y":2}}',
        b'{"a":null,"a":1}',
        b'{"a":1,"a":null}',
        b'{"a":1,"\\u0061":2}',
        b'{"a":1,"A":2}',
        b' \t\r\n{ "a" : [ 1 , 2 ] }\n ',
        b"[" * 10000 + b"]" * 10000,
        b"[" * 10001 + b"]" * 10001,
        b'{"a":' * 9999 + b"1" + b"}" * 9999,
        b'{"a":' * 10000 + b"1" + b"}" * 10000,
        b'{"a":' * 10001 + b"1" + b"}" * 10001,
    ]:
        yield Case(body)
    yield TEMPLATES_END

    while True:
        d = docs.custom_resource(rng, rng.choice(["small", "medium"])) if rng.random() < 0.6 else docs.synthetic(rng)
        if rng.random() < 0.3:
            key = rng.choice(list(d))
            yield Case(dump(Obj([*d.items(), (key, docs.value(rng))]), rng.choice(STYLES)))
        else:
            yield Case(dump(d, rng.choice(STYLES)))


def invalid(rng: random.Random) -> Iterator[Case]:
    """Invalid UTF-8, lone surrogates, and text that is not (exactly one) JSON value."""
    for bad in values.INVALID_UTF8:
        yield Case(b'{"s":' + bad + b"}")
        yield Case(b"{" + bad + b":1}")
        yield Case(b"[" + bad + b"," + bad + b"]")
    for surrogate in (
        "\\ud800",
        "\\udbff",
        "\\udc00",
        "\\udfff",
        "\\ud800\\ud800",
        "\\udc00\\ud800",
        "\\ud83d\\ude00",
        "\\ud83dx",
        "\\ud83d\\u0041",
        "\\ud83d\\",
        "x\\ud800y",
    ):
        yield Case(b'{"s":"' + surrogate.encode() + b'"}')
        yield Case(b'{"' + surrogate.encode() + b'":1}')
    for body in [
        b"",
        b" ",
        b"{",
        b"}",
        b"[1,]",
        b'{"a":1,}',
        b"{'a':1}",
        b'{"a":NaN}',
        b'{"a":Infinity}',
        b'{"a":01}',
        b'{"a":.5}',
        b'{"a":1.}',
        b'{"a":+1}',
        b'{"a":0x1}',
        b'{"a":1}x',
        b'{"a":1} {}',
        b"\xef\xbb\xbf{}",
        b'{"a":"\t"}',
        b'{"a":"\n"}',
        b'{"a":"\x00"}',
        b'{"a":"\x1f"}',
        b'{"a":"\\a"}',
        b'{"a":"\\u12"}',
        b'{"a":"\\u12G4"}',
        b'{"a":tru}',
        b'{"a":nul}',
        b"/* c */{}",
        b'{"a":1 // c\n}',
        b"{a:1}",
        b'{"a" 1}',
        b'{"a":1 "b":2}',
        b"\xc2\xa0{}",
        b"{}\x00",
        b'"\xff"',
        b"1e400",
        b"-",
    ]:
        yield Case(body)
    yield TEMPLATES_END

    while True:
        mutated = bytearray(dump(docs.synthetic(rng), rng.choice(STYLES)))
        for _ in range(rng.randint(1, 2)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        yield Case(bytes(mutated))
