"""Merge patch families (application/merge-patch+json, docs/merge-patch.md).

The apiserver pre-decodes the body strictly into a map (a non-object body is a 400; duplicate keys
are warnings), then evanphx MergePatch: null deletes a key, a key missing or null in the document
is set with nulls pruned from nested objects but kept inside arrays (v4.12.0), objects merge
recursively and everything else, arrays included, replaces wholesale. The output is Go-encoded, so
values in any spelling come out in Go's.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from . import docs, values
from .jsontext import Obj, Raw, spell_string
from .patches import TEMPLATES_END, Case, spelled


def nulls(rng: random.Random) -> Iterator[Case]:
    """null deletes, nested nulls, nulls in new objects (pruned) and in arrays (kept)."""
    doc = {"a": {"b": 1, "c": [1, 2], "n": None}, "d": "x", "n": None, "l": [1, None]}
    patches = [
        {"a": None},
        {"missing": None},
        {"n": None},
        {"a": {"b": None}},
        {"a": {"n": None}},
        {"a": {"zz": None}},
        {"a": {"b": None, "e": {"f": None, "g": 1}}, "d": None, "n": {"x": None, "y": [{"z": None}]}},
        {"new": {"x": None}},
        {"new": {"x": {"y": None}}},
        {"new": [None]},
        {"new": [1, None, {"k": None}]},
        {"new": {"l": [None, {"k": None, "j": 1}]}},
        {"n": {"x": None, "y": 1}},
        {"n": [None]},
        {"l": [None]},
        {"l": None},
        {"a": {"c": None}},
        {"a": {"c": [None]}},
        {"a": [None]},
        {"d": {"x": None}},
        {"d": [None, {"x": None}]},
        {"a": {"b": {"x": None}}},
        {"a": {"b": [None]}},
        {"": None},
        {"": {"": None}},
        {"metadata": None},
        {"a": {}},
        {"new": {}},
        {"new": {"x": {}}},
    ]
    for p in patches:
        yield Case(doc, p)
    yield TEMPLATES_END

    while True:
        d = docs.any_doc(rng)
        path, _ = docs.pick_node(rng, d)
        yield Case(
            d,
            _nest(path, rng.choice([None, {"x": None}, [None], {"x": [None, {"y": None}]}, docs.value(rng)])),
        )


def _nest(path: str, leaf: Any) -> dict[str, Any]:
    """A merge patch that reaches `path` through objects (array indices become keys)."""
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in path.split("/")[1:]]
    patch: Any = leaf
    for token in reversed(tokens):
        patch = {token: patch}
    return patch if isinstance(patch, dict) else {"v": patch}


def arrays(rng: random.Random) -> Iterator[Case]:
    """Arrays replace wholesale; objects and arrays replace each other."""
    doc = {"l": [1, 2, {"k": 1}], "o": {"k": [1]}, "s": "x", "e": []}
    patches = [
        {"l": []},
        {"l": [3]},
        {"l": {"0": 9}},
        {"o": [1]},
        {"o": {"k": []}},
        {"o": {"k": {"0": 1}}},
        {"s": [1]},
        {"s": {"a": None}},
        {"e": [None, None]},
        {"e": {}},
        {"l": [{"k": None}]},
        {"l": [[None]]},
        {"o": {"k": [{"a": None}]}},
        {"new": [[1, None], {"a": None}]},
    ]
    for p in patches:
        yield Case(doc, p)
    yield TEMPLATES_END

    while True:
        d = docs.any_doc(rng)
        path, _ = docs.pick_node(rng, d)
        yield Case(d, _nest(path, [docs.value(rng) for _ in range(rng.randint(0, 3))]))


def spellings(rng: random.Random) -> Iterator[Case]:
    """Patch values in every spelling (escapes, non-ASCII, numbers) come out in Go's spelling."""
    doc = {"spec": {"s": "a<b", "n": 1}}
    for s in values.STRINGS:
        for mode in ("go", "ascii", "raw", "upper", "allu", "slash"):
            yield Case(doc, Obj([("spec", Obj([("s", Raw(spell_string(s, mode)))]))]))
        yield Case(doc, Obj([(s, 1)]))
    for raw in values.raw_strings() + values.raw_numbers():
        yield Case(doc, Obj([("spec", Obj([("n", raw)]))]))
        yield Case(doc, Obj([("v", Obj([("x", Raw(b"[" + raw.text + b"]"))]))]))
    yield TEMPLATES_END

    while True:
        d = docs.any_doc(rng)
        path, v = docs.pick_node(rng, d)
        leaf = rng.choice([spelled(rng, v, 0.2), rng.choice(values.raw_strings()), rng.choice(values.raw_numbers())])
        yield Case(d, _raw_nest(path, leaf))


def _raw_nest(path: str, leaf: Raw) -> Obj:
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in path.split("/")[1:]]
    patch: Any = leaf
    for token in reversed(tokens):
        patch = Obj([(token, patch)])
    return patch if isinstance(patch, Obj) else Obj([("v", patch)])


def shapes(rng: random.Random) -> Iterator[Case]:
    """Non-object bodies, null, duplicate keys, malformed JSON."""
    doc = {"a": 1, "o": {"k": 1}}
    bodies = [
        b"",
        b" ",
        b"null",
        b"{}",
        b"[]",
        b"[1,null]",
        b"[{}]",
        b'"str"',
        b"1",
        b"true",
        b"false",
        b"{",
        b'{"a":}',
        b'{"a":1,}',
        b'{"a":1} {"b":2}',
        b'{"a":1}x',
        b"{'a':1}",
        b'{"a":NaN}',
        b'{"a":01}',
        b'{"a":1e400}',
        b'{"a":"\xff"}',
        b'{"\xff":1}',
        b'{"a":"\\ud800"}',
        b"\xef\xbb\xbf{}",
        b'{"a":1,"a":2}',
        b'{"a":null,"a":2}',
        b'{"a":2,"a":null}',
        b'{"o":{"k":2,"k":null}}',
        b'{"o":{"k":null},"o":{"j":1}}',
        b'{"A":5}',
        b'{"o":{"K":5}}',
        b' {\n"a" : 2\n} ',
        b'{"a":' + b"[" * 10000 + b"]" * 10000 + b"}",
        b'{"a":' + b"[" * 9999 + b"]" * 9999 + b"}",
        b'{"a":' + b'{"a":' * 9998 + b"1" + b"}" * 9999,
    ]
    for body in bodies:
        yield Case(doc, body)
    yield TEMPLATES_END

    while True:
        d = docs.any_doc(rng)
        key = rng.choice(list(d))
        dup = Obj([(key, docs.value(rng)), (key, rng.choice([None, docs.value(rng)]))])
        yield Case(d, rng.choice([dup, Obj([("metadata", dup)]), docs.value(rng)]))


def metadata(rng: random.Random) -> Iterator[Case]:
    """Merges operators send: labels, annotations, finalizers, status, resourceVersion."""
    yield TEMPLATES_END

    while True:
        d = docs.custom_resource(rng)
        meta = d["metadata"]
        patch = rng.choice(
            [
                {"metadata": {"labels": {"app": None, "new": "v<1>"}}},
                {"metadata": {"annotations": {docs.KOPF_LAST_HANDLED: '{"spec":{"command":"a > b"}}'}}},
                {"metadata": {"annotations": None}},
                {"metadata": {"finalizers": None}},
                {"metadata": {"finalizers": [*meta.get("finalizers", []), "example.com/x"]}},
                {"metadata": {"finalizers": []}},
                {"metadata": {"resourceVersion": meta["resourceVersion"]}},
                {"metadata": {"resourceVersion": None}},
                {"metadata": {"resourceVersion": int(meta["resourceVersion"])}},
                {"status": {"phase": "Succeeded", "conditions": None}},
                {"status": None},
                {"spec": {"replicas": 2.0, "command": None}},
                {"metadata": {"managedFields": None}},
                {"metadata": {"uid": None, "generation": 7}},
            ]
        )
        yield Case(d, patch)


def random_mix(rng: random.Random) -> Iterator[Case]:
    yield TEMPLATES_END

    while True:
        d = docs.any_doc(rng)
        patch: dict[str, Any] = {}
        for _ in range(rng.randint(1, 4)):
            path, _ = docs.pick_node(rng, d)
            leaf = rng.choice([None, docs.value(rng), docs.value(rng, 2), {}])
            _merge_into(patch, _nest(path, leaf))
        yield Case(d, patch)


def _merge_into(target: dict[str, Any], extra: dict[str, Any]) -> None:
    for k, v in extra.items():
        if isinstance(target.get(k), dict) and isinstance(v, dict):
            _merge_into(target[k], v)
        else:
            target[k] = v
