"""A bounded pool of worker processes for jobs that must not run on the event loop (renders).

``JobPool(workers, queue, deadline=...)`` runs at most ``workers`` jobs at once, each in a
process of its own (the SoundFont synthesiser holds the GIL for the whole render, so a thread
would stall every other request of the worker); ``queue`` more may wait. A job that finds every
slot taken is refused at once with ``Busy`` (503) and a ``Retry-After`` from the recent job
durations, never queued without bound.

Each slot is a one-process executor of its own, started on its first job and kept for the next
one, so that a job can be stopped without touching the others. The processes are forked by a fork
server (multiprocessing's ``forkserver``: a single-threaded process started once, with the
serving process's environment; the serving process itself has threads, so it does not fork):
the modules named in ``preload`` are imported in the fork server first, so what they load (the
SoundFont's samples, compiled kernels) is in memory once, shared copy-on-write by every process
forked after, and a slot's new process starts in milliseconds, loaded. ``environ`` is set in
this process's environment before the fork server starts, for the preload modules to read. The
fork server is one per process: the first pool to start it decides its preload (a process has
one service, so one pool; another pool's jobs still run, loading what they need themselves).
A job that passes its ``deadline``, whose client went away (the ``gone`` awaitable given to
``run``) or whose caller was cancelled has its process killed and its slot's process started
afresh for the next job. A waiting job whose client goes away leaves the queue at once; the
pool counts only the jobs someone waits for (``in_flight``).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import math
import multiprocessing
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from engine.errors import Busy, InternalError
from server.api import ClientDisconnected

T = TypeVar("T")
FORK_SERVER = multiprocessing.get_context("forkserver")


class JobPool:
    def __init__(self, workers: int, queue: int, what: str = "render",
                 deadline: float = 60.0, preload: Sequence[str] = (),
                 environ: Mapping[str, str] | None = None) -> None:
        if workers < 1 or queue < 0:
            raise ValueError("a job pool needs at least one worker and a queue of 0 or more")
        if deadline <= 0:
            raise ValueError("a job's deadline is a positive number of seconds")
        self.workers, self.queue, self.what, self.deadline = workers, queue, what, deadline
        self.preload, self.environ = list(preload), dict(environ or {})
        self.in_flight = 0
        self.stopped = 0                  # jobs stopped (deadline, client gone, cancelled)
        self._mean_seconds = 5.0          # until a job has been measured
        self._executors: list[ProcessPoolExecutor | None] = [None] * workers
        self._free = list(range(workers))
        self._waiting: collections.deque[asyncio.Future[int]] = collections.deque()

    @property
    def capacity(self) -> int:
        return self.workers + self.queue

    def retry_after(self) -> int:
        """Seconds until a slot is likely free: the jobs ahead, at the recent mean duration."""
        ahead = max(1, self.in_flight - self.workers + 1)
        return max(1, math.ceil(ahead * self._mean_seconds / self.workers))

    async def run(self, fn: Callable[..., T], *args: Any,
                  gone: Callable[[], Awaitable[object] | None] | None = None) -> T:
        """``fn(*args)`` in a worker process (``fn`` and its arguments are pickled: a module
        level function); its exception, a ``HarmonyError`` included, is raised here.

        ``gone()`` completes when the client has gone away: the job then leaves the queue, or
        its process is stopped, and ``ClientDisconnected`` is raised. A job running past the
        deadline is stopped too, and answered ``Busy`` (the machine is slower than the work
        budget assumed)."""
        if self.in_flight >= self.capacity:
            raise Busy(f"every {self.what} slot is taken ({self.workers} running, "
                       f"{self.queue} waiting); try again shortly",
                       retryAfter=self.retry_after())
        self.in_flight += 1
        signal = gone() if gone is not None else None
        watcher = asyncio.ensure_future(signal) if signal is not None else None
        try:
            slot = await self._until(self._acquire(), watcher, None)
            try:
                return await self._run_in(slot, fn, args, watcher)
            finally:
                self._release(slot)
        finally:
            self.in_flight -= 1
            if watcher is not None:
                watcher.cancel()

    async def _run_in(self, slot: int, fn: Callable[..., T], args: tuple[Any, ...],
                      watcher: asyncio.Future[object] | None) -> T:
        started = time.monotonic()
        try:
            future: Future[T] = self._executor(slot).submit(fn, *args)
        except BrokenProcessPool:
            self._recycle(slot)
            future = self._executor(slot).submit(fn, *args)
        job = asyncio.wrap_future(future)
        job.add_done_callback(_retrieved)
        try:
            result = await self._until(job, watcher, self.deadline)
        except BrokenProcessPool:
            # The process died (killed, out of memory): the slot's next job gets a fresh one.
            self._recycle(slot)
            raise InternalError(f"the {self.what} process stopped unexpectedly") from None
        except BaseException:
            # The deadline, the client gone, the caller cancelled: the work must not go on
            # (a job still queued in the executor was cancelled; a running one is killed).
            if not future.done():
                self.stopped += 1
                self._recycle(slot)
            raise
        self._mean_seconds = 0.8 * self._mean_seconds + 0.2 * (time.monotonic() - started)
        return result

    async def _until(self, work: Awaitable[T], watcher: asyncio.Future[object] | None,
                     deadline: float | None) -> T:
        """``work``'s result, unless the client goes first (``ClientDisconnected``) or the
        deadline passes (``Busy``); ``work`` is cancelled then."""
        task = asyncio.ensure_future(work)
        waited: set[asyncio.Future[Any]] = {task} if watcher is None else {task, watcher}
        done, _ = await _wait(waited, deadline, task)
        if task in done:
            return task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, BaseException):
            await task
        if watcher is not None and watcher in done:
            raise ClientDisconnected
        raise Busy(f"the {self.what} passed its deadline of {self.deadline:g} s and was "
                   "stopped; try again when the service is less busy",
                   retryAfter=self.retry_after())

    async def _acquire(self) -> int:
        if self._free:
            return self._free.pop(0)
        waiter: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # handed a slot while leaving
                self._release(waiter.result())
            raise

    def _release(self, slot: int) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(slot)
                return
        self._free.append(slot)
        self._free.sort()

    def _executor(self, slot: int) -> ProcessPoolExecutor:
        executor = self._executors[slot]
        if executor is None:
            # read when the fork server starts (the first process; again if it died)
            os.environ.update(self.environ)
            FORK_SERVER.set_forkserver_preload(self.preload)
            executor = ProcessPoolExecutor(1, mp_context=FORK_SERVER)
            self._executors[slot] = executor
        return executor

    def _recycle(self, slot: int) -> None:
        """Kill the slot's process (a job still running in it is stopped) and forget it: the
        slot's next job starts a new one."""
        executor, self._executors[slot] = self._executors[slot], None
        if executor is None:
            return
        processes = list((getattr(executor, "_processes", None) or {}).values())
        for process in processes:
            with contextlib.suppress(Exception):
                process.kill()
        for process in processes:  # SIGKILL is not refused: a few ms, then it is reaped
            with contextlib.suppress(Exception):
                process.join(5.0)
        executor.shutdown(wait=False, cancel_futures=True)

    def processes(self) -> list[int]:
        """The process ids of the slots' running processes (for tests and the operator)."""
        return [pid for executor in self._executors if executor is not None
                for pid in (getattr(executor, "_processes", None) or {})]

    def close(self) -> None:
        """Stop the worker processes (jobs still running are waited for)."""
        executors, self._executors = self._executors, [None] * self.workers
        for executor in executors:
            if executor is not None:
                executor.shutdown(wait=True, cancel_futures=True)


async def _wait(waited: set[asyncio.Future[Any]], deadline: float | None,
                task: asyncio.Future[Any]) -> tuple[set[asyncio.Future[Any]], Any]:
    try:
        return await asyncio.wait(waited, timeout=deadline,
                                  return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise


def _retrieved(job: asyncio.Future[Any]) -> None:
    """A stopped job's outcome is never read: fetch it, so asyncio reports nothing."""
    if not job.cancelled():
        job.exception()
