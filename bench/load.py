"""Load benchmark of the real service: ``harmony serve --workers 2`` on loopback with auth,
limits and logging on, a temporary database; beside it the granian floor (``bench/floor_app.py``,
an app that does no work) on the same settings. The service and its floor run over WSGI (the
local profile's interface) unless ``--interface rsgi``; over WSGI the RSGI floor's POST is
measured too, the floor issue 21 was written against.

Targets: GET /health, POST /v2/analyze with one repeated body (the common case of a popular
chord, answered from the worker's kept answers) and with 8,640 distinct bodies cycled so that no
answer is ever kept (every call runs the engine), the same call as an MCP tool (POST /mcp), and
the floor's GET, POST and POST answering analyze's very bytes and headers. Each gets a
sequential p50/p99 (one connection), then ``--rounds`` rounds of concurrent throughput in which
every target runs once, one after the other; each round also reads the server's CPU time per
request (all its processes, from /proc). The report gives medians, and each ratio's median and
range over the rounds, every ratio taken within one round: this machine's speed drifts between
runs (the floor's own figure by a fifth or more), and a ratio of figures taken seconds apart
is what holds still.

``--corpus-mix`` adds real traffic: every chord of the jazz-ccp corpus with its chart's key (a
chart without one is read in C), in chart order - 133,772 requests, 4,369 distinct chord/key
pairs, more than the kept answers hold - as REST analyze and as the MCP tool, each reported
beside its repeated-body figure and MCP beside REST (``../shared/corpora``; refused when absent).

Uses wrk when it is installed (``apt-get install wrk``); otherwise a small asyncio HTTP/1.1
keep-alive client. Loopback only, bounded: about 2.5 minutes with the defaults.

    .venv/bin/python bench/load.py [--rounds 3] [--seconds 5] [--connections 32] [--no-floor]
                                   [--interface wsgi|rsgi] [--corpus-mix]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median, quantiles

import orjson

REPO = Path(__file__).resolve().parent.parent
HARMONY = [sys.executable, "-m", "server.cli"]
sys.path.insert(0, str(REPO))
# One analysis, and the same call as an MCP tool (POST /mcp, tools/call analyze_chord), in the
# same run: the bodies the sized floor answers as the service does.
from bench.floor_app import ANALYZE_BODY, MCP_BODY  # noqa: E402
from engine import HarmonyError, analyze  # noqa: E402
from server.http.settings import Settings  # noqa: E402  (the repository's own, as run)
from tests.corpus_tokens import ccp_tokens  # noqa: E402

THREADS = Settings().request_threads  # harmony serve's request threads a worker over WSGI
ROOTS = ["C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"]
QUALITIES = ["", "m", "7", "maj7", "m7", "m7b5", "dim7", "6", "m6", "9", "m9", "maj9", "13",
             "7b9", "7#9", "7#11", "7alt", "sus4", "7sus4", "aug", "dim", "add9", "6/9",
             "m(maj7)", "11", "m11", "13#11", "7b13", "maj7#11", "5"]
KEYS = ROOTS + [r + "m" for r in ROOTS]
# 12 x 30 x 24 = 8,640 distinct requests, twice the kept answers (4,096): cycled, never a hit.
VARIED = [b'{"chord":"%s","key":"%s"}' % (f"{r}{q}".encode(), k.encode())
          for k, r, q in itertools.product(KEYS, ROOTS, QUALITIES)]
CORPORA = Path(os.environ.get("HARMONY_CORPORA", REPO.parent / "shared" / "corpora"))
MCP_PREFIX = MCP_BODY[:-len(ANALYZE_BODY) - 2]  # the tools/call envelope around the arguments


def corpus_mix() -> tuple[list[bytes], list[bytes], float]:
    """The jazz-ccp corpus's chords with their charts' keys, in chart order, as REST analyze
    bodies and as the same calls of the MCP tool; and the share of them REST refuses (400: a
    chart's key the engine does not read, 16 rows), which the REST run expects."""
    if not (CORPORA / "jazz-ccp").is_dir():
        raise SystemExit(f"--corpus-mix: the corpora are not at {CORPORA}")
    rest = [orjson.dumps({"chord": chord, "key": key or "C"})
            for chord, key in ccp_tokens(CORPORA)]
    refused = set()
    for body in set(rest):
        try:
            analyze(orjson.loads(body))
        except HarmonyError:
            refused.add(body)
    share = sum(body in refused for body in rest) / len(rest)
    return rest, [MCP_PREFIX + body + b"}}" for body in rest], share


@dataclass
class Run:
    p50: float = 0.0        # ms, sequential
    p99: float = 0.0
    rps: float = 0.0        # concurrent
    cpu_us: float = 0.0     # server CPU per request, concurrent run


def harmony(db: Path, *args: str) -> str:
    return subprocess.run([*HARMONY, "--db", str(db), *args], capture_output=True, text=True,
                          check=True, cwd=REPO, timeout=120).stdout.strip()


def wait_healthy(port: int, server: subprocess.Popen[bytes], seconds: float,
                 failure: str) -> None:
    """Until ``GET /health`` on ``port`` answers; ``failure`` if the server exits or
    ``seconds`` pass first."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit(failure) from None
            time.sleep(0.2)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` and all its descendants (granian's workers)."""
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(entry)] = fields
            children.setdefault(int(fields[1]), []).append(int(entry))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        if p in stats:
            total += int(stats[p][11]) + int(stats[p][12])
        todo += children.get(p, [])
    return total / os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- asyncio client


def request_bytes(path: str, secret: str, body: bytes | None) -> bytes:
    if body is None:
        return f"GET {path} HTTP/1.1\r\nhost: bench\r\nuser-agent: harmony-bench\r\n\r\n".encode()
    return (f"POST {path} HTTP/1.1\r\nhost: bench\r\nuser-agent: harmony-bench\r\n"
            f"authorization: Bearer {secret}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\n\r\n").encode() + body


async def one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: bytes) -> int:
    writer.write(raw)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    match = re.search(rb"content-length: *(\d+)", head, re.I)
    await reader.readexactly(int(match.group(1)) if match else 0)
    return status


async def sequential(port: int, raws: Sequence[bytes], n: int,
                     ok: tuple[int, ...] = (200,)) -> list[float]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    cycle = itertools.cycle(raws)
    for _ in range(200):  # warm the connection and both sides' caches
        await one(reader, writer, next(cycle))
    times = []
    for _ in range(n):
        raw = next(cycle)
        t = time.perf_counter()
        status = await one(reader, writer, raw)
        times.append(time.perf_counter() - t)
        assert status in ok, status
    writer.close()
    return times


async def concurrent(port: int, raws: Sequence[bytes], connections: int,
                     seconds: float, ok: tuple[int, ...] = (200,)) -> tuple[float, int]:
    stop = time.perf_counter() + seconds
    done = 0

    async def worker(offset: int) -> None:
        nonlocal done
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        cycle = itertools.islice(itertools.cycle(raws), offset, None)
        while time.perf_counter() < stop:
            assert await one(reader, writer, next(cycle)) in ok
            done += 1
        writer.close()

    start = time.perf_counter()
    step = max(1, len(raws) // connections)
    await asyncio.gather(*(worker(i * step) for i in range(connections)))
    return done / (time.perf_counter() - start), done


# ---------------------------------------------------------------- wrk


def wrk_script(tmp: Path, secret: str, bodies: Sequence[bytes] | None, threads: int) -> Path:
    """A wrk Lua script: the headers, and the bodies cycled from a different place per thread.
    Each thread formats its requests once, in ``init``: formatting one a request (``wrk.format``
    in ``request``) cost wrk enough of the two cores to hold the distinct-bodies target down."""
    script = tmp / f"wrk-{len(bodies or ())}.lua"
    lines = []
    if bodies:
        quoted = ",\n".join("'" + b.decode().replace("\\", "\\\\").replace("'", "\\'") + "'"
                             for b in bodies)
        lines += [
            'wrk.method = "POST"',
            f'wrk.headers["Authorization"] = "Bearer {secret}"',
            'wrk.headers["Content-Type"] = "application/json"',
            f"local bodies = {{\n{quoted}\n}}",
            "local threads = 0",
            "function setup(thread) thread:set('start', threads); threads = threads + 1 end",
            f"function init(args) i = math.floor(start * #bodies / {threads}); reqs = {{}} "
            "for j, body in ipairs(bodies) do reqs[j] = wrk.format(nil, nil, nil, body) end end",
            "function request() i = i % #reqs + 1 return reqs[i] end",
        ]
    lines.append("function done(summary, latency, requests) io.write(string.format("
                 "'P50 %d\\nP99 %d\\nN %d\\nERRORS %d\\n', latency:percentile(50), "
                 "latency:percentile(99), summary.requests, summary.errors.status)) end")
    script.write_text("\n".join(lines) + "\n")
    return script


def wrk(url: str, script: Path, threads: int, connections: int,
        seconds: float, refused: float = 0.0) -> dict[str, float]:
    """wrk's figures; ``refused``: the share of the bodies answered 4xx (no other is allowed;
    wrk counts them together, so at most twice that share, and a few, may be)."""
    out = subprocess.run(["wrk", f"-t{threads}", f"-c{connections}", f"-d{int(seconds)}s",
                          "-s", str(script), url], capture_output=True, text=True, check=True,
                         timeout=seconds + 60).stdout
    figures = {k: float(v) for k, v in re.findall(r"^(P50|P99|N|ERRORS) (\d+)", out, re.M)}
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    figures["rps"] = float(match.group(1)) if match else 0.0
    assert figures.get("ERRORS", 0) <= (2 * refused * figures.get("N", 0) + 64 if refused
                                        else 0), out
    return figures


# ---------------------------------------------------------------- one run


def sequential_latency(port: int, path: str, secret: str, bodies: Sequence[bytes] | None,
                       args: argparse.Namespace, tmp: Path,
                       refused: float = 0.0) -> tuple[float, float]:
    """p50 and p99 (ms) over one keep-alive connection, one request at a time."""
    if shutil.which("wrk"):
        seq = wrk(f"http://127.0.0.1:{port}{path}", wrk_script(tmp, secret, bodies, 1), 1, 1,
                  args.seconds, refused)
        return seq["P50"] / 1e3, seq["P99"] / 1e3
    each: list[bytes | None] = list(bodies) if bodies else [None]
    times = asyncio.run(sequential(port, [request_bytes(path, secret, b) for b in each],
                                   args.requests, (200, 400) if refused else (200,)))
    cuts = quantiles(times, n=100)
    return cuts[49] * 1e3, cuts[98] * 1e3


def throughput(port: int, path: str, secret: str, bodies: Sequence[bytes] | None,
               args: argparse.Namespace, tmp: Path,
               server_cpu: Callable[[], float], refused: float = 0.0) -> tuple[float, float]:
    """req/s with ``args.connections`` connections, and the server's CPU µs per request."""
    before = server_cpu()
    if shutil.which("wrk"):
        par = wrk(f"http://127.0.0.1:{port}{path}", wrk_script(tmp, secret, bodies, 2), 2,
                  args.connections, args.seconds, refused)
        rps, n = par["rps"], par["N"]
    else:
        each: list[bytes | None] = list(bodies) if bodies else [None]
        rps, n = asyncio.run(concurrent(port, [request_bytes(path, secret, b) for b in each],
                                        args.connections, args.seconds,
                                        (200, 400) if refused else (200,)))
    return rps, (server_cpu() - before) / n * 1e6


@dataclass
class Target:
    """One thing measured: a server, a route and its bodies; its figures of every round."""

    name: str
    port: int
    path: str
    bodies: Sequence[bytes] | None
    server_cpu: Callable[[], float]
    refused: float = 0.0   # the share of ``bodies`` answered 400 (the corpus mix's bad keys)
    rounds: list[Run] = field(default_factory=list)

    def median(self) -> Run:
        return Run(p50=self.rounds[0].p50, p99=self.rounds[0].p99,
                   rps=median(r.rps for r in self.rounds),
                   cpu_us=median(r.cpu_us for r in self.rounds))


def ratio(a: Target, b: Target) -> tuple[float, float, float]:
    """The median, lowest and highest of a's throughput over b's, round by round: the two are
    measured next to each other in each round, so the machine's drift between rounds (the
    floor itself moves by a fifth) divides out."""
    each = [x.rps / y.rps for x, y in zip(a.rounds, b.rounds, strict=True)]
    return median(each), min(each), max(each)


@contextlib.contextmanager
def floor_server(target: str, workers: int, interface: str
                 ) -> Iterator[tuple[int, Callable[[], float]]]:
    """``bench/floor_app.py``'s ``target`` on granian with ``harmony serve``'s settings for
    ``interface`` ("rsgi" or "wsgi"): its port and a reader of its CPU seconds."""
    port = free_port()
    code = ("from granian import Granian; from granian.constants import Interfaces, Loops; "
            f"Granian('bench.floor_app:{target}', address='127.0.0.1', port={port}, "
            f"workers={workers}, interface=Interfaces.{interface.upper()}, loop=Loops.uvloop"
            + (f", blocking_threads={THREADS}" if interface == "wsgi" else "") + ").serve()")
    server = subprocess.Popen([sys.executable, "-c", code], cwd=REPO,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(port, server, 60, "floor app did not start")
        yield port, lambda: cpu_seconds(server.pid)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()


def report(targets: dict[str, Target], args: argparse.Namespace) -> None:
    m = {name: t.median() for name, t in targets.items()}
    print(f"\nmedians of {args.rounds} rounds ({args.connections} connections, "
          f"{args.seconds:g} s each; p50/p99: one connection, first round):")
    for name, run in m.items():
        print(f"{name:18} sequential p50 {run.p50:.3f} ms  p99 {run.p99:.3f} ms   "
              f"{run.rps:9,.0f} req/s   server CPU {run.cpu_us:3.0f} µs/req")
    one, varied, mcp = targets["analyze"], targets["analyze, varied"], targets["mcp analyze"]
    print(f"mcp tools/call / REST analyze (one body): {fmt(ratio(mcp, one))} (aim >= 0.9); "
          f"against REST computing every call {fmt(ratio(mcp, varied))}")
    print(f"analyze / health: {fmt(ratio(one, targets['health']))}; analyze p50 "
          f"{m['analyze'].p50:.3f} ms (aim <= 0.20 ms)")
    if "floor POST" in targets:
        post, sized = targets["floor POST"], targets["floor POST, sized"]
        print(f"granian floor (no app work): POST {m['floor POST'].cpu_us:.0f} µs and GET "
              f"{m['floor GET'].cpu_us:.0f} µs of server CPU a request; answering analyze's "
              f"bytes and headers costs it {m['floor POST, sized'].cpu_us - m['floor POST'].cpu_us:.0f}"
              f" µs more; the app adds {m['analyze'].cpu_us - m['floor POST'].cpu_us:.0f} µs "
              f"to a POST and {m['health'].cpu_us - m['floor GET'].cpu_us:.0f} µs to a GET")
        print(f"analyze / floor POST ({args.interface}): {fmt(ratio(one, post))} (one body, "
              f"aim >= 0.7); varied {fmt(ratio(varied, post))}; against the floor answering "
              f"the same bytes {fmt(ratio(one, sized))}")
        mcp_sized = targets["floor MCP, sized"]
        print(f"the floor answering MCP's bytes / REST's (the ceiling the exchange's size sets "
              f"for mcp / REST): {fmt(ratio(mcp_sized, sized))}; mcp / that floor "
              f"{fmt(ratio(mcp, mcp_sized))}; the app's own CPU a call over the floor answering "
              f"the same bytes: REST {m['analyze'].cpu_us - m['floor POST, sized'].cpu_us:.0f} "
              f"µs, MCP {m['mcp analyze'].cpu_us - m['floor MCP, sized'].cpu_us:.0f} µs")
    if "analyze, corpus" in targets:
        rest, tool = targets["analyze, corpus"], targets["mcp analyze, corpus"]
        print(f"corpus mix (jazz-ccp in chart order, {len(rest.bodies or ()):,} requests, "
              f"{len(set(rest.bodies or ())):,} distinct): REST {m['analyze, corpus'].rps:,.0f} "
              f"req/s, MCP {m['mcp analyze, corpus'].rps:,.0f} req/s; MCP / REST "
              f"{fmt(ratio(tool, rest))}; against the repeated body: REST "
              f"{fmt(ratio(rest, one))}, MCP {fmt(ratio(tool, mcp))}; server CPU a call: REST "
              f"{m['analyze, corpus'].cpu_us:.0f} µs, MCP {m['mcp analyze, corpus'].cpu_us:.0f} µs")
    if "RSGI floor POST" in targets:
        print(f"analyze / RSGI floor POST (issue 21's floor): "
              f"{fmt(ratio(one, targets['RSGI floor POST']))}; the WSGI floor's POST / the "
              f"RSGI floor's: {fmt(ratio(targets['floor POST'], targets['RSGI floor POST']))}")
    print(f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


def fmt(r: tuple[float, float, float]) -> str:
    return f"{r[0]:.2f} (rounds {r[1]:.2f}-{r[2]:.2f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of the concurrent runs, every target once a round")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--requests", type=int, default=2000, help="sequential, asyncio client")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-floor", dest="floor", action="store_false",
                        help="skip the no-op granian app (bench/floor_app.py)")
    parser.add_argument("--interface", choices=("wsgi", "rsgi"), default="wsgi",
                        help="granian's interface for the service and its floor (wsgi: the "
                             "local profile's; with wsgi the RSGI floor's POST is measured too)")
    parser.add_argument("--corpus-mix", action="store_true",
                        help="add the jazz-ccp corpus's chords in chart order, REST and MCP")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="harmony-bench-"))
    db = tmp / "harmony.db"
    harmony(db, "accounts", "create", "bench", "--plan", "enterprise")
    harmony(db, "accounts", "set-limits", "bench", "--per-minute", "100000000",
            "--per-month", "1000000000")
    secret = harmony(db, "keys", "create", "bench")
    port = free_port()
    env = {**os.environ, "HARMONY_FLOOD_PER_MINUTE": "1000000000",
           "HARMONY_INTERFACE": args.interface}
    server = subprocess.Popen([*HARMONY, "--db", str(db), "serve", "--port", str(port),
                               "--workers", str(args.workers)], cwd=REPO, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with contextlib.ExitStack() as stack:
            wait_healthy(port, server, 180, "server did not start")

            def server_cpu() -> float:
                return cpu_seconds(server.pid)

            targets = {t.name: t for t in (
                Target("health", port, "/health", None, server_cpu),
                Target("analyze", port, "/v2/analyze", [ANALYZE_BODY], server_cpu),
                Target("analyze, varied", port, "/v2/analyze", VARIED, server_cpu),
                # MCP tool calls share REST's kept answers and MCP_BODY is one body, so
                # "analyze" is the like-for-like comparison, "analyze, varied" REST computing.
                Target("mcp analyze", port, "/mcp", [MCP_BODY], server_cpu))}
            if args.corpus_mix:
                rest, tool, refused = corpus_mix()
                targets["analyze, corpus"] = Target("analyze, corpus", port, "/v2/analyze",
                                                    rest, server_cpu, refused)
                targets["mcp analyze, corpus"] = Target("mcp analyze, corpus", port, "/mcp",
                                                        tool, server_cpu)
            if args.floor:
                prefix = "wsgi_" if args.interface == "wsgi" else ""
                floors = [(prefix + "app", "floor POST", args.interface),
                          (prefix + "sized", "floor POST, sized", args.interface)]
                if args.interface == "wsgi":   # the floor issue 21 was written against
                    floors.append(("app", "RSGI floor POST", "rsgi"))
                for app, name, interface in floors:
                    floor_port, floor_cpu = stack.enter_context(
                        floor_server(app, args.workers, interface))
                    if name == "floor POST":
                        targets["floor GET"] = Target("floor GET", floor_port, "/health", None,
                                                      floor_cpu)
                    targets[name] = Target(name, floor_port, "/v2/analyze", [ANALYZE_BODY],
                                           floor_cpu)
                    if name == "floor POST, sized":  # and the bytes of MCP's answer
                        targets["floor MCP, sized"] = Target(
                            "floor MCP, sized", floor_port, "/mcp", [MCP_BODY], floor_cpu)
            # Interleaved: each round measures every target once, so a ratio compares figures
            # taken a few seconds apart.
            for n in range(args.rounds):
                for t in targets.values():
                    run = Run()
                    if n == 0:
                        run.p50, run.p99 = sequential_latency(t.port, t.path, secret, t.bodies,
                                                              args, tmp, t.refused)
                    run.rps, run.cpu_us = throughput(t.port, t.path, secret, t.bodies, args,
                                                     tmp, t.server_cpu, t.refused)
                    t.rounds.append(run)
                    print(f"round {n + 1}: {t.name:18} {run.rps:9,.0f} req/s  "
                          f"{run.cpu_us:3.0f} µs/req", flush=True)
            report(targets, args)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
