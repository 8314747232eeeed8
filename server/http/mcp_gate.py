"""The service side of POST /mcp: keys, limits, quota and the request log for each tool call,
in the shape of ``server.mcp``'s ``Gate`` protocol. One per app (``HarmonyApp.mcp_gate``); the
request's ``Context`` comes with each call, so nothing is made per request (an object a call
cost ~1.5k instructions)."""

from __future__ import annotations

import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from engine.errors import HarmonyError
from server.accounts import Admission, LogRow, from_values
from server.api import RequestHeaders

if TYPE_CHECKING:
    from server.http.context import Context, Service


Ticket = tuple[Admission | None, HarmonyError | None]


async def _ticket(pending: Awaitable[Admission]) -> Ticket:
    admission = await pending
    return admission, admission.error


class McpGate:
    """The service's keys, limits, quota and log for POST /mcp, in the shape of the ``Gate``
    protocol of ``server.mcp``: ``admit`` before a tool call, ``settle`` after it, so REST and
    MCP share one implementation (tools/list needs no key and calls neither)."""

    def __init__(self, app: Service) -> None:
        self.app = app

    def admit(self, context: Context, headers: RequestHeaders
              ) -> Ticket | Awaitable[Ticket]:
        """Check the bearer key and count the call in its minute and month: the ticket, and the
        401/429 error when the call is refused (``settle`` logs it and gives its headers). On
        an event loop with counters that answer later (Redis), the pair to await: the check
        pipelined with the loop's other checks, as REST's (``Limiter.admit_soon``), instead of
        a round trip that blocks the loop."""
        try:
            key = self.app.auth.authenticate(headers.get("authorization"))
        except HarmonyError as refused:
            return None, refused
        context.key = key
        limiter = self.app.limiter
        admission = limiter.admit_soon(key) if context.on_loop else limiter.admit(key)
        if isinstance(admission, Admission):
            return admission, admission.error
        return _ticket(admission)

    def settle(self, context: Context, ticket: Admission | None, operation: str, status: int,
               error: str | None, started: float, body: bytes,
               symbol: str | None = None) -> list[tuple[str, str]]:
        """Spend the reserved quota only on success, log the tool call or its refusal (a chord
        symbol that failed to parse is counted for vocab-gaps, as on REST), give the headers."""
        context.logged = True
        app = self.app
        app.log.record(from_values(LogRow, (
            time.time(), ticket.key.key_id if ticket else None, "mcp", operation, status, error,
            max(0, int((time.perf_counter() - started) * 1e6)),
            body if app.settings.store_bodies and body else None, symbol)))
        if ticket is None:
            return []
        return ticket.settle(app.counters, status)
