"""``python -m scenarios``: list the built-in scenarios, run one (or a user's own, as
``module:attribute``), replay a schedule, merge the shards of a split search.

Exit status: 0 when the claim holds (every schedule of a complete search), 1 when a violation is
found (the report is printed), 2 on bad usage (unknown scenario, variant, fault, a schedule id that
is malformed or belongs to another scenario or engine version), 3 when the verdict is unknown (a
random sample without a violation, unless --accept-sample; the search stopped at --max-runs; only
one --shard was explored; a replayed schedule that no longer violates; a check never put to the test;
an operator process without the engine's agent, ``--foreign``, whose violation no replay reproduced
or which showed none).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import json
import os
import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from scenarios._engine import EngineStuck
from scenarios._exploration import Exploration, Settings
from scenarios._exploring import explore_async
from scenarios._faults import USER_FAULTS
from scenarios._hostile import NUMBER_SPELLINGS, STRING_SPELLINGS, mutate, parse_mutation, plain_objects
from scenarios._ids import parse_replay_id
from scenarios._merging import merge_summaries, read_summary, summary_of
from scenarios._model import Scenario
from scenarios._operators import Operator
from scenarios._running import interchangeable_groups
from scenarios._schedules import REDUCTIONS, NondeterminismError, ScheduleError, Shard
from scenarios.builtin import BUILTINS, builtin_scenario

__all__ = ["main"]

EPILOG = """\
examples:
  python -m scenarios list
  python -m scenarios run completion-claim --variant resource-version --exhaustive
  python -m scenarios run completion-claim --variant unconditional --schedules 200 --seed 7 --report out.md
  python -m scenarios run lost-response --variant trust-response --replay s01:2:9c41d0:5e2a
  python -m scenarios run completion-claim --variant whole-annotations --hostile
  python -m scenarios run tests.claims:COMPLETION --exhaustive       # a Scenario in your own module
  python -m scenarios run tests.claims:build --variant fixed         # a function(variant) -> Scenario
  python -m scenarios run tests.claims:COMPLETION --schedules 500 --accept-sample   # CI: a sample, accepted
  python -m scenarios run NAME --exhaustive --shard 1/2 --summary s1.json   # one part of a split search
  python -m scenarios merge s1.json s2.json                                  # the verdict of all parts
  python -m scenarios run tests.claims:JOBS --operator "handlers.py --standalone -A" --replicas 2 --schedules 50
  python -m scenarios run tests.claims:JOBS --operator "node controller.js" --foreign --replicas 2 --schedules 20

exit status: 0 the claim holds (a complete search found no violation), or a sample without a violation
was accepted with --accept-sample; 1 a violation was found; 2 bad usage; 3 unknown (a random sample,
stopped at --max-runs, one --shard only, a replay that no longer violates, a check never put to the
test, or a --foreign operator without a reproduced violation). A split search holds when `merge` of every shard's --summary says so.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scenarios",
        description="Run operator ticks concurrently against fakeapi under controlled interleavings and faults, "
        "and prove, or refute with a replayable counterexample, that a claim happens exactly once.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("list", help="list the built-in scenarios, their variants and expected verdicts")
    run = commands.add_parser(
        "run",
        help="explore one scenario: a built-in one, or MODULE:ATTRIBUTE of your own",
        description="Explore one scenario (a built-in variant, or a Scenario of your own named MODULE:ATTRIBUTE) "
        "and report whether its claim holds.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "name",
        metavar="NAME",
        help="a built-in scenario (see `list`), or MODULE:ATTRIBUTE naming a Scenario, or a function that "
        "returns one (called with --variant when given), importable from the current directory",
    )
    run.add_argument(
        "--variant", "-v", metavar="V", help="which variant of the scenario to run (required for built-ins)"
    )
    how = run.add_mutually_exclusive_group()
    how.add_argument("--exhaustive", action="store_true", help="explore every schedule (depth-first)")
    how.add_argument("--schedules", type=int, metavar="N", help="explore N seeded random schedules")
    how.add_argument("--replay", metavar="ID", help="run exactly one schedule, by the id a report gave")
    run.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the random schedules (default 0)")
    run.add_argument(
        "--accept-sample",
        action="store_true",
        help="exit 0 when a random sample finds no violation and puts every check to the test (the verdict "
        "stays unknown: a sample is not a proof)",
    )
    run.add_argument("--report", type=Path, metavar="FILE", help="also write the report to FILE")
    run.add_argument(
        "--summary",
        type=Path,
        metavar="FILE",
        help="also write what was explored and found as JSON to FILE (for `merge` of a --shard split search)",
    )
    run.add_argument(
        "--reduction",
        choices=REDUCTIONS,
        default="dpor",
        help="how exhaustive exploration skips equivalent schedules (default dpor)",
    )
    run.add_argument(
        "--max-runs",
        type=int,
        metavar="N",
        help="stop an exhaustive exploration after N schedules (then, without a violation, the verdict is unknown)",
    )
    run.add_argument("--keep-going", action="store_true", help="count every violating schedule instead of stopping")
    run.add_argument("--no-shrink", action="store_true", help="report the first violating schedule as found")
    run.add_argument(
        "--faults",
        metavar="LIST",
        help=f"comma-separated faults to inject instead of the scenario's own ({', '.join(USER_FAULTS)}; "
        "'none' for none)",
    )
    run.add_argument("--max-faults", type=int, metavar="K", help="at most K faults per schedule")
    run.add_argument(
        "--shard",
        metavar="K/N",
        help="explore only shard K of N (1-based) of the schedule space; without a violation the verdict is "
        "unknown (exit 3): write each shard's --summary and `merge` them for the verdict of the whole",
    )
    run.add_argument(
        "--hostile",
        action="store_true",
        help="re-run with every user-controlled value in hostile spellings and report fields that flip the verdict",
    )
    run.add_argument(
        "--mutate",
        metavar="OBJECT/POINTER=SPELLING",
        help="run with plain data and this one hostile value (as a hostile report's replay line says); spellings: "
        + ", ".join([*STRING_SPELLINGS, *NUMBER_SPELLINGS]),
    )
    run.add_argument("--plain", action="store_true", help="run with every user value spelled plainly")
    run.add_argument(
        "--operator",
        metavar="COMMAND",
        help="race this kopf operator, unmodified, as replica processes: what follows `kopf run` (paths or -m "
        "MODULE, and its options), e.g. 'handlers.py --standalone -A'; replaces the scenario's own operator "
        "command and keeps its declared effects and environment (docs/scenarios-operators.md)",
    )
    run.add_argument(
        "--foreign",
        action="store_true",
        help="--operator COMMAND is the whole command line of any process (a Go binary, 'node controller.js'), "
        "not kopf run's arguments: each replica is started as it is, with KUBECONFIG naming its own kubeconfig. "
        "Without the engine's agent inside, a replica counts as waiting after a quiet period of real time without "
        "a request, and its time is real: runs are sampled (never 'holds', exit 3 without a violation), and a "
        "violation is reported only if a replay of its schedule reproduced it (--reproduce)",
    )
    run.add_argument(
        "--reproduce",
        type=int,
        default=3,
        metavar="N",
        help="replay a violation of a --foreign operator N times with fresh processes; it is reported, with how "
        "many reproduced it, when at least one did (default 3)",
    )
    run.add_argument(
        "--replicas",
        type=int,
        metavar="N",
        help="how many replicas of the operator race (default: the scenario's, else 2)",
    )
    run.add_argument(
        "--kubeconfig",
        type=Path,
        metavar="PATH",
        help="run against the cluster of this kubeconfig instead (no gates: uncontrolled timing, same checks)",
    )
    run.add_argument(
        "--interchangeable",
        action="append",
        metavar="A,B",
        help="actors (or the operator's replicas, replica-1,replica-2) that run the same code and that nothing in "
        "the scenario tells apart but their names; an exhaustive search explores a schedule or its mirror, not both "
        "(repeat for several groups; replaces the scenario's own groups; 'none' for none; "
        "docs/scenarios-reductions.md)",
    )
    run.add_argument("--quiet", "-q", action="store_true", help="print only the verdict line, nothing on stderr")
    run.add_argument("--no-progress", action="store_true", help="no progress display on stderr")
    merge = commands.add_parser(
        "merge",
        help="the verdict of a split search: merge the --summary files of its shards",
        description="Read the --summary files every --shard K/N of one exploration wrote, and say what they prove "
        "together: holds only when every shard of one exhaustive search is there, complete, without a violation, "
        "and every check was put to the test by some shard.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    merge.add_argument("summaries", nargs="+", type=Path, metavar="FILE", help="the shards' --summary files")
    merge.add_argument(
        "--accept-sample",
        action="store_true",
        help="exit 0 when the shards sampled at random without a violation (the verdict stays unknown)",
    )
    return parser


def _list() -> int:
    for builtin in BUILTINS.values():
        print(f"{builtin.name}: {builtin.summary}")
        for variant, expected in builtin.variants.items():
            print(f"    --variant {variant:<36} {expected}")
    return 0


def _shard(text: str | None) -> Shard:
    if text is None:
        return Shard()
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit()) or not 1 <= int(index) <= int(count):
        raise ValueError(f"--shard is K/N with 1 <= K <= N: {text!r}")
    return Shard(int(index) - 1, int(count))


def _replay_hint(args: argparse.Namespace) -> Any:
    def hint(schedule: str, mutation: str | None) -> list[str]:
        parts = ["python -m scenarios run", args.name]
        if args.variant is not None:
            parts += ["--variant", args.variant]
        if args.faults is not None:
            parts += ["--faults", args.faults]
        if args.max_faults is not None:
            parts += ["--max-faults", str(args.max_faults)]
        if args.operator is not None:
            parts += ["--operator", shlex.quote(args.operator)]
        if args.replicas is not None:
            parts += ["--replicas", str(args.replicas)]
        if args.foreign:
            parts.append("--foreign")
        if mutation == "plain":
            parts.append("--plain")
        elif mutation:
            parts += ["--mutate", mutation]
        parts += ["--replay", schedule]
        return [" ".join(parts)]

    return hint


def _user_scenario(name: str, variant: str | None) -> Scenario:
    """``module:attribute``: a Scenario, or a function returning one (given the variant, if any)."""
    module_name, _, attribute = name.partition(":")
    if not module_name or not attribute:
        raise LookupError(f"a scenario of your own is MODULE:ATTRIBUTE: {name!r}")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise LookupError(f"cannot import {module_name!r}: {error}") from error
    target = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise LookupError(f"{module_name} has no attribute {attribute!r}")
        target = getattr(target, part)
    if callable(target) and not isinstance(target, Scenario):
        accepts = len(inspect.signature(target).parameters) > 0
        if variant is not None and not accepts:
            raise LookupError(f"{name} takes no variant, but --variant {variant} was given")
        target = target(variant) if variant is not None else target()
    elif variant is not None:
        raise LookupError(f"{name} is a Scenario, not a function of a variant: drop --variant")
    if not isinstance(target, Scenario):
        raise LookupError(f"{name} is not a Scenario (nor a function returning one): {type(target).__name__}")
    return target


def _scenario(args: argparse.Namespace) -> Scenario:
    if ":" in args.name:
        scenario = _user_scenario(args.name, args.variant)
    elif args.variant is None:
        raise LookupError(f"{args.name} is a built-in scenario: --variant is required (see `list`)")
    else:
        scenario = builtin_scenario(args.name, args.variant)
    if args.faults is not None:
        faults = tuple(f for f in args.faults.split(",") if f and f != "none")
        unknown = [f for f in faults if f not in USER_FAULTS]
        if unknown:
            raise ValueError(f"unknown fault(s) {', '.join(unknown)}; known: {', '.join(USER_FAULTS)}")
        scenario = replace(scenario, faults=faults)
    if args.max_faults is not None:
        scenario = replace(scenario, max_faults=args.max_faults)
    if args.mutate:
        scenario = replace(
            scenario, objects=tuple(mutate(list(scenario.objects), parse_mutation(args.mutate), scenario.derive))
        )
    elif args.plain:
        scenario = replace(scenario, objects=tuple(plain_objects(list(scenario.objects), scenario.derive)))
    if args.operator is not None or args.replicas is not None or args.foreign:
        scenario = replace(
            scenario, operator=_operator(scenario.operator, args.operator, args.replicas, foreign=args.foreign)
        )
    if args.interchangeable:
        scenario = replace(scenario, interchangeable=_interchangeable(args.interchangeable, scenario))
    return scenario


def _interchangeable(texts: list[str], scenario: Scenario) -> tuple[tuple[str, ...], ...]:
    """The groups of ``--interchangeable A,B`` (each given once), or none for ``none``."""
    if texts == ["none"]:
        return ()
    groups = [tuple(name.strip() for name in text.split(",") if name.strip()) for text in texts]
    replicas = scenario.operator.replica_names if scenario.operator is not None else ()
    return interchangeable_groups(groups, {actor.name for actor in scenario.actors} | set(replicas))


def _operator(operator: Operator | None, command: str | None, replicas: int | None, *, foreign: bool) -> Operator:
    """The scenario's operator with the command line's command, replica count and kind of process."""
    if command is None and operator is None:
        raise ValueError("--replicas and --foreign need an operator: the scenario has none, name one with --operator")
    if operator is None:
        return Operator(tuple(shlex.split(command or "")), replicas=replicas or 2, agent=not foreign)
    return Operator(
        tuple(shlex.split(command)) if command is not None else operator.command,
        replicas=replicas or operator.replicas,
        restarts=operator.restarts,
        effects=operator.effects,
        service_account=operator.service_account,
        name=operator.name,
        environment=operator.environment,
        agent=operator.agent and not foreign,
        quiet=operator.quiet,
    )


def _settings(args: argparse.Namespace) -> Settings:
    if args.replay is not None:
        parse_replay_id(args.replay)
        if args.kubeconfig is not None:
            raise ValueError("a real cluster has no gates: --replay does not apply with --kubeconfig")
    return Settings(
        exhaustive=True if args.exhaustive else False if args.schedules is not None else None,
        schedules=args.schedules if args.schedules is not None else 200,
        seed=args.seed,
        replay=args.replay,
        reduction=args.reduction,
        shard=_shard(args.shard),
        keep_going=args.keep_going,
        shrink=not args.no_shrink,
        max_runs=args.max_runs,
        replay_hint=_replay_hint(args),
        accept_sample=args.accept_sample,
        reproduce=args.reproduce,
    )


def _run(args: argparse.Namespace) -> int:
    from scenarios._progress import ProgressDisplay

    try:
        scenario = _scenario(args)
        settings = _settings(args)
        if settings.exhaustive and scenario.operator is not None and not scenario.operator.agent:
            raise ValueError("a --foreign operator is sampled, not searched: use --schedules N, not --exhaustive")
    except (LookupError, ValueError, ScheduleError) as error:
        print(f"python -m scenarios run: error: {error}", file=sys.stderr)
        return 2
    display = ProgressDisplay(enabled=not (args.quiet or args.no_progress) and sys.stderr.isatty())
    with display:
        if args.kubeconfig is not None:
            from scenarios._live import explore_live

            exploration = asyncio.run(explore_live(scenario, args.kubeconfig, settings, progress=display.update))
            return _finish(args, exploration, exploration.report(), display)
        if args.hostile:
            from scenarios._probing import probe_async

            hostile = asyncio.run(probe_async(scenario, settings, progress=display.note))
            text = hostile.report()
            print(text, end="")
            if args.report is not None:
                args.report.write_text(text, encoding="utf-8")
            if hostile.verdict == "robust":
                return 0
            return 1 if hostile.baseline.violated or hostile.findings else 3
        mutation = args.mutate or ("plain" if args.plain else None)
        try:
            exploration = asyncio.run(explore_async(scenario, settings, progress=display.update))
        except (ScheduleError, EngineStuck, NondeterminismError) as error:
            print(f"python -m scenarios run: error: {error}", file=sys.stderr)
            return 2
        exploration.mutation = mutation
    return _finish(args, exploration, exploration.report(), display)


def _finish(args: argparse.Namespace, exploration: Exploration, text: str, display: Any) -> int:
    if args.quiet:
        print(text.splitlines()[0])
    else:
        print(text, end="" if text.endswith("\n") else "\n")
    if args.report is not None:
        args.report.write_text(exploration.run_report() if exploration.violated else text, encoding="utf-8")
    if args.summary is not None:
        args.summary.write_text(json.dumps(summary_of(exploration), indent=2) + "\n", encoding="utf-8")
    total = exploration.runs + exploration.minimizing_runs + exploration.pruned + exploration.shrink_replays
    rate = total / exploration.elapsed if exploration.elapsed else 0.0
    if not args.quiet:
        minimizing = f", {exploration.minimizing_runs} for fewer faults" if exploration.minimizing_runs else ""
        print(
            f"{exploration.runs} schedule{'' if exploration.runs == 1 else 's'} judged{minimizing}, "
            f"{exploration.pruned} cut short, {exploration.shrink_replays} shrink replays in "
            f"{exploration.elapsed:.1f} s ({rate:.0f} runs/s)",
            file=sys.stderr,
        )
    return exit_status(exploration)


def exit_status(exploration: Exploration) -> int:
    """0 holds (or a clean sample accepted), 1 violated, 3 unknown (2 is bad usage)."""
    if exploration.accepted:
        return 0
    return 1 if exploration.violated else 3


def _merge(args: argparse.Namespace) -> int:
    try:
        merged = merge_summaries([read_summary(path) for path in args.summaries], accept_sample=args.accept_sample)
    except ValueError as error:
        print(f"python -m scenarios merge: error: {error}", file=sys.stderr)
        return 2
    print("\n".join(merged.lines))
    return merged.exit_status


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "list":
            return _list()
        if args.command == "merge":
            return _merge(args)
        return _run(args)
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as command-line tools do, and keep the
        # interpreter's final flush of stdout from raising again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
