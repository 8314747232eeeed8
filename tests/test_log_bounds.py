"""The request log bounded on disk (issue 35, API.md 10): bodies kept only up to 4 KiB and none
of a render or compose upload; rows older than ``HARMONY_LOG_DAYS`` deleted and their pages
given back (the file shrinks); ``harmony usage --days`` reads within that window."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from server.accounts.requestlog import MAX_LOGGED_BODY, PRUNE_SECONDS, RequestLog
from server.accounts.store import LogRow, Store
from server.api.schemas import OPERATIONS
from server.cli.main import main
from server.http.settings import Settings, env_log_days
from tests.server_fixtures import bearer, make, new_key, run, running

DAY = 86400.0


def row(ts: float, operation: str = "analyze", body: bytes | None = None) -> LogRow:
    return LogRow(ts, None, "rest", operation, 400, "invalid_request", 100, body)


def test_bodies_are_cut_to_4_kib_and_uploads_are_not_kept(tmp_path: Path) -> None:
    log = RequestLog(Store(str(tmp_path / "h.db")))
    big = b"x" * (1 << 20)
    log.record(row(1.0, "analyze", big))
    log.record(row(2.0, "analyze", b"small"))
    log.record(row(3.0, "compose", big))
    log.record(row(4.0, "render", b"{}"))
    assert [r.body for r in log.queue] == [big[:MAX_LOGGED_BODY], b"small", None, None]


def test_through_the_service_a_failed_megabyte_keeps_no_megabyte(tmp_path: Path) -> None:
    app, store = make(tmp_path, operations=OPERATIONS)
    _, secret = new_key(store, plan="developer")
    upload = b'{"operations": "' + b"z" * 900_000 + b'"}'
    analyze = b'{"chord": "' + b"q" * 20_000 + b'"}'

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            for path, body in (("/v2/compose", upload), ("/v2/analyze", analyze)):
                r = await http.post(path, content=body,
                                    headers={"content-type": "application/json"})
                assert r.status_code == 400

    run(scenario())
    bodies = {operation: body for _, _, _, operation, _, _, _, body in store.log_rows()}
    assert bodies["compose"] is None
    assert bodies["analyze"] == analyze[:MAX_LOGGED_BODY]


def _pages(path: Path) -> tuple[int, int]:
    with sqlite3.connect(path) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return (c.execute("PRAGMA page_count").fetchone()[0],
                c.execute("PRAGMA freelist_count").fetchone()[0])


def test_rows_past_the_window_are_deleted_and_the_file_shrinks(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    store = Store(str(path))
    now = time.time()
    old = [row(now - 100 * DAY + n, body=b"b" * 4000) for n in range(3000)]
    recent = [row(now - 10 * DAY + n, body=b"r") for n in range(7)]
    store.write_log(old + recent, retention_days=365)
    full, _ = _pages(path)
    assert store.prune_log(now - 90 * DAY) == 3000
    pages, free = _pages(path)
    assert [r[0] for r in store.log_rows()] == [r.ts for r in recent]
    assert free == 0 and pages < full // 10


def test_a_database_made_before_is_converted_to_incremental_vacuum(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    Store(str(path)).close()
    with sqlite3.connect(path, isolation_level=None) as c:   # as the old code made it
        c.execute("PRAGMA auto_vacuum = NONE")
        c.execute("VACUUM")
        assert c.execute("PRAGMA auto_vacuum").fetchone()[0] == 0
    store = Store(str(path))
    assert store.conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2


def test_the_writer_prunes_once_an_hour(tmp_path: Path) -> None:
    cutoffs: list[float] = []

    class Counting(Store):
        def prune_log(self, before: float) -> int:
            cutoffs.append(before)
            return 0

    now = [1_000_000_000.0]
    store = Counting(str(tmp_path / "h.db"))
    log = RequestLog(store, log_days=30, clock=lambda: now[0])
    log.prune()
    now[0] += PRUNE_SECONDS - 1
    log.prune()
    now[0] += 1
    log.prune()
    assert cutoffs == [1_000_000_000.0 - 30 * DAY,
                             1_000_000_000.0 + PRUNE_SECONDS - 30 * DAY]


def test_log_days_is_a_setting_and_usage_reads_within_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().log_days == 90 and env_log_days({}) == 90
    assert Settings.from_env({"HARMONY_LOG_DAYS": "7"}).log_days == 7
    with pytest.raises(ValueError, match="HARMONY_LOG_DAYS"):
        Settings(log_days=0)
    db = tmp_path / "h.db"
    store = Store(str(db))
    now = time.time()
    store.write_log([row(now - 20 * DAY), row(now - DAY)], retention_days=30)
    monkeypatch.setenv("HARMONY_LOG_DAYS", "10")
    assert main(["--db", str(db), "usage", "--days", "365", "--by", "day", "--json"]) == 0
    out = capsys.readouterr()
    assert "keeps 10 days" in out.err and out.out.count('"calls"') == 1
