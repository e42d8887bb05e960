"""Writes tests/data/cel/corpus.json: CEL rule cases recorded from upstream's own test tables.

Usage: ``python3 tools/celcorpus/extract.py APIEXTENSIONS_GIT APISERVER_GIT [--out FILE]``, each argument a
git directory of kubernetes/apiextensions-apiserver and kubernetes/apiserver; the files are read at the
tags named below with ``git show``.

Sources:

- apiextensions-apiserver ``pkg/apiserver/schema/cel/validation_test.go`` ``TestValidationExpressions``:
  every rule of ``valid`` is admitted on ``obj`` (with ``oldObj``) under ``schema`` with the rule at its
  root; every rule of ``errors`` gives field errors, all ``Invalid``, each containing the recorded text; where
  the row records ``expectedCost``, the budget its rules used up.
- apiserver ``pkg/cel/library/cost_test.go`` ``TestStringLibrary``, ``TestQuantityCost``, ``TestSetsCost``:
  an expression's estimated cost (min and max) and its actual cost (``expectRuntimeCost``).
- apiserver ``pkg/cel/library/{quantity,ip,cidr}_test.go``: an expression with ``expectValue`` true or false
  (or a value, compared with ``==``) is a rule admitted or failing; ``expectedRuntimeErr`` an evaluation
  error matching the recorded pattern; ``expectedCompileErr`` a compile error matching every pattern.

A case the table reader cannot evaluate (:mod:`gotables`) is left out and counted, with its reason, in the
file's ``left_out``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gotables import Schema, Unsupported, parse_table

APIEXTENSIONS = ("k8s.io/apiextensions-apiserver", "v0.32.9")
APISERVER = ("k8s.io/apiserver", "v0.32.9")


def _show(git_dir: str, tag: str, path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"{tag}:{path}"], check=True, capture_output=True, text=True
    ).stdout


def _table(source: str, function: str) -> str:
    """The composite literal of the ``tests``/``cases`` table in ``function``."""
    start = source.index(f"func {function}(")
    declaration = source.index("[]struct {", start)
    depth = 0
    position = source.index("{", declaration)
    for index in range(position, len(source)):
        depth += source[index] == "{"
        depth -= source[index] == "}"
        if depth == 0:
            table_start = source.index("{", index + 1)
            break
    depth = 0
    for index in range(table_start, len(source)):
        depth += source[index] == "{"
        depth -= source[index] == "}"
        if depth == 0:
            return source[table_start : index + 1]
    raise ValueError(f"no table in {function}")


def _expressions_cases(git_dir: str) -> tuple[list[dict[str, Any]], list[str]]:
    module, tag = APIEXTENSIONS
    path = "pkg/apiserver/schema/cel/validation_test.go"
    source = _show(git_dir, tag, path)
    cases: list[dict[str, Any]] = []
    left_out: list[str] = []
    for fields, reason in parse_table(_table(source, "TestValidationExpressions")):
        if fields is None:
            left_out.append(f"{path} TestValidationExpressions: {reason}")
            continue
        name = fields.get("name", "")
        origin = f"{module}@{tag} {path} TestValidationExpressions/{name}"
        if fields.get("oldSchema") is not None or fields.get("costBudget"):
            left_out.append(f"{origin}: a budget or an old schema of its own")
            continue
        schema = fields.get("schema")
        if not isinstance(schema, Schema):
            left_out.append(f"{origin}: no schema")
            continue
        common = {
            "schema": schema.body,
            "object": fields.get("obj"),
            "oldObject": fields.get("oldObj"),
        }
        for rule in fields.get("valid") or []:
            expect: Any = "admitted"
            if fields.get("expectedCost"):
                # The budget the rules used up: their actual cost.
                expect = {"admitted": True, "runtimeCost": fields["expectedCost"]}
            cases.append(
                {"source": origin, "rule": rule, "root": bool(fields.get("isRoot")), **common, "expect": expect}
            )
        for rule, text in (fields.get("errors") or {}).items():
            cases.append({"source": origin, "rule": rule, "root": True, **common, "expect": {"errorContains": text}})
    return cases, left_out


def _cost_cases(git_dir: str) -> tuple[list[dict[str, Any]], list[str]]:
    """``TestCostEstimation``: each schema generator's rule, its estimated cost without and with limits."""
    from costgen import GENERATORS

    module, tag = APIEXTENSIONS
    path = "pkg/apiserver/schema/cel/compilation_test.go"
    source = _show(git_dir, tag, path)
    cases: list[dict[str, Any]] = []
    left_out: list[str] = []
    variables = {**GENERATORS, "costLimit": 100000000}
    for fields, reason in parse_table(_table(source, "TestCostEstimation"), variables):
        if fields is None:
            left_out.append(f"{path} TestCostEstimation: {reason}")
            continue
        origin = f"{module}@{tag} {path} TestCostEstimation/{fields.get('name', '')}"
        generate = fields["schemaGenerator"]
        for limit, cost, exceeds in (
            (None, fields.get("expectedCalcCost"), fields.get("expectCalcCostExceedsLimit")),
            (fields.get("setMaxElements"), fields.get("expectedSetCost"), fields.get("expectedSetCostExceedsLimit")),
        ):
            schema = generate(limit).body
            cases.append(
                {
                    "source": origin + (" (limits set)" if limit is not None else ""),
                    "rule": schema["x-kubernetes-validations"][0]["rule"],
                    "schema": schema,
                    "expect": {"cost": cost or 0, "costAtLeast": exceeds or 0},
                }
            )
    return cases, left_out


_VALUES = {"trueVal": True, "falseVal": False, "types.True": True, "types.False": False, "int4": 4, "int6": 6}


def _field(fields: dict[str, Any], *names: str) -> Any:
    """The tables of the library tests name their columns differently, file by file."""
    for name in names:
        if fields.get(name) is not None:
            return fields[name]
    return None


def _library_cases(git_dir: str, library: str, function: str) -> tuple[list[dict[str, Any]], list[str]]:
    module, tag = APISERVER
    path = f"pkg/cel/library/{library}_test.go"
    source = _show(git_dir, tag, path)
    variables: dict[str, Any] = dict(_VALUES)
    cases: list[dict[str, Any]] = []
    left_out: list[str] = []
    for fields, reason in parse_table(_table(source, function), variables):
        if fields is None:
            left_out.append(f"{path} {function}: {reason}")
            continue
        origin = f"{module}@{tag} {path} {function}/{fields.get('name', '')}"
        expression = fields.get("expr")
        compile_errors = _field(fields, "expectedCompileErr", "expectCompileErrs")
        runtime_error = _field(fields, "expectedRuntimeErr", "expectRuntimeErr")
        value = _field(fields, "expectValue", "expectResult")
        expect: Any
        if compile_errors:
            expect = {"compileErrorsMatch": compile_errors}
            rule = expression
        elif runtime_error:
            # quantity_test matches the error with a pattern, ip_test and cidr_test compare it whole.
            expect = {"errorMatches": runtime_error} if library == "quantity" else {"errorEquals": runtime_error}
            # The expression is not a bool: compared with itself, its evaluation error is the rule's.
            rule = f"({expression}) == ({expression})"
        elif isinstance(value, bool):
            rule = expression
            expect = "admitted" if value else "failed"
        elif isinstance(value, (int, float, str)):
            rule = f"({expression}) == {json.dumps(value)}"
            expect = "admitted"
        else:
            left_out.append(f"{origin}: expected value of a library type is compared by Go's Equal only")
            continue
        cases.append(
            {
                "source": origin,
                "rule": rule,
                "root": False,
                "schema": {"type": "object"},
                "object": {},
                "oldObject": None,
                "expect": expect,
            }
        )
    return cases, left_out


def _library_cost_cases(git_dir: str) -> tuple[list[dict[str, Any]], list[str]]:
    """``TestStringLibrary``, ``TestQuantityCost``, ``TestSetsCost`` of ``cost_test.go``: each expression's
    estimated cost (min and max), strings and bytes of unknown size taken as 0..12 as its estimator does."""
    module, tag = APISERVER
    path = "pkg/cel/library/cost_test.go"
    source = _show(git_dir, tag, path)
    cases: list[dict[str, Any]] = []
    left_out: list[str] = []
    for function in ("TestStringLibrary", "TestQuantityCost", "TestSetsCost"):
        for fields, reason in parse_table(_table(source, function)):
            if fields is None:
                left_out.append(f"{path} {function}: {reason}")
                continue
            estimate = _field(fields, "expectEsimatedCost", "expectEstimatedCost")
            expect: dict[str, Any] = {"estimatedCost": [estimate["min"], estimate["max"]]}
            runtime = fields.get("expectRuntimeCost")
            if isinstance(runtime, int):
                expect["runtimeCost"] = runtime
            cases.append(
                {
                    "source": f"{module}@{tag} {path} {function}/{fields.get('name', '')}",
                    "rule": fields["expr"],
                    "expect": expect,
                }
            )
    return cases, left_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("apiextensions_git")
    parser.add_argument("apiserver_git")
    parser.add_argument("--out", default="tests/data/cel/corpus.json")
    args = parser.parse_args()
    cases, left_out = _expressions_cases(args.apiextensions_git)
    costs, skipped = _cost_cases(args.apiextensions_git)
    cases += costs
    left_out += skipped
    costs, skipped = _library_cost_cases(args.apiserver_git)
    cases += costs
    left_out += skipped
    for library, function in (("quantity", "TestQuantity"), ("ip", "TestIP"), ("cidr", "TestCIDR")):
        try:
            more, skipped = _library_cases(args.apiserver_git, library, function)
        except (Unsupported, ValueError) as error:
            left_out.append(f"pkg/cel/library/{library}_test.go: {error}")
            continue
        cases += more
        left_out += skipped
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    # One case per line: diffs stay readable and the file small.
    lines = ",\n".join(json.dumps(case, ensure_ascii=False, separators=(",", ":")) for case in cases)
    skipped_lines = ",\n".join(json.dumps(reason, ensure_ascii=False) for reason in left_out)
    Path(args.out).write_text(f'{{"cases": [\n{lines}\n], "left_out": [\n{skipped_lines}\n]}}\n')
    print(f"{len(cases)} cases, {len(left_out)} left out -> {args.out}")


if __name__ == "__main__":
    main()
