"""The counted actual cost of an evaluation against cel-go v0.22's own figures (``interpreter/runtimecost_test.go``
``TestRuntimeCost``, the cases whose inputs are plain values; run there without ``OptOptimize``), and the
cases where the Kubernetes planning (``OptOptimize``) counts less (docs/cel.md, "Runtime cost")."""

from __future__ import annotations

from typing import Any

import pytest
from cel_expr_python import cel

from fakeapi._cel.runtime_costs import actual_cost
from fakeapi._cel.syntax_tree import read_checked

T = cel.Type
LONG = "ab0" * 166 + "ab"  # 500 characters
STRING_MAP = T.Map(T.STRING, T.STRING)
NESTED_MAP = T.Map(T.STRING, T.Map(T.STRING, T.STRING))

CEL_GO_CASES: list[tuple[str, dict[str, Any], dict[str, Any], int]] = [
    ('"Hello World!"', {}, {}, 0),
    ("input", {"input": T.List(T.INT)}, {"input": [1, 2]}, 1),
    ("input['key']", {"input": STRING_MAP}, {"input": {"key": "v"}}, 2),
    ("input[0]", {"input": T.List(T.STRING)}, {"input": ["v"]}, 2),
    ("input['ke' + 'y']", {"input": STRING_MAP}, {"input": {"key": "v"}}, 3),
    ("input[3-3]", {"input": T.List(T.STRING)}, {"input": ["v"]}, 3),
    ("has(input.testAttr.nestedAttr)", {"input": NESTED_MAP}, {"input": {"testAttr": {"nestedAttr": "0"}}}, 2),
    ("[1, 2, 3]", {}, {}, 10),
    ('{"a": 1, "b": 2, "c": 3}', {}, {}, 30),
    ("[1, 2, 3].all(x, true)", {}, {}, 20),
    ("input.matches('[0-9]')", {"input": T.STRING}, {"input": LONG}, 103),
    ("'123'.matches('[0-9]')", {}, {}, 2),
    ("false || false", {}, {}, 0),
    ("true && false", {}, {}, 0),
    ("1 < 2", {}, {}, 1),
    ("1 == 2", {}, {}, 1),
    ("2 in [1, 2, 3]", {}, {}, 13),
    ("1 + 1", {}, {}, 1),
    ("true ? 1 : 2", {}, {}, 0),
    ('size("123")', {}, {}, 1),
    ("'12345678901234567890' == '123456789012345678901234567890'", {}, {}, 2),
    ("string(input)", {"input": T.BYTES}, {"input": LONG.encode()}, 51),
    ("bytes(input)", {"input": T.STRING}, {"input": LONG}, 51),
    ("string(1)", {}, {}, 1),
    ("input.contains(arg1)", {"input": T.STRING, "arg1": T.STRING}, {"input": LONG, "arg1": LONG}, 2502),
    ("input.matches('\\\\d+a\\\\d+b')", {"input": T.STRING}, {"input": LONG}, 103),
    ("input.startsWith(arg1)", {"input": T.STRING, "arg1": T.STRING}, {"input": "idc", "arg1": LONG}, 3),
    ("input.endsWith(arg1)", {"input": T.STRING, "arg1": T.STRING}, {"input": "idc", "arg1": LONG}, 3),
    ("input.size()", {"input": T.STRING}, {"input": "500"}, 2),
    ("size(input)", {"input": T.STRING}, {"input": "500"}, 2),
    (
        "(x > 2 ? input1 : input2).all(y, true)",
        {"x": T.INT, "input1": T.List(T.INT), "input2": T.List(T.INT)},
        {"x": 1, "input1": [1], "input2": [1]},
        6,
    ),
    ("true ? false : 1 > 3", {}, {}, 0),
    ("false ? false : 1 > 3", {}, {}, 1),
    ("input.all(k, input[k].all(x, true))", {"input": NESTED_MAP}, {"input": {}}, 2),
    ("input.all(k, k.contains(k))", {"input": NESTED_MAP}, {"input": {}}, 2),
    (
        "(list1 + list2).all(x, true)",
        {"list1": T.List(T.INT), "list2": T.List(T.INT)},
        {"list1": [], "list2": []},
        4,
    ),
    (
        '"abcdefg".contains(str1 + str2)',
        {"str1": T.STRING, "str2": T.STRING},
        {"str1": "val1", "str2": "val2222222"},
        6,
    ),
    ("(1 > 2 ? 5 : 3) > 1", {}, {}, 2),
    ("(1 > 2 || 2 > 1) == true", {}, {}, 3),
]


def _cost(expression: str, declared: dict[str, Any], values: dict[str, Any], limit: int, optimized: bool) -> int:
    env = cel.NewEnv(variables=declared)
    tree = read_checked(env.compile(expression).serialize())
    return actual_cost(tree, values, limit, optimized=optimized)


@pytest.mark.parametrize(("expression", "declared", "values", "want"), CEL_GO_CASES, ids=[c[0] for c in CEL_GO_CASES])
def test_cel_go_figures(expression: str, declared: dict[str, Any], values: dict[str, Any], want: int) -> None:
    assert _cost(expression, declared, values, 1 << 40, optimized=False) == want


def test_the_walk_stops_just_past_the_limit() -> None:
    # cel-go's "at limit" and "above limit": a cost of 6 is within a limit of 6; with 5 the tracker stops at the
    # first node past it, the contains call (4 before it, 6 after).
    declared = {"str1": T.STRING, "str2": T.STRING}
    values = {"str1": "val1", "str2": "val2222222"}
    assert _cost('"abcdefg".contains(str1 + str2)', declared, values, 6, optimized=False) == 6
    assert _cost('"abcdefg".contains(str1 + str2)', declared, values, 5, optimized=False) == 6


@pytest.mark.parametrize(
    ("expression", "want"),
    [
        # Literal lists and maps are constants: the comprehension alone, 3 per element and 1 for the result.
        ("[1, 2, 3].all(x, true)", 10),
        ('{"a": 1}.size() == 1', 2),
        # A set membership test: ``x`` only (a constant here).
        ("2 in [1, 2, 3]", 0),
        # A conversion of a literal is a constant too; of a variable, a call.
        ("int('12') + x", 2),
    ],
)
def test_kubernetes_planning_folds_constants(expression: str, want: int) -> None:
    assert _cost(expression, {"x": T.INT}, {"x": 1}, 1 << 40, optimized=True) == want
