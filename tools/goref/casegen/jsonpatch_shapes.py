"""JSON patch families about structure: pointers, array indices, operation shapes, bad bodies.

evanphx/json-patch v4 (reference 2.2, 2.3, 2.5) ignores the text before the first `/`, unescapes
`~1` then `~0` in one pass, parses indices with strconv.Atoi (so `01` and `+1` work) and accepts
negatives; the apiserver's strict pre-decode (1.1) rejects non-string members and reports
unknown, duplicate and case-variant member names. Malformed bodies exercise the decode errors.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from . import docs, values
from .jsontext import Raw, dump, pointer
from .patches import TEMPLATES_END, Case, members, op, spelled

OPS = ("add", "remove", "replace", "test", "move", "copy")
POINTERS = [
    "",
    "/",
    "//",
    "/a",
    "a",
    "x/a",
    "a/b",
    "/a/",
    "/a~1b",
    "/a~0b",
    "/~01",
    "/~1",
    "/~0",
    "/~",
    "/a~b",
    "/~2",
    "/a~1b/c",
    "/o/",
    "/o//",
    "/o/~1",
    "/e",
    "/é",
    "/\\u00e9",
    "/a<b",
    "/ ",
    "/null",
    "/0",
    "/-",
    "/arr/0/k",
    "/arr/-1/k",
    "/arr/1/k",
    "/o/k/x",
    "/s/0",
    "/s/x",
]


def _op_with(kind: str, path: str, value: object) -> dict[str, Any]:
    if kind in ("move", "copy"):
        return op(kind, "/dest", from_=path)
    if kind == "remove":
        return op(kind, path)
    return op(kind, path, value)


def pointers(rng: random.Random) -> Iterator[Case]:
    """`~0` `~1` `~01`, empty keys, `/` paths, path "" and paths without a leading `/`."""
    doc = {
        "": "empty",
        "a": {"": "inner", "b": 1},
        "a/b": "slash",
        "a~b": "tilde",
        "~1": "t1",
        "/": "root-slash",
        "~": "t",
        "é": "e",
        "a<b": "lt",
        " ": "sp",
        "null": None,
        "0": "zero",
        "-": "dash",
        "o": {"": {"": 1}, "/": 2, "k": "v"},
        "arr": [{"k": 1}, {"k": 2}],
        "s": "str",
        "e": "plain",
    }
    for path in POINTERS:
        for kind in OPS:
            yield Case(doc, [_op_with(kind, path, "new")])
        yield Case(doc, [op("test", path, "empty")])
        yield Case(doc, [op("move", path, from_="/e")])
        yield Case(doc, [op("copy", path, from_="/s")])
    for whole in ({"x": 1}, [1, 2], "s", 1, None):
        for kind in ("replace", "test", "add"):
            yield Case({"a": 1}, [op(kind, "", whole)])
    yield TEMPLATES_END

    while True:
        d = docs.any_doc(rng)
        path, v = docs.pick_node(rng, d)
        tokens = path.split("/")
        mangle = rng.choice(["prefix", "trailing", "raw-tilde", "double", "none", "upper"])
        if mangle == "prefix":
            path = rng.choice(["x", "spec", "~1", ""]) + path
        elif mangle == "trailing":
            path += "/"
        elif mangle == "raw-tilde":
            path = path.replace("~1", "/")
        elif mangle == "double":
            path = "/".join([*tokens[:2], "", *tokens[2:]])
        elif mangle == "upper":
            path = path.upper()
        kind = rng.choice(OPS)
        yield Case(d, [_op_with(kind, path, spelled(rng, v, 0.6))])


def indices(rng: random.Random) -> Iterator[Case]:
    """`-`, negative, `+1`, `01`, out-of-range and non-numeric array indices, for every op."""
    for n in range(5):
        doc = {"a": list(range(10, 10 + n)), "o": [{"k": i} for i in range(n)]}
        for token in values.INDEX_TOKENS:
            for kind in OPS:
                yield Case(doc, [_op_with(kind, "/a/" + token, 10)])
            yield Case(doc, [op("move", "/a/" + token, from_="/a/0")])
            yield Case(doc, [op("copy", "/a/" + token, from_="/o/0")])
            yield Case(doc, [op("test", "/o/" + token + "/k", 0)])
            yield Case(doc, [op("add", "/o/" + token + "/k", 9)])
    yield TEMPLATES_END

    while True:
        d = docs.any_doc(rng)
        arrays = [tokens for tokens, v in docs.containers(d) if isinstance(v, list)]
        if not arrays:
            d["arr"] = [1, 2, 3]
            arrays = [("arr",)]
        tokens = rng.choice(arrays)
        path = pointer(*tokens) + "/" + rng.choice(values.INDEX_TOKENS)
        kind = rng.choice(OPS)
        yield Case(d, [_op_with(kind, path, docs.scalar(rng))])


def op_shapes(rng: random.Random) -> Iterator[Case]:
    """Missing `value`/`path`/`from`, odd `op` values, extra, duplicate and case-variant members."""
    doc = {"a": 1, "b": "x", "o": {"k": [1, 2]}}
    shapes = [
        members(("op", "add"), ("path", "/c")),
        members(("op", "replace"), ("path", "/a")),
        members(("op", "test"), ("path", "/a")),
        members(("op", "test"), ("path", "/missing")),
        members(("op", "add"), ("value", 1)),
        members(("op", "remove")),
        members(("op", "move"), ("path", "/c")),
        members(("op", "copy"), ("path", "/c")),
        members(("op", "move"), ("from", "/a")),
        members(("op", "copy"), ("from", "/a")),
        members(("op", None), ("path", "/a"), ("value", 1)),
        members(("path", "/a"), ("value", 1)),
        members(("op", 1), ("path", "/a"), ("value", 1)),
        members(("op", True), ("path", "/a")),
        members(("op", ["add"]), ("path", "/a")),
        members(("op", "add"), ("path", 1), ("value", 1)),
        members(("op", "add"), ("path", None), ("value", 1)),
        members(("op", "move"), ("path", "/c"), ("from", None)),
        members(("op", "move"), ("path", "/c"), ("from", 7)),
        members(("op", "increment"), ("path", "/a"), ("value", 1)),
        members(("op", "ADD"), ("path", "/c"), ("value", 1)),
        members(("op", "Add"), ("path", "/c"), ("value", 1)),
        members(("op", " add"), ("path", "/c"), ("value", 1)),
        members(("op", "add "), ("path", "/c"), ("value", 1)),
        members(("op", ""), ("path", "/c"), ("value", 1)),
        members(("Op", "add"), ("path", "/c"), ("value", 1)),
        members(("op", "add"), ("Path", "/c"), ("value", 1)),
        members(("op", "add"), ("path", "/c"), ("Value", 1)),
        members(("op", "add"), ("path", "/c"), ("VALUE", 1)),
        members(("OP", "add"), ("op", "add"), ("path", "/c"), ("value", 1)),
        members(("op", "add"), ("path", "/c"), ("value", 1), ("foo", "bar")),
        members(("op", "add"), ("path", "/c"), ("value", 1), ("foo", 1), ("bar", None)),
        members(("op", "add"), ("path", "/c"), ("value", 1), ("op", "remove")),
        members(("op", "remove"), ("path", "/a"), ("op", "add"), ("value", 1)),
        members(("op", "test"), ("path", "/a"), ("value", 2), ("value", 1)),
        members(("op", "test"), ("path", "/a"), ("value", 1), ("value", 2)),
        members(("op", "add"), ("path", "/c"), ("path", "/d"), ("value", 1)),
        members(("op", "add"), ("path", "/c"), ("from", "/a"), ("value", 1)),
        members(("value", 1), ("path", "/c"), ("op", "add")),
        members(("op", "copy"), ("from", "/a"), ("path", "/c"), ("value", "ignored")),
        members(("op", "test"), ("path", "/a"), ("value", 1), ("from", "/b")),
        members(("op", "add"), ("path", "/c"), ("value", 1), ("", 1)),
        members(("op", "add"), ("path", "/c"), ("value", 1), (Raw('"o\\u0070"'), "remove")),
        members((Raw('"o\\u0070"'), "remove"), ("path", "/a")),
        members(("op", "add"), ("path", "/c"), ("value", 1), ("extra", {"op": "remove"})),
        members(),
    ]
    for shape in shapes:
        yield Case(doc, [shape])
        yield Case(doc, [shape, op("test", "/a", 1)])
        yield Case(doc, [op("add", "/z", 0), shape, members(("op", "test"), ("path", "/z"), ("value", 0), ("x", 1))])
    elements: list[Any] = [None, 1, "add", [], [op("add", "/c", 1)], {}, True]
    for element in elements:
        yield Case(doc, [element])
        yield Case(doc, [op("test", "/a", 1), element])
    yield TEMPLATES_END

    while True:
        d = docs.any_doc(rng)
        path, v = docs.pick_node(rng, d)
        base = [("op", rng.choice((*OPS, "test"))), ("path", path), ("value", spelled(rng, v, 0.7))]
        extra = rng.choice(
            [
                ("foo", 1),
                ("op", rng.choice(OPS)),
                ("Value", 2),
                ("path", "/x"),
                ("from", path),
                ("value", None),
                ("Path", path),
                ("op", None),
            ]
        )
        member_list = [*base, extra]
        rng.shuffle(member_list)
        yield Case(d, [members(*member_list)])


def malformed(rng: random.Random) -> Iterator[Case]:
    """Bodies that fail to decode, or decode to nothing: empty, null, {}, [1], truncated, deep."""
    doc = {"a": 1, "b": [1, 2]}
    good = dump([op("test", "/a", 1), op("add", "/c", {"k": [1, 2]})], "pyc")
    bodies = [
        b"",
        b" ",
        b"\n",
        b"null",
        b" null ",
        b"{}",
        b"[]",
        b"[ ]",
        b"[1]",
        b'["x"]',
        b"[{}]",
        b"[null]",
        b"[[]]",
        b"true",
        b"1",
        b'"[]"',
        b'{"op":"add","path":"/c","value":1}',
        b'[{"op":1}]',
        b'[{"op":"add","path":"/c","value":1},]',
        b'[{"op":"add","path":"/c","value":1,}]',
        b"[{'op':'add','path':'/c','value':1}]",
        b'[{"op":"add","path":"/c","value":NaN}]',
        b'[{"op":"add","path":"/c","value":Infinity}]',
        b'[{"op":"add","path":"/c","value":01}]',
        b'[{"op":"add","path":"/c","value":1e400}]',
        b'[{"op":"add","path":"/c","value":-}]',
        b'[{"op":"add","path":"/c","value":undefined}]',
        b"[] []",
        b"[]x",
        b"[]\n\n",
        b"\xef\xbb\xbf[]",
        b'[{"op":"add","path":"/c","value":1}] // comment',
        b"/* c */ []",
        b'[{"op":"add\x00","path":"/c"}]',
        b'[{"op":"add","path":"/c\t","value":1}]',
        b'[{"op":"add","path":"/c","value":"\x01"}]',
        b'[{"op":"add","path":"/c","value":"\\x41"}]',
        b'[{"op":"add","path":"/c","value":"\xff"}]',
        b'[{"op":"ad\xffd","path":"/c","value":1}]',
        b'[{"op":"add","path":"/c\xff","value":1}]',
        b"\xc2\xa0[]",
        b"\t\r\n []",
        b"[\x0c]",
        b'[{"op":"add","path":"/c","value":"\\ud800"}]',
        b"[" * 20000,
        b"[" * 20000 + b"]" * 20000,
        b"[" + b"[" * 10000 + b"]" * 10000 + b"]",
        b"[" * 10000 + b"]" * 10000,
        b'[{"op":"add","path":"/c","value":' + b"[" * 9998 + b"]" * 9998 + b"}]",
        b'[{"op":"add","path":"/c","value":' + b"[" * 9999 + b"]" * 9999 + b"}]",
        b'[{"op":"add","path":"/c","value":' + b'{"a":' * 9998 + b"1" + b"}" * 9998 + b"}]",
    ]
    for body in bodies:
        yield Case(doc, body)
    for cut in range(1, len(good)):
        yield Case(doc, good[:cut])
    yield TEMPLATES_END

    while True:
        mutated = bytearray(good)
        for _ in range(rng.randint(1, 3)):
            mutated[rng.randrange(len(mutated))] = rng.choice(b'[]{}",:01 \\ax\xff')
        yield Case(doc, bytes(mutated))
