"""Several machines against one, in one run (issues 20 and 40): the limit counters' cost per
call (this machine's shared file; Redis over a unix socket and over loopback TCP; Redis from
several threads at once, each check its own round trip against the checks pipelined), request-log
rows written per second by each store's batched writer, and ``POST /v2/analyze`` under load
(wrk, 32 connections, 2 workers, ``harmony serve``'s defaults) on three servers started side by
side: SQLite and this machine's counters (the embedded default), PostgreSQL and Redis, and
PostgreSQL and a Redis that answers in 1 ms (behind a proxy on a unix socket that holds each
answer back that long, started and stopped here). Every round measures the three one after the
other, in alternating order; the report gives each one's median of the rounds (req/s, p99 under
load, server CPU a call), the ratio of PostgreSQL + Redis to the default (median and range of
the per-round ratios, aim >= 0.8) and of the slow Redis's p99 to the fast one's (aim within
20 %). PostgreSQL and Redis are started here from Debian's ``postgresql`` and ``redis-server``,
as ``tests/pg_server.py`` and ``tests/redis_server.py`` do for the tests, on the same cores.

    .venv/bin/python bench/run_several_machines.py [--rounds 5] [--seconds 5] [--interface rsgi]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from statistics import median, quantiles

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.floor_app import ANALYZE_BODY
from bench.load import HARMONY, REPO, cpu_seconds, free_port, wait_healthy, wrk, wrk_script
from server.accounts import Counters, LogRow, RedisCounters, SharedCounters, Store, open_store
from server.accounts.limits import Taken
from tests.pg_server import database, pg_bin, postgres_server
from tests.redis_server import redis_binary, redis_server

MONTH = 2027 * 12
TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu(pid: int, reaped: bool = False) -> float:
    """CPU seconds of ``pid`` and its living descendants (``cpu_seconds``), with ``reaped``
    the children it has waited for too (PostgreSQL's backends that ended)."""
    total = cpu_seconds(pid)
    if reaped:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[13]) + int(fields[14])) / TICK
    return total


def machine_busy() -> float:
    """CPU seconds the whole machine has been busy (every core, ``/proc/stat``: all but idle
    and iowait)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / TICK


def children_cpu() -> float:
    """CPU seconds of this process's children it has waited for (wrk, once it has ended)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Others:
    """The processes besides the servers whose CPU a round accounts for: redis-server,
    PostgreSQL (its postmaster's tree, ended backends included) and the delaying proxy; and
    redis-server's own count of the commands it ran and of the reads it made (its INFO)."""

    def __init__(self, redis_pid: int, postgres_pid: int, proxy_pid: int,
                 redis_url: str) -> None:
        import redis

        self.pids = {"redis-server": (redis_pid, False), "postgres": (postgres_pid, True),
                     "1 ms proxy": (proxy_pid, False)}
        self.redis = redis.Redis.from_url(redis_url)

    def read(self) -> dict[str, float]:
        return {name: tree_cpu(pid, reaped) for name, (pid, reaped) in self.pids.items()}

    def redis_io(self) -> tuple[int, int]:
        """(script calls, reads) redis-server has made so far (its INFO): over a round, the
        calls and the wake-ups of Redis a request cost (a call may be a ``TAKE_MANY`` of an
        account's several checks; a read takes whatever the workers wrote meanwhile)."""
        calls = self.redis.info("commandstats").get("cmdstat_evalsha", {}).get("calls", 0)
        return int(calls), int(self.redis.info("stats")["total_reads_processed"])


PARTS = ("server", "redis-server", "postgres", "1 ms proxy", "wrk", "rest of machine")


def log_rows_per_second(address: str, batch: int = 2048, seconds: float = 3.0) -> float:
    store = open_store(address)
    store.create_account("bench", "developer")
    key_id, _ = store.create_key("bench")
    now = time.time()
    rows = [LogRow(now + i * 1e-6, key_id, "rest", "analyze", 200, None, 100,
                   b'{"chord":"Dm7b5","key":"C"}') for i in range(batch)]
    store.write_log(rows, 30)
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        store.write_log(rows, 30)
        done += batch
    store.close()
    return done / (time.perf_counter() - start)


def counter_check_us(counters: Counters, calls: int = 20_000) -> tuple[float, float]:
    """p50 and p99 of one ``take`` (µs), one key, limits never reached."""
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        counters.take("key_bench", 1, 10**9, 1, MONTH, 10**12)
        times.append(time.perf_counter() - start)
    cuts = quantiles(times, n=100)
    return cuts[49] * 1e6, cuts[98] * 1e6


def threaded_checks(check: Callable[[int], object], threads: int = 10,
                    seconds: float = 2.0) -> float:
    """Checks a second made by ``threads`` threads at once (a WSGI worker's request threads
    are 5 on this machine; two workers)."""
    done = [0] * threads
    stop = time.perf_counter() + seconds

    def run(n: int) -> None:
        while time.perf_counter() < stop:
            check(n)
            done[n] += 1

    workers = [threading.Thread(target=run, args=(n,)) for n in range(threads)]
    start = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return sum(done) / (time.perf_counter() - start)


def machine_counters() -> SharedCounters:
    return SharedCounters(Store(str(Path(tempfile.mkdtemp()) / "c.db")))


def postgres_pid(host: str) -> int:
    """The postmaster's process id (the first line of its pid file, in its data folder)."""
    return int((Path(host) / "data" / "postmaster.pid").read_text().split("\n", 1)[0])


def counter_figures(url: str, redis_pid: int) -> None:
    """Checks a second from 10 threads: each its own round trip (redis-py's EVALSHA, the
    path before issue 40) against the pipelined ``take``; redis-server's own CPU a check,
    and this process's."""
    counters = RedisCounters(url, machine_counters())

    def alone(n: int) -> object:   # the path before issue 40: one EVALSHA, one round trip
        return counters._take(keys=(f"harmony:{{a:{n}}}:m:k:1", f"harmony:{{a:{n}}}:M:{MONTH}",
                                    f"harmony:{{a:{n}}}:V:{MONTH}"),
                              args=(10**9, 10**12, 120, 86400))

    def pipelined(n: int) -> object:
        return counters.take("k", 1, 10**9, n, MONTH, 10**12)

    for n in range(10):
        pipelined(n)  # the months exist (seeded), as on a running service
    before = threaded_checks(alone)
    pipe = getattr(counters, "pipeliner", None)   # absent before issue 40: same as ``alone``
    batches, commands = (pipe.batches, pipe.commands) if pipe else (0, 0)
    server_before, own_before = tree_cpu(redis_pid), time.process_time()
    checks_before = pipe.commands if pipe else 0
    after = threaded_checks(pipelined)
    checks = max(1, (pipe.commands if pipe else 0) - checks_before)
    server_us = (tree_cpu(redis_pid) - server_before) / checks * 1e6
    own_us = (time.process_time() - own_before) / checks * 1e6
    per_trip = (pipe.commands - commands) / max(1, pipe.batches - batches) if pipe else 1.0
    loop_checks(counters, redis_pid)
    print(f"limit checks from 10 threads at once, Redis over a unix socket: one round trip "
          f"each {before:,.0f}/s, take() {after:,.0f}/s ({per_trip:.1f} checks a round trip); "
          f"CPU a pipelined check: redis-server {server_us:.1f} µs, the client "
          f"{own_us:.1f} µs")
    counters.close()


def loop_checks(counters: RedisCounters, redis_pid: int, tick: int = 16,
                checks: int = 32_000) -> None:
    """An event loop's checks (``take_soon``, as RSGI's requests make them), ``tick`` of them
    started in each tick: redis-server's CPU a check and this process's (the client side of
    one check: packing, the write, reading the reply)."""
    async def one(n: int) -> Taken:   # the answer now (Redis away) or the check to await
        taken = counters.take_soon("k", 1, 10**9, n, MONTH, 10**12)
        return taken if isinstance(taken, Taken) else await taken

    async def run() -> None:
        for _ in range(checks // tick):
            await asyncio.gather(*(one(n) for n in range(tick)))
        await counters.aclose()

    server_before, own_before = tree_cpu(redis_pid), time.process_time()
    start = time.perf_counter()
    asyncio.run(run())
    elapsed = time.perf_counter() - start
    print(f"limit checks on an event loop, {tick} a tick: {checks / elapsed:,.0f}/s; CPU a "
          f"check: redis-server {(tree_cpu(redis_pid) - server_before) / checks * 1e6:.1f} µs, "
          f"the client {(time.process_time() - own_before) / checks * 1e6:.1f} µs")


# ---------------------------------------------------------------- a Redis that answers late


async def _delay_proxy(listen: str, upstream: str, delay: float) -> None:
    """Forward each connection on ``listen`` to ``upstream`` (unix sockets), holding each
    chunk of the answer back ``delay`` seconds (order kept: every chunk waits as long)."""
    loop = asyncio.get_running_loop()

    async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                   wait: float) -> None:
        try:
            while data := await reader.read(65536):
                if wait:
                    loop.call_later(wait, writer.write, data)
                else:
                    writer.write(data)
        finally:
            await asyncio.sleep(wait)
            writer.close()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_unix_connection(upstream)
        await asyncio.gather(pump(reader, up_writer, 0.0), pump(up_reader, writer, delay),
                             return_exceptions=True)

    server = await asyncio.start_unix_server(serve, listen)
    async with server:
        await server.serve_forever()


@contextlib.contextmanager
def delay_proxy(upstream: Path, delay: float) -> Iterator[tuple[str, int]]:
    """A proxy process in front of the Redis socket ``upstream``: its unix socket's URL and
    its process id."""
    listen = upstream.with_name("slow.sock")
    proxy = subprocess.Popen([sys.executable, __file__, "--proxy", str(listen), str(upstream),
                              str(delay)], cwd=REPO)
    try:
        deadline = time.monotonic() + 30
        while not listen.exists():
            if proxy.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the delaying proxy did not start")
            time.sleep(0.05)
        yield f"unix://{listen}", proxy.pid
    finally:
        proxy.terminate()
        proxy.wait(30)


# ---------------------------------------------------------------- the servers


class Server:
    """``harmony serve`` on ``address`` (and Redis at ``redis_url``), with one key of
    unreachable limits, and its wrk script."""

    def __init__(self, label: str, address: str, args: argparse.Namespace,
                 redis_url: str = "", code: Path = REPO) -> None:
        self.label = label
        self.tmp = Path(tempfile.mkdtemp(prefix="harmony-machines-"))
        env = {**os.environ, "HARMONY_DB": address, "HARMONY_STATE_DIR": str(self.tmp),
               "HARMONY_FLOOD_PER_MINUTE": "1000000000", "HARMONY_REDIS_URL": redis_url,
               "HARMONY_INTERFACE": args.interface,
               "PYTHONPATH": os.pathsep.join(filter(None, (str(code),
                                                           os.environ.get("PYTHONPATH"))))}

        def harmony(*command: str) -> str:
            return subprocess.run([*HARMONY, *command], env=env, cwd=code, capture_output=True,
                                  text=True, check=True, timeout=120).stdout.strip()

        harmony("accounts", "create", "bench", "--plan", "enterprise")
        harmony("accounts", "set-limits", "bench", "--per-minute", "100000000", "--per-month",
                "1000000000")
        secret = harmony("keys", "create", "bench")
        self.script = wrk_script(self.tmp, secret, [ANALYZE_BODY], 2)
        self.port = free_port()
        self.process = subprocess.Popen(
            [*HARMONY, "serve", "--port", str(self.port), "--workers", str(args.workers)],
            env=env, cwd=code, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_healthy(self.port, self.process, 180, f"{label}: the server did not start")
        self.rounds: list[tuple[float, float, float]] = []   # req/s, p99 ms, CPU µs a call
        self.parts: list[dict[str, float]] = []   # each round's CPU µs a call, by process
        self.errors = 0                           # answers not 2xx (wrk's count)
        self.redis_io: list[tuple[float, float]] = []  # Redis's script calls, reads a call
        self.address = address

    def measure(self, args: argparse.Namespace, others: Others) -> tuple[float, float, float]:
        """One wrk run; every process's CPU read before and after it (``PARTS``)."""
        before = cpu_seconds(self.process.pid)
        io_before = others.redis_io()
        side, wrk_before, busy = others.read(), children_cpu(), machine_busy()
        figures = wrk(f"http://127.0.0.1:{self.port}/v2/analyze", self.script, 2,
                      args.connections, args.seconds, refused=0.05)  # a few: said, not hidden
        self.errors += int(figures.get("ERRORS", 0))
        server = cpu_seconds(self.process.pid) - before
        spent = {"server": server, "wrk": children_cpu() - wrk_before,
                 **{name: cpu - side[name] for name, cpu in others.read().items()}}
        spent["rest of machine"] = max(0.0, machine_busy() - busy - sum(spent.values()))
        calls = figures["N"]
        self.parts.append({name: spent[name] / calls * 1e6 for name in PARTS})
        calls_made, reads = (after - at for after, at in zip(others.redis_io(), io_before,
                                                             strict=True))
        self.redis_io.append((calls_made / calls, reads / calls))
        run = (figures["rps"], figures["P99"] / 1e3, server / calls * 1e6)
        self.rounds.append(run)
        return run

    def statuses(self) -> list[tuple[int, str | None, int]]:
        """(status, error code, calls) of the answers in the server's request log."""
        store = open_store(self.address)
        try:
            return store.conn.execute(
                "SELECT status, error, count(*) FROM request_log GROUP BY status, error "
                "ORDER BY status").fetchall()
        finally:
            store.close()

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()


def spread(values: list[float]) -> str:
    return f"{median(values):.2f} (rounds {min(values):.2f}-{max(values):.2f})"


def cpu_table(servers: list[Server]) -> None:
    """Each process's CPU µs a call (medians of the rounds), the ceiling they set (2 cores
    busy: req/s <= 2 s / the CPU of a call on them all) and the ratio it allows."""
    print("\nCPU µs a call by process (medians of the rounds; 'ours' = server + redis-server "
          "+ postgres + proxy, what serving a call costs the machine, wrk apart):")
    print(f"{'':38} " + " ".join(f"{p:>15}" for p in PARTS) + f" {'ours':>7}")
    ours: list[float] = []
    for server in servers:
        figures = {p: median(r[p] for r in server.parts) for p in PARTS}
        total = sum(figures[p] for p in PARTS[:4])
        ours.append(total)
        print(f"{server.label:46} " + " ".join(f"{figures[p]:15.1f}" for p in PARTS)
              + f" {total:7.1f}")
    default = servers[0]
    wrk_cost = median(r["wrk"] for r in default.parts)
    base = ours[0] + wrk_cost
    for at in range(1, len(servers), 2):
        fast = servers[at]
        side = {p: median(r[p] for r in fast.parts) for p in PARTS}
        print(f"{fast.label}: the ratio the CPU allows (the 2 cores shared by every process, "
              f"wrk at {wrk_cost:.0f} µs a call): (default's ours + wrk) / (its ours + wrk) = "
              f"{base / (ours[at] + wrk_cost):.2f}; with its server at the default's "
              f"({ours[0]:.0f} µs), redis-server and postgres alone in the way: "
              f"{base / (base + side['redis-server'] + side['postgres']):.2f}")


def under_load(host: str, redis_url: str, slow_url: str, args: argparse.Namespace,
               others: Others) -> None:
    sqlite = str(Path(tempfile.mkdtemp(prefix="harmony-machines-")) / "h.db")
    with contextlib.ExitStack() as stack:
        servers = []
        setups = [("SQLite + this machine's counters", sqlite, "", REPO),
                  ("PostgreSQL + Redis", database(host), redis_url, REPO),
                  ("PostgreSQL + Redis answering in 1 ms", database(host), slow_url, REPO)]
        if args.compare:   # the same set-ups served by another checkout's code (before)
            setups += [(f"{label} [{args.compare.name}]", database(host), url, args.compare)
                       for label, url in (("PostgreSQL + Redis", redis_url + "?db=3"),
                                          ("PostgreSQL + Redis answering in 1 ms",
                                           slow_url.replace("?db=1", "?db=2")))]
        for label, address, url, code in setups:
            server = Server(label, address, args, url, code)
            stack.callback(server.stop)
            servers.append(server)
        for n in range(args.rounds):  # alternating order: no set-up always measured first
            for server in servers if n % 2 == 0 else servers[::-1]:
                rps, p99, cpu = server.measure(args, others)
                print(f"round {n + 1}: {server.label:46} {rps:9,.0f} req/s  p99 {p99:6.2f} ms  "
                      f"{cpu:4.0f} µs/call  load {os.getloadavg()[0]:.1f}", flush=True)
        print(f"\nmedians of {args.rounds} rounds (POST /v2/analyze, {args.interface.upper()}, "
              f"{args.workers} workers, "
              f"{args.connections} connections, {args.seconds:g} s each):")
        for server in servers:
            rps, p99, cpu = (median(r[i] for r in server.rounds) for i in range(3))
            scripts, reads = (median(r[i] for r in server.redis_io) for i in range(2))
            print(f"{server.label:46} {rps:9,.0f} req/s  p99 {p99:6.2f} ms  server CPU "
                  f"{cpu:4.0f} µs/call" + (f"  Redis: {scripts:.2f} script calls, {reads:.2f} "
                                           "reads a call" if scripts else ""))
        default = servers[0]
        for fast, slow in zip(servers[1::2], servers[2::2], strict=True):
            tag = f" [{args.compare.name}]" if fast is not servers[1] else ""
            print(f"PostgreSQL + Redis{tag} / the embedded default, throughput: " + spread(
                [f[0] / d[0] for f, d in zip(fast.rounds, default.rounds, strict=True)])
                + " (aim >= 0.8)")
            print(f"p99 with a Redis answering in 1 ms / with Redis at hand{tag}: " + spread(
                [s[1] / f[1] for s, f in zip(slow.rounds, fast.rounds, strict=True)])
                + " (aim <= 1.2); its throughput / Redis at hand's: " + spread(
                [s[0] / f[0] for s, f in zip(slow.rounds, fast.rounds, strict=True)]))
            print(f"p99 of PostgreSQL + Redis{tag} / the default's: " + spread(
                [f[1] / d[1] for f, d in zip(fast.rounds, default.rounds, strict=True)]))
        cpu_table(servers)
        for server in servers:
            if server.errors:
                print(f"{server.label}: {server.errors} answers not 2xx; the log's statuses: "
                      f"{server.statuses()}")
    print(f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--interface", choices=("wsgi", "rsgi"), default="wsgi",
                        help="granian's interface for all three (wsgi: the local profile's "
                             "default, its checks pipelined across threads; rsgi: the hosted "
                             "profile's, its checks awaited, a loop tick's in one round trip)")
    parser.add_argument("--delay-ms", type=float, default=1.0,
                        help="how late the slow Redis answers")
    parser.add_argument("--compare", type=Path, metavar="CHECKOUT",
                        help="also serve the two Redis set-ups from another checkout of the "
                             "project (e.g. a worktree of the commit before a change), in the "
                             "same rounds")
    parser.add_argument("--load-only", action="store_true",
                        help="only the three servers under load (no figures per check)")
    parser.add_argument("--proxy", nargs=3, metavar=("LISTEN", "UPSTREAM", "SECONDS"),
                        help=argparse.SUPPRESS)   # the delaying proxy's own process
    args = parser.parse_args()
    if args.proxy:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_delay_proxy(args.proxy[0], args.proxy[1], float(args.proxy[2])))
        return 0
    if pg_bin() is None or redis_binary() is None:
        print("skipped: PostgreSQL or redis-server is not installed (Debian's postgresql, "
              "redis-server)")
        return 0
    with postgres_server() as host, redis_server(free_port()) as redis, \
            delay_proxy(redis.socket, args.delay_ms / 1000) as (slow_url, proxy_pid):
        assert redis.process is not None
        others = Others(redis.process.pid, postgres_pid(host), proxy_pid, redis.url)
        if args.load_only:
            under_load(host, redis.url, slow_url + "?db=1", args, others)
            return 0
        local = machine_counters()
        print("limit check, p50 / p99 per call: this machine's file {:.1f} / {:.1f} µs".format(
            *counter_check_us(local)))
        for label, url in (("unix socket", redis.url), ("loopback TCP", redis.tcp_url),
                           (f"a unix socket, answering in {args.delay_ms:g} ms", slow_url)):
            counters = RedisCounters(url, machine_counters())
            print(f"limit check, p50 / p99 per call: Redis over {label} "
                  "{:.1f} / {:.1f} µs".format(*counter_check_us(counters, 2000)))
            counters.close()
        local.close()
        counter_figures(redis.url, redis.process.pid)
        sqlite = str(Path(tempfile.mkdtemp(prefix="harmony-machines-")) / "harmony.db")
        print(f"request log into SQLite:     {log_rows_per_second(sqlite):,.0f} rows/s "
              "(2,048-row batches, one JSON text each)")
        print(f"request log into PostgreSQL: {log_rows_per_second(database(host)):,.0f} rows/s "
              "(2,048-row batches, COPY)")
        under_load(host, redis.url, slow_url + "?db=1", args, others)
    return 0


if __name__ == "__main__":
    sys.exit(main())
