"""Routes as data, and the handlers: decode (orjson), validate against the schema table, call
one engine function, encode (orjson)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jsonschema
import orjson

from engine.errors import HarmonyError, InvalidRequest
from server.responses import Response
from server.schemas import Operation
from server.store import KeyRecord

if TYPE_CHECKING:
    from server.app import HarmonyApp
    from server.limits import Admission

Handler = Callable[["HarmonyApp", "Context", bytes], Awaitable[Response]]


@dataclass(frozen=True)
class Route:
    path: str
    methods: frozenset[str]
    handler: Handler
    surface: str | None = None        # "rest" or "mcp": logged, UA policy; None: meta routes
    needs_key: bool = False           # the bearer key is checked before the handler runs
    operation: Operation | None = None
    answer: Callable[[bytes], bytes] | None = None  # request bytes -> response bytes


@dataclass
class Context:
    """One request on its way through the pipeline."""

    method: str
    path: str
    headers: Mapping[str, str]
    client: str
    started: float
    route: Route | None = None
    key: KeyRecord | None = None
    admission: Admission | None = None
    error: HarmonyError | None = None
    operation: str | None = None      # for the log; the MCP handler sets the tool's operation
    logged: bool = False              # the MCP gate logged its tool call itself
    flooded: bool = False             # refused by the flood throttle: not logged, no key lookup
    body: bytes = b""
    extra_headers: list[tuple[bytes, bytes]] = field(default_factory=list)


def decode(body: bytes) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        raise InvalidRequest("the request body is not valid JSON") from None


def run_operation(op: Operation, request: Any) -> dict[str, Any]:
    """Validate ``request`` against the operation's schema, then call the engine.

    Where the engine is known to refuse all the schema refuses (``op.engine_checks``), the
    engine alone validates: the same errors, without the cost of jsonschema. When the schema
    rejects a request, the engine is asked first: its error is the precise one
    (the same bytes as the Python surface). Only if it accepts what the schema refuses does the
    schema's finding become the error, so REST never serves what the schema forbids.
    """
    if op.engine_checks or op.validator.is_valid(request):
        return op.function(request)
    op.function(request)  # raises the engine's own error for the bad field
    problem = jsonschema.exceptions.best_match(op.validator.iter_errors(request))
    where = ".".join(str(p) for p in problem.absolute_path) if problem else ""
    raise InvalidRequest(f"field '{where}': {problem.message}" if where else
                         f"invalid request: {problem.message if problem else 'rejected'}",
                         field=where.split(".")[0] or None)


MAX_CACHED_BODY = 512   # bytes: longer requests are computed every time


def answerer(op: Operation) -> Callable[[bytes], bytes]:
    """Request bytes -> response bytes of ``op``; with ``op.cache``, the last answers are kept
    (an LRU in C, so a repeated request skips decoding, the engine and encoding: the engine's
    analyze alone is 24 µs, a hit under 1 µs). Errors propagate and are never kept, so each is
    logged and counted for vocab-gaps as it happens."""
    def compute(body: bytes) -> bytes:
        return orjson.dumps(run_operation(op, decode(body)))

    if op.cache <= 0:
        return compute
    kept = functools.lru_cache(maxsize=op.cache)(compute)

    def answer(body: bytes) -> bytes:
        return kept(body) if len(body) <= MAX_CACHED_BODY else compute(body)

    return answer


async def operation_handler(app: HarmonyApp, ctx: Context, body: bytes) -> Response:
    assert ctx.route is not None and ctx.route.answer is not None
    return Response(200, ctx.route.answer(body))


async def health_handler(app: HarmonyApp, ctx: Context, body: bytes) -> Response:
    return Response(200, app.health_body)


async def openapi_handler(app: HarmonyApp, ctx: Context, body: bytes) -> Response:
    return Response(200, app.openapi_body)


async def metrics_handler(app: HarmonyApp, ctx: Context, body: bytes) -> Response:
    text, content_type = app.metrics.render()
    return Response(200, text, content_type=content_type)


async def mcp_handler(app: HarmonyApp, ctx: Context, body: bytes) -> Response:
    """POST /mcp: the body goes to the app's ``McpEndpoint`` (``server.mcp``), which calls back
    ``app.mcp_gate(ctx)`` for the key, limits, quota and log of each tool call, and
    ``app.throttle`` for each element of a batch after the first."""
    gate = app.mcp_gate(ctx) if app.settings.auth else None
    answer = await app.mcp.handle(ctx.method, ctx.headers, body, gate,
                                  functools.partial(app.throttle, ctx.client))
    ctx.error = answer.error  # a JSON-RPC failure's contract error, for the log row
    headers = [(k, v) for k, v in answer.headers if k.lower() != b"content-type"]
    content_type = next((v for k, v in answer.headers if k.lower() == b"content-type"), None)
    return Response(answer.status, answer.body, headers, content_type=content_type)


def build_routes(operations: Mapping[str, Operation]) -> dict[str, Route]:
    routes = [
        Route("/health", frozenset({"GET", "HEAD"}), health_handler),
        Route("/openapi.json", frozenset({"GET", "HEAD"}), openapi_handler),
        Route("/metrics", frozenset({"GET", "HEAD"}), metrics_handler),
        Route("/mcp", frozenset({"POST"}), mcp_handler, surface="mcp"),
    ]
    routes += [Route(op.path, frozenset({"POST"}), operation_handler, surface="rest",
                     needs_key=True, operation=op, answer=answerer(op))
               for op in operations.values() if op.available]
    return {r.path: r for r in routes}
