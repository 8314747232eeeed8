"""The limit counters: exact across processes, monthly totals kept in SQLite and rebuilt from it,
and the same answers from every implementation of the ``Counters`` interface (this machine's
shared file, SQLite, Redis)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.accounts.counters import SharedCounters
from server.accounts.limits import Counters, SqliteCounters, Taken
from server.accounts.redis_counters import RedisCounters
from server.accounts.store import Store

MONTH = 2027 * 12 + 0            # January 2027, as months since year 0
MINUTE = 30_000_000


CALLS = 20_000


def _hammer(db: str, start: Any, out: Any) -> None:
    """In a separate process: CALLS takes; puts (units reserved, highest minute count)."""
    counters = SharedCounters(Store(db))
    reserved = highest = 0
    start.wait()  # both processes race from here
    for _ in range(CALLS):
        taken = counters.take("key_a", MINUTE, 10**9, 1, MONTH, CALLS + CALLS // 2)
        reserved += taken.reserved
        highest = max(highest, taken.minute_count)
    counters.flush()
    out.put((reserved, highest))


def test_exact_across_processes(tmp_path: Path) -> None:
    db = str(tmp_path / "harmony.db")
    Store(db)
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Barrier(2), ctx.Queue()
    workers = [ctx.Process(target=_hammer, args=(db, start, out)) for _ in range(2)]
    for w in workers:
        w.start()
    results = [out.get(timeout=120) for _ in workers]
    for w in workers:
        w.join(60)
    # Every call counted once in the minute, the quota never overshot, whoever ran it.
    quota = CALLS + CALLS // 2
    assert max(highest for _, highest in results) == 2 * CALLS
    assert sum(reserved for reserved, _ in results) == quota
    counters = SharedCounters(Store(db))
    assert counters.take("key_a", MINUTE, 10**9, 1, MONTH, quota) == \
        Taken(2 * CALLS + 1, quota, False)
    assert [row[:3] for row in Store(db).month_usage()] == [(1, "2027-01", quota)]


@pytest.fixture(params=["shared", "sqlite", "redis"])
def counters(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Counters]:
    """Each implementation of ``Counters``; Redis's against a real server (the same suite)."""
    store = Store(str(tmp_path / "harmony.db"))
    if request.param == "redis":
        redis = RedisCounters(request.getfixturevalue("redis_url"), SharedCounters(store))
        yield redis
        redis.close()
        return
    yield SharedCounters(store) if request.param == "shared" else SqliteCounters(store)


def test_minute_month_and_refund(counters: Counters) -> None:
    take = counters.take
    assert take("key_a", MINUTE, 2, 1, MONTH, 3) == Taken(1, 1, True)
    assert take("key_a", MINUTE, 2, 1, MONTH, 3) == Taken(2, 2, True)
    # Over the minute: counted, nothing reserved.
    assert take("key_a", MINUTE, 2, 1, MONTH, 3) == Taken(3, 2, False)
    # A new minute, another key of the same account: the month is the account's.
    assert take("key_b", MINUTE, 2, 1, MONTH, 3) == Taken(1, 3, True)
    assert take("key_a", MINUTE + 1, 2, 1, MONTH, 3) == Taken(1, 3, False)
    counters.refund(1, MONTH)  # a failed call gives its unit back
    assert take("key_a", MINUTE + 1, 2, 1, MONTH, 3) == Taken(2, 3, True)
    # Another account and the next month start from zero.
    assert take("key_c", MINUTE, 2, 2, MONTH, 3) == Taken(1, 1, True)
    assert take("key_b", MINUTE + 2, 2, 1, MONTH + 1, 3) == Taken(1, 1, True)


def test_monthly_totals_survive_a_lost_counters_file(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "harmony.db"))
    counters = SharedCounters(store)
    for _ in range(7):
        counters.take("key_a", MINUTE, 100, 1, MONTH, 1000)
    counters.refund(1, MONTH)
    assert counters.flush() == 1
    assert counters.flush() == 0  # nothing changed since
    counters.close()
    Path(counters.path).unlink()
    again = SharedCounters(store)
    assert again.take("key_a", MINUTE, 100, 1, MONTH, 1000) == Taken(1, 7, True)


def test_a_stale_snapshot_never_rolls_a_total_back(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "harmony.db"))
    store.save_month_usage([(1, "2027-01", 10, 10)])
    store.save_month_usage([(1, "2027-01", 9, 9)])   # an older snapshot from another worker
    assert store.month_usage() == [(1, "2027-01", 10, 10)]


def test_a_counters_file_of_another_database_is_rebuilt(tmp_path: Path) -> None:
    first = SharedCounters(Store(str(tmp_path / "one.db")))
    for _ in range(5):
        first.take("key_a", MINUTE, 100, 1, MONTH, 1000)
    first.close()
    # A new database at the same place (say the old one was deleted): its account 1 is not
    # the old account 1, and must not inherit its usage.
    (tmp_path / "two.db.counters").write_bytes(Path(first.path).read_bytes())
    second = SharedCounters(Store(str(tmp_path / "two.db")))
    assert second.take("key_a", MINUTE, 100, 1, MONTH, 1000) == Taken(1, 1, True)


def test_a_closed_month_keeps_its_final_total(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "harmony.db"))
    counters = SharedCounters(store)
    for _ in range(3):
        counters.take("key_a", MINUTE, 100, 1, MONTH, 1000)
    # The month turns before the writer ran: the old total is still written, once.
    assert counters.take("key_a", MINUTE + 1, 100, 1, MONTH + 1, 1000) == Taken(1, 1, True)
    assert counters.take("key_a", MINUTE + 1, 100, 1, MONTH + 1, 1000) == Taken(2, 2, True)
    counters.flush()
    assert [row[:3] for row in store.month_usage()] == [(1, "2027-01", 3), (1, "2027-02", 2)]


def _child_takes(counters: SharedCounters, out: Any) -> None:
    out.put(counters.take("key_a", MINUTE, 100, 1, MONTH, 1000))


def test_a_worker_forked_after_opening_counts_into_the_same_file(tmp_path: Path) -> None:
    # granian forks its workers: the child reopens the file (its own descriptor and flock).
    counters = SharedCounters(Store(str(tmp_path / "harmony.db")))
    counters.take("key_a", MINUTE, 100, 1, MONTH, 1000)
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    child = ctx.Process(target=_child_takes, args=(counters, out))
    child.start()
    assert out.get(timeout=60) == Taken(2, 2, True)
    child.join(60)
    assert counters.take("key_a", MINUTE, 100, 1, MONTH, 1000) == Taken(3, 3, True)


def test_peek_reads_without_counting(counters: Counters) -> None:
    assert counters.peek("key_a", MINUTE, 1, MONTH) == Taken(0, 0, False)
    counters.take("key_a", MINUTE, 2, 1, MONTH, 3)
    counters.take("key_a", MINUTE, 2, 1, MONTH, 3)
    for _ in range(3):  # as often as asked: nothing moves
        assert counters.peek("key_a", MINUTE, 1, MONTH) == Taken(2, 2, False)
    assert counters.peek("key_a", MINUTE + 1, 1, MONTH) == Taken(0, 2, False)  # a new minute
    assert counters.peek("key_a", MINUTE + 1, 1, MONTH + 1) == Taken(0, 0, False)
    assert counters.take("key_a", MINUTE, 2, 1, MONTH, 3) == Taken(3, 2, False)


def test_a_late_call_at_a_boundary_counts_in_the_newer_period(tmp_path: Path) -> None:
    # A worker that read the clock just before a minute (or month) another worker has already
    # started counts into the newer one; it never turns the counters back.
    counters = SharedCounters(Store(str(tmp_path / "harmony.db")))
    assert counters.take("key_a", MINUTE + 1, 100, 1, MONTH + 1, 1000) == Taken(1, 1, True)
    assert counters.take("key_a", MINUTE, 100, 1, MONTH, 1000) == Taken(2, 2, True)
    assert counters.take("key_a", MINUTE + 1, 100, 1, MONTH + 1, 1000) == Taken(3, 3, True)
    assert counters.peek("key_a", MINUTE + 1, 1, MONTH + 1) == Taken(3, 3, False)


def test_a_counters_file_of_the_older_layout_is_rebuilt_from_the_totals(tmp_path: Path) -> None:
    # 0.6.0's file (HARMCNT1: the period, count and version in three words, under flock) is
    # not read as this layout: the month starts again from the totals the store holds.
    store = Store(str(tmp_path / "harmony.db"))
    store.save_month_usage([(1, "2027-01", 41, 7)])
    old = SharedCounters(store)
    old.close()
    data = bytearray(Path(old.path).read_bytes())
    data[:8] = b"HARMCNT1"
    Path(old.path).write_bytes(bytes(data))
    again = SharedCounters(store)
    assert again.take("key_a", MINUTE, 100, 1, MONTH, 1000) == Taken(1, 42, True)
    again.flush()
    assert store.month_usage() == [(1, "2027-01", 42, 8)]
