"""One request on its way through the pipeline (``Context``), a route as data (``Route``), and
what a handler or the MCP gate may see of the app (``Service``, a protocol ``HarmonyApp``
satisfies), so that neither imports the app module."""

from __future__ import annotations

from collections.abc import AsyncIterable, Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from engine.errors import PayloadTooLarge
from server.api import size_text

if TYPE_CHECKING:
    from engine.errors import HarmonyError
    from server.accounts import (
        Admission,
        Authenticator,
        Counters,
        KeyRecord,
        Limiter,
        Metrics,
        RequestLog,
    )
    from server.api import Operation, RequestHeaders, Response
    from server.http.jobs import JobPool
    from server.http.settings import Settings
    from server.mcp import Gate, McpEndpoint
    from server.web import AccountPages


class Service(Protocol):
    """The parts of the app its handlers and the MCP gate use."""

    settings: Settings
    auth: Authenticator
    limiter: Limiter
    counters: Counters
    log: RequestLog
    metrics: Metrics
    mcp: McpEndpoint
    jobs: JobPool
    pages: AccountPages
    health_body: bytes
    openapi_body: bytes
    mcp_gate: Gate | None  # called with the request's Context; None: no auth

    def throttle(self, client: str) -> None: ...


# A handler returns its Response, or (only when it must wait: a render, an MCP batch) an
# awaitable of it; the pipeline awaits only that. A coroutine less per call for the rest.
Handler = Callable[["Service", "Context", bytes], "Response | Awaitable[Response]"]


class BodyReader(Protocol):
    """A request's body as the server it came through gives it (RSGI or ASGI)."""

    def start(self) -> None:
        """Begin reading a body the size guard admitted, before the key and limits are checked:
        the server collects it meanwhile (a no-op where reading cannot start early)."""

    async def read(self, limit: int) -> bytes:
        """The whole body; ``PayloadTooLarge`` past ``limit`` bytes (nothing more is buffered),
        ``ClientDisconnected`` when the client has gone."""

    def gone(self) -> Awaitable[object] | None:
        """Once the body is read: an awaitable that completes when the client goes away (a
        render then stops), or None where the server cannot tell (WSGI)."""


class _NoBody:
    """The reader of a request built without one (in-process callers and tests): no body."""

    def start(self) -> None:
        pass

    async def read(self, limit: int) -> bytes:
        return b""

    def gone(self) -> Awaitable[object] | None:
        return None


NO_BODY: BodyReader = _NoBody()


async def collect(chunks: AsyncIterable[bytes], limit: int) -> bytes:
    """A body streamed in ``chunks``, joined; ``PayloadTooLarge`` as soon as it passes
    ``limit`` bytes, so the rest is never buffered. Both readers' stream of unknown length."""
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"the body is over {size_text(limit)}")
        parts.append(chunk)
    return b"".join(parts)


@dataclass(frozen=True)
class Route:
    path: str
    methods: frozenset[str]
    handler: Handler
    surface: str | None = None        # "rest" or "mcp": logged, UA policy; None: meta routes
    needs_key: bool = False           # the bearer key is checked before the handler runs
    operation: Operation | None = None
    answer: Callable[[bytes], bytes] | None = None  # request bytes -> response bytes
    page: bool = False                # an account page: UA policy applies; never logged
    waits: bool = False               # its handler waits on the event loop (a render's pool)
    max_body: int = field(kw_only=True)   # the largest body it takes (``build_routes``)


@dataclass(slots=True)
class Context:
    """One request on its way through the pipeline."""

    method: str
    path: str
    headers: RequestHeaders          # by lower-case name
    client: str
    started: float
    query: str = ""                   # the query string (the account page's sign-in link)
    reader: BodyReader = NO_BODY      # the body, read by the pipeline once the guards pass
    route: Route | None = None
    key: KeyRecord | None = None
    admission: Admission | None = None
    # an admission still to come (its Redis check in flight): the pipeline awaits it
    pending: Awaitable[Admission] | None = None
    on_loop: bool = False             # served on the event loop (RSGI, ASGI), not WSGI's thread
    error: HarmonyError | None = None
    logged: bool = False              # the MCP gate logged its tool call itself
    flooded: bool = False             # refused by the flood throttle: not logged, no key lookup
    body: bytes = b""
    body_read: bool = False           # ``body`` holds the request's whole body
    extra_headers: tuple[tuple[str, str], ...] = ()   # a refusal's own (405's Allow)


