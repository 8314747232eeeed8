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
connection (its hiredis parser; on an event loop by ``_Resp``, below); an error reply
(NOSCRIPT after Redis restarted empty) is that command's answer alone, the stream stays in
step.

A connection error or timeout (``timeout`` per write and per reply) fails every command of the
batch with it, and the connection is dropped: the next batch connects again. The caller falls
back for those calls (``RedisCounters``).
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Awaitable
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
    """The same for the checks of an event loop (RSGI, ASGI): a check awaits its reply instead
    of blocking the loop, and the checks queued in one tick of the loop (every request the
    loop ran meanwhile) leave in one write. One connection a loop (a new loop, as each test's
    ``asyncio.run``, connects again).

    The connection is an ``asyncio.Protocol`` of its own (``_Resp``), not redis-py's asyncio
    client: a write is the tick's commands joined, handed to the transport by one callback of
    the loop (no task), and the replies are parsed where they arrive (``data_received``), each
    resolving its check's future in the order sent; no per-reply coroutine, timeout context or
    parser object. redis-py's reading cost the worker 24 µs of CPU a check under load
    (``bench/run_several_machines.py``). Batches may overlap (a tick's checks leave while the
    last tick's are out): Redis answers a connection's commands in the order received, and the
    futures wait in that order. ``timeout``: the connection (and its handshake, AUTH and
    SELECT as the URL says) and each batch's replies; past it, every check waiting on the
    connection fails with ``TimeoutError`` and the connection is closed (the caller falls
    back), the next check connects again."""

    def __init__(self, url: str, timeout: float) -> None:
        from redis.connection import parse_url

        self.options = parse_url(url)
        self.timeout = timeout
        self._loop: asyncio.AbstractEventLoop | None = None
        self._resp: _Resp | None = None
        self._connecting: asyncio.Future[_Resp] | None = None
        self.batches = 0
        self.commands = 0

    def call(self, packed: bytes) -> Awaitable[Any]:
        """The reply to await: the future itself while the connection stands (no coroutine
        a check), else a coroutine that connects first."""
        resp = self._resp
        if resp is None or resp.lost or resp.loop is not asyncio.get_running_loop():
            return self._connect_and_send(packed)
        return resp.send(packed)

    async def _connect_and_send(self, packed: bytes) -> Any:
        resp = await self._connect(asyncio.get_running_loop())
        return await resp.send(packed)

    async def _connect(self, loop: asyncio.AbstractEventLoop) -> _Resp:
        """This loop's connection: made by the first check that needs it, awaited by the
        checks that come meanwhile."""
        if loop is not self._loop:
            self._loop, self._resp, self._connecting = loop, None, None
        if self._connecting is not None:
            return await self._connecting
        self._connecting = connecting = loop.create_future()
        resp = _Resp(self)
        try:
            await asyncio.wait_for(self._open(loop, resp), self.timeout)
        except BaseException as error:
            resp.close()
            # the checks waiting on this connection fail as on an outage (they fall back),
            # even when it is this check's request that was cancelled
            connecting.set_exception(error if isinstance(error, Exception)
                                     else ConnectionError("connecting to Redis was cancelled"))
            connecting.exception()      # retrieved: the waiters, if any, get it too
            raise
        finally:
            self._connecting = None
        self._resp = resp
        connecting.set_result(resp)
        return resp

    async def _open(self, loop: asyncio.AbstractEventLoop, resp: _Resp) -> None:
        o = self.options
        if "path" in o:
            await loop.create_unix_connection(lambda: resp, o["path"])
        else:
            await loop.create_connection(lambda: resp, o.get("host", "localhost"),
                                         o.get("port", 6379), ssl=_tls(o))
        if o.get("password"):
            user = [o["username"].encode()] if o.get("username") else []
            await resp.send(command(b"AUTH", *user, o["password"].encode()))
        if o.get("db"):
            await resp.send(command(b"SELECT", b"%d" % int(o["db"])))

    async def aclose(self) -> None:
        """Close this loop's connection (before the loop ends: ``HarmonyApp.shutdown``)."""
        if self._resp is not None and self._loop is asyncio.get_running_loop():
            self._resp.close()
        self._loop, self._resp = None, None


def command(*parts: bytes) -> bytes:
    """A whole command packed (RESP)."""
    return head(*parts, count=len(parts))


def _tls(options: dict[str, Any]) -> Any:
    """The TLS context of a ``rediss://`` URL (its ``ssl_ca_certs`` and ``ssl_cert_reqs``
    read), None for plain TCP."""
    from redis.connection import SSLConnection

    if options.get("connection_class") is not SSLConnection:
        return None
    import ssl

    context = ssl.create_default_context(cafile=options.get("ssl_ca_certs"))
    if str(options.get("ssl_cert_reqs", "required")).lower() in ("none", "cert_none"):
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


class _Resp(asyncio.Protocol):
    """One connection to Redis on a loop: ``send`` queues a packed command and returns the
    future of its reply; the commands queued in one tick leave in one write."""

    def __init__(self, owner: LoopPipeliner) -> None:
        self.owner = owner
        self.transport: Any = None
        self.lost = False
        self.buffer = b""
        self.waiting: deque[asyncio.Future[Any]] = deque()   # in the order sent
        self.outgoing: list[bytes] = []
        self.loop = asyncio.get_running_loop()

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def send(self, packed: bytes) -> asyncio.Future[Any]:
        if self.lost:
            raise ConnectionError("the connection to Redis was lost")
        future = self.loop.create_future()
        self.waiting.append(future)
        if not self.outgoing:          # the first of this tick: the write after the others
            self.loop.call_soon(self._write)
        self.outgoing.append(packed)
        return future

    def _write(self) -> None:
        batch, self.outgoing = self.outgoing, []
        if self.lost or not batch:
            return
        owner = self.owner
        owner.batches += 1
        owner.commands += len(batch)
        self.transport.write(b"".join(batch))
        self.loop.call_later(owner.timeout, self._expire, self.waiting[-1])

    def _expire(self, last: asyncio.Future[Any]) -> None:
        """A batch's replies not all back in time: the connection is given up."""
        if not last.done():
            self._fail(TimeoutError("Redis did not answer in time"))

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer + data if self.buffer else data
        at, waiting = 0, self.waiting
        try:
            while waiting:
                reply, end = _take_reply(buffer, at) if buffer.startswith(b"*3\r\n:", at) \
                    else _reply(buffer, at)
                if end < 0:
                    break
                at = end
                future = waiting.popleft()
                if not future.done():
                    if isinstance(reply, BaseException):
                        future.set_exception(reply)
                    else:
                        future.set_result(reply)
        except ValueError as error:   # not RESP: the stream cannot be trusted any more
            self._fail(ConnectionError(f"unreadable reply from Redis: {error}"))
            return
        self.buffer = buffer[at:]

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(ConnectionError("the connection to Redis was lost"))

    def _fail(self, error: Exception) -> None:
        self.lost = True
        while self.waiting:
            future = self.waiting.popleft()
            if not future.done():
                future.set_exception(error)
        if self.transport is not None:
            self.transport.abort()

    def close(self) -> None:
        self.lost = True
        if self.transport is not None:
            self.transport.close()


def _take_reply(buffer: bytes, at: int) -> tuple[Any, int]:
    """``_reply`` for an array of three integers (TAKE's reply): no recursion."""
    first = buffer.find(b"\r\n", at + 5)
    second = buffer.find(b"\r\n", first + 2) if first > 0 else -1
    third = buffer.find(b"\r\n", second + 2) if second > 0 else -1
    if third < 0:
        return None, -1
    if buffer[first + 2] != 58 or buffer[second + 2] != 58:   # not all integers: the long way
        return _reply(buffer, at)
    return [int(buffer[at + 5:first]), int(buffer[first + 3:second]),
            int(buffer[second + 3:third])], third + 2


def _reply(buffer: bytes, at: int) -> tuple[Any, int]:
    """The RESP2 reply that starts at ``at`` and where it ends; end -1 while it is not all
    there. An error reply is returned as redis-py's exception of it (NOSCRIPT as
    ``NoScriptError``)."""
    eol = buffer.find(b"\r\n", at)
    if eol < 0:
        return None, -1
    kind = buffer[at]
    if kind == 58:                                    # :integer
        return int(buffer[at + 1:eol]), eol + 2
    if kind == 42:                                    # *array
        n, at = int(buffer[at + 1:eol]), eol + 2
        if n < 0:
            return None, at
        items = []
        for _ in range(n):
            item, at = _reply(buffer, at)
            if at < 0:
                return None, -1
            items.append(item)
        return items, at
    if kind == 36:                                    # $bulk string
        n = int(buffer[at + 1:eol])
        if n < 0:
            return None, eol + 2
        end = eol + 2 + n
        if len(buffer) < end + 2:
            return None, -1
        return buffer[eol + 2:end], end + 2
    if kind == 43:                                    # +simple string
        return buffer[at + 1:eol], eol + 2
    if kind == 45:                                    # -error
        return _error(buffer[at + 1:eol].decode(errors="replace")), eol + 2
    raise ValueError(f"reply type {chr(kind)!r}")


def _error(text: str) -> Exception:
    from redis.exceptions import AuthenticationError, NoScriptError, ResponseError

    if text.startswith("NOSCRIPT"):
        return NoScriptError(text)
    if text.startswith(("NOAUTH", "WRONGPASS")):
        return AuthenticationError(text)
    return ResponseError(text)
