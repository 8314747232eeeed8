"""The request log, off the request's path: rows are queued in memory and a background task
writes them in batches (in a thread, so the event loop never waits on the disk) at least once a
second. ``stop()`` drains the queue on graceful shutdown, so nothing is lost on SIGTERM.
``also`` runs after every batch in the same thread (the monthly totals of ``server.counters``).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable

from server.store import LogRow, Store


class RequestLog:
    def __init__(self, store: Store, interval: float = 0.25, retention_days: int = 30,
                 also: Callable[[], object] | None = None) -> None:
        self.store = store
        self.also = also
        self.interval = interval
        self.retention_days = retention_days
        self.queue: list[LogRow] = []
        self._task: asyncio.Task[None] | None = None
        self._stopping: asyncio.Event | None = None

    def record(self, row: LogRow) -> None:
        self.queue.append(row)

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
        rows, self.queue = self.queue, []
        try:
            return await asyncio.to_thread(self._write, rows)
        except Exception as exc:  # the disk is busy or full: keep the rows, try again
            self.queue[:0] = rows
            print(f"harmony: request log write failed, will retry: {exc!r}", file=sys.stderr)
            return 0

    def _write(self, rows: list[LogRow]) -> int:
        written = self.store.write_log(rows, self.retention_days) if rows else 0
        if self.also is not None:
            try:
                self.also()
            except Exception as exc:  # its own state is kept for the next round
                print(f"harmony: counter flush failed, will retry: {exc!r}", file=sys.stderr)
        return written

    async def stop(self) -> None:
        """Stop the writer and write everything still queued."""
        if self._task is not None and self._stopping is not None:
            self._stopping.set()
            await self._task  # its last round flushes what was queued before the stop
            self._task = None
        rows, self.queue = self.queue, []
        self._write(rows)
