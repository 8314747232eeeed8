"""The per-call CPU budget of the app, stage by stage, in one process: the app built as a
``harmony serve`` worker builds it (a SQLite store in a temporary folder, the shared counters,
Prometheus' multiprocess files), driven through its RSGI entry with a stand-in for granian's
scope and protocol. Each stage is timed on its own over many calls (the median of 7 rounds),
then the whole ``__rsgi__`` call for REST analyze, the MCP tools/call of the same analysis and
GET /health. ``docs/request-path.md`` holds the table and what the load test adds on top
(granian, the event loop, the background writer).

    .venv/bin/python bench/run_request_budget.py

``--drive rest|mcp|health|floor --calls N`` only makes N whole calls of one kind, after one
warm-up call, and prints nothing: the program ``bench/run_instructions.py`` counts under
valgrind. ``floor`` is ``bench/floor_app.py``'s POST (an app that does no work) through the same
stand-ins: what the driver and the coroutine alone cost, to subtract from the others.
``wsgi-rest``, ``wsgi-mcp`` and ``wsgi-floor`` are the same calls through the WSGI entry
(``HarmonyApp.wsgi``, and the floor's ``wsgi_app``) with an environ as granian makes it.
``--drive KIND --opcodes`` makes the calls, then runs one more under ``sys.settrace`` and prints
the bytecodes it ran, by function and (with ``--lines``) by line: where a call's Python goes,
which neither a timer nor callgrind (which sees only the interpreter's C) can rank.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import io
import itertools
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CALLS = 20_000
# Rows queued before they are taken, as the background writer takes them every 0.25 s from a
# worker answering ~14k calls a second. Never emptied, the queue grew to its 100,000-row cap
# and the collector's passes over it were charged to whatever allocated next (orjson.loads
# of an MCP body measured 2.4 µs in the pipeline against 0.4 µs alone).
FLUSHED_AT = 3_500


DRIVES = ("rest", "mcp", "health", "floor", "wsgi-rest", "wsgi-mcp", "wsgi-floor")


class Headers(dict[str, str]):
    """granian's headers object: ``items()`` and ``get``."""


class Scope:
    def __init__(self, method: str, path: str, headers: dict[str, str]) -> None:
        self.method, self.path, self.client = method, path, "127.0.0.1:40000"
        self.query_string = ""
        self.headers = Headers(headers)


class Protocol:
    """granian's RSGI protocol: the body in one await, the answer in one call."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.status = 0

    async def __call__(self) -> bytes:
        return self.body

    def response_bytes(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.status = status

    def response_empty(self, status: int, headers: list[tuple[str, str]]) -> None:
        self.status = status


def print_opcodes(call: Callable[[], Any], by_line: bool) -> None:
    """The bytecodes one ``call`` runs, by function (``file:function``, a dataclass's generated
    ``__init__`` named by its class) or by line, most first, and their total."""
    counts: collections.Counter[str] = collections.Counter()

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        if event == "opcode":
            code = frame.f_code
            name = code.co_name
            if code.co_filename == "<string>" and "self" in frame.f_locals:
                name = f"{type(frame.f_locals['self']).__name__}.{name}"
            where = f"{Path(code.co_filename).name}:{name}"
            counts[f"{where}:{frame.f_lineno}" if by_line else where] += 1
        return trace

    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(None)
    for where, n in counts.most_common():
        print(f"{n:6d}  {where}")
    print(f"{sum(counts.values()):6d}  in all")


def per_call_us(fn: Callable[[], Any], calls: int = CALLS) -> float:
    rounds = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        rounds.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(rounds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drive", choices=DRIVES,
                        help="only make --calls whole calls of this kind, then stop")
    parser.add_argument("--calls", type=int, default=CALLS)
    parser.add_argument("--pause", action="store_true",
                        help="with --drive: say 'ready' and wait for a line on the standard "
                             "input before the calls, say 'done' and wait again after them")
    parser.add_argument("--opcodes", action="store_true",
                        help="with --drive: print the bytecodes one more call runs, by function")
    parser.add_argument("--lines", action="store_true", help="with --opcodes: by line")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="harmony-budget-"))
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(tmp / "metrics")
    (tmp / "metrics").mkdir()
    from engine import analyze
    from server.accounts import Store
    from server.http.app import build_app
    from server.http.context import Context
    from server.http.settings import Settings

    db = str(tmp / "harmony.db")
    store = Store(db)
    store.migrate()
    store.create_account("bench", "enterprise")
    store.set_limits("bench", 10**9, 10**12)
    _, secret = store.create_key("bench")
    settings = Settings.from_env()
    settings = type(settings)(**{**settings.__dict__, "db_path": db, "workers": 2,
                                 "flood_per_minute": 10**12})
    app = build_app(settings, store)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(app.startup())
    from server.http import heap
    heap.settle()  # as a worker does when granian starts it (``__rsgi_init__``)
    # bench/load.py's bodies (an analysis, the same as an MCP tool call) and the floor apps
    from bench.floor_app import ANALYZE_BODY as BODY
    from bench.floor_app import MCP_BODY
    from bench.floor_app import app as floor_app
    from bench.floor_app import wsgi_app as wsgi_floor_app

    headers = {"authorization": f"Bearer {secret}", "content-type": "application/json",
               "user-agent": "harmony-bench", "content-length": str(len(BODY)),
               "host": "bench"}
    # An MCP client numbers its requests: the calls cycle through ids 1000-1999 (one length,
    # so one content-length), as a client's would, never the same body twice in a row.
    assert MCP_BODY.count(b'"id":1,') == 1
    mcp_bodies = [MCP_BODY.replace(b'"id":1,', b'"id":%d,' % i) for i in range(1000, 2000)]
    mcp_headers = {**headers, "content-length": str(len(mcp_bodies[0])),
                   "accept": "application/json, text/event-stream"}

    def call(method: str, path: str, hdrs: dict[str, str], body: bytes | list[bytes],
             target: Any = app) -> Callable[[], Any]:
        bodies = itertools.cycle([body] if isinstance(body, bytes) else body)

        def run() -> None:
            if len(app.log.queue) >= FLUSHED_AT:  # as the writer takes them under load
                app.log.queue.clear()
            protocol = Protocol(next(bodies))
            coro = target.__rsgi__(Scope(method, path, hdrs), protocol)
            with contextlib.suppress(StopIteration):
                coro.send(None)      # nothing in the pipeline really waits: one step
            assert protocol.status == 200, protocol.status
        return run

    def wsgi_call(path: str, hdrs: dict[str, str], body: bytes | list[bytes],
                  target: Callable[..., list[bytes]] = app.wsgi) -> Callable[[], Any]:
        """The same call through the WSGI entry, with an environ as granian makes it."""
        bodies = [body] if isinstance(body, bytes) else body
        cycle = itertools.cycle(bodies)
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": path, "QUERY_STRING": "",
                   "REMOTE_ADDR": "127.0.0.1", "CONTENT_LENGTH": str(len(bodies[0]))}
        environ.update({"HTTP_" + k.upper().replace("-", "_"): v for k, v in hdrs.items()
                        if k != "content-length"})
        answered: list[str] = []

        def start_response(status: str, headers: list[tuple[str, str]]) -> None:
            answered.append(status)

        def run() -> None:
            if len(app.log.queue) >= FLUSHED_AT:
                app.log.queue.clear()
            target({**environ, "wsgi.input": io.BytesIO(next(cycle))}, start_response)
            assert answered.pop() == "200 OK"
        return run

    rows: list[tuple[str, float]] = []
    rest, mcp = call("POST", "/v2/analyze", headers, BODY), call("POST", "/mcp", mcp_headers,
                                                                 mcp_bodies)
    health = call("GET", "/health", {"host": "bench"}, b"")
    floor = call("POST", "/v2/analyze", headers, BODY, floor_app)
    wsgi_rest = wsgi_call("/v2/analyze", headers, BODY)
    wsgi_mcp = wsgi_call("/mcp", mcp_headers, mcp_bodies)
    wsgi_floor = wsgi_call("/v2/analyze", headers, BODY, wsgi_floor_app)
    for fn in (rest, mcp, health, floor, wsgi_rest, wsgi_mcp, wsgi_floor):
        fn()
    if args.drive:
        drive = {"rest": rest, "mcp": mcp, "health": health, "floor": floor,
                 "wsgi-rest": wsgi_rest, "wsgi-mcp": wsgi_mcp,
                 "wsgi-floor": wsgi_floor}[args.drive]
        if args.pause:
            print("ready", flush=True)
            sys.stdin.readline()
        for _ in range(args.calls):
            drive()
        if args.pause:
            print("done", flush=True)
            sys.stdin.readline()
        if args.opcodes:
            print_opcodes(drive, args.lines)
        app.log.queue.clear()
        loop.run_until_complete(app.shutdown())
        return 0

    # the stages of one REST analyze call, each alone
    def ctx() -> Context:
        return Context("POST", "/v2/analyze", headers, "127.0.0.1", time.perf_counter())

    c = ctx()
    app.guard(c)
    route = c.route
    assert route is not None and route.answer is not None
    key = c.key
    assert key is not None
    rows.append(("Context", per_call_us(
        lambda: Context("POST", "/v2/analyze", headers, "127.0.0.1", time.perf_counter()))))
    rows.append(("flood throttle", per_call_us(lambda: app.flood.check("127.0.0.1"))))
    rows.append(("route, CORS, User-Agent, size guards", per_call_us(
        lambda: (lambda x: (app._route_guard(x), app._cors_guard(x), app._user_agent_guard(x),
                            app._size_guard(x)))(ctx())) - per_call_us(ctx)))
    rows.append(("key (cached lookup by the header)", per_call_us(
        lambda: app.auth.authenticate(headers["authorization"]))))
    rows.append(("limits: minute + month (shared counters)",
                 per_call_us(lambda: app.limiter.admit(key))))
    rows.append(("handler: kept answer", per_call_us(lambda: route.answer(BODY))))
    rows.append(("engine analyze (not kept)", per_call_us(
        lambda: analyze({"chord": "Dm7b5", "key": "C"}))))
    admission = app.limiter.admit(key)
    rows.append(("settle + quota headers", per_call_us(
        lambda: admission.settle(app.counters, 200))))
    rows.append(("metrics (batched, published each 0.25 s)", per_call_us(
        lambda: app.metrics.observe("/v2/analyze", 200, 0.0001))))
    from server.accounts import LogRow
    # made as the pipeline makes it: from its values' tuple, in LogRow's order
    rows.append(("log row queued", per_call_us(lambda: app.log.record(tuple.__new__(LogRow, (
        time.time(), "k", "rest", "analyze", 200, None, 100, BODY, None))))))
    app.log.queue.clear()
    from server.api import Response
    from server.http import rsgi
    response = Response(200, b"{}", admission.settle(app.counters, 200))
    rows.append(("answer: headers to granian", per_call_us(
        lambda: rsgi.answer(Protocol(b""), "POST", response))))
    total = sum(us for _, us in rows) - dict(rows)["engine analyze (not kept)"]
    rows.append(("sum of the stages (REST, kept answer)", total))
    rows.append(("whole __rsgi__: POST /v2/analyze", per_call_us(rest)))
    rows.append(("whole __rsgi__: POST /mcp tools/call analyze_chord", per_call_us(mcp)))
    rows.append(("whole __rsgi__: GET /health", per_call_us(health)))
    rows.append(("whole __rsgi__: the floor app's POST (the driver's share)", per_call_us(floor)))
    rows.append(("whole WSGI call: POST /v2/analyze", per_call_us(wsgi_rest)))
    rows.append(("whole WSGI call: POST /mcp tools/call analyze_chord", per_call_us(wsgi_mcp)))
    rows.append(("whole WSGI call: the floor app's POST (the driver's share)",
                 per_call_us(wsgi_floor)))
    app.log.queue.clear()
    loop.run_until_complete(app.shutdown())
    width = max(len(n) for n, _ in rows)
    print(f"{'stage':{width}}  µs per call")
    for name, us in rows:
        print(f"{name:{width}}  {us:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
