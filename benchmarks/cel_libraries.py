"""Time per evaluation of one CRD rule in each Python CEL library on PyPI: the figures behind docs/cel.md.

The rule ``self.minReplicas <= self.maxReplicas`` on ``{"minReplicas": 1, "maxReplicas": 3}``, compiled once,
evaluated ``--evaluations`` times after a warm-up, in cel-expr-python (the C++ implementation), in
common-expression-language (a Rust implementation) and in cel-python (``celpy``, pure Python), each as its
documentation shows. A library that is not installed is reported as such.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from _common import print_footer, print_header, print_table

RULE = "self.minReplicas <= self.maxReplicas"
DATA = {"minReplicas": 1, "maxReplicas": 3}


def _cel_expr_python() -> Callable[[], Any]:
    from cel_expr_python import cel

    env = cel.NewEnv(variables={"self": cel.Type.Map(cel.Type.STRING, cel.Type.DYN)})
    program = env.compile(RULE)
    return lambda: program.eval(data={"self": DATA}).value()


def _common_expression_language() -> Callable[[], Any]:
    import cel

    program = cel.compile(RULE)
    return lambda: program.execute({"self": DATA})


def _cel_python() -> Callable[[], Any]:
    import celpy

    env = celpy.Environment()
    program = env.program(env.compile(RULE))
    return lambda: program.evaluate({"self": celpy.json_to_cel(DATA)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evaluations", type=int, default=20000, help="per library (default: %(default)s)")
    args = parser.parse_args()
    print_header("CEL libraries: one rule, time per evaluation", args)
    rows = []
    for name, build in (
        ("cel-expr-python", _cel_expr_python),
        ("common-expression-language", _common_expression_language),
        ("cel-python (celpy)", _cel_python),
    ):
        try:
            evaluate = build()
        except ImportError:
            rows.append((name, "not installed", ""))
            continue
        count = args.evaluations if name != "cel-python (celpy)" else max(args.evaluations // 20, 100)
        assert evaluate() is True or str(evaluate()) == "True"
        for _ in range(count // 10):
            evaluate()
        started = time.perf_counter()
        for _ in range(count):
            evaluate()
        elapsed = (time.perf_counter() - started) / count
        rows.append((name, f"{elapsed * 1e6:.1f} µs", str(count)))
    print_table(("library", "per evaluation", "evaluations"), rows, right=(1, 2))
    print_footer()


if __name__ == "__main__":
    main()
