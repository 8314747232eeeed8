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
from collections.abc import Awaitable, Callable
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
    """The same for the checks of an event loop (RSGI, ASGI): a check is answered by a
    callback instead of blocking the loop, and the checks queued in one tick of the loop
    (every request the loop ran meanwhile) leave in one write. One connection a loop (a new
    loop, as each test's ``asyncio.run``, connects again).

    ``send(packed, on_reply)`` returns a future and calls ``on_reply(future, reply)`` where
    the reply arrives (``data_received``), in the order sent: the caller settles the future
    there (``RedisCounters`` turns TAKE's reply into the request's admission at once), so a
    check is one future, with no coroutine or task of its own. A reply is read by hiredis's
    C reader; an error reply is that command's alone (as redis-py's exception: NOSCRIPT as
    ``NoScriptError``), a connection lost or timed out is every waiting command's
    (``ConnectionError``, ``TimeoutError``). ``timeout``: the connection (and its handshake,
    AUTH and SELECT as the URL says) and each batch's replies, watched by one timer a
    connection, not one a batch; past it, the connection is closed (the caller falls back),
    the next check connects again. Batches may overlap (a tick's checks leave while the last
    tick's are out): Redis answers a connection's commands in the order received."""

    def __init__(self, url: str, timeout: float) -> None:
        from redis.connection import parse_url

        self.options = parse_url(url)
        self.timeout = timeout
        self._loop: asyncio.AbstractEventLoop | None = None
        self._resp: _Resp | None = None
        self._connecting: asyncio.Future[_Resp] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()   # connections being made
        self.batches = 0
        self.commands = 0

    def send(self, packed: bytes, on_reply: OnReply = None,
             future: asyncio.Future[Any] | None = None) -> asyncio.Future[Any]:
        """Queue ``packed`` for this tick's write; the future of its reply (``future`` when
        given: a command sent again for the same caller). Without ``on_reply`` the future
        gets the reply itself (an error reply as its exception)."""
        resp = self._resp
        if resp is None or resp.lost or resp.thread != threading.get_ident() \
                or resp.loop.is_closed():
            return self._connect_then_send(packed, on_reply or _settle, future)
        return resp.send(packed, on_reply or _settle, future)

    def call(self, packed: bytes) -> Awaitable[Any]:
        """The reply to await (``send`` without a callback)."""
        return self.send(packed)

    def _connect_then_send(self, packed: bytes, on_reply: Callable[..., None],
                           future: asyncio.Future[Any] | None) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        if future is None:
            future = loop.create_future()

        async def connect_and_send() -> None:
            try:
                resp = await self._connect(loop)
            except BaseException as error:  # handed to the caller's callback
                on_reply(future, error if isinstance(error, Exception)
                         else ConnectionError("connecting to Redis was cancelled"))
                return
            resp.send(packed, on_reply, future)

        task = loop.create_task(connect_and_send())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return future

    async def _connect(self, loop: asyncio.AbstractEventLoop) -> _Resp:
        """This loop's connection: made by the first check that needs it, awaited by the
        checks that come meanwhile."""
        if loop is not self._loop:
            self._loop, self._resp, self._connecting = loop, None, None
        if self._resp is not None and not self._resp.lost:
            return self._resp
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
            await resp.send(command(b"AUTH", *user, o["password"].encode()), _settle)
        if o.get("db"):
            await resp.send(command(b"SELECT", b"%d" % int(o["db"])), _settle)

    async def aclose(self) -> None:
        """Close this loop's connection (before the loop ends: ``HarmonyApp.shutdown``)."""
        if self._resp is not None and self._loop is asyncio.get_running_loop():
            self._resp.close()
        self._loop, self._resp = None, None


OnReply = Callable[[asyncio.Future[Any], Any], None] | None


def _settle(future: asyncio.Future[Any], reply: Any) -> None:
    """The plain callback: the reply is the future's result, an error its exception."""
    if future.done():
        return
    if isinstance(reply, BaseException):
        future.set_exception(reply)
    else:
        future.set_result(reply)


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
    """One connection to Redis on a loop: ``send`` queues a packed command with its callback
    and returns its future; the commands queued in one tick leave in one write."""

    def __init__(self, owner: LoopPipeliner) -> None:
        import hiredis

        self.owner = owner
        self.transport: Any = None
        self.lost = False
        self.reader = hiredis.Reader()
        self.reply_error = hiredis.ReplyError
        self.protocol_error = hiredis.ProtocolError
        # in the order sent: each command's (future, callback)
        self.waiting: deque[tuple[asyncio.Future[Any], Callable[..., None]]] = deque()
        self.outgoing: list[bytes] = []
        self.loop = asyncio.get_running_loop()
        self.thread = threading.get_ident()
        self.sent = 0                              # commands written on this connection
        self.deadlines: deque[tuple[float, int]] = deque()   # each batch's: (time, ``sent``)
        self.watch: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def send(self, packed: bytes, on_reply: Callable[..., None],
             future: asyncio.Future[Any] | None = None) -> asyncio.Future[Any]:
        if self.lost:
            raise ConnectionError("the connection to Redis was lost")
        if future is None:
            future = self.loop.create_future()
        self.waiting.append((future, on_reply))
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
        self.sent += len(batch)
        self.transport.write(b"".join(batch))
        self.deadlines.append((self.loop.time() + owner.timeout, self.sent))
        if self.watch is None:
            self.watch = self.loop.call_later(owner.timeout, self._expire)

    def _expire(self) -> None:
        """The watch: batches whose replies are all back are forgotten; one past its
        deadline with replies missing gives the connection up."""
        self.watch = None
        answered = self.sent - len(self.waiting) + len(self.outgoing)
        deadlines = self.deadlines
        while deadlines and deadlines[0][1] <= answered:
            deadlines.popleft()
        if not deadlines or self.lost:
            return
        now = self.loop.time()
        if deadlines[0][0] <= now:
            self._fail(TimeoutError("Redis did not answer in time"))
            return
        self.watch = self.loop.call_later(deadlines[0][0] - now, self._expire)

    def data_received(self, data: bytes) -> None:
        reader, waiting = self.reader, self.waiting
        reader.feed(data)
        try:
            while waiting:
                reply = reader.gets()
                if reply is False:
                    break
                if reply.__class__ is self.reply_error:
                    reply = _error(str(reply))
                future, on_reply = waiting.popleft()
                on_reply(future, reply)
        except self.protocol_error as error:   # not RESP: the stream cannot be trusted
            self._fail(ConnectionError(f"unreadable reply from Redis: {error}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(ConnectionError("the connection to Redis was lost"))

    def _fail(self, error: Exception) -> None:
        self.lost = True
        while self.waiting:
            future, on_reply = self.waiting.popleft()
            on_reply(future, error)
        if self.watch is not None:
            self.watch.cancel()
            self.watch = None
        if self.transport is not None:
            self.transport.abort()

    def close(self) -> None:
        self.lost = True
        if self.watch is not None:
            self.watch.cancel()
            self.watch = None
        if self.transport is not None:
            self.transport.close()


def _error(text: str) -> Exception:
    from redis.exceptions import AuthenticationError, NoScriptError, ResponseError

    if text.startswith("NOSCRIPT"):
        return NoScriptError(text)
    if text.startswith(("NOAUTH", "WRONGPASS")):
        return AuthenticationError(text)
    return ResponseError(text)
