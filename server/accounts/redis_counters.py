"""The minute and month counters in Redis (``HARMONY_REDIS_URL``, issue 20): limits exact
across every machine that shares the Redis (or Valkey) server, behind the ``Counters``
interface of ``server.accounts.limits``.

One Lua script a call (``TAKE``, sent by EVALSHA; redis-py reloads it on NOSCRIPT): INCR the
key's minute window (and EXPIRE it when new), then reserve one call of the account's month if
the minute allows it and the month is not used up, and bump the account's version, all
atomically on the server. ``refund`` gives a reserved call back (``REFUND``) when the call did
not succeed. Keys carry the account in a hash tag, ``harmony:{a:<account>}:...``, so a Redis
Cluster keeps an account's keys in one slot (a script may only touch one slot).

Redis is the truth for the month; ``flush`` (run by the background log writer) copies the
totals of the accounts this process touched into the store's ``month_usage`` for the reports,
each with the account's Redis version, which only grows, so no machine's snapshot rolls a
total back.

A Redis that lost its data (restarted without persistence, a key evicted) does not reset the
month (issue 35): ``TAKE`` counts nothing when the account's month is absent and says so, and
the month is then seeded from the store's row (``SEED``: its total and its version, set only
if still absent, so racing machines seed once) before the call is taken again. Before that,
a Redis that restarted empty began the month at 1 and its versions at 1 too, below the
store's, so the store's row stopped moving for the rest of the month. What is lost is what
the store had not yet received: the calls of the last flush interval (0.25 s). The docs say
which persistence to run so that even that is not lost (``docs/outages.md``).

When Redis cannot be reached (a refused or timed-out connection: 100 ms at most, or
``HARMONY_STORE_TIMEOUT``), a call is
never refused for that and never unlimited: it is counted by this machine's own
``SharedCounters`` against the key's limits divided by ``machines`` (``HARMONY_MACHINES``, the
number of machines sharing the limits), each such call is counted by ``on_fallback`` (the
``harmony_counter_fallbacks_total`` metric), and Redis is tried again after ``retry_seconds``
(1 s) rather than on every call. A refund goes where reservations are made at that moment
(a call settles moments after its reservation): only a call that straddles Redis going away
or coming back is refunded on the other side. What the machines counted on their own while
Redis was away is not added to Redis when it returns, nor written to the store's month.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from server.accounts.counters import SharedCounters, month_text
from server.accounts.limits import Taken
from server.accounts.pgstore import outage_errors
from server.accounts.redis_loop import LoopCheck
from server.accounts.redis_pipeline import LoopPipeliner, Pipeliner, command, head, tail
from server.accounts.store import Store

TAKE = """
local used = redis.call('GET', KEYS[2])
if not used then return {0, 0, -1} end
used = tonumber(used)
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
local reserved = 0
if count <= tonumber(ARGV[1]) and used < tonumber(ARGV[2]) then
  used = redis.call('INCR', KEYS[2])
  if used == 1 then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
  if redis.call('INCR', KEYS[3]) == 1 then redis.call('EXPIRE', KEYS[3], ARGV[4]) end
  reserved = 1
end
return {count, used, reserved}
"""
SEED = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[3]) then
  local version = tonumber(redis.call('GET', KEYS[2]) or '0')
  if version < tonumber(ARGV[2]) then redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3]) end
  return 1
end
return 0
"""
REFUND = """
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used > 0 then
  redis.call('DECR', KEYS[1])
  if redis.call('INCR', KEYS[2]) == 1 then redis.call('EXPIRE', KEYS[2], ARGV[1]) end
  return used - 1
end
return 0
"""
MINUTE_TTL = 120                 # seconds a minute window's key lives
MONTH_TTL = 70 * 86400           # a month's keys outlive the month by weeks (the reports)
TIMEOUT = 0.1                    # seconds: connect and each command


def _keys(key: str, minute: int, account: int, month: int) -> tuple[str, str, str]:
    """The key's minute window, the account's month and its version."""
    return (f"harmony:{{a:{account}}}:m:{key}:{minute}", *_month_keys(account, month))


def _month_keys(account: int, month: int) -> tuple[str, str]:
    tag = f"harmony:{{a:{account}}}"
    return f"{tag}:M:{month}", f"{tag}:V:{month}"


def _same(taken: Taken) -> Taken:
    return taken


class RedisCounters:
    """``Counters`` in Redis, with this machine's counters as the fallback (module docstring)."""

    def __init__(self, url: str, local: SharedCounters, *, machines: int = 1,
                 on_fallback: Callable[[], object] | None = None, retry_seconds: float = 1.0,
                 clock: Callable[[], float] = time.monotonic, timeout: float = TIMEOUT) -> None:
        import redis

        self.url = url
        self.local = local
        self.machines = max(1, machines)
        self.on_fallback = on_fallback
        self.retry_seconds = retry_seconds
        self.clock = clock
        self.fallbacks = 0
        self._errors = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
                        TimeoutError, OSError)
        self._no_script = redis.exceptions.NoScriptError
        self.client = redis.Redis.from_url(url, socket_timeout=timeout,
                                           socket_connect_timeout=timeout)
        self._take = self.client.register_script(TAKE)
        # the checks go through their own connection, pipelined (``redis_pipeline``): an
        # EVALSHA of TAKE with 3 keys and 4 arguments, its head and fixed tail packed once
        self.pipeliner = Pipeliner(self.client.connection_pool.make_connection())
        self.loop_pipeliner = LoopPipeliner(url, timeout)
        self._take_head = head(b"EVALSHA", self._take.sha.encode(), b"3", count=10)
        self._take_tail = tail(b"%d" % MINUTE_TTL, b"%d" % MONTH_TTL)
        self._seed = self.client.register_script(SEED)
        self._refund = self.client.register_script(REFUND)
        self.seeded = 0                                        # months seeded from the store
        self._packed: dict[str, tuple[tuple[int, ...], bytes]] = {}   # by key: ``_pack``
        self._down_until = 0.0
        self._touched: set[tuple[int, int]] = set()          # (account, month) since a flush

    @property
    def store(self) -> Store:
        return self.local.store

    # ------------------------------------------------------------ the Counters interface

    def take(self, key: str, minute: int, minute_limit: int, account: int, month: int,
             month_limit: int) -> Taken:
        if self._up():
            packed = self._pack(key, minute, minute_limit, account, month, month_limit)
            try:
                reply = self._call(packed)
                if reply[2] == -1 and self._seed_month(account, month):  # absent: seeded
                    reply = self._call(packed)
                if (taken := self._taken(account, month, reply)) is not None:
                    return taken
            except self._errors:
                self._went_down()
        return self._fallback_take(key, minute, minute_limit, account, month, month_limit)

    def take_soon(self, key: str, minute: int, minute_limit: int, account: int, month: int,
                  month_limit: int, then: Callable[[Taken], Any] = _same) -> Any:
        """``take`` for a caller on an event loop: ``then(taken)`` now when this machine's
        counters answer (Redis away), else the future of it, the check pipelined with the
        other checks of the loop's tick (``LoopPipeliner``). ``then`` runs where the reply is
        read (the limiter decides the admission there): the request awaits one future, not
        a chain of coroutines."""
        if not self._up():
            return then(self._fallback_take(key, minute, minute_limit, account, month,
                                             month_limit))
        packed = self._pack(key, minute, minute_limit, account, month, month_limit)
        check = LoopCheck(self, then, packed,
                           (key, minute, minute_limit, account, month, month_limit))
        return self.loop_pipeliner.send(packed, check.answer)

    def _taken(self, account: int, month: int, reply: Any) -> Taken | None:
        """TAKE's reply (count, used, reserved) as ``Taken``; None when the month's counter
        was absent (reserved -1) even after seeding: the machine's own share answers."""
        count, used, reserved = reply
        if reserved == -1:
            return None
        self._touched.add((account, month))
        return Taken(int(count), int(used), bool(reserved))

    def _pack(self, key: str, minute: int, minute_limit: int, account: int, month: int,
              month_limit: int) -> bytes:
        """The EVALSHA of TAKE for this check: the same bytes for a key's calls of one minute
        (under the same limits), so they are kept by key until the minute or a limit moves."""
        kept = self._packed.get(key)
        if kept is not None and kept[0] == (minute, minute_limit, account, month, month_limit):
            return kept[1]
        keys = _keys(key, minute, account, month)
        packed = b"".join((self._take_head, tail(*[k.encode() for k in keys],
                                                 b"%d" % minute_limit, b"%d" % month_limit),
                           self._take_tail))
        if len(self._packed) >= 4096:
            self._packed.clear()        # bounded: the keys of the last minute come back
        self._packed[key] = ((minute, minute_limit, account, month, month_limit), packed)
        return packed

    def _call(self, packed: bytes) -> Any:
        """A TAKE through the pipeliner; loaded again when Redis no longer has it (a
        restart): the first call after one pays a round trip more."""
        try:
            return self.pipeliner.call(packed)
        except self._no_script:
            self._load_scripts()
            return self.pipeliner.call(packed)

    def _load_scripts(self) -> None:
        """``TAKE`` and ``REFUND`` into a Redis that does not hold them (new, restarted
        empty): both at once, so a refund on a loop rarely meets NOSCRIPT."""
        self.client.script_load(TAKE)
        self.client.script_load(REFUND)

    def _seed_month(self, account: int, month: int) -> bool:
        """Set the account's absent month from the store's row; False when the store cannot
        say (this call is then counted here, as when Redis is away)."""
        try:
            used, version = self.store.month_total(account, month_text(month))
        except outage_errors():
            return False
        self.seeded += self._seed(keys=_month_keys(account, month),
                                  args=(used, version, MONTH_TTL))
        return True

    def refund(self, account: int, month: int) -> None:
        """Give a unit back: on an event loop sent with the loop's checks (the loop does not
        wait for it), on a thread a round trip of its own."""
        if not self._up():       # the call was reserved here, moments ago
            self.local.refund(account, month)
            return
        if _on_a_loop():
            self._refund_soon(account, month)
            return
        try:
            self._refund(keys=_month_keys(account, month), args=(MONTH_TTL,))
            self._touched.add((account, month))
        except self._errors:
            self._went_down()
            self.local.refund(account, month)

    def _refund_soon(self, account: int, month: int, loaded: bool = False) -> None:
        """REFUND pipelined on the loop; its reply read where it arrives: NOSCRIPT loads the
        script and sends it again (once), Redis away gives the unit back here, as ``refund``
        does on a thread."""
        month_keys = [k.encode() for k in _month_keys(account, month)]
        packed = command(b"EVALSHA", self._refund.sha.encode(), b"2", *month_keys,
                         b"%d" % MONTH_TTL)

        def answered(_: asyncio.Future[Any], reply: Any) -> None:
            if isinstance(reply, self._no_script) and not loaded:
                try:
                    self.client.script_load(REFUND)   # once after a restart: blocking
                except self._errors:
                    reply = ConnectionError("Redis went away")
                else:
                    self._refund_soon(account, month, loaded=True)
                    return
            if isinstance(reply, self._errors):
                self._went_down()
                self.local.refund(account, month)
            elif not isinstance(reply, BaseException):
                self._touched.add((account, month))

        self.loop_pipeliner.send(packed, answered)

    def peek(self, key: str, minute: int, account: int, month: int) -> Taken:
        if self._up():
            try:
                minute_key, month_key, _ = _keys(key, minute, account, month)
                count, used = self.client.mget(minute_key, month_key)
                month_used = int(used or 0)
                if used is None:  # a month Redis does not hold (yet): the store's figure
                    with contextlib.suppress(*outage_errors()):
                        month_used = self.store.month_total(account, month_text(month))[0]
                return Taken(int(count or 0), month_used, False)
            except self._errors:
                self._went_down()
        return self.local.peek(key, minute, account, month)

    def flush(self) -> int:
        """Copy the month totals of the accounts touched since the last flush into the store
        (with their Redis versions). The local counters' totals are not written: they hold
        only the calls counted while Redis was away, and their versions are of another
        sequence, which could win over Redis's in the store's row (or lose to it) at random."""
        written = 0
        touched, self._touched = self._touched, set()
        if not touched or not self._up():
            self._touched |= touched
            return written
        try:
            pipe = self.client.pipeline(transaction=False)
            for account, month in sorted(touched):
                pipe.mget(*_month_keys(account, month))
            values = pipe.execute()
        except self._errors:
            self._went_down()
            self._touched |= touched
            return written
        rows = [(account, month_text(month), int(used or 0), int(version or 0))
                for (account, month), (used, version) in zip(sorted(touched), values,
                                                             strict=True)]
        self.store.save_month_usage(rows)
        return written + len(rows)

    async def aclose(self) -> None:
        """Close the connections to Redis, the event loop's on that loop (the app's shutdown;
        this machine's counters stay open, as the app leaves them)."""
        await self.loop_pipeliner.aclose()
        self.pipeliner.close()
        self.client.connection_pool.disconnect()

    def close(self) -> None:
        self.pipeliner.close()
        self.client.close()
        self.local.close()

    # ------------------------------------------------------------ when Redis is away

    def _up(self) -> bool:
        return self.clock() >= self._down_until

    def _went_down(self) -> None:
        self._down_until = self.clock() + self.retry_seconds
        self.client.connection_pool.disconnect()

    def _fallback_take(self, key: str, minute: int, minute_limit: int, account: int,
                       month: int, month_limit: int) -> Taken:
        self.fallbacks += 1
        if self.on_fallback is not None:
            self.on_fallback()
        share = self.machines
        taken = self.local.take(key, minute, max(1, minute_limit // share), account, month,
                                max(1, month_limit // share))
        # scaled to the whole service's estimate, so the limiter compares them with the key's
        # own limits (a count over this machine's share is over the limit) and the headers
        # show the service-wide use
        return Taken(taken.minute_count * share, taken.month_used * share, taken.reserved)


def _on_a_loop() -> bool:
    """Whether this thread runs an event loop (RSGI, ASGI), not a WSGI request thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def counters_in_redis(url: str, store: Store, machines: int,
                      on_fallback: Callable[[], Any] | None,
                      timeout: float = TIMEOUT) -> RedisCounters:
    """``timeout``: ``HARMONY_STORE_TIMEOUT``, the wait for the key store and for Redis alike."""
    return RedisCounters(url, SharedCounters(store), machines=machines, on_fallback=on_fallback,
                         timeout=timeout)
