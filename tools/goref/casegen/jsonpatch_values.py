"""JSON patch families about value bytes: escapes, non-ASCII, numbers and nulls.

`test` compares scalars byte for byte after json.Compact (reference 2.4), against the Go spelling
of the stored object (1.2), the patch text of values added earlier in the same patch, or the
re-encoded text of copied values; these families send each value in every spelling through each
of those routes. The null family covers missing-vs-null, arrays holding null (nil-pointer panics)
and paths through a node added as null (a v4.12.0 panic).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from . import docs, values
from .jsontext import Raw, pointer, spell_string
from .patches import MISSING, STRING_MODES, TEMPLATES_END, Case, op, spelled, spellings


def _string_routes(s: str, mode: str, doc_style_doc: dict[str, Any]) -> Iterator[Case]:
    text = Raw(spell_string(s, mode))
    yield Case(doc_style_doc, [op("test", "/spec/s", text)])
    yield Case(doc_style_doc, [op("replace", "/spec/s", text), op("test", "/spec/s", text)])
    yield Case(
        doc_style_doc,
        [op("add", "/spec/t", text), op("copy", "/spec/u", from_="/spec/t"), op("test", "/spec/u", text)],
    )
    yield Case(
        doc_style_doc,
        [op("add", "/spec/t", text), op("move", "/spec/u", from_="/spec/t"), op("test", "/spec/u", text)],
    )
    yield Case(doc_style_doc, [op("copy", "/spec/u", from_="/spec/s"), op("test", "/spec/u", text)])


def escapes(rng: random.Random) -> Iterator[Case]:
    """Go-escaped characters in stored values and in patch values, through every route."""
    for s in values.STRINGS:
        doc = {"spec": {"s": s, "o": {"k": s}}}
        for mode in ("go", "ascii", "raw", "upper", "slash", "gohtml"):
            yield from _string_routes(s, mode, doc)
        yield Case(doc, [op("test", "/spec/o", spelled(rng, {"k": s}, 0.3))])
    for raw in values.raw_strings():
        doc = {"spec": {"s": "a<b"}}
        yield Case(doc, [op("test", "/spec/s", raw)])
        yield Case(doc, [op("add", "/spec/t", raw), op("test", "/spec/t", raw)])
        yield Case(
            doc,
            [op("add", "/spec/t", raw), op("copy", "/spec/u", from_="/spec/t"), op("test", "/spec/u", raw)],
        )
    yield TEMPLATES_END

    while True:
        doc = docs.any_doc(rng)
        path, v = docs.pick_node(rng, doc)
        s = rng.choice(values.STRINGS)
        ops = [op("test", path, spelled(rng, v))]
        if rng.random() < 0.5:
            text = Raw(spell_string(s, rng.choice(STRING_MODES)))
            ops += [op(rng.choice(["add", "replace"]), path, text), op("test", path, spelled(rng, s))]
        yield Case(doc, ops)


def unicode(rng: random.Random) -> Iterator[Case]:
    """Non-ASCII raw vs escaped, surrogate pairs, lone surrogates and invalid UTF-8 bytes."""
    texts = [
        "é",
        "café",
        "日本語",
        "😀",
        "👍🏽",
        "\ufffd",
        "\ufeff",
        "lone\ud800",
        "\udc00",
        "\u2028",
        "\x7f",
    ]
    for s in texts:
        for doc_style in ("raw", "ascii"):
            raw_doc = Raw(
                b'{"spec":{"s":' + spell_string(s, doc_style) + b',"' + spell_string(s, "raw")[1:-1] + b'":1}}'
            )
            for mode in STRING_MODES:
                yield Case(raw_doc, [op("test", "/spec/s", Raw(spell_string(s, mode)))])
            yield Case(raw_doc, [op("test", pointer("spec", s), 1)])
            yield Case(raw_doc, [op("remove", pointer("spec", s))])
    for bad in values.INVALID_UTF8:
        raw_doc = Raw(b'{"spec":{"s":' + bad + b',"t":"x"}}')
        yield Case(raw_doc, [op("test", "/spec/s", Raw(bad))])
        yield Case(raw_doc, [op("test", "/spec/s", "\ufffd")])
        yield Case({"spec": {"t": "x"}}, [op("add", "/spec/s", Raw(bad)), op("test", "/spec/s", Raw(bad))])
        yield Case(
            {"spec": {"t": "x"}},
            [
                op("add", "/spec/s", Raw(bad)),
                op("copy", "/spec/u", from_="/spec/s"),
                op("test", "/spec/u", Raw(bad)),
            ],
        )
        yield Case({"spec": {"t": "x"}}, [op("add", Raw(b'"/spec/' + bad[1:-1] + b'"'), 1)])
    yield TEMPLATES_END

    while True:
        doc = docs.any_doc(rng)
        s = rng.choice(texts)
        key = rng.choice(["note", s, "k"])
        ops = [
            op(
                "add",
                pointer("metadata", "annotations", key) if "annotations" in doc.get("metadata", {}) else pointer(key),
                Raw(spell_string(s, "raw")),
            )
        ]
        ops.append(op("test", ops[0]["path"], Raw(spell_string(s, rng.choice(STRING_MODES)))))
        yield Case(doc, ops)


def numbers(rng: random.Random) -> Iterator[Case]:
    """Every number spelling, in stored values (kjson int64/float64) and in patch values (raw)."""
    for n in values.NUMBERS:
        doc = {"spec": {"n": n, "a": [n], "o": {"n": n}}}
        for text in spellings(n):
            yield Case(doc, [op("test", "/spec/n", text)])
            yield Case(doc, [op("test", "/spec/a/0", text)])
        yield Case(doc, [op("test", "/spec/o", spelled(rng, {"n": n}, 0.5))])
    for raw in values.raw_numbers():
        doc = {"spec": {"n": 1}}
        yield Case(doc, [op("test", "/spec/n", raw)])
        yield Case(doc, [op("replace", "/spec/n", raw)])
        yield Case(doc, [op("add", "/spec/m", raw), op("test", "/spec/m", raw)])
        yield Case(
            doc,
            [op("add", "/spec/m", raw), op("copy", "/spec/c", from_="/spec/m"), op("test", "/spec/c", raw)],
        )
        yield Case(doc, [op("add", "/spec/m", Raw(b"[" + raw.text + b"]")), op("test", "/spec/m/0", raw)])
        yield Case(Raw(b'{"spec":{"n":' + raw.text + b"}}"), [op("test", "/spec/n", raw)])
    yield TEMPLATES_END

    while True:
        doc = docs.any_doc(rng)
        path, _ = docs.pick_node(rng, doc)
        raw = rng.choice(values.raw_numbers())
        kind = rng.choice(["test", "replace", "add"])
        ops = [op(kind, path, raw)]
        if kind != "test":
            ops.append(op("test", path, rng.choice([raw, Raw(rng.choice(values.NUMBER_SPELLINGS))])))
        yield Case(doc, ops)


def nulls(rng: random.Random) -> Iterator[Case]:
    """null vs missing, arrays holding null, and the nil-pointer panics of v4.12.0."""
    base = {"n": None, "s": "x", "a": [1, None, 2], "an": [None], "o": {"n": None, "k": 1}, "e": []}
    null_ops = [
        op("test", "/n", None),
        op("test", "/missing", None),
        op("test", "/n"),
        op("test", "/missing"),
        op("test", "/s"),
        op("test", "/s", None),
        op("test", "/a/1", None),
        op("test", "/a/1"),
        op("test", "/a", [1, None, 2]),
        op("test", "/a", [1, None, 3]),
        op("test", "/a", [1, 2, 2]),
        op("test", "/a", [2, None, 2]),
        op("test", "/an", [None]),
        op("test", "/an", [1]),
        op("test", "/an", []),
        op("test", "/o", {"n": None, "k": 1}),
        op("test", "/o", {"k": 1}),
        op("test", "/o", {"n": 1, "k": 1}),
        op("test", "/o", {"n": None, "k": 2}),
        op("test", "/o", {"n": [None], "k": 1}),
        op("test", "/o", {"n": None, "k": [None]}),
        op("test", "/o/n", None),
        op("test", "/o/n/x", None),
        op("test", "/e", [None]),
        op("test", "/e", None),
        op("test", "/e", {}),
        op("remove", "/n"),
        op("remove", "/o/n"),
        op("remove", "/a/1"),
        op("replace", "/n", 1),
        op("replace", "/n"),
        op("replace", "/a/1"),
        op("add", "/x"),
        op("add", "/a/-"),
        op("add", "/n/x", 1),
        op("copy", "/c", from_="/n"),
        op("copy", "/c", from_="/missing"),
        op("copy", "/c", from_="/a/1"),
        op("copy", "/a/-", from_="/n"),
        op("move", "/c", from_="/n"),
        op("move", "/c", from_="/a/1"),
        op("test", "/o/n/k", None),
        op("replace", "/o/n/k", 1),
    ]
    for o in null_ops:
        yield Case(base, [o])
    follow_ups = [
        op("test", "/x", None),
        op("test", "/x"),
        op("add", "/x/y", 1),
        op("test", "/x/y", None),
        op("replace", "/x/0", 1),
        op("copy", "/z", from_="/x"),
        op("test", "/z", None),
    ]
    for first in (
        op("add", "/x", None),
        op("add", "/x"),
        op("replace", "/s", None),
        op("copy", "/x", from_="/n"),
    ):
        for then in follow_ups:
            yield Case(base, [first, then])
    yield Case(base, [op("add", "/s", None), op("add", "/s/y", 1)])
    yield Case(base, [op("add", "/x", None), op("test", "/x/0", None)])
    yield TEMPLATES_END

    while True:
        doc = docs.any_doc(rng)
        doc.setdefault("spec", {})["held"] = [rng.choice([None, 1, "a"]) for _ in range(rng.randint(1, 3))]
        path, v = docs.pick_node(rng, doc)
        mutated = v if rng.random() < 0.5 else docs.value(rng)
        kind = rng.choice(["test", "test", "copy", "remove", "replace"])
        value = spelled(rng, mutated) if rng.random() < 0.85 else MISSING
        ops = [op(kind, path, value) if kind != "copy" else op("copy", "/spec/copied", from_=path)]
        if rng.random() < 0.5:
            ops.append(op("test", "/spec/held", spelled(rng, doc["spec"]["held"], 0.7)))
        yield Case(doc, ops)
