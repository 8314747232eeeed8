"""Routes as data, and their handlers: an operation's route answers through its answerer
(``server.api``: decode, validate, call the engine, encode); the meta routes read the service.
Handlers see the app only through the ``Service`` protocol of ``server.http.context``. A handler
returns its ``Response``, or an awaitable of it when it must wait (a render, an MCP batch)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Mapping
from typing import Any

from engine.errors import InvalidRequest, NotFound
from server.accounts import NEEDS_KEY
from server.api import MAX_DEPTH, SHALLOW, Operation, Response, answerer, depth, error_response
from server.http.context import Context, Handler, Route, Service
from server.http.render import render_handler
from server.mcp import Gate, Reply
from server.web import PAGE_ROUTES, PageRequest


def operation_handler(app: Service, ctx: Context, body: bytes) -> Response:
    assert ctx.route is not None and ctx.route.answer is not None
    return Response(200, ctx.route.answer(body))


def health_handler(app: Service, ctx: Context, body: bytes) -> Response:
    return Response(200, app.health_body)


# API.md 8: ``GET /`` answers 404, as the original service did, with the contract's error body
# (API.md 9) whose message says where things are (no key needed).
INDEX_ERROR = NotFound(
    "no resource at /: GET /health (status), GET /openapi.json (the REST API), POST /mcp (MCP "
    "over streamable HTTP), POST /v2/<operation> with 'Authorization: Bearer <key>' (analyze, "
    "resolve, identify, voicing, reharmonize, conduct, render, compose, search), /account (keys and "
    "usage); docs: the README and docs/ of the harmony engine repository")


def index_handler(app: Service, ctx: Context, body: bytes) -> Response:
    """``GET /``: 404 ``not_found`` whose message points to the other routes."""
    return error_response(INDEX_ERROR)


# Where an OAuth-capable MCP client looks after a 401 (the MCP authorization spec: RFC 9728's
# protected-resource metadata, at the root and under the endpoint's path; RFC 8414's and
# OpenID's server metadata; then, finding none, the 2025-03-26 fallback endpoints at the root).
# Each answers 404 saying that this service takes API keys, not OAuth: the TypeScript SDK puts
# the body of a failed discovery or registration into the error it shows, so the user reads
# how to send a key instead of an OAuth failure (docs/mcp.md, "Key-less calls").
# path -> the method a client uses there
OAUTH_PROBES = {"/.well-known/oauth-protected-resource": "GET",
                "/.well-known/oauth-protected-resource/mcp": "GET",
                "/.well-known/oauth-authorization-server": "GET",
                "/.well-known/oauth-authorization-server/mcp": "GET",
                "/.well-known/openid-configuration": "GET", "/register": "POST",
                "/authorize": "GET", "/token": "POST"}
NO_OAUTH = NotFound("this service does not use OAuth: " + NEEDS_KEY)


def no_oauth_handler(app: Service, ctx: Context, body: bytes) -> Response:
    return error_response(NO_OAUTH)


def openapi_handler(app: Service, ctx: Context, body: bytes) -> Response:
    return Response(200, app.openapi_body)


def metrics_handler(app: Service, ctx: Context, body: bytes) -> Response:
    text, content_type = app.metrics.render()
    return Response(200, text, content_type=content_type)


def mcp_handler(app: Service, ctx: Context, body: bytes) -> Response | Awaitable[Response]:
    """POST /mcp: the body goes to the app's ``McpEndpoint`` (``server.mcp``), which calls back
    ``app.mcp_gate`` (with ``ctx``) for the key, limits, quota and log of each tool call, and
    ``app.throttle`` for each element of a batch after the first. The endpoint's ``Reply`` is
    the response. Only a batch (its elements yield the worker between them) and, on an event
    loop with the limits in Redis, a tool call (its limit check awaited, pipelined with the
    loop's others, as REST's is) are answered by a coroutine. A body nested deeper than API.md 9 allows is refused first,
    as on REST (a tool's arguments 254 deep made orjson's encoder fail: a 500)."""
    if len(body) > SHALLOW and depth(body) > MAX_DEPTH:
        raise InvalidRequest(f"the request body nests arrays and objects deeper than "
                             f"{MAX_DEPTH} levels")
    reply = app.mcp.answer(ctx.method, ctx.headers, body, app.mcp_gate, ctx)
    if isinstance(reply, list):
        return _mcp_batch(app, ctx, reply, app.mcp_gate)
    if not isinstance(reply, Response):   # a tool call whose limit check is in flight
        return _mcp_later(ctx, reply)
    ctx.error = reply.error  # a JSON-RPC failure's contract error, for the log row
    return reply


async def _mcp_later(ctx: Context, pending: Awaitable[Reply]) -> Response:
    reply = await pending
    ctx.error = reply.error
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
    routes += [route(path, frozenset({method, "HEAD"} if method == "GET" else {method}),
                     no_oauth_handler) for path, method in OAUTH_PROBES.items()]
    routes += [route(path, methods, page_handler, page=True)
               for path, methods in PAGE_ROUTES.items()]
    routes += [route(op.path, frozenset({"POST"}), HANDLERS.get(op.name, operation_handler),
                     surface="rest", needs_key=True, operation=op,
                     answer=None if op.name in HANDLERS else answerer(op),
                     max_body=max_body if op.max_body is None else op.max_body)
               for op in operations.values() if op.available]
    return {r.path: r for r in routes}
