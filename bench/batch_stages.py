"""Where one ``harmony batch`` run's time goes, stage by stage: run as a script, it is the
command as a user runs it with clocks around its stages (the functions are wrapped, none
changed), and prints one line a stage on stderr for ``bench/run_batch.py`` to read.

    python bench/batch_stages.py LAUNCHED INPUT OUTPUT

``LAUNCHED`` is the wall-clock time (``time.time()``) at which the parent started the process,
so the interpreter's own start is counted. Stages (wall ms; CPU ms of the thread that runs
them, or of the whole process for the starts):

- ``interpreter``: from the launch to the first line of this script (Python and ``site``);
- ``numpy + pyarrow``: their imports (the I/O floor pays them too);
- ``harmony's imports``: ``server.cli`` and what ``harmony batch`` imports to run;
- ``read``: the main thread waiting for the input's blocks (Arrow decodes on its own threads);
- ``distinct pairs``: each block reduced to its (chord, key) pairs and looked up in the table;
- ``analysis``: the new pairs analysed (``analyze_batch``: parsing and the grid look-up);
- ``result rows``: their result rows built (dicts; the Parquet columns are read from them);
- ``output columns``: each output column of the new pairs built and coded (per value);
- ``row groups``: each 65,536-row group's columns built from the pairs' codes;
- ``write``: the writer thread encoding and writing the groups (its own CPU);
- ``first row out``: from the launch to the first group handed to the Parquet writer;
- ``close``: the last, shorter group written and the file's footer; ``end to end``.

A stage whose function a checkout does not have is left out (``--before`` runs an older one).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

LAUNCHED = float(sys.argv[1])
started = time.time()
spent: dict[str, list[float]] = {}  # stage -> [wall s, thread CPU s, calls]
moments: dict[str, float] = {"interpreter": started - LAUNCHED}


def _add(stage: str, wall: float, cpu: float) -> None:
    got = spent.setdefault(stage, [0.0, 0.0, 0])
    got[0] += wall
    got[1] += cpu
    got[2] += 1


def _timed(owner: Any, name: str, stage: str, first: str | None = None) -> None:
    """Wrap ``owner.name`` so that its calls add to ``stage`` (``first``: the moment of the
    first call, from the launch)."""
    inner = getattr(owner, name, None)
    if inner is None:
        return

    def timed(*args: Any, **kwargs: Any) -> Any:
        if first and first not in moments:
            moments[first] = time.time() - LAUNCHED
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return inner(*args, **kwargs)
        finally:
            _add(stage, time.perf_counter() - wall, time.thread_time() - cpu)

    setattr(owner, name, timed)


def _timed_iterator(owner: Any, name: str, stage: str) -> None:
    """Wrap a function returning an iterator: the time of each ``next`` adds to ``stage``."""
    inner = getattr(owner, name, None)
    if inner is None:
        return

    def timed(*args: Any, **kwargs: Any) -> Iterator[Any]:
        items = iter(inner(*args, **kwargs))
        while True:
            wall, cpu = time.perf_counter(), time.thread_time()
            try:
                item = next(items)
            except StopIteration:
                return
            finally:
                _add(stage, time.perf_counter() - wall, time.thread_time() - cpu)
            yield item

    setattr(owner, name, timed)


def _cpu() -> float:
    return time.process_time()


def main() -> int:
    cpu0 = _cpu()
    mark = time.perf_counter()
    import numpy  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    _add("numpy + pyarrow", time.perf_counter() - mark, _cpu() - cpu0)
    cpu1, mark = _cpu(), time.perf_counter()
    from server.cli.main import main as harmony  # what `harmony` imports, then `batch`'s own

    for module in ("server.cli.batch", "server.cli.batch_arrow", "engine.analysis.pairs",
                   "engine.analysis.batch"):
        __import__(module)
    # the reader's thread: in batch_threads since the split, in batch_arrow before it (a
    # checkout given to --before may be either)
    threads = importlib.util.find_spec("server.cli.batch_threads")
    readers = importlib.import_module("server.cli.batch_threads" if threads
                                      else "server.cli.batch_arrow")
    _add("harmony's imports", time.perf_counter() - mark, _cpu() - cpu1)
    from engine.analysis import batch, pairs
    from server.cli import batch as cli_batch
    from server.cli import batch_arrow

    if hasattr(readers, "read_ahead"):  # blocks read on a thread: the wait for them
        _timed_iterator(readers, "read_ahead", "read")
    else:
        _timed_iterator(cli_batch, "parquet_batches", "read")
    _timed(pairs.PairTable, "block", "distinct pairs")
    _timed(pairs, "analyze_batch", "analysis")
    _timed(batch.BatchResult, "_build", "result rows")
    built_inside = "added" not in pairs.BlockPairs.__dataclass_fields__  # rows in the block
    _timed(batch_arrow, "result_columns", "output columns")
    _timed(batch_arrow._Coded, "extend", "output columns")
    _timed(batch_arrow.ParquetOut, "_group", "row groups")
    _timed(batch_arrow.ParquetOut, "_write", "write", first="first row out")
    _timed(batch_arrow.ParquetOut, "close", "close")
    code = harmony(["batch", sys.argv[2], "-o", sys.argv[3]])
    moments["end to end"] = time.time() - LAUNCHED
    # the analysis runs inside the block's call (and so did the result rows, before): the
    # distinct pairs are what is left
    inside = ["analysis", *(["result rows"] if built_inside else [])]
    for stage in inside:
        if stage in spent and "distinct pairs" in spent:
            for at in (0, 1):
                spent["distinct pairs"][at] -= spent[stage][at]
    for stage, (wall, cpu, calls) in spent.items():
        print(f"stage\t{stage}\t{wall * 1e3:.1f}\t{cpu * 1e3:.1f}\t{calls}", file=sys.stderr)
    for moment, at in moments.items():
        print(f"moment\t{moment}\t{at * 1e3:.1f}", file=sys.stderr)
    print(f"cpu\t{_cpu() * 1e3:.1f}\t{threading.active_count()}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())  # the checkout run is the one the parent ran it in
    sys.exit(main())
