"""Progress of a stdio tool call (``notifications/progress``, sent only when the client gave a
``progressToken``) and its work off the event loop, so the SDK's loop keeps answering ``ping``
while a long call runs (``docs/mcp-stdio.md``)."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread

HEARTBEAT = 1.0   # seconds between progress notifications of a long call
T = TypeVar("T")
Report = Callable[[float, float | None, str | None], Awaitable[None]]


class Call:
    """One tool call as its handler sees it: progress notifications (sent only when the client
    gave a ``progressToken``; each one's ``progress`` above the one before) and ``work``, which
    runs engine code on a worker thread so the event loop keeps answering ``ping``."""

    def __init__(self, report: Report | None = None) -> None:
        self._report = report
        self._last = -1.0
        self._total: float | None = None

    async def progress(self, done: float, total: float | None, message: str) -> None:
        if self._report is None or done <= self._last:
            return
        self._last, self._total = done, total
        with contextlib.suppress(Exception):  # one that cannot be sent never fails the call
            await self._report(done, total, message)

    async def work(self, fn: Callable[[], T], *, step: float = 0, total: float = 1,
                   message: str = "working") -> T:
        """``fn()`` on a worker thread, with progress as ``during`` sends it."""
        return await self.during(lambda: anyio.to_thread.run_sync(fn), step=step, total=total,
                                 message=message)

    async def during(self, start: Callable[[], Awaitable[T]], *, step: float = 0,
                     total: float = 1, message: str = "working") -> T:
        """Await ``start()`` (engine work on a thread, a call to the service); progress
        ``step``/``total`` now, then every ``HEARTBEAT`` seconds a little nearer ``step + 1``
        (never reaching it) with the seconds spent, until it returns."""
        await self.progress(step, total, message)
        outcome: list[Any] = []
        async with anyio.create_task_group() as group:
            async def beat() -> None:
                beats = 0
                while True:
                    await anyio.sleep(HEARTBEAT)
                    beats += 1
                    await self.progress(step + 1 - 0.5 ** beats, total,
                                        f"{message} ({beats * HEARTBEAT:g} s)")

            if self._report is not None:
                group.start_soon(beat)
            try:
                outcome.append((await start(), None))
            except Exception as exc:
                outcome.append((None, exc))
            group.cancel_scope.cancel()
        value, error = outcome[0]
        if error is not None:
            raise error
        result: T = value
        return result

    async def finish(self) -> None:
        """The last notification (progress = total), when any was sent."""
        if self._last >= 0 and self._total is not None:
            await self.progress(self._total, self._total, "done")
