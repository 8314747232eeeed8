"""The limit counters in Redis (``RedisCounters``) against a real server: exact under racing
processes, keys of an account in one cluster slot, month totals copied to the store, and what
happens while Redis is away (this machine counts alone, against its share of the limits; never
a 500, never unlimited)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

from redis.crc import key_slot

from server.accounts import Metrics, SharedCounters, Store
from server.accounts.limits import Taken
from server.accounts.redis_counters import RedisCounters, _keys

MONTH = 2027 * 12
MINUTE = 30_000_000


def _hammer(url: str, db: str, key: str, calls: int, minute_limit: int, month_limit: int,
            start: Any, out: Any) -> None:
    counters = RedisCounters(url, SharedCounters(Store(db)))
    reserved = 0
    start.wait()
    for _ in range(calls):
        reserved += counters.take(key, MINUTE, minute_limit, 1, MONTH, month_limit).reserved
    counters.close()
    out.put(reserved)


def _race(url: str, db: str, key: str, calls: int, minute_limit: int, month_limit: int) -> int:
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Barrier(3), ctx.Queue()
    workers = [ctx.Process(target=_hammer, args=(url, db, key, calls, minute_limit, month_limit,
                                                 start, out)) for _ in range(3)]
    for w in workers:
        w.start()
    reserved = sum(out.get(timeout=120) for _ in workers)
    for w in workers:
        w.join(60)
    return reserved


def test_exact_under_racing_processes(redis_url: str, tmp_path: Path) -> None:
    db = str(tmp_path / "harmony.db")
    Store(db)
    # three processes, 20 calls each on one key: a free key's 30 a minute, exactly
    assert _race(redis_url, db, "key_free", 20, 30, 10**6) == 30
    # 200 each on another key of the account, whose month of 530 has 500 left: exactly 500
    assert _race(redis_url, db, "key_ent", 200, 10**6, 530) == 500
    counters = RedisCounters(redis_url, SharedCounters(Store(db)))
    assert counters.peek("key_ent", MINUTE, 1, MONTH) == Taken(600, 530, False)
    counters.close()


def test_an_account_s_keys_share_one_cluster_slot() -> None:
    minute, month, version = _keys("key_a", MINUTE, 42, MONTH)
    assert len({key_slot(k.encode()) for k in (minute, month, version)}) == 1
    assert key_slot(_keys("key_b", MINUTE + 1, 42, MONTH + 1)[0].encode()) == \
        key_slot(minute.encode())


def test_month_totals_reach_the_store_with_growing_versions(redis_url: str,
                                                           tmp_path: Path) -> None:
    store = Store(str(tmp_path / "harmony.db"))
    counters = RedisCounters(redis_url, SharedCounters(store))
    for _ in range(5):
        counters.take("key_a", MINUTE, 100, 7, MONTH, 1000)
    counters.refund(7, MONTH)
    assert counters.flush() == 1
    assert store.month_usage() == [(7, "2027-01", 4, 6)]   # 5 reserved, 1 refunded
    counters.take("key_a", MINUTE, 100, 7, MONTH, 1000)
    counters.flush()
    assert store.month_usage() == [(7, "2027-01", 5, 7)]
    counters.close()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_while_redis_is_away_this_machine_counts_its_share(redis_service: Any,
                                                            tmp_path: Path) -> None:
    from tests.redis_server import flushed

    url = flushed(redis_service.url)
    metrics, clock = Metrics(), Clock()
    counters = RedisCounters(url, SharedCounters(Store(str(tmp_path / "harmony.db"))),
                             machines=2, on_fallback=metrics.counter_fallbacks.inc, clock=clock)
    assert counters.take("key_a", MINUTE, 30, 1, MONTH, 1000) == Taken(1, 1, True)
    redis_service.stop()
    try:
        # 30 a minute over two machines: this one admits 15 on its own, then refuses; the
        # counts it reports are the service's estimate (its own times two)
        taken = [counters.take("key_a", MINUTE, 30, 1, MONTH, 1000) for _ in range(16)]
        assert [t.reserved for t in taken] == [True] * 15 + [False]
        assert taken[-1].minute_count == 32 and taken[0] == Taken(2, 2, True)
        counters.refund(1, MONTH)                         # reserved locally: refunded there
        assert counters.fallbacks == 16
        text, _ = metrics.render()
        assert b"harmony_counter_fallbacks_total 16.0" in text
    finally:
        redis_service.start()
    # within the retry interval the local counters still answer; after it, Redis again
    counters.take("key_a", MINUTE, 30, 1, MONTH, 1000)
    assert counters.fallbacks == 17
    clock.now += 1.5
    assert counters.take("key_a", MINUTE + 1, 30, 1, MONTH, 1000) == Taken(1, 1, True)
    assert counters.fallbacks == 17
    counters.close()


def test_an_outage_seen_through_the_service(redis_service: Any, tmp_path: Path) -> None:
    # The app with HARMONY_REDIS_URL and 2 machines: calls counted in Redis; Redis stopped,
    # this machine admits its half of the minute's 10 and refuses the rest (no 500, never
    # unlimited), /metrics counts those calls; Redis back, it is used again after a second,
    # its month seeded from the store.
    import asyncio

    import redis

    from tests.redis_server import flushed
    from tests.server_fixtures import bearer, make, new_key, running

    url = flushed(redis_service.url)
    app, store = make(tmp_path, redis_url=url, machines=2)
    _, secret = new_key(store)
    store.set_limits("acme", 10, 1000)

    async def calls(http: Any, n: int) -> list[int]:
        return [(await http.post("/v2/analyze", json={"chord": "C"})).status_code
                for _ in range(n)]

    def month_used() -> bytes | None:
        client = redis.Redis.from_url(url)
        keys = client.keys("harmony:*:M:*")
        used = client.get(keys[0]) if len(keys) == 1 else None
        client.close()
        return used

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            assert await calls(http, 3) == [200] * 3          # through Redis
            assert month_used() == b"3"
            app.counters.flush()                              # as the log writer does
            redis_service.stop()
            try:
                assert await calls(http, 7) == [200] * 5 + [429] * 2
                assert "harmony_counter_fallbacks_total 7.0" in \
                    (await http.get("/metrics")).text
            finally:
                redis_service.start()
            await asyncio.sleep(1.1)                          # the back-off's second
            # Redis again, restarted empty: the month is seeded from the store (the 3 calls
            # it had received; the 5 counted here alone are not added)
            assert await calls(http, 2) == [200] * 2
            assert month_used() == b"5"
            assert "harmony_counter_fallbacks_total 7.0" in (await http.get("/metrics")).text

    asyncio.run(scenario())


def test_a_redis_that_lost_its_data_is_seeded_from_the_store(redis_url: str,
                                                           tmp_path: Path) -> None:
    # Issue 35: a Redis restarted without persistence began the month again at 1, and its
    # versions too, so the store's row (newer versions only) then froze for the month.
    import redis

    store = Store(str(tmp_path / "harmony.db"))
    counters = RedisCounters(redis_url, SharedCounters(store))
    admin = redis.Redis.from_url(redis_url)
    for _ in range(10):
        counters.take("key_a", MINUTE, 100, 7, MONTH, 1000)
    assert counters.seeded == 1                             # the month's first call: (0, 0)
    counters.flush()
    assert store.month_usage() == [(7, "2027-01", 10, 10)]
    admin.flushall()              # the data is gone
    assert counters.peek("key_a", MINUTE, 7, MONTH).month_used == 10   # the store's figure
    taken = counters.take("key_a", MINUTE, 100, 7, MONTH, 1000)
    assert taken == Taken(1, 11, True) and counters.seeded == 2
    for _ in range(4):
        counters.take("key_a", MINUTE, 100, 7, MONTH, 1000)
    counters.flush()
    assert store.month_usage() == [(7, "2027-01", 15, 15)]  # moving again, not frozen
    # another process (machine) seeing the same empty month seeds nothing twice
    other = RedisCounters(redis_url, SharedCounters(store))
    admin.flushall()
    assert other.take("key_a", MINUTE, 100, 7, MONTH, 1000).month_used == 16
    assert counters.take("key_a", MINUTE, 100, 7, MONTH, 1000).month_used == 17
    assert other.seeded + counters.seeded == 3
    # a month the store has never heard of starts at 0; the quota holds across a loss
    assert counters.take("key_b", MINUTE, 100, 8, MONTH, 3).month_used == 1
    counters.take("key_b", MINUTE, 100, 8, MONTH, 3)
    counters.flush()
    admin.flushall()
    taken = counters.take("key_b", MINUTE, 100, 8, MONTH, 3)
    assert taken == Taken(1, 3, True)
    assert not counters.take("key_b", MINUTE, 100, 8, MONTH, 3).reserved
    other.close()
    counters.close()
    admin.close()


def test_a_store_that_cannot_seed_leaves_the_call_to_this_machine(redis_url: str,
                                                                 tmp_path: Path) -> None:
    import sqlite3

    class Down(Store):
        def month_total(self, account_id: int, month: str) -> tuple[int, int]:
            raise sqlite3.OperationalError("database is locked")

    counters = RedisCounters(redis_url, SharedCounters(Down(str(tmp_path / "harmony.db"))))
    assert counters.take("key_a", MINUTE, 30, 1, MONTH, 1000) == Taken(1, 1, True)
    assert counters.fallbacks == 1 and counters.seeded == 0   # counted here, Redis left empty
    counters.close()
