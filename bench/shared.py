"""Where the shared workloads and corpora live: ``../shared`` beside the repository, or
``HARMONY_SHARED`` / ``HARMONY_CORPORA``. Benchmarks skip or exit cleanly without them."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("HARMONY_SHARED", REPO.parent / "shared"))
CORPORA = Path(os.environ.get("HARMONY_CORPORA", SHARED / "corpora"))
PEER_WORKLOAD = SHARED / "bench" / "peer-workload.txt"


def peer_workload() -> list[str] | None:
    """The 2,000 symbols timed against peer libraries, or None when absent."""
    if not PEER_WORKLOAD.is_file():
        return None
    return PEER_WORKLOAD.read_text().split()


def timed(fn: Callable[[], object], repeat: int = 5, *, best: bool = False,
          clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds of one call of ``fn``: the median of ``repeat`` calls, or the fastest; by
    ``clock`` (wall time, or ``time.thread_time`` for the CPU of this thread)."""
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times) if best else statistics.median(times)
