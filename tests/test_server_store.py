"""The store: the request log keeps every body byte for byte, and an older database is migrated
in place at start."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from server.accounts.store import MIGRATIONS, LogRow, Store, hash_secret


def test_log_bodies_round_trip_byte_for_byte(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "harmony.db"))
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


def test_retention_drops_old_bodies_only(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "harmony.db"))
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
    assert indexes == {"request_log_ts", "request_log_bodies"}
    assert store.conn.execute("SELECT version FROM schema_version").fetchone() == \
        (len(MIGRATIONS),)


def test_a_plan_change_drops_the_enterprise_limits(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "harmony.db"))
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
