"""JSON patch families shaped like what operators send: claims, move/copy, long and random patches.

Claims are `test` ops used as preconditions (DESIGN.md): the uid + resourceVersion pattern, and the
fragile ones that test a whole map (kopf's last-handled-configuration annotation, the spec, the
annotations, the whole document via path ""), sent in the spellings of Go, Python and orjson
clients (docs/json-encoding.md). Long patches probe the 10000-operation limit and the 3 MiB copy
limit; the random family mixes every ingredient on realistic custom resources.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

from . import docs, values
from .jsontext import STYLES, Obj, Raw, dump, pointer
from .patches import MISSING, TEMPLATES_END, Case, op, spelled, spellings

KOPF_PATH = pointer("metadata", "annotations", docs.KOPF_LAST_HANDLED)


def _shuffled(rng: random.Random, v: Any) -> Any:
    """The same object with members in another order (json-patch compares keys after decoding)."""
    if isinstance(v, dict):
        items = [(k, _shuffled(rng, x)) for k, x in v.items()]
        rng.shuffle(items)
        return Obj(items)
    if isinstance(v, list):
        return [_shuffled(rng, x) for x in v]
    return v


def _writes(rng: random.Random, doc: dict[str, Any]) -> list[dict[str, Any]]:
    return rng.choice(
        [
            [op("replace", "/status", {"phase": "Succeeded"})],
            [op("add", "/status/phase", "Succeeded")],
            [op("add", "/metadata/annotations", {"done": "true"})],
            [op("add", "/metadata/finalizers/-", "example.com/cleanup")],
            [op("remove", "/metadata/finalizers/0")],
            [op("replace", "/spec/replicas", 2)],
            [op("add", KOPF_PATH, dump({"spec": doc.get("spec")}, "pyc").decode("utf-8", "surrogatepass"))],
            [],
        ]
    )


def claims(rng: random.Random) -> Iterator[Case]:
    """test-as-precondition patches against whole maps and identity fields."""
    yield TEMPLATES_END

    while True:
        doc = docs.custom_resource(rng, rng.choice(["small", "small", "medium"]))
        meta = doc["metadata"]
        target = rng.choice(["uid-rv", "kopf", "spec", "annotations", "metadata", "status", "whole", "labels"])
        ops: list[Any] = []
        if target == "uid-rv":
            rv = meta["resourceVersion"]
            rv_value = rng.choice([rv, rv, int(rv), str(int(rv) - 1), Raw(f'"{rv}"'), Raw(f" {int(rv)} ")])
            ops = [
                op("test", "/metadata/uid", meta["uid"]),
                op("test", "/metadata/resourceVersion", rv_value),
            ]
        elif target == "kopf":
            annotation = meta.get("annotations", {}).get(docs.KOPF_LAST_HANDLED)
            if annotation is None:
                annotation = dump({"spec": doc["spec"]}, "py").decode("utf-8", "surrogatepass")
            path = rng.choice([KOPF_PATH, KOPF_PATH, "/metadata/annotations/" + docs.KOPF_LAST_HANDLED])
            ops = [op("test", path, spelled(rng, annotation, 0.3))]
        elif target == "whole":
            ops = [op("test", "", _test_value(rng, doc))]
        elif target in doc:
            ops = [op("test", "/" + target, _test_value(rng, doc[target]))]
        elif target in meta:
            ops = [op("test", pointer("metadata", target), _test_value(rng, meta[target]))]
        else:
            ops = [op("test", pointer("metadata", target), rng.choice([None, {}, MISSING]))]
        if rng.random() < 0.3:
            ops.insert(0, op("test", "/metadata/uid", meta["uid"]))
        yield Case(doc, ops + _writes(rng, doc))


def _test_value(rng: random.Random, v: Any) -> Any:
    pick = rng.random()
    if pick < 0.35:
        return spellings(v)[0]
    if pick < 0.5:
        return Raw(dump(_shuffled(rng, v), "go"))
    if pick < 0.8:
        return Raw(dump(v, rng.choice(STYLES)))
    mutated = copy.deepcopy(v)
    if isinstance(mutated, dict) and mutated:
        key = rng.choice(list(mutated))
        mutated[key] = rng.choice([None, "changed", mutated[key], [None]])
    return mutated


def move_copy(rng: random.Random) -> Iterator[Case]:
    """move into its own child, onto itself, copy of null and of added values, then test."""
    doc = {"spec": {"a": {"b": {"c": 1}}, "l": [1, {"x": "a<b"}, None], "n": None, "s": "é<"}, "status": {}}
    pairs = [
        ("/spec/a", "/spec/a/b/d"),
        ("/spec/a", "/spec/a"),
        ("/spec/a/b", "/spec/a"),
        ("/spec/a", "/spec/a/x"),
        ("/spec", "/spec/x"),
        ("/spec/l/0", "/spec/l/-"),
        ("/spec/l/0", "/spec/l/2"),
        ("/spec/l/-1", "/spec/l/0"),
        ("/spec/l/2", "/spec/l/3"),
        ("/spec/l/3", "/spec/m"),
        ("/spec/n", "/spec/m"),
        ("/spec/missing", "/spec/m"),
        ("/spec/l", "/spec/l/0"),
        ("/spec/l/1", "/spec/l/1/y"),
        ("/spec/s", "/status/s"),
        ("", "/spec/m"),
        ("/spec/a", ""),
        ("/spec/a/b/c", "/spec/a/b/c/d"),
        ("/status", "/spec/a/b"),
        ("/nope/x", "/spec/m"),
        ("/spec/l/9", "/spec/m"),
        ("/spec/l/-", "/spec/m"),
        ("/spec/a", "/spec/l/-"),
        ("/spec/a", "/spec/l/9"),
    ]
    for src, dst in pairs:
        for kind in ("move", "copy"):
            yield Case(doc, [op(kind, dst, from_=src)])
            yield Case(doc, [op(kind, dst, from_=src), op("test", dst, spellings(_get(doc, src))[0])])
    added = [
        {"k": "a<b", "n": 1.0},
        Raw(b'{ "k" : "a<b" , "n" : 1.0 }'),
        Raw(b'"x&y"'),
        Raw(b"[1, null]"),
        None,
        Raw(b'"caf\\u00e9"'),
        Raw(b"1e3"),
    ]
    for v in added:
        for kind in ("copy", "move"):
            text = v if isinstance(v, Raw) else Raw(dump(v, "utf8"))
            yield Case(
                doc,
                [op("add", "/spec/v", v), op(kind, "/spec/w", from_="/spec/v"), op("test", "/spec/w", text)],
            )
            yield Case(
                doc,
                [
                    op("add", "/spec/v", v),
                    op(kind, "/spec/w", from_="/spec/v"),
                    op("test", "/spec/w", spellings(v)[0] if not isinstance(v, Raw) else Raw(b"null")),
                ],
            )
            yield Case(
                doc,
                [
                    op("add", "/spec/v", v),
                    op(kind, "/spec/l/-", from_="/spec/v"),
                    op("test", "/spec/l", text),
                ],
            )
    yield TEMPLATES_END

    while True:
        d = docs.any_doc(rng)
        src, v = docs.pick_node(rng, d)
        dst, _ = docs.pick_node(rng, d)
        dst = rng.choice([dst, dst + "/new", src + "/child", "/spec/moved", dst.rsplit("/", 1)[0] + "/-"])
        kind = rng.choice(["move", "copy"])
        ops = [op(kind, dst, from_=src)]
        if rng.random() < 0.6:
            ops.append(op("test", dst, spelled(rng, v, 0.6)))
        yield Case(d, ops)


def _get(doc: Any, path: str) -> Any:
    node = doc
    for token in path.split("/")[1:]:
        try:
            node = node[int(token)] if isinstance(node, list) else node[token]
        except (KeyError, IndexError, ValueError, TypeError):
            return None
    return node


def long(rng: random.Random) -> Iterator[Case]:
    """Patches of 1,000+ operations, exactly 10000 and 10001, and the accumulated copy limit."""
    doc = {"spec": {"items": [], "n": 0}, "metadata": {"name": "x", "resourceVersion": "5"}}
    yield Case(doc, [op("add", "/spec/items/-", i) for i in range(1000)])
    yield Case(doc, [op("test", "/metadata/resourceVersion", "5")] * 1200 + [op("replace", "/spec/n", 1)])
    yield Case(
        doc,
        [op("add", f"/spec/k{i}", {"v": i, "s": "a<b"}) for i in range(1500)] + [op("test", "/spec/k1499/s", "a<b")],
    )
    yield Case(doc, [op("add", "/spec/items/0", i) for i in range(2000)] + [op("test", "/spec/items/-1", 0)])
    yield Case(doc, [op("replace", "/spec/n", i) for i in range(10000)])
    yield Case(doc, [op("replace", "/spec/n", i) for i in range(10001)])
    yield Case(doc, [op("test", "/spec/n", 0)] * 10001 + [op("bogus", "/x")])
    # Copies count toward the 3 MiB limit even when removed again; each "<" re-encodes to 6 bytes.
    for text, copies in (("x" * 100000, 31), ("x" * 100000, 32), ("<" * 40000, 13), ("<" * 40000, 14)):
        churn = [op("copy", "/spec/c", from_="/spec/blob"), op("remove", "/spec/c")] * copies
        yield Case({"spec": {"blob": text}}, churn)
    yield TEMPLATES_END

    while True:
        d = docs.custom_resource(rng)
        ops = [op("add", f"/spec/k{i}", docs.scalar(rng)) for i in range(rng.randint(1000, 1200))]
        ops.append(op("test", "/spec/k0", ops[0]["value"]))
        yield Case(d, ops)


def random_mix(rng: random.Random) -> Iterator[Case]:
    """Seeded random patches of 1-6 operations mixing every ingredient on realistic documents."""
    yield TEMPLATES_END

    while True:
        doc = docs.any_doc(rng)
        ops = [_random_op(rng, doc) for _ in range(rng.randint(1, 6))]
        yield Case(doc, ops)


def _random_path(rng: random.Random, doc: dict[str, Any]) -> str:
    pick = rng.random()
    path, _ = docs.pick_node(rng, doc)
    if pick < 0.75:
        return path
    if pick < 0.85:
        return path.rsplit("/", 1)[0] + "/" + rng.choice(values.KEYS + values.INDEX_TOKENS).replace("~", "~0")
    if pick < 0.92:
        return path + "/" + rng.choice(["x", "0", "-", "-1"])
    return rng.choice(["", "/", "/nope/x", "x/spec", "/metadata/annotations/" + docs.KOPF_LAST_HANDLED, KOPF_PATH])


def _random_op(rng: random.Random, doc: dict[str, Any]) -> Any:
    kind = rng.choices(["test", "add", "replace", "remove", "move", "copy", "odd"], [30, 20, 15, 10, 8, 8, 3])[0]
    path = _random_path(rng, doc)
    current = _get(doc, path) if path else doc
    if kind == "test":
        return op("test", path, spelled(rng, current, 0.5) if rng.random() < 0.8 else docs.value(rng))
    if kind in ("add", "replace"):
        v = rng.choice(
            [
                docs.value(rng),
                rng.choice(values.raw_strings(rng.random() < 0.9)),
                rng.choice(values.raw_numbers(rng.random() < 0.9)),
                spelled(rng, docs.value(rng)),
            ]
        )
        return op(kind, path, v if rng.random() < 0.95 else MISSING)
    if kind == "remove":
        return op("remove", path)
    if kind in ("move", "copy"):
        return op(kind, _random_path(rng, doc), from_=path)
    return rng.choice(
        [
            op("increment", path, 1),
            op(None, path),
            Obj([("op", "add"), ("path", path), ("Value", 1)]),
            Obj([("op", "test"), ("path", path), ("value", 1), ("value", spelled(rng, current))]),
        ]
    )
