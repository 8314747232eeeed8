"""The limit checks of a worker's request threads sent to Redis together: one write and one
read for every check waiting at that moment (group commit), instead of one round trip each.

A thread puts its command (already packed in Redis's protocol, RESP) in the queue, then takes
the send lock. The thread that gets the lock with its own command still queued is the leader:
it takes the whole queue, writes it in one ``send``, reads the replies in order into each
command's slot and lets the lock go. A thread whose command a leader took finds its reply
when it gets the lock and returns at once. While a leader waits on the socket (the GIL
released), the other threads run their requests and queue their checks, so under load a round
trip carries as many checks as arrived during the previous one, and with one request at a time
a check costs what it did alone.

Why it keeps every limit exact: only the transport changes. Each check is still one ``TAKE``
script, which Redis runs atomically and in the order received, each reply read back in the
order sent; a command is in exactly one batch (taken from the queue under the mutex), so none
is lost or run twice. The race tests run through it (``tests/test_server_redis.py``).

Why not redis-py's ``Pipeline``: it asks Redis whether its scripts exist (SCRIPT EXISTS, a
round trip) at each ``execute``, and builds a command object per call. Here a command is the
bytes of one EVALSHA (its fixed head packed once) and a reply is read by redis-py's own
connection (its hiredis parser); an error reply (NOSCRIPT after Redis restarted empty) is that
command's answer alone, the stream stays in step.

A connection error or timeout (``timeout`` per write and per reply) fails every command of the
batch with it, and the connection is dropped: the next batch connects again. The caller falls
back for those calls (``RedisCounters``).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

_PENDING = object()


def head(*parts: bytes, count: int) -> bytes:
    """The packed beginning of a command of ``count`` parts that starts with ``parts``: the
    rest is added by ``tail``."""
    return b"*%d\r\n" % count + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)


def tail(*parts: bytes) -> bytes:
    return b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)


class Pipeliner:
    """One connection to Redis, shared by the threads of a process; ``call`` sends a packed
    command with whatever other commands are waiting and returns its reply (an error reply is
    raised, as redis-py raises it)."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection            # a redis-py Connection, connected on demand
        self._mutex = threading.Lock()          # guards the queue: held for an append/swap
        self._send = threading.Lock()           # held by the leader for its round trip
        self._queue: list[list[Any]] = []
        self.batches = 0                        # round trips made
        self.commands = 0                       # commands sent in them

    def call(self, packed: bytes) -> Any:
        slot = [packed, _PENDING]
        with self._mutex:
            self._queue.append(slot)
        with self._send:
            if slot[1] is _PENDING:             # no leader took it: lead this batch
                with self._mutex:
                    batch, self._queue = self._queue, []
                self._round_trip(batch)
        reply = slot[1]
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def _round_trip(self, batch: list[list[Any]]) -> None:
        from redis.exceptions import ResponseError

        conn = self.connection
        self.batches += 1
        self.commands += len(batch)
        try:
            conn.send_packed_command([b"".join([slot[0] for slot in batch])],
                                    check_health=False)
            for slot in batch:
                try:
                    slot[1] = conn.read_response()
                except ResponseError as error:  # this command's error reply; the rest follow
                    slot[1] = error
        except BaseException as error:  # the connection failed: every unanswered command
            for slot in batch:
                if slot[1] is _PENDING:
                    slot[1] = error
            conn.disconnect()
            if not isinstance(error, Exception):
                raise

    def close(self) -> None:
        with self._send:
            self.connection.disconnect()


class LoopPipeliner:
    """The same for the checks of an event loop (RSGI, ASGI), through redis-py's asyncio
    client: a check awaits its reply instead of blocking the loop, and the checks queued in
    one tick of the loop (every request the loop ran meanwhile) leave in one write; while a
    batch is out, the next ones queue and leave together when it is back. One connection a
    loop (a new loop, as each test's ``asyncio.run``, connects again)."""

    def __init__(self, make_connection: Any) -> None:
        self.make_connection = make_connection   # -> a redis.asyncio Connection, unconnected
        self.connection: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: list[tuple[bytes, asyncio.Future[Any]]] = []
        self._sending = False
        self._task: asyncio.Task[None] | None = None
        self.batches = 0
        self.commands = 0

    async def call(self, packed: bytes) -> Any:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:                 # this loop's own connection
            self._loop, self.connection = loop, self.make_connection()
            self._queue, self._sending = [], False
        future = loop.create_future()
        self._queue.append((packed, future))
        if not self._sending:                      # leaves after this tick's other checks
            self._sending = True
            self._task = loop.create_task(self._send())
        return await future

    async def _send(self) -> None:
        from redis.exceptions import ResponseError

        conn = self.connection
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                self.batches += 1
                self.commands += len(batch)
                try:
                    if not conn.is_connected:
                        await conn.connect()
                    await conn.send_packed_command([b"".join([p for p, _ in batch])],
                                                   check_health=False)
                    for _, future in batch:
                        try:
                            reply = await conn.read_response()
                        except ResponseError as error:   # this command's alone
                            reply = error
                        if not future.done():
                            if isinstance(reply, BaseException):
                                future.set_exception(reply)
                            else:
                                future.set_result(reply)
                except Exception as error:  # the connection failed: every unanswered command
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(error)
                    await conn.disconnect(nowait=True)
        finally:
            self._sending = False

    async def aclose(self) -> None:
        """Close this loop's connection (before the loop ends: ``HarmonyApp.shutdown``)."""
        if self.connection is not None and self._loop is asyncio.get_running_loop():
            await self.connection.disconnect()
        self._loop, self.connection = None, None
