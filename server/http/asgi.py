"""The request body through the ASGI interface (the tests drive the app through httpx), the
counterpart of ``rsgi.Body``: read once the guards have passed, message by message, never more
than the limit."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from server.api import ClientDisconnected
from server.http.context import collect

Receive = Callable[[], Awaitable[dict[str, Any]]]


class Body:
    """The body from ASGI's ``receive`` (``server.http.context.BodyReader``)."""

    __slots__ = ("receive",)

    def __init__(self, receive: Receive) -> None:
        self.receive = receive

    def start(self) -> None:
        pass  # ASGI has no read to start ahead: each message is awaited in turn

    async def read(self, limit: int) -> bytes:
        return await collect(self._chunks(), limit)

    def gone(self) -> Awaitable[object]:
        return self._disconnect()

    async def _disconnect(self) -> None:
        """ASGI's ``receive`` gives ``http.disconnect`` once the body is read and the client
        has gone (or the answer is sent)."""
        while (await self.receive())["type"] != "http.disconnect":
            pass

    async def _chunks(self) -> AsyncIterator[bytes]:
        while True:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                raise ClientDisconnected
            yield message.get("body", b"")
            if not message.get("more_body", False):
                return
