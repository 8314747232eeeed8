"""The request log, off the request's path: rows are queued in memory and a background task
writes them in batches (in a thread, so the event loop never waits on the disk) at least once a
second. ``stop()`` drains the queue on graceful shutdown, so nothing is lost on SIGTERM.
``also`` runs after every batch in the same thread (the monthly totals of ``server.accounts.counters``);
``before`` runs on the event loop before every batch and at the stop (the metrics' ``publish``).

The queue is bounded, for when SQLite keeps failing (disk full, a lock held for long): at most
``max_rows`` rows (100,000 by default; further rows are dropped) and ``max_body_bytes`` of
request bodies (64 MiB; further rows are kept without their body). Dropped rows are counted in
``dropped`` and passed to ``on_drop`` (the ``harmony_log_rows_dropped_total`` metric).

The log on disk is bounded too (API.md 10): a body is kept only up to ``MAX_LOGGED_BODY``
(4 KiB: what the vocabulary work reads), and none of a render or compose upload; rows older
than ``log_days`` are deleted, and their space reclaimed, once an hour (``Store.prune_log``).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Callable

from server.accounts.store import LogRow, Store

MAX_LOGGED_BODY = 4096
UNLOGGED_BODIES = frozenset({"render", "compose"})   # uploads of up to 1 MiB: never kept
PRUNE_SECONDS = 3600.0                               # how often old rows are deleted


class RequestLog:
    def __init__(self, store: Store, interval: float = 0.25, retention_days: int = 30,
                 also: Callable[[], object] | None = None, *, max_rows: int = 100_000,
                 max_body_bytes: int = 64 << 20,
                 on_drop: Callable[[int], object] | None = None,
                 before: Callable[[], object] | None = None, log_days: int = 90,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.log_days = log_days
        self.clock = clock
        self._pruned_at: float | None = None     # the last pass of ``prune`` (None: never)
        self.also = also
        self.before = before
        self.interval = interval
        self.retention_days = retention_days
        self.max_rows = max_rows
        self.max_body_bytes = max_body_bytes
        self.on_drop = on_drop
        self.dropped = 0
        self.queue: list[LogRow] = []
        self._body_bytes = 0                 # of the bodies in the queue
        self._task: asyncio.Task[None] | None = None
        self._stopping: asyncio.Event | None = None

    def record(self, row: LogRow) -> None:
        if len(self.queue) >= self.max_rows:
            self._drop(1)
            return
        body = row.body
        if body:
            if row.operation in UNLOGGED_BODIES:
                row, body = row._replace(body=None), None
            elif len(body) > MAX_LOGGED_BODY:
                body = body[:MAX_LOGGED_BODY]
                row = row._replace(body=body)
        if body:
            if self._body_bytes + len(body) > self.max_body_bytes:
                row = row._replace(body=None)
            else:
                self._body_bytes += len(body)
        self.queue.append(row)

    def _drop(self, rows: int) -> None:
        self.dropped += rows
        if self.on_drop is not None:
            self.on_drop(rows)

    def _take(self) -> list[LogRow]:
        rows, self.queue, self._body_bytes = self.queue, [], 0
        return rows

    def start(self) -> None:
        if self._task is None:
            self._stopping = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._run(self._stopping))

    async def _run(self, stopping: asyncio.Event) -> None:
        while not stopping.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), self.interval)
            await self.flush()

    async def flush(self) -> int:
        if self.before is not None:
            self.before()
        rows = self._take()
        try:
            return await asyncio.to_thread(self._write, rows)
        except Exception as exc:  # the disk is busy or full: keep the rows, try again
            room = max(0, self.max_rows - len(self.queue))
            if len(rows) > room:  # the oldest go first
                self._drop(len(rows) - room)
                rows = rows[len(rows) - room:]
            self.queue[:0] = rows
            self._body_bytes += sum(len(r.body) for r in rows if r.body)
            print(f"harmony: request log write failed, will retry: {exc!r}", file=sys.stderr)
            return 0

    def _write(self, rows: list[LogRow]) -> int:
        written = self.store.write_log(rows, self.retention_days) if rows else 0
        self.prune()
        if self.also is not None:
            try:
                self.also()
            except Exception as exc:  # its own state is kept for the next round
                print(f"harmony: counter flush failed, will retry: {exc!r}", file=sys.stderr)
        return written

    def prune(self, force: bool = False) -> int:
        """Delete the rows past ``log_days`` (at most once every ``PRUNE_SECONDS`` unless
        ``force``); a failure is reported and tried again at the next pass."""
        now = self.clock()
        if not force and self._pruned_at is not None and now - self._pruned_at < PRUNE_SECONDS:
            return 0
        self._pruned_at = now
        try:
            return self.store.prune_log(now - self.log_days * 86400)
        except Exception as exc:
            print(f"harmony: request log retention failed, will retry: {exc!r}",
                  file=sys.stderr)
            return 0

    async def stop(self) -> None:
        """Stop the writer and write everything still queued."""
        if self._task is not None and self._stopping is not None:
            self._stopping.set()
            await self._task  # its last round flushes what was queued before the stop
            self._task = None
        if self.before is not None:
            self.before()
        self._write(self._take())
