"""A bounded pool of worker processes for jobs that must not run on the event loop (renders).

``JobPool(workers, queue)`` runs at most ``workers`` jobs at once, each in a process of its own
(the SoundFont synthesiser holds the GIL for the whole render, so a thread would stall every
other request of the worker); ``queue`` more may wait. A job that finds every slot taken is
refused at once with ``Busy`` (503) and a ``Retry-After`` from the recent job durations, never
queued without bound. The processes are started on the first job (spawned, not forked: the
serving process has threads) and live until ``close``: each loads what it needs once (a
SoundFont takes seconds) and keeps it for the next job.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from engine.errors import Busy, InternalError

T = TypeVar("T")


class JobPool:
    def __init__(self, workers: int, queue: int, what: str = "render") -> None:
        if workers < 1 or queue < 0:
            raise ValueError("a job pool needs at least one worker and a queue of 0 or more")
        self.workers, self.queue, self.what = workers, queue, what
        self.in_flight = 0
        self._mean_seconds = 5.0  # until a job has been measured
        self._executor: ProcessPoolExecutor | None = None

    @property
    def capacity(self) -> int:
        return self.workers + self.queue

    def retry_after(self) -> int:
        """Seconds until a slot is likely free: the jobs ahead, at the recent mean duration."""
        ahead = max(1, self.in_flight - self.workers + 1)
        return max(1, math.ceil(ahead * self._mean_seconds / self.workers))

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker process (``fn`` and its arguments are pickled: a module
        level function); its exception, a ``HarmonyError`` included, is raised here."""
        if self.in_flight >= self.capacity:
            raise Busy(f"every {self.what} slot is taken ({self.workers} running, "
                       f"{self.queue} waiting); try again shortly",
                       retryAfter=self.retry_after())
        self.in_flight += 1
        started = time.monotonic()
        try:
            future = self._pool().submit(fn, *args)
            result = await asyncio.wrap_future(future)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): the next job gets a fresh pool.
            self._reset()
            raise InternalError(f"the {self.what} process stopped unexpectedly") from None
        finally:
            self.in_flight -= 1
        self._mean_seconds = 0.8 * self._mean_seconds + 0.2 * (time.monotonic() - started)
        return result

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"))
        return self._executor

    def _reset(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the worker processes (jobs still running are waited for)."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
