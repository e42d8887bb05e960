"""What the ``fakeapi`` fixture costs a test: generated test files timed through pytest in a subprocess.

Two generated files of ``--tests`` tests each: in one every test takes the ``fakeapi`` fixture and
makes one request to it (a GET of the default namespace over a new connection, as a client's first
call is), in the other every test is empty. A third, whose tests take the fixture and send nothing,
separates what the fixture costs from what the request costs. Each runs as ``python -m pytest -q`` in a subprocess,
so the figure includes everything a user waits for: the plugin's import of fakeapi, the session
server's start, the reset before every test and the teardown check after it. The issue's figure is
the difference of the two wall times divided by the number of tests (goal: at most 5 ms).

The same pair also runs with twice as many tests; the difference of differences splits that figure
into what each further test costs (reset, fixture, request) and what the session pays once (import
and server start), which 300 tests merely dilute. Runs of all the files are interleaved so that
load changes hit every arm alike, and each figure is the median over ``--repeats`` runs after
``--warmup`` unmeasured ones. Besides wall time, the CPU time the pytest process used (user and
system, its server thread included) is reported: on a shared machine load stretches wall times, but
it disturbs CPU time much less. Two plugins of this project's extras are disabled in every run:
hypothesis's, which imports all of hypothesis at the end of each session (noise in both arms), and
kmock's, which imports aiohttp at startup and so would hide the biggest part of fakeapi's import
cost in the plain arm of a venv that happens to have it.

``--marker 'controllers="all"'`` puts ``@pytest.mark.fakeapi(...)`` with those arguments on every
test that takes the fixture, so the figures are those of tests with simulated controllers (each
such test starts from the pristine cluster as the controllers settle it).

The same GET answered by pytest-httpserver's ``httpserver`` fixture is the yardstick (issue 30:
a test of the fake costs at most 0.75 times one of it). Its two files (``--tests`` and twice as
many tests) take ``httpserver``, expect the GET and answer it with the bytes of fakeapi's own answer
(the ``default`` Namespace, fetched from a fakeapi server when the script starts), through the same
urllib call; they run in the same rounds as the others, and never carry the ``fakeapi`` marker. The
ratio is of the two "each further test" figures, with and without ``--marker``.

The floor of any fixture built on aiohttp, as fakeapi's is, is a fourth pair of files (``--tests``
and twice as many): a session fixture starts a bare aiohttp app on a loop in a thread of its own (as
the fakeapi session server runs) that answers every request with those same bytes, and a
function-scoped fixture hands each test its URL; each test makes the same GET. What its further test
costs, as a ratio to pytest-httpserver's, is what fakeapi would cost with no reset and no request
pipeline at all: a goal below it is below what aiohttp allows.

A difference of two whole runs carries the jitter of two session start-ups (a second of CPU that
load stretches by a tenth or more), which 300 tests divide only by 300. So each run also measures
inside itself, through a ``conftest.py`` in the generated folder: the CPU time of the process (all
its threads) from the setup of the first test after the first tenth to the setup of the last one,
per test. That figure has no start-up in it at all, nor collection; less the empty tests' own, it
is the "CPU in the run" row of the comparison, judged against the goal too.

Last, the script times ``import fakeapi.server`` on its own (a Python that imports pytest, against
one that imports pytest and fakeapi.server) and says who pays it: if loading the plugin already
imports the server, every pytest session pays it, both arms included, and the overhead above
leaves it out; if not, only sessions that use the fixture pay it, and the overhead includes it.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import Stats, print_footer, print_header, print_table, seconds, verdict

GOAL_MS_PER_TEST = 5.0
GOAL_RATIO_TO_HTTPSERVER = 0.75
NAMESPACE_PATH = "/api/v1/namespaces/default"
UNRELATED_PLUGINS = ("-p", "no:hypothesispytest", "-p", "no:kmock")

INI = """\
[pytest]
asyncio_default_fixture_loop_scope = function
"""
IN_RUN_RESULT = "PLUGIN_OVERHEAD_IN_RUN"
CONFTEST = f"""\
import os
import time

_seen = 0
_started = 0.0


def pytest_runtest_setup(item):
    # Process CPU per test from the setup of the first test after the first tenth to that of the last.
    global _seen, _started
    _seen += 1
    total = len(item.session.items)
    first = total // 10 + 1
    if _seen == first:
        _started = time.process_time()
    elif _seen == total:
        with open(os.environ["{IN_RUN_RESULT}"], "w") as out:
            out.write(repr((time.process_time() - _started) / (total - first)))
"""
FIXTURE_HEADER = """\
import urllib.request

import pytest
"""
FIXTURE_TEST = """
{marker}
def test_{index}(fakeapi):
    with urllib.request.urlopen(fakeapi.url + "/api/v1/namespaces/default") as response:
        response.read()
"""
BARE_FIXTURE_TEST = """
{marker}
def test_{index}(fakeapi):
    pass
"""
HTTPSERVER_HEADER = """\
import urllib.request

NAMESPACE = {body!r}
"""
HTTPSERVER_TEST = """

def test_{index}(httpserver):
    httpserver.expect_request("/api/v1/namespaces/default").respond_with_data(
        NAMESPACE, content_type="application/json"
    )
    with urllib.request.urlopen(httpserver.url_for("/api/v1/namespaces/default")) as response:
        response.read()
"""
BARE_AIOHTTP_HEADER = """\
import asyncio
import threading
import urllib.request

import pytest
from aiohttp import web

NAMESPACE = {body!r}


@pytest.fixture(scope="session")
def _bare_app():
    async def answer(request):
        return web.Response(body=NAMESPACE, content_type="application/json")

    loop = asyncio.new_event_loop()
    app = web.Application()
    app.router.add_get("/api/v1/namespaces/default", answer)
    runner = web.AppRunner(app, access_log=None)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    url = f"http://127.0.0.1:{{runner.addresses[0][1]}}"
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield url
    loop.call_soon_threadsafe(loop.stop)
    thread.join()
    loop.run_until_complete(runner.cleanup())


@pytest.fixture
def bare_app(_bare_app):
    return _bare_app
"""
BARE_AIOHTTP_TEST = """

def test_{index}(bare_app):
    with urllib.request.urlopen(bare_app + "/api/v1/namespaces/default") as response:
        response.read()
"""
PLAIN_TEST = """

def test_{index}():
    pass
"""


def namespace_answer() -> bytes:
    """The body fakeapi answers the GET with, for pytest-httpserver to answer the same."""
    import urllib.request

    from fakeapi.server import FakeAPIServer

    with FakeAPIServer() as server, urllib.request.urlopen(server.url + NAMESPACE_PATH) as response:
        body: bytes = response.read()
    return body


def write_tests(directory: Path, count: int, marker: str, body: bytes) -> dict[tuple[str, int], Path]:
    """The generated files: (arm, number of tests) -> path; ``marker``: the fakeapi marker's arguments;
    ``body``: what pytest-httpserver answers."""
    mark = f"@pytest.mark.fakeapi({marker})" if marker else ""
    (directory / "pytest.ini").write_text(INI)
    (directory / "conftest.py").write_text(CONFTEST)
    files = {}
    for size in (count, 2 * count):
        fixture = directory / f"test_fixture_{size}.py"
        fixture.write_text(FIXTURE_HEADER + "".join(FIXTURE_TEST.format(index=i, marker=mark) for i in range(size)))
        plain = directory / f"test_plain_{size}.py"
        plain.write_text("".join(PLAIN_TEST.format(index=i) for i in range(size)))
        httpserver = directory / f"test_httpserver_{size}.py"
        httpserver.write_text(
            HTTPSERVER_HEADER.format(body=body) + "".join(HTTPSERVER_TEST.format(index=i) for i in range(size))
        )
        bare_aiohttp = directory / f"test_bare_aiohttp_{size}.py"
        bare_aiohttp.write_text(
            BARE_AIOHTTP_HEADER.format(body=body) + "".join(BARE_AIOHTTP_TEST.format(index=i) for i in range(size))
        )
        files["fixture", size] = fixture
        files["plain", size] = plain
        files["httpserver", size] = httpserver
        files["bare aiohttp", size] = bare_aiohttp
    bare = directory / f"test_bare_fixture_{count}.py"
    bare.write_text("import pytest\n" + "".join(BARE_FIXTURE_TEST.format(index=i, marker=mark) for i in range(count)))
    files["bare fixture", count] = bare
    return files


def run_pytest(path: Path, expected: int, environment: dict[str, str]) -> tuple[float, float, float]:
    """Wall time and CPU time (user and system) of one pytest run of ``path``, from process start to
    exit, and the CPU time per test the run measured inside itself (``CONFTEST``)."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *UNRELATED_PLUGINS, path.name]
    result_file = path.parent / "in-run.txt"
    result_file.unlink(missing_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(
        command, cwd=path.parent, env={**environment, IN_RUN_RESULT: str(result_file)}, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0 or f"{expected} passed" not in result.stdout:
        raise RuntimeError(f"{path.name} did not pass:\n{result.stdout}\n{result.stderr}")
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, used, float(result_file.read_text())


def run_python(code: str, environment: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time of ``python -c code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=environment, check=True, capture_output=True)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_cost(environment: dict[str, str], repeats: int) -> tuple[float, float, bool]:
    """Median wall and CPU time ``import fakeapi.server`` adds to a Python that imports pytest, and
    whether importing the plugin module imports it already."""
    base: list[tuple[float, float]] = []
    full: list[tuple[float, float]] = []
    for _ in range(repeats + 1):
        base.append(run_python("import pytest", environment))
        full.append(run_python("import pytest, fakeapi.server", environment))
    wall = Stats.of([b[0] for b in full[1:]]).median - Stats.of([b[0] for b in base[1:]]).median
    cpu = Stats.of([b[1] for b in full[1:]]).median - Stats.of([b[1] for b in base[1:]]).median
    probe = "import sys, fakeapi.pytest_plugin; print('fakeapi.server' in sys.modules)"
    eager = subprocess.run([sys.executable, "-c", probe], env=environment, capture_output=True, text=True)
    return wall, cpu, eager.stdout.strip() == "True"


def split(value: Callable[[str, int], float], small: int, arm: str = "fixture") -> tuple[float, float, float]:
    """Overhead per test of ``arm`` at ``small`` tests, the cost of each further test, and the
    once-per-session cost."""
    large = 2 * small
    overhead = (value(arm, small) - value("plain", small)) / small
    marginal = ((value(arm, large) - value(arm, small)) - (value("plain", large) - value("plain", small))) / (
        large - small
    )
    return overhead, marginal, (overhead - marginal) * small


def ratio_of(value: Callable[[str, int], float], small: int, arm: str) -> float:
    """What each further test of ``arm`` costs, as a ratio to pytest-httpserver's."""
    theirs = split(value, small, "httpserver")[1]
    return split(value, small, arm)[1] / theirs if theirs > 0 else float("nan")


def ms(value: float) -> str:
    return f"{value * 1e3:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=300, help="tests per file (default: 300; also runs twice that)")
    parser.add_argument("--repeats", type=int, default=5, help="measured runs of each file (default: 5)")
    parser.add_argument("--warmup", type=int, default=1, help="unmeasured runs of each file first (default: 1)")
    parser.add_argument(
        "--write-bytecode",
        action="store_true",
        help="let the pytest runs cache bytecode as Python does by default, even if PYTHONDONTWRITEBYTECODE is set",
    )
    parser.add_argument(
        "--marker",
        default="",
        metavar="ARGS",
        help="""arguments of a fakeapi marker on every fixture test, e.g. 'controllers="all"' (default: none)""",
    )
    args = parser.parse_args()
    print_header(
        "pytest plugin overhead: the fakeapi fixture and one request, against empty tests and pytest-httpserver", args
    )
    environment = dict(os.environ)
    if args.write_bytecode:
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
    caching = "off (PYTHONDONTWRITEBYTECODE)" if environment.get("PYTHONDONTWRITEBYTECODE") else "on"
    print(f"bytecode cache of the pytest runs: {caching}\n", flush=True)

    walls: dict[tuple[str, int], list[float]] = {}
    cpus: dict[tuple[str, int], list[float]] = {}
    in_run: dict[str, list[float]] = {}  # by arm: both sizes measure the same per-test cost
    with tempfile.TemporaryDirectory(prefix="fakeapi-plugin-overhead-") as folder:
        files = write_tests(Path(folder), args.tests, args.marker, namespace_answer())
        for round_index in range(args.warmup + args.repeats):
            for (arm, size), path in files.items():
                elapsed, used, per_test = run_pytest(path, size, environment)
                if round_index >= args.warmup:
                    walls.setdefault((arm, size), []).append(elapsed)
                    cpus.setdefault((arm, size), []).append(used)
                    in_run.setdefault(arm, []).append(per_test)

    wall = {key: Stats.of(samples) for key, samples in walls.items()}
    cpu = {key: Stats.of(samples) for key, samples in cpus.items()}
    small = args.tests
    rows = []
    order = ("plain", "fixture", "bare fixture", "httpserver", "bare aiohttp")
    for arm, size in sorted(wall, key=lambda key: (order.index(key[0]), key[1])):
        timed, spent = wall[arm, size], cpu[arm, size]
        times = [timed.median, timed.minimum, timed.maximum, spent.median, spent.minimum]
        rows.append([arm, str(size), *map(seconds, times)])
    print_table(["tests", "count", "wall median", "min", "max", "CPU median", "min"], rows, right=(1, 2, 3, 4, 5, 6))

    figures = {
        "wall, medians": split(lambda arm, size: wall[arm, size].median, small),
        "wall, minimums": split(lambda arm, size: wall[arm, size].minimum, small),
        "CPU, medians": split(lambda arm, size: cpu[arm, size].median, small),
        "CPU, minimums": split(lambda arm, size: cpu[arm, size].minimum, small),
    }
    print_table(
        ["from", f"overhead per test ({small} tests)", "goal", "verdict", "each further test", "once per session"],
        [
            [
                source,
                ms(overhead),
                f"<= {GOAL_MS_PER_TEST:.0f} ms" if source.startswith("wall") else "",
                verdict(overhead * 1e3 <= GOAL_MS_PER_TEST) if source.startswith("wall") else "",
                ms(marginal),
                ms(once),
            ]
            for source, (overhead, marginal, once) in figures.items()
        ],
        right=(1, 4, 5),
    )
    bare_wall = (wall["bare fixture", small].median - wall["plain", small].median) / small
    bare_cpu = (cpu["bare fixture", small].median - cpu["plain", small].median) / small
    print(f"the fixture alone, no request (medians): {ms(bare_wall)} wall, {ms(bare_cpu)} CPU per test\n")
    print(
        "overhead per test: (fixture - plain) / tests; each further test: the fixture's reset and the request;\n"
        "once per session: what the first use costs (the server's start, and the import of fakeapi when the\n"
        "plain arm does not pay it too). Minimums are what load could not stretch.\n"
    )
    sources: dict[str, Callable[[str, int], float]] = {
        "CPU, medians": lambda arm, size: cpu[arm, size].median,
        "CPU, minimums": lambda arm, size: cpu[arm, size].minimum,
        "wall, medians": lambda arm, size: wall[arm, size].median,
        "wall, minimums": lambda arm, size: wall[arm, size].minimum,
    }
    comparison = []
    for source, value in sources.items():
        ours = split(value, small)[1]
        theirs = split(value, small, "httpserver")[1]
        ratio = ours / theirs if theirs > 0 else float("nan")
        met = verdict(ratio <= GOAL_RATIO_TO_HTTPSERVER) if source.startswith("CPU") and theirs > 0 else ""
        goal = f"<= {GOAL_RATIO_TO_HTTPSERVER}" if source.startswith("CPU") else ""
        comparison.append([source, ms(ours), ms(theirs), f"{ratio:.2f}", goal, met])
    inside = {arm: Stats.of(samples) for arm, samples in in_run.items()}
    ours = inside["fixture"].median - inside["plain"].median
    httpserver_inside = inside["httpserver"].median - inside["plain"].median
    ratio = ours / httpserver_inside if httpserver_inside > 0 else float("nan")
    met = verdict(ratio <= GOAL_RATIO_TO_HTTPSERVER) if httpserver_inside > 0 else ""
    comparison.append(
        [
            "CPU in the run, medians",
            ms(ours),
            ms(httpserver_inside),
            f"{ratio:.2f}",
            f"<= {GOAL_RATIO_TO_HTTPSERVER}",
            met,
        ]
    )
    print_table(
        ["tests", "CPU per test in the run, median", "min", "max", "less an empty test's"],
        [
            [arm, ms(stats.median), ms(stats.minimum), ms(stats.maximum), ms(stats.median - inside["plain"].median)]
            for arm, stats in sorted(inside.items(), key=lambda item: order.index(item[0]))
        ],
        right=(1, 2, 3, 4),
    )
    print_table(
        ["from", "fakeapi, each further test", "pytest-httpserver", "ratio", "goal", "verdict"],
        comparison,
        right=(1, 2, 3),
    )
    floor = [
        [source, ms(split(value, small, "bare aiohttp")[1]), f"{ratio_of(value, small, 'bare aiohttp'):.2f}"]
        for source, value in sources.items()
    ]
    floor_inside = inside["bare aiohttp"].median - inside["plain"].median
    floor.append(
        [
            "CPU in the run, medians",
            ms(floor_inside),
            f"{floor_inside / httpserver_inside:.2f}" if httpserver_inside > 0 else "nan",
        ]
    )
    print_table(["from", "bare aiohttp fixture, each further test", "ratio to pytest-httpserver"], floor, right=(1, 2))
    print(
        "the bare aiohttp fixture: a canned answer from an aiohttp app on a loop in its own thread, no reset, no\n"
        "request pipeline: the floor of a fixture built on aiohttp; a ratio goal below its ratio is below what\n"
        "aiohttp allows.\n"
    )
    print(
        "each further test of pytest-httpserver: its fixture's clear, the expectation and the same GET, less an\n"
        "empty test; the goal is judged on CPU, which load disturbs least (wall times are for reference), from\n"
        "the difference of the two sizes and, more precisely, from inside the runs (no start-up, no collection).\n"
    )
    wall_import, cpu_import, eager = import_cost(environment, args.repeats)
    payer = (
        "every pytest session pays it, used or not, both arms included: loading the plugin imports it"
        if eager
        else "only sessions that use a fakeapi fixture pay it: it is part of the overhead above"
    )
    print(f"import fakeapi.server: {ms(wall_import)} wall, {ms(cpu_import)} CPU; {payer}")
    print_footer()


if __name__ == "__main__":
    main()
