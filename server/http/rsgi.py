"""The I/O of granian's RSGI interface, for ``HarmonyApp.__rsgi__``: the client's address, the
request body (never more than the limit; asked for early), and the answer in one call.

RSGI hands the app a scope (``method``, ``path``, ``client`` as "host:port", lower-case
``headers``) and a protocol object: ``await protocol()`` reads the whole body, ``async for``
streams it, ``response_bytes``/``response_empty`` answer synchronously.
"""

from __future__ import annotations

from collections.abc import Awaitable
from functools import lru_cache
from typing import Any

from engine.errors import PayloadTooLarge
from server.api import ClientDisconnected, RequestHeaders, Response, size_text
from server.http.context import collect


@lru_cache(maxsize=4096)  # one parse per connection (a kept-alive client sends many requests)
def client_host(client: str) -> str:
    """'203.0.113.7:4711' -> '203.0.113.7'; '[::1]:4711' -> '::1'."""
    host, sep, port = client.rpartition(":")
    if not sep or not port.isdigit():
        return client or "unknown"
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


class Body:
    """The request body through granian's protocol (``server.http.context.BodyReader``).

    ``start`` asks granian for a body the size guard admitted as soon as it has (a declared
    length within the service's 64 KiB), so that granian collects it while the key and the
    limits are checked, and ``read`` awaits it. granian hands a body over through its own
    threads (a runtime task, then a thread that takes the GIL to resolve the future on the
    event loop); asked for after the key and limits, a sequential analyze took 280-320 µs (wrk,
    one connection; median 299) against 253-284 µs (median 279) asked for early
    (``docs/request-path.md``). A body over that size, or one of unknown length, is read only
    once the guards have passed."""

    __slots__ = ("headers", "pending", "protocol")

    def __init__(self, protocol: Any, headers: RequestHeaders) -> None:
        self.protocol = protocol
        self.headers = headers
        self.pending: Any = None        # granian's awaitable of the whole body, once started

    def start(self) -> None:
        if self.pending is None:
            self.pending = self.protocol()

    def abandon(self) -> None:
        """Stop granian collecting a body asked for early and never read (its call was refused
        by the key or the limits), so that a client which declared a body and holds it back
        keeps no task waiting for it once it has its answer."""
        if self.pending is not None:
            self.pending.cancel()
            self.pending = None

    def gone(self) -> Awaitable[object]:
        """granian's own signal: it completes when the connection closes."""
        result: Awaitable[object] = self.protocol.client_disconnect()
        return result

    async def read(self, limit: int) -> bytes:
        """The body; a declared length over ``limit`` is refused unread, a body of unknown
        length is streamed and refused as soon as it passes ``limit``."""
        try:
            if self.pending is not None:
                pending, self.pending = self.pending, None
                started: bytes = await pending
                return started
            length = self.headers.get("content-length")
            if length is not None:
                if length.isdigit() and int(length) > limit:
                    raise PayloadTooLarge(f"the body is over {size_text(limit)}")
                # One await for the whole body: reading it as chunks (``async for``) measured
                # analyze p50 0.53 ms against 0.40 ms and 152 against 124 µs server CPU a call.
                body: bytes = await self.protocol()
                return body
            return await collect(self.protocol, limit)
        except RuntimeError as exc:  # granian's RSGIProtocolClosed / RSGIProtocolError
            raise ClientDisconnected from exc


def answer(protocol: Any, method: str, response: Response) -> None:
    # The service's headers are str pairs, as granian takes them: nothing to convert (bytes
    # headers decoded here cost 0.6 µs a call).
    headers = response.headers  # the response's own list (``_finish`` adds to it too)
    if response.content_type is not None:
        headers.append(("content-type", response.content_type))
    if method == "HEAD":  # the length of the body a GET would get, and no body
        headers.append(("content-length", str(len(response.body))))
        protocol.response_empty(response.status, headers)
    else:  # granian sets content-length from the body
        protocol.response_bytes(response.status, headers, response.body)
