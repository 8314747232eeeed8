"""The request body through the ASGI interface (the tests drive the app through httpx), the
counterpart of ``rsgi.Body``: read once the guards have passed, message by message, never more
than the limit."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from engine.errors import PayloadTooLarge
from server.api import ClientDisconnected, size_text

Receive = Callable[[], Awaitable[dict[str, Any]]]


class Body:
    """The body from ASGI's ``receive`` (``server.http.context.BodyReader``)."""

    __slots__ = ("receive",)

    def __init__(self, receive: Receive) -> None:
        self.receive = receive

    def start(self) -> None:
        pass  # ASGI has no read to start ahead: each message is awaited in turn

    async def read(self, limit: int) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                raise ClientDisconnected
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:  # stop reading: the rest of an oversized body is never buffered
                raise PayloadTooLarge(f"the body is over {size_text(limit)}")
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)
