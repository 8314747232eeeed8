"""The store, on both backends (SQLite and PostgreSQL, ``store_address``): the request log keeps
every body byte for byte, plans and limits, keys, monthly totals, sign-in links; an older
database is migrated in place at start."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from server.accounts import SignIn
from server.accounts.pgstore import MIGRATIONS as PG_MIGRATIONS
from server.accounts.store import (
    LOG_CHUNK,
    MIGRATIONS,
    LogRow,
    Store,
    StoreError,
    _chunk_sizes,
    hash_secret,
)

Opener = Callable[[str], Store]     # the ``opened`` fixture: open_store, closed after the test


def test_log_bodies_round_trip_byte_for_byte(store_address: str, opened: Opener) -> None:
    store = opened(store_address)
    bodies = [b'{"chord":"C"}', None, b"\xff\xfe not UTF-8", '{"chord":"C\u266f7\\n\x00"}'.encode(),
              b'{"chord":"D"}']
    now = time.time()  # bodies older than the retention period are dropped
    rows = [LogRow(now + i, "key_a" if i % 2 else None, "rest", "analyze", 200, None, i, body)
            for i, body in enumerate(bodies)]
    assert store.write_log(rows, retention_days=30) == 5
    got = sorted(store.log_rows())
    assert [r[7] for r in got] == bodies
    assert [(r[0], r[1], r[6]) for r in got] == [(r.ts, r.key_id, r.latency_us) for r in rows]
    assert {type(r[7]) for r in got} == {bytes, type(None)}


def test_a_batch_longer_than_a_statement_is_written_whole_and_in_order(
        store_address: str, opened: Opener) -> None:
    # SQLite writes a batch LOG_CHUNK rows a statement: 3 chunks and a part, in one transaction.
    store = opened(store_address)
    now = time.time()
    rows = [LogRow(now + i / 1000, f"key_{i % 3}", "mcp" if i % 5 else "rest", "analyze",
                   200 if i % 7 else 422, None if i % 7 else "invalid_chord", i,
                   b'{"chord":"C%d"}' % i if i % 2 else None)
            for i in range(3 * LOG_CHUNK + 5)]
    assert store.write_log(rows, retention_days=30) == len(rows)
    assert store.log_rows() == [(r.ts, r.key_id, r.surface, r.operation, r.status, r.error,
                                 r.latency_us, r.body) for r in rows]


def test_log_text_columns_with_copy_s_special_characters_read_back_as_written(
        store_address: str, opened: Opener) -> None:
    # PostgreSQL's rows go as COPY text made by ``copy_text``: a tab, newline, carriage
    # return or backslash inside a value, a literal "\\N", every byte of a body, an empty
    # body, floats whose shortest text has many digits or an exponent
    store = opened(store_address)
    odd = ["key\twith tab", "new\nline", "back\\slash \\N", "cr\r", "C\u266f7 \u00e9"]
    rows = [LogRow(t, k, "rest" if i % 2 else "mcp", op, 200 + i, err, lat, body)
            for i, (t, k, op, err, lat, body) in enumerate([
                (1732678923.123456789, odd[0], "analyze", None, 0, bytes(range(256))),
                (1 / 3, odd[1], None, odd[2], 2**40, b""),
                (1e16 + 2.0, None, odd[3], "invalid_chord", 7, None),
                (time.time(), odd[4], "analyze", "\\N", 1, b"\\\t\n")])]
    assert store.write_log(rows, retention_days=100_000) == 4
    assert store.log_rows() == [(r.ts, r.key_id, r.surface, r.operation, r.status, r.error,
                                 r.latency_us, r.body) for r in rows]


def test_a_log_write_that_fails_mid_batch_keeps_every_row_for_the_next(
        store_address: str, opened: Opener, monkeypatch: pytest.MonkeyPatch) -> None:
    # a batch fails part way, after some of its rows went out (PostgreSQL: the COPY's second
    # write; SQLite: its third statement): the transaction writes nothing, the request log
    # keeps the rows, and the next flush writes each exactly once, in order
    import asyncio

    from server.accounts import pgstore
    from server.accounts import store as store_module
    from server.accounts.requestlog import RequestLog

    store = opened(store_address)
    log = RequestLog(store, max_rows=10**6)
    rows = [LogRow(time.time() + i / 1e3, f"key_{i % 3}", "rest", "analyze", 200, None, i,
                   b"%d" % i if i % 4 == 0 else None) for i in range(pgstore.COPY_ROWS + 5)]
    for row in rows:
        log.record(row)
    calls = [0]

    def failing(real: Callable[..., Any], at: int) -> Callable[..., Any]:
        def made(*args: Any) -> Any:
            calls[0] += 1
            if calls[0] == at:
                raise OSError("the disk went away")
            return real(*args)
        return made

    monkeypatch.setattr(pgstore, "copy_text", failing(pgstore.copy_text, 2))
    monkeypatch.setattr(store_module, "_insert_rows", failing(store_module._insert_rows, 3))
    assert asyncio.run(log.flush()) == 0 and len(log.queue) == len(rows)
    assert calls[0] >= 2 and store.log_rows() == []
    assert asyncio.run(log.flush()) == len(rows) and log.queue == []
    assert store.log_rows() == [(r.ts, r.key_id, r.surface, r.operation, r.status, r.error,
                                 r.latency_us, r.body) for r in rows]


def test_a_batch_is_cut_into_few_statement_shapes() -> None:
    # Every row once, in order; only LOG_CHUNK and the powers of two below it, so the
    # connection prepares at most seven INSERTs however the batches fall.
    shapes = set()
    for rows in range(0, 5 * LOG_CHUNK):
        sizes = list(_chunk_sizes(rows))
        assert sum(sizes) == rows and sizes == sorted(sizes, reverse=True)
        shapes.update(sizes)
    assert shapes == {LOG_CHUNK >> k for k in range(7)}


def test_retention_drops_old_bodies_only(store_address: str, opened: Opener) -> None:
    store = opened(store_address)
    store.write_log([LogRow(1.0, None, "rest", "analyze", 200, None, 1, b"old")], 30)
    store.write_log([LogRow(time.time(), None, "rest", "analyze", 200, None, 1, b"new")], 30)
    assert [r[7] for r in store.log_rows()] == [None, b"new"]


def test_a_schema_1_database_is_migrated_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    old.execute("INSERT INTO schema_version VALUES (1)")
    old.executescript(MIGRATIONS[0])
    old.execute("INSERT INTO accounts (name, plan, created) VALUES ('acme', 'free', 0)")
    old.commit()
    old.close()
    store = Store(str(path))
    assert store.accounts() == [("acme", "free")]
    assert len(store.instance_id()) == 32
    assert store.month_usage() == []
    indexes = {r[0] for r in store.conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'request_log'")}
    assert indexes == {"request_log_ts"}     # 3 added request_log_bodies, 5 dropped it
    assert store.conn.execute("SELECT version FROM schema_version").fetchone() == \
        (len(MIGRATIONS),)


def test_a_plan_change_drops_the_enterprise_limits(store_address: str, opened: Opener) -> None:
    store = opened(store_address)
    store.create_account("acme", "free")
    _, secret = store.create_key("acme")
    store.set_limits("acme", 5, 9)
    record = store.lookup_key(hash_secret(secret))
    assert record is not None
    assert (record.plan.name, record.per_minute, record.per_month) == ("enterprise", 5, 9)
    store.set_plan("acme", "developer")
    record = store.lookup_key(hash_secret(secret))
    assert record is not None
    assert (record.plan.name, record.per_minute, record.per_month) == ("developer", 300, 100_000)
    store.set_plan("acme", "enterprise")  # back to enterprise: the plan's defaults until set
    record = store.lookup_key(hash_secret(secret))
    assert record is not None and (record.per_minute, record.per_month) == (1_000, 1_000_000)


def test_keys_accounts_and_the_key_cap(store_address: str, opened: Opener) -> None:
    store = opened(store_address)
    assert store.create_account("acme", "free") == store.account_id("acme")
    key_id, secret = store.create_key("acme")
    with pytest.raises(StoreError, match="free plan allows 1"):
        store.create_key("acme")
    with pytest.raises(StoreError, match="exists"):
        store.create_account("acme", "free")
    record = store.lookup_key(hash_secret(secret))
    assert record is not None and (record.key_id, record.account, record.revoked) == \
        (key_id, "acme", False)
    new_id, new_secret = store.rotate_key(key_id)
    old, new = store.lookup_key(hash_secret(secret)), store.lookup_key(hash_secret(new_secret))
    assert old is not None and old.revoked
    assert new is not None and (new.key_id, new.revoked) == (new_id, False)
    store.revoke_key(new_id)
    with pytest.raises(StoreError, match="no active key"):
        store.revoke_key(new_id)
    assert [k["replacedBy"] for k in store.list_keys("acme")] == [new_id, None]
    assert store.has_keys() and store.accounts() == [("acme", "free")]


def test_usage_last_use_and_vocabulary_gaps(store_address: str, opened: Opener) -> None:
    store = opened(store_address)
    store.create_account("acme", "developer")
    key_id, _ = store.create_key("acme")
    now = time.time()
    rows = [LogRow(now - 10 + i, key_id, "rest", "analyze", 200 if i % 3 else 400,
                   None if i % 3 else "invalid_chord", 100 + i, None,
                   None if i % 3 else "Cmaj13#") for i in range(9)]
    store.write_log(rows, retention_days=30)
    report = store.usage("acme")
    assert [(u["key"], u["calls"], u["errors"]) for u in report] == [(key_id, 9, 3)]
    assert [u["calls"] for u in store.usage("acme", by="operation")] == [9]
    assert store.vocab_gaps()[0]["symbol"] == "Cmaj13#" and store.vocab_gaps()[0]["count"] == 3
    active = store.active_keys(store.account_id("acme"), now - 60)
    assert active[0]["calls"] == 9 and active[0]["lastUsed"] is not None


def test_month_totals_only_move_forward(store_address: str, opened: Opener) -> None:
    store = opened(store_address)
    store.save_month_usage([(1, "2026-11", 10, 5)])
    store.save_month_usage([(1, "2026-11", 7, 3)])       # an older snapshot: ignored
    store.save_month_usage([(1, "2026-11", 12, 6), (2, "2026-10", 1, 1)])
    assert store.month_usage() == [(2, "2026-10", 1, 1), (1, "2026-11", 12, 6)]
    assert len(store.instance_id()) == 32


def test_sign_in_links_and_sessions(store_address: str, opened: Opener) -> None:
    store = opened(store_address)
    store.create_account("acme", "free")
    signin = SignIn(store)
    link = signin.issue_link("acme")
    session = signin.redeem(link)
    assert session is not None and signin.redeem(link) is None      # used once
    assert signin.account_of(session) == store.account_id("acme")
    signin.end(session)
    assert signin.account_of(session) is None


def test_a_schema_2_postgres_database_is_migrated_in_place(
        postgres_host: str, opened: Opener) -> None:
    import psycopg

    from tests.pg_server import database

    address = database(postgres_host)
    with psycopg.connect(address, autocommit=True) as old:
        old.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        old.execute("INSERT INTO schema_version VALUES (2)")
        for script in PG_MIGRATIONS[:2]:
            for statement in script.split(";"):
                if statement.strip():
                    old.execute(statement)
        old.execute("INSERT INTO accounts (name, plan, created) VALUES ('acme', 'free', 0)")
    store = opened(address)
    assert store.accounts() == [("acme", "free")]
    assert store.conn.execute("SELECT version FROM schema_version").fetchone() == \
        (len(PG_MIGRATIONS),)
    assert len(PG_MIGRATIONS) == len(MIGRATIONS)      # one schema history, two spellings
    store.create_key("acme")                           # keys.last_used exists
    assert opened(address).accounts() == [("acme", "free")]   # a second start: nothing to do


def test_the_machine_s_counters_keep_their_month_in_either_store(
        store_address: str, opened: Opener, tmp_path: Path) -> None:
    # the local counters flush their monthly totals into the store, and a machine whose
    # counters file is lost starts again from them (on PostgreSQL: from the shared totals)
    from server.accounts import SharedCounters
    from server.accounts.limits import Taken

    store = opened(store_address)
    path = str(tmp_path / "machine.counters")
    counters = SharedCounters(store, path)
    month = 2027 * 12
    for _ in range(7):
        counters.take("key_a", 100, 100, 1, month, 1000)
    counters.refund(1, month)
    assert counters.flush() == 1
    counters.close()
    Path(path).unlink()
    again = SharedCounters(store, path)
    assert again.take("key_a", 100, 100, 1, month, 1000) == Taken(1, 7, True)
    again.close()


def test_retention_reads_only_the_rows_newly_past_the_period(
        store_address: str, opened: Opener) -> None:
    # each pass starts where the last one stopped: a body past the period is dropped once,
    # recent ones stay, on both backends
    store = opened(store_address)
    now = time.time()
    store.write_log([LogRow(now - 40 * 86400, None, "rest", "analyze", 200, None, 1, b"old"),
                     LogRow(now - 20 * 86400, None, "rest", "analyze", 200, None, 1, b"mid")],
                    30)
    assert [r[7] for r in store.log_rows()] == [None, b"mid"]
    store.write_log([LogRow(now, None, "rest", "analyze", 200, None, 1, b"new")], 10)
    assert [r[7] for r in store.log_rows()] == [None, None, b"new"]


def test_rows_past_the_log_window_are_deleted_on_both_backends(
        store_address: str, opened: Opener, monkeypatch: pytest.MonkeyPatch) -> None:
    from server.accounts import store as store_module

    monkeypatch.setattr(store_module, "PRUNE_CHUNK", 3)  # several DELETE transactions
    store = opened(store_address)
    now = time.time()
    store.write_log([LogRow(now - 100 * 86400 + n, None, "rest", "analyze", 200, None, 1,
                            b"old") for n in range(7)]
                    + [LogRow(now - n, None, "rest", "analyze", 200, None, 1, b"new")
                       for n in (2, 1)], 365)
    assert store.prune_log(now - 90 * 86400) == 7
    assert [r[7] for r in store.log_rows()] == [b"new", b"new"]
    assert store.prune_log(now - 90 * 86400) == 0
