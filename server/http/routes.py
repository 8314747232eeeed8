"""Routes as data, and their handlers: an operation's route answers through its answerer
(``server.api``: decode, validate, call the engine, encode); the meta routes read the service.
Handlers see the app only through the ``Service`` protocol of ``server.http.context``. A handler
returns its ``Response``, or an awaitable of it when it must wait (a render, an MCP batch)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Mapping
from typing import Any

import orjson

from engine.errors import InvalidRequest
from server.api import MAX_DEPTH, SHALLOW, Operation, Response, answerer, depth
from server.http.context import Context, Handler, Route, Service
from server.http.render import render_handler
from server.mcp import Gate
from server.web import PAGE_ROUTES, PageRequest


def operation_handler(app: Service, ctx: Context, body: bytes) -> Response:
    assert ctx.route is not None and ctx.route.answer is not None
    return Response(200, ctx.route.answer(body))


def health_handler(app: Service, ctx: Context, body: bytes) -> Response:
    return Response(200, app.health_body)


INDEX_BODY = orjson.dumps({
    "service": "harmony", "health": "/health", "openapi": "/openapi.json", "mcp": "/mcp",
    "metrics": "/metrics", "account": "/account (keys and usage; sign in with a link from "
    "harmony accounts login-link NAME)", "operations": "POST /v2/<operation> with 'Authorization: Bearer "
    "<key>': analyze, resolve, voicing, reharmonize, conduct, render, compose, search",
    "docs": "the README and docs/ of the harmony engine repository"})


def index_handler(app: Service, ctx: Context, body: bytes) -> Response:
    """``GET /``: where things are, instead of a bare 404 (no key needed)."""
    return Response(200, INDEX_BODY)


def openapi_handler(app: Service, ctx: Context, body: bytes) -> Response:
    return Response(200, app.openapi_body)


def metrics_handler(app: Service, ctx: Context, body: bytes) -> Response:
    text, content_type = app.metrics.render()
    return Response(200, text, content_type=content_type)


def mcp_handler(app: Service, ctx: Context, body: bytes) -> Response | Awaitable[Response]:
    """POST /mcp: the body goes to the app's ``McpEndpoint`` (``server.mcp``), which calls back
    ``app.mcp_gate`` (with ``ctx``) for the key, limits, quota and log of each tool call, and
    ``app.throttle`` for each element of a batch after the first. The endpoint's ``Reply`` is
    the response. Only a batch waits (its elements yield the worker between them): it alone
    is answered by a coroutine. A body nested deeper than API.md 9 allows is refused first,
    as on REST (a tool's arguments 254 deep made orjson's encoder fail: a 500)."""
    if len(body) > SHALLOW and depth(body) > MAX_DEPTH:
        raise InvalidRequest(f"the request body nests arrays and objects deeper than "
                             f"{MAX_DEPTH} levels")
    reply = app.mcp.answer(ctx.method, ctx.headers, body, app.mcp_gate, ctx)
    if isinstance(reply, list):
        return _mcp_batch(app, ctx, reply, app.mcp_gate)
    ctx.error = reply.error  # a JSON-RPC failure's contract error, for the log row
    return reply


async def _mcp_batch(app: Service, ctx: Context, messages: list[Any], gate: Gate | None
                     ) -> Response:
    reply = await app.mcp.batch(messages, ctx.headers, gate,
                                functools.partial(app.throttle, ctx.client), ctx)
    ctx.error = reply.error
    return reply


def page_handler(app: Service, ctx: Context, body: bytes) -> Response:
    """The account page (``server.web``): HTML, its own session; no key, never logged."""
    return app.pages.answer(PageRequest(ctx.method, ctx.path, ctx.query, ctx.headers, body))


# Operations whose route is not a plain answerer: a render runs in the job pool.
HANDLERS: dict[str, Handler] = {"render": render_handler}


def build_routes(operations: Mapping[str, Operation], max_body: int) -> dict[str, Route]:
    """The service's routes; ``max_body`` is the service's body cap, each route's own unless
    its operation has a larger one (1 MiB on /v2/render and /v2/compose). A route whose handler
    is a coroutine function waits on the event loop (a render, for its process pool): over
    WSGI it runs on the worker's loop thread (``Route.waits``)."""

    def route(path: str, methods: frozenset[str], handler: Handler, **fields: Any) -> Route:
        return Route(path, methods, handler, waits=inspect.iscoroutinefunction(handler),
                     **{"max_body": max_body, **fields})

    routes = [
        route("/", frozenset({"GET", "HEAD"}), index_handler),
        route("/health", frozenset({"GET", "HEAD"}), health_handler),
        route("/openapi.json", frozenset({"GET", "HEAD"}), openapi_handler),
        route("/metrics", frozenset({"GET", "HEAD"}), metrics_handler),
        route("/mcp", frozenset({"POST"}), mcp_handler, surface="mcp"),
    ]
    routes += [route(path, methods, page_handler, page=True)
               for path, methods in PAGE_ROUTES.items()]
    routes += [route(op.path, frozenset({"POST"}), HANDLERS.get(op.name, operation_handler),
                     surface="rest", needs_key=True, operation=op,
                     answer=None if op.name in HANDLERS else answerer(op),
                     max_body=max_body if op.max_body is None else op.max_body)
               for op in operations.values() if op.available]
    return {r.path: r for r in routes}
