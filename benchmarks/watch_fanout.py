"""Watch fan-out through ``fakeapi serve``: W watchers of a custom-resource collection, N writes, every event to each.

The server runs in its own process. The script creates the benchmark CRD and a few ~4 KB custom
resources, opens ``--watchers`` watch streams (aiohttp, ``?watch=true&resourceVersion=<now>``) and
waits until each has its 200 headers (the server subscribes a watcher before it answers), then sends
``--writes`` JSON-patch writes from ``--writers`` concurrent clients, each changing one object. The
figure is the time from the first write until every watcher has received every write's event.

Each watcher reads every event's type and resourceVersion (from its bytes, or with ``--decode`` from
a full decode) and checks them: exactly one MODIFIED event per write, nothing else, resourceVersions
strictly increasing, and the set of resourceVersions equal to the set the writes were answered with.
Also reported: how long the writes took, the event latency (from sending a write to a watcher
receiving its event), and the CPU both processes used.

Goal (issue 3): 100 watchers x 1,000 writes delivered complete and in order within 5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import time
from dataclasses import dataclass, field

import aiohttp
import orjson
from _common import (
    JSON_PATCH,
    ServerProcess,
    Stats,
    collection_path,
    cpu_seconds,
    create_objects,
    current_revision,
    fakeapi_command,
    install_crd,
    percentile,
    print_footer,
    print_header,
    print_table,
    seconds,
    verdict,
)

GOAL_SECONDS = 5.0


_TYPE_PREFIX = re.compile(rb'\{"type":"([A-Z]+)","object":\{')
_REVISION = re.compile(rb'"resourceVersion":"(\d+)"')


def _fast_event(line: bytes) -> tuple[str, int] | None:
    """Type and resourceVersion without decoding 4 KB: fine when the key occurs once, else None (decode).

    Inside a JSON string a quote is escaped, so ``"resourceVersion":"`` can only be a key.
    """
    prefix = _TYPE_PREFIX.match(line)
    revisions = _REVISION.findall(line)
    if prefix is None or len(revisions) != 1 or not line.endswith(b"}"):
        return None
    return prefix.group(1).decode(), int(revisions[0])


@dataclass
class Watch:
    """One watch stream's view: the events it got, and whether they were all right."""

    expected: int
    revisions: list[int] = field(default_factory=list)
    arrivals: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    complete: asyncio.Event = field(default_factory=asyncio.Event)

    def receive(self, line: bytes, now: float, *, decode: bool) -> None:
        found = None if decode else _fast_event(line)
        if found is None:
            try:
                event = orjson.loads(line)
                found = event["type"], int(event["object"]["metadata"]["resourceVersion"])
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as error:
                self.problems.append(f"undecodable event ({error}): {line[:120]!r}")
                return
        kind, revision = found
        if kind != "MODIFIED":
            self.problems.append(f"unexpected {kind} event at resourceVersion {revision}")
        if self.revisions and revision <= self.revisions[-1]:
            self.problems.append(f"resourceVersion {revision} after {self.revisions[-1]}")
        self.revisions.append(revision)
        self.arrivals.append(now)
        if len(self.revisions) >= self.expected:
            self.complete.set()


@dataclass
class Round:
    """One measured round: W watchers, N writes."""

    total: float
    write_phase: float
    latencies: list[float]
    complete_watchers: int
    problems: list[str]
    server_cpu: float
    client_cpu: float


async def consume(response: aiohttp.ClientResponse, watch: Watch, decode: bool) -> None:
    buffer = b""
    clock = time.perf_counter
    async for chunk in response.content.iter_any():
        buffer += chunk
        if b"\n" not in buffer:
            continue
        *lines, buffer = buffer.split(b"\n")
        now = clock()
        for line in lines:
            if line:
                watch.receive(line, now, decode=decode)


async def write_all(
    session: aiohttp.ClientSession,
    base_url: str,
    targets: list[tuple[str, str]],
    writes: int,
    writers: int,
    start_value: int,
) -> tuple[dict[int, float], list[str]]:
    """Send ``writes`` effective JSON-patch writes; returns each write's send time by its resourceVersion."""
    sent_at: dict[int, float] = {}
    failures: list[str] = []
    next_index = 0

    async def writer() -> None:
        nonlocal next_index
        while next_index < writes:
            index = next_index
            next_index += 1
            path, uid = targets[index % len(targets)]
            body = (
                f'[{{"op":"test","path":"/metadata/uid","value":"{uid}"}},'
                f'{{"op":"replace","path":"/spec/counter","value":{start_value + index}}}]'
            )
            started = time.perf_counter()
            async with session.patch(
                base_url + path, data=body.encode(), headers={"Content-Type": JSON_PATCH}
            ) as response:
                answer = await response.read()
            if response.status != 200:
                failures.append(f"write {index}: {response.status} {answer[:200]!r}")
                continue
            sent_at[int(orjson.loads(answer)["metadata"]["resourceVersion"])] = started

    await asyncio.gather(*(writer() for _ in range(writers)))
    return sent_at, failures


async def one_round(
    base_url: str, server_pid: int, targets: list[tuple[str, str]], args: argparse.Namespace, writes: int, seq: int
) -> Round:
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        start_revision = await current_revision(session, base_url)
        watches = [Watch(writes) for _ in range(args.watchers)]
        url = f"{base_url}{collection_path()}?watch=true&resourceVersion={start_revision}"
        responses = await asyncio.gather(*(session.get(url) for _ in watches))
        for response in responses:
            if response.status != 200:
                raise RuntimeError(f"watch answered {response.status}: {await response.text()}")
        consumers = [asyncio.create_task(consume(r, w, args.decode)) for r, w in zip(responses, watches, strict=True)]

        server_cpu, client_cpu = cpu_seconds(server_pid), time.process_time()
        started = time.perf_counter()
        # Counters start above 0, the value the objects are created with: a write that changes nothing
        # makes no event, and the warm-up round (seq 0) would wait out --timeout for it.
        start_value = seq * 10_000_000 + 1
        sent_at, failures = await write_all(session, base_url, targets, writes, args.writers, start_value)
        write_phase = time.perf_counter() - started
        done = asyncio.gather(*(watch.complete.wait() for watch in watches))
        with contextlib.suppress(TimeoutError):  # reported below as incomplete watchers
            await asyncio.wait_for(done, timeout=args.timeout)
        server_cpu = cpu_seconds(server_pid) - server_cpu
        client_cpu = time.process_time() - client_cpu

        for task in consumers:
            task.cancel()
        await asyncio.gather(*consumers, return_exceptions=True)
        for response in responses:
            response.close()

    expected = sorted(sent_at)
    problems = list(failures)
    latencies: list[float] = []
    complete = 0
    last_arrival = started
    for index, watch in enumerate(watches):
        if watch.problems:
            problems.append(f"watcher {index}: {watch.problems[0]} ({len(watch.problems)} problems)")
        if watch.revisions == expected:
            complete += 1
        elif not watch.problems:
            problems.append(f"watcher {index}: {len(watch.revisions)} events, the writes made {len(expected)}")
        if watch.arrivals:
            last_arrival = max(last_arrival, watch.arrivals[-1])
        latencies.extend(
            arrival - sent_at[revision]
            for revision, arrival in zip(watch.revisions, watch.arrivals, strict=True)
            if revision in sent_at
        )
    if len(expected) != writes and not failures:
        problems.append(f"{writes - len(expected)} writes got no resourceVersion")
    total = last_arrival - started if complete == len(watches) else float("nan")
    return Round(total, write_phase, latencies, complete, problems, server_cpu, client_cpu)


async def prepare(base_url: str, objects: int) -> list[tuple[str, str]]:
    async with aiohttp.ClientSession() as session:
        await install_crd(session, base_url)
        return await create_objects(session, base_url, objects)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--watchers", type=int, default=100, help="concurrent watch streams (default: %(default)s)")
    parser.add_argument("--writes", type=int, default=1000, help="writes per measured round (default: %(default)s)")
    parser.add_argument("--writers", type=int, default=8, help="concurrent writing clients (default: %(default)s)")
    parser.add_argument("--objects", type=int, default=10, help="objects the writes go round (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3, help="measured rounds (default: %(default)s)")
    parser.add_argument(
        "--warmup-writes",
        type=int,
        default=100,
        help="writes of one unmeasured round first, 0 for none (default: %(default)s)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="seconds to wait for delivery before giving up (default: %(default)s)",
    )
    parser.add_argument(
        "--decode",
        action="store_true",
        help="decode every event in full with orjson (by default the type and resourceVersion are read from the "
        "line's bytes, which leaves more CPU to the server; 100,000 full decodes of 4 KB cost the client seconds)",
    )
    args = parser.parse_args(argv)
    print_header(f"fakeapi serve: watch fan-out, {args.watchers} watchers x {args.writes} writes", args)
    print(
        f"workload: {args.objects} custom resources of ~4 KB in one collection; {args.watchers} watches of the "
        f"collection; {args.writes} JSON-patch writes from {args.writers} concurrent clients\n",
        flush=True,
    )
    rounds: list[Round] = []
    with ServerProcess(fakeapi_command(), r"fakeapi serving on (http://\S+)") as server:
        targets = asyncio.run(prepare(server.url, args.objects))
        if args.warmup_writes > 0:
            asyncio.run(one_round(server.url, server.pid, targets, args, args.warmup_writes, 0))
        for repeat in range(1, args.repeats + 1):
            result = asyncio.run(one_round(server.url, server.pid, targets, args, args.writes, repeat))
            rounds.append(result)
            print(f"  round {repeat}/{args.repeats}: {seconds(result.total)}", flush=True)

    rows = []
    for index, result in enumerate(rounds, 1):
        ok = not result.problems and result.complete_watchers == args.watchers
        rows.append(
            [
                f"#{index}",
                seconds(result.total),
                seconds(result.write_phase),
                f"{args.writes / result.write_phase:,.0f}",
                seconds(percentile(result.latencies, 50)),
                seconds(percentile(result.latencies, 99)),
                f"{result.complete_watchers}/{args.watchers}",
                "complete, in order" if ok else f"{len(result.problems)} PROBLEMS",
                f"{result.server_cpu:.2f} s",
                f"{result.client_cpu:.2f} s",
                "",
                "",
            ]
        )
    totals = Stats.of([r.total for r in rounds])
    all_ok = all(not r.problems and r.complete_watchers == args.watchers for r in rounds)
    rows.append(
        [
            "median",
            seconds(totals.median),
            seconds(Stats.of([r.write_phase for r in rounds]).median),
            f"{Stats.of([args.writes / r.write_phase for r in rounds]).median:,.0f}",
            seconds(Stats.of([percentile(r.latencies, 50) for r in rounds]).median),
            seconds(Stats.of([percentile(r.latencies, 99) for r in rounds]).median),
            "",
            "all rounds complete, in order" if all_ok else "SOME ROUNDS FAILED",
            "",
            "",
            f"≤ {GOAL_SECONDS:g} s",
            verdict(all_ok and totals.median <= GOAL_SECONDS),
        ]
    )
    print()
    print_table(
        [
            "round",
            "all delivered",
            "writes took",
            "writes/s",
            "event latency p50",
            "p99",
            "watchers",
            "checks",
            "server CPU",
            "client CPU",
            "goal",
            "verdict",
        ],
        rows,
        right=(1, 2, 3, 4, 5, 8, 9),
    )
    print(f"p99 over rounds of 'all delivered' (nearest rank, = the slowest of {len(rounds)}): {seconds(totals.p99)}")
    for result in rounds:
        for problem in result.problems[:5]:
            print(f"problem: {problem}")
    print_footer()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
