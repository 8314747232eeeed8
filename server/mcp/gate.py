"""The service as the hosted MCP route sees it: the ``Gate`` of keys, limits, quota and the
request log (one for the service, ``server.http.mcp_gate`` implements it) and the flood
``Throttle`` a batch's elements count against. ``server.mcp.endpoint`` and its kept calls
(``server.mcp.kept``) call them; REST and MCP share one implementation behind them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from engine.errors import HarmonyError
from server.api import Headers, RequestHeaders

Admitted = tuple[Any, HarmonyError | None]   # a gate's ticket and its refusal, if any


class Gate(Protocol):
    """The service's keys, limits, quota and request log, as seen by the MCP route. One for the
    service; ``context`` is the exchange's own (what the caller passed to ``handle``/``answer``:
    the app's request context), so no gate object is made per request."""

    def admit(self, context: Any, headers: RequestHeaders) -> Admitted | Awaitable[Admitted]:
        """Check the bearer key and the limits of a tool call: ``(ticket, None)`` to run it,
        ``(ticket, error)`` to refuse it (401, 429). The ticket goes to ``settle`` either way.
        On an event loop with limits in Redis, an awaitable of that pair (the check in
        flight, pipelined with the loop's other checks): the call then answers by a
        coroutine."""

    def settle(self, context: Any, ticket: Any, operation: str, status: int, error: str | None,
               started: float, body: bytes, symbol: str | None = None) -> Headers:
        """Log the call (surface ``mcp``; ``symbol``: a chord that failed to parse), spend quota
        when ``status`` is 2xx; return the quota and rate-limit headers for the response. (The
        endpoint passes the arguments in this order, positionally: a call with six keywords
        cost ~200 instructions more.)"""


# Counts one more request against the flood throttle (each batch element after the first: the
# HTTP request itself was counted); raises its HarmonyError (429) to refuse the element.
Throttle = Callable[[], None]
