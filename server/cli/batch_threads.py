"""The threads of ``harmony batch``'s columnar path (``server.cli.batch_arrow``): the run of
the blocks, whose writes (``JsonlOut.parts``, ``ParquetOut.parts``) go to a thread of their own
(Arrow and the file release the GIL), so reading and analysing the next block uses the other
core meanwhile; and a Parquet file's blocks read ahead on a third (``read_ahead``).
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from engine.analysis import PairTable
from server.cli.batch_arrow import JsonlOut, ParquetOut

SWITCH = 0.0005  # seconds: the GIL's switch interval while a batch runs (run_blocks)


def run_blocks(blocks: Iterator[tuple[Any, Any]], out: JsonlOut | ParquetOut,
               default_key: str | None, progress: Callable[[int], None] | None = None
               ) -> tuple[int, int]:
    """Analyse and write every block: (rows, rows that failed). The writes run on one thread
    beside this one, in order, at most four slices behind."""
    table = PairTable(default_key)
    jobs: queue.Queue[Any] = queue.Queue(maxsize=4)
    # The writer (and the reader) take the GIL back after each call into Arrow; while this
    # thread runs Python, a thread waiting for the GIL gets it only after the switch interval
    # (5 ms by default): a wait or two a row group, on the writer's thread, which is the one
    # the run waits for (16 groups a million rows). Half a millisecond makes the handoffs
    # prompt; the interval is put back after the run.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH)
    failure: list[BaseException] = []

    def writer() -> None:
        while (job := jobs.get()) is not None:
            if not failure:
                try:
                    job()
                except BaseException as exc:  # handed to the reading thread
                    failure.append(exc)

    thread = threading.Thread(target=writer, name="batch-writer", daemon=True)
    thread.start()
    n = errors = 0
    try:
        for chords, keys in blocks:
            pairs = table.block(chords, keys)
            failed = table.errors[pairs.ids] != 0
            if failed.any():
                errors += int(np.count_nonzero(failed[pairs.codes]))
            n += len(pairs.codes)
            for part in out.parts(table, pairs):
                jobs.put(part)
            if failure:
                break
            if progress is not None:
                progress(n)
    finally:
        jobs.put(None)
        thread.join()
        sys.setswitchinterval(interval)
    if failure:
        raise failure[0]
    out.close()
    return n, errors


class _Raised:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


_END = object()


def read_ahead(items: Iterator[Any], depth: int = 2) -> Iterator[Any]:
    """``items`` drawn on a thread of their own, up to ``depth`` ahead: a Parquet file's
    blocks are decoded by Arrow (without the GIL) while this thread analyses the block before,
    and the first block is a small one instead of the wait for several. An error of the reading
    is raised here."""
    ahead: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def read() -> None:
        try:
            for item in items:
                if stop.is_set():
                    return
                ahead.put(item)
        except BaseException as exc:  # handed to the reading thread
            ahead.put(_Raised(exc))
            return
        ahead.put(_END)

    thread = threading.Thread(target=read, name="batch-reader", daemon=True)
    thread.start()
    try:
        while (item := ahead.get()) is not _END:
            if isinstance(item, _Raised):
                raise item.exc
            yield item
    finally:
        stop.set()
        while thread.is_alive():  # let a reader blocked on a full queue see the stop
            with contextlib.suppress(queue.Empty):
                ahead.get(timeout=0.01)
        thread.join()
