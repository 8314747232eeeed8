"""The request log's queue stays bounded while SQLite keeps failing, and what it drops is
counted (in ``dropped`` and the ``harmony_log_rows_dropped_total`` metric)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from server.accounts.metrics import Metrics
from server.accounts.requestlog import RequestLog
from server.accounts.store import LogRow, Store


class FailingStore(Store):
    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.failing = True

    def write_log(self, rows: Any, retention_days: int) -> int:
        if self.failing:
            raise OSError("disk full")
        return super().write_log(rows, retention_days)


def row(n: int, body: bytes | None = None) -> LogRow:
    return LogRow(time.time() + n, None, "rest", "analyze", 200, None, n, body)


def test_the_queue_is_bounded_and_drops_are_counted(tmp_path: Path, capsys: Any) -> None:
    store = FailingStore(str(tmp_path / "harmony.db"))
    metrics = Metrics()
    log = RequestLog(store, max_rows=5, max_body_bytes=10, on_drop=metrics.log_dropped.inc)
    for n in range(4):
        log.record(row(n, b"12345"))
    # Bodies past the byte bound are not kept; the rows are.
    assert [r.body for r in log.queue] == [b"12345", b"12345", None, None]
    assert asyncio.run(log.flush()) == 0  # fails: the rows go back
    assert "request log write failed" in capsys.readouterr().err
    for n in range(4, 8):
        log.record(row(n))
    assert [r.latency_us for r in log.queue] == [0, 1, 2, 3, 4]
    assert log.dropped == 3
    store.failing = False
    assert asyncio.run(log.flush()) == 5
    assert [r[6] for r in store.log_rows()] == [0, 1, 2, 3, 4]
    assert [r[7] for r in store.log_rows()][:2] == [b"12345", b"12345"]
    log.record(row(9, b"1234567890"))  # the byte budget is free again after a write
    assert log.queue[0].body == b"1234567890"
    text = metrics.render()[0].decode()
    assert "harmony_log_rows_dropped_total 3.0" in text


def test_a_failed_batch_keeps_its_newest_rows_within_the_bound(tmp_path: Path) -> None:
    store = FailingStore(str(tmp_path / "harmony.db"))
    log = RequestLog(store, max_rows=3)
    for n in range(3):
        log.record(row(n))

    async def scenario() -> None:
        flushing = asyncio.create_task(log.flush())
        await asyncio.sleep(0)  # a yield, not a wait: the batch is taken, then two rows come
        log.record(row(3))
        log.record(row(4))
        await flushing

    asyncio.run(scenario())
    assert [r.latency_us for r in log.queue] == [2, 3, 4] and log.dropped == 2
