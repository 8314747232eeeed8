"""The application: routes as data, the guards in one visible chain, one error table.

    build_app(settings, store=None, operations=None) -> HarmonyApp

``HarmonyApp`` is a plain ASGI app (the tests drive it through httpx) and also speaks granian's
RSGI and WSGI, which ``harmony serve`` uses (WSGI in the local profile, RSGI in the hosted one:
``server.http.wsgi``); all three enter the same pipeline, ``_respond``. A request
passes the guards of ``HarmonyApp.guard`` (``server.http.guards``) in order (flood throttle,
route, CORS, User-Agent policy, declared body size, key, limits); any guard may answer early. The body of a POST is
then read (never more than 64 KiB, or its route's own cap; over RSGI a declared body within
64 KiB is asked for as soon as the size guard admits it), the route's handler runs, and
``_finish`` adds the CORS and quota headers, settles the monthly quota, queues the log row and
observes metrics. A refusal is an error raised by a guard, so its log row carries its code. An
answer the key guard did not see (a refusal made before it, an /mcp exchange without a tool
call) still gets the quota headers and its log row the key id when the request holds a valid
key (counting nothing), on REST and /mcp alike. The flood throttle's refusal is the exception:
a throttle must stay cheap, so it is counted in the metrics (``throttle``), with no key lookup,
no quota headers, no log row.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import multiprocessing.util
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import orjson

from engine.errors import (
    HarmonyError,
    InvalidChord,
    Unavailable,
)
from engine.version import GRID_VERSION, PACKAGE_VERSION
from server.accounts import (
    Authenticator,
    Counters,
    FloodThrottle,
    KeyWatch,
    Limiter,
    LogRow,
    Metrics,
    RequestLog,
    SharedCounters,
    SignIn,
    Store,
    counters_in_redis,
    from_values,
    open_store,
    outage_errors,
)
from server.api import (
    OPERATIONS,
    ClientDisconnected,
    Operation,
    Response,
    error_response,
    internal_error,
    with_corpus,
)
from server.http import asgi, heap, rsgi, wsgi
from server.http.asgi import Receive
from server.http.context import Context
from server.http.gateway import Gateway
from server.http.guards import WITH_BODY, Guards
from server.http.mcp_gate import McpGate
from server.http.openapi import openapi_document
from server.http.render import render_pool
from server.http.routes import build_routes
from server.http.settings import Settings
from server.mcp import SERVICE_ERROR, Gate, McpEndpoint, error_body, tool_table
from server.web import AccountPages

Scope = dict[str, Any]
Send = Callable[[dict[str, Any]], Awaitable[None]]



class HarmonyApp(Guards):
    loop_thread: wsgi.LoopThread  # over WSGI only (``start_wsgi``)

    def __init__(self, settings: Settings, store: Store, operations: Mapping[str, Operation],
                 clock: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic,
                 counters: Counters | None = None) -> None:
        self.settings = settings
        self.store = store
        self.routes = build_routes(operations, settings.max_body)
        self.gateway = Gateway(settings.cors_origins, settings.user_agent_policy,
                               allow_loopback=settings.profile == "local")
        self.auth = Authenticator(store, settings.key_cache_seconds, monotonic,
                                  settings.store_timeout)
        self.key_watch = KeyWatch(self.auth)  # revocations from elsewhere, within a second
        self.metrics = Metrics()
        self.counters = counters or _counters(settings, store, self.metrics)
        self.limiter = Limiter(self.counters, clock)
        self.flood = FloodThrottle(settings.flood_per_minute, settings.workers, clock)
        self.jobs = render_pool(settings)
        # The account page (API.md §15): sessions on the app's clock; the month's use as the
        # limiter counts it; a key revoked there leaves this worker's key cache at once.
        self.pages = AccountPages(store, SignIn(store, clock), self.limiter.month_used,
                                  self.auth.forget, secure=settings.profile == "hosted")
        # The writer also persists the monthly totals, in the same background thread.
        self.log = RequestLog(store, settings.log_flush_seconds, settings.retention_days,
                              also=self.counters.flush, on_drop=self.metrics.log_dropped.inc,
                              before=self.metrics.publish, log_days=settings.log_days)
        self.health_body = orjson.dumps({"status": "ok", "version": PACKAGE_VERSION,
                                         "grid": GRID_VERSION})
        available = [r.operation for r in self.routes.values() if r.operation]
        self.openapi_body = orjson.dumps(openapi_document(available, auth=settings.auth))
        # Built once (tools/list is pre-encoded); tool calls share the routes' kept answers.
        answers = {r.operation.name: r.answer for r in self.routes.values()
                   if r.operation and r.answer}
        self.mcp = McpEndpoint(tool_table([op for op in available if op.hosted_tool], answers))
        # keys, limits, quota and log of each tool call; none in the --no-auth mode
        self.mcp_gate: Gate | None = McpGate(self) if settings.auth else None

    # ------------------------------------------------------------------ ASGI

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "lifespan":
            await self._lifespan(receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", ())}
        client = scope.get("client")
        ctx = Context(scope["method"], scope["path"], headers,
                      client[0] if client else "unknown", time.perf_counter(),
                      scope.get("query_string", b"").decode("latin-1"), asgi.Body(receive),
                      on_loop=True)
        response = await self._respond(ctx)
        if response is None:
            return
        await send({"type": "http.response.start", "status": response.status,
                    "headers": response.raw_headers()})
        await send({"type": "http.response.body",
                    "body": b"" if ctx.method == "HEAD" else response.body})

    # ------------------------------------------------------------------ RSGI (granian)
    # ``harmony serve`` runs granian's RSGI interface in the hosted profile: the same pipeline,
    # but the answer leaves in one synchronous call instead of two awaited ASGI sends. On this
    # 2-core machine with a no-op app: sequential p50 72 µs (GET) / 108 µs (POST) against
    # 204 / 285 µs over ASGI.

    async def __rsgi__(self, scope: Any, protocol: Any) -> None:
        headers = scope.headers
        body = rsgi.Body(protocol, headers)
        ctx = Context(scope.method, scope.path, headers, rsgi.client_host(scope.client),
                      time.perf_counter(), scope.query_string, body, on_loop=True)
        response = await self._respond(ctx)
        if response is not None:
            rsgi.answer(protocol, ctx.method, response)
        body.abandon()

    def __rsgi_init__(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.run_until_complete(self.startup())
        heap.settle()

    def __rsgi_del__(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.run_until_complete(self.shutdown())

    # ------------------------------------------------------------------ WSGI (granian)
    # The same pipeline again, called on granian's blocking threads: one thread hand-over a
    # request instead of RSGI's three-thread round trips (``server.http.wsgi``).

    def wsgi(self, environ: wsgi.Environ, start_response: Any) -> list[bytes]:
        path = environ["PATH_INFO"]
        ctx = Context(environ["REQUEST_METHOD"], path, wsgi.Headers(environ),
                      environ.get("REMOTE_ADDR") or "unknown", time.perf_counter(),
                      environ.get("QUERY_STRING", ""), wsgi.Body(environ))
        route = self.routes.get(path)
        if route is not None and route.waits:  # on the worker's loop, this thread waiting
            response = self.loop_thread.run(self._respond(ctx))
        else:
            response = wsgi.run(self._respond(ctx))
        if response is None:  # the client has gone: nothing to answer
            start_response("499 Client Closed Request", [])
            return []
        return wsgi.answer(start_response, ctx.method, response)

    def start_wsgi(self) -> None:
        """Start the app for the WSGI interface: its loop thread, the log writer on it (the
        startup RSGI's ``__rsgi_init__`` and ASGI's lifespan run), the heap settled."""
        self.loop_thread = wsgi.LoopThread()
        self.loop_thread.run(self.startup())
        heap.settle()

    def stop_wsgi(self) -> None:
        """The shutdown (the log's last rows written), then the loop thread's end."""
        self.loop_thread.run(self.shutdown())
        self.loop_thread.stop()

    # ------------------------------------------------------------------ the pipeline

    async def _respond(self, ctx: Context) -> Response | None:
        """Guards, body, handler and ``_finish``; None when the client has gone."""
        response: Response | None = None
        try:
            response = self.guard(ctx)
            if ctx.pending is not None:  # the limit check in flight (on a loop, Redis)
                if ctx.method in WITH_BODY and ctx.route is not None \
                        and self._declared_within(ctx):
                    # the body, already on its way (the size guard started it), is awaited
                    # first: the check's reply is then mostly back, and awaiting it does not
                    # suspend the request a second time
                    try:
                        ctx.body = await ctx.reader.read(ctx.route.max_body)
                        ctx.body_read = True
                    finally:    # settled by the handlers below if the read failed
                        ctx.admission, ctx.pending = await ctx.pending, None
                else:
                    ctx.admission, ctx.pending = await ctx.pending, None
                if ctx.admission.error is not None:
                    raise ctx.admission.error
            if response is None:
                assert ctx.route is not None
                if ctx.method in WITH_BODY and not ctx.body_read:
                    ctx.body = await ctx.reader.read(ctx.route.max_body)
                answered = ctx.route.handler(self, ctx, ctx.body)
                # a handler that must wait gives an awaitable: only then a coroutine runs
                response = answered if isinstance(answered, Response) else await answered
        except ClientDisconnected:
            if ctx.admission is not None:  # nothing was served: the month's unit goes back
                ctx.admission.settle(self.counters, 499)
            return None
        except HarmonyError as exc:
            ctx.error = exc
            if exc.code in _ECHO_ID_ON and ctx.method == "POST" and not ctx.body \
                    and ctx.route is not None and ctx.route.surface == "mcp":
                # a JSON-RPC error answers the request's id, as /mcp's key refusals do:
                # read the (size-checked) body of a policy refusal to find it
                with contextlib.suppress(HarmonyError, ClientDisconnected):
                    ctx.body = await ctx.reader.read(ctx.route.max_body)
            response = _refusal(ctx, exc)
        except outage_errors() as exc:  # the store could not answer (a page, a sign-in)
            print(f"harmony: store unavailable: {type(exc).__name__}: {exc}".splitlines()[0],
                  file=sys.stderr)  # one line, no traceback: an outage is not a bug
            ctx.error = Unavailable("the account store is unavailable; try again shortly",
                                    retryAfter=1)
            response = _refusal(ctx, ctx.error)
        except Exception as exc:
            # One line with a request id in the server's log (no traceback per request: a
            # flood of bad requests must not flood the disk); the client learns the code and id.
            ctx.error = internal_error(exc, f"{ctx.method} {ctx.path}")
            response = _refusal(ctx, ctx.error)
        self._finish(ctx, response)
        return response

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self.startup()
                    heap.settle()
                except Exception as exc:
                    await send({"type": "lifespan.startup.failed", "message": repr(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def startup(self) -> None:
        """Warm the numba kernels (so the first request is as fast as the rest) and start the
        log writer."""
        with contextlib.suppress(ModuleNotFoundError):
            warm_up = getattr(importlib.import_module("engine.voicing"), "warm_up", None)
            if callable(warm_up):
                warm_up()
        self.log.start()
        if self.settings.auth:
            self.key_watch.start()

    async def shutdown(self) -> None:
        self.key_watch.stop()
        self.auth.close()
        await self.log.stop()
        self.jobs.close()
        close_on_loop = getattr(self.counters, "aclose", None)  # Redis: the loop's connection
        if close_on_loop is not None:
            await close_on_loop()
        self.store.close()   # a PostgreSQL store's pool; SQLite: this thread's connection

    # ------------------------------------------------------------------ after the answer

    def _finish(self, ctx: Context, response: Response) -> None:
        origin = ctx.headers.get("origin")
        if origin is not None and response.status != 204 and self.gateway.origin_allowed(origin):
            response.headers += self.gateway.cors_headers(origin)
        route = ctx.route or self.routes.get(ctx.path)
        # A flood refusal (counted by ``throttle``) must stay cheap: no key lookup, no log row.
        if ctx.key is None and route is not None and route.surface is not None \
                and self.settings.auth and not (ctx.logged or ctx.flooded):
            self._identify(ctx)
        if ctx.admission is not None:
            response.headers += ctx.admission.settle(self.counters, response.status)
        if ctx.extra_headers:
            response.headers += ctx.extra_headers
        response.headers.append(NOSNIFF)  # every answer: API, 404, pages, /health, OpenAPI
        elapsed = time.perf_counter() - ctx.started
        self.metrics.observe(route.path if route else "unmatched", response.status, elapsed)
        if route is not None and route.surface is not None and not (ctx.logged or ctx.flooded):
            error = ctx.error
            self.log.record(from_values(LogRow, (  # in LogRow's order
                time.time(), ctx.key.key_id if ctx.key else None, route.surface,
                route.operation.name if route.operation is not None else None,
                response.status, error.code if error else None, int(elapsed * 1e6),
                ctx.body if self.settings.store_bodies and ctx.body else None,
                error.symbol if isinstance(error, InvalidChord) else None)))

    def _identify(self, ctx: Context) -> None:
        """The valid key of a REST or /mcp request whose key was not checked, for its log row
        and the quota headers (API.md §10: every answer to a request with a valid key carries
        them). Gets here: the refusals made before the key guard (405, 403, 413) and the /mcp
        exchanges no tool call's gate logged (initialize, tools/list, an unknown tool,
        arguments that are not an object, a batch without a tool call, a body that is not
        JSON-RPC), so ``harmony usage`` attributes them. The key lookup is the cached one and
        the headers are peeked: nothing is counted, so such a call never spends the key's
        minute or month. (A REST 401 gets here too and fails the cached lookup again.)"""
        authorization = ctx.headers.get("authorization")
        if not authorization:
            return
        try:
            ctx.key = self.auth.authenticate(authorization)
        except HarmonyError:
            return
        ctx.admission = self.limiter.peek(ctx.key)


NOSNIFF = ("x-content-type-options", "nosniff")



_ECHO_ID_ON = frozenset({"blocked_user_agent", "forbidden_origin"})


def _counters(settings: Settings, store: Store, metrics: Metrics) -> Counters:
    """The limit counters: in Redis with ``HARMONY_REDIS_URL`` (this machine's as the
    fallback), else this machine's own, shared by its workers."""
    if settings.redis_url:
        return counters_in_redis(settings.redis_url, store, settings.machines,
                                 metrics.counter_fallbacks.inc, settings.store_timeout)
    return SharedCounters(store)


def _refusal(ctx: Context, error: HarmonyError) -> Response:
    """The error answer of a refused request: REST's error body, or on ``/mcp`` the same error
    object inside a JSON-RPC error (as a key refusal there already is), with the request's id
    when its body was read and holds one, and REST's status and headers either way."""
    response = error_response(error)
    if ctx.route is not None and ctx.route.surface == "mcp":
        response.body = error_body(_request_id(ctx.body), SERVICE_ERROR, error.message,
                                   error.to_dict()["error"])
    return response


def _request_id(body: bytes) -> int | str | None:
    try:
        message = orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        return None
    rid = message.get("id") if isinstance(message, dict) else None
    return rid if isinstance(rid, int | str) and not isinstance(rid, bool) else None





def build_app(settings: Settings | None = None, store: Store | None = None,
              operations: Mapping[str, Operation] | None = None, *,
              clock: Callable[[], float] = time.time,
              monotonic: Callable[[], float] = time.monotonic) -> HarmonyApp:
    settings = settings or Settings.from_env()
    table = with_corpus(OPERATIONS if operations is None else operations, settings.corpus)
    return HarmonyApp(settings, store or open_store(settings.db_path), table, clock, monotonic)


def make_app() -> HarmonyApp:
    """The granian factory: settings from the environment ``harmony serve`` prepared."""
    return build_app(Settings.from_env())


def make_wsgi_app() -> Callable[[wsgi.Environ, Any], list[bytes]]:
    """The granian factory of the WSGI interface: the app started, stopped when its worker
    process ends (granian's worker returns once its last request is answered; a
    ``multiprocessing`` finalizer then runs the shutdown, which writes the log's last rows)."""
    app = build_app(Settings.from_env())
    app.start_wsgi()
    # Before multiprocessing's own finalizers (priority 10 closes a queue's feeder: the render
    # pool's would then never hear its shutdown, and the worker would wait for it forever).
    multiprocessing.util.Finalize(app, app.stop_wsgi, exitpriority=100)
    return app.wsgi
