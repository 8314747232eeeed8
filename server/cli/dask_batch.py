"""``harmony batch FILE --dask ADDRESS``: the batch on a Dask cluster (the ``dask`` extra).

The workers read the input themselves (``read_parquet``, ``read_csv``, ``read_json`` on the
path or glob given: nothing is shipped from the client), each partition is analysed by
``engine.analysis.analyze_frame`` (``map_partitions``) and written as a Parquet partition of
the output folder. ``local:N`` starts a ``LocalCluster`` of N single-threaded worker processes
for the run. The rows are those of the single-process run, in the input's order.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from server.cli.batch_io import BatchFileError


def cluster_client(address: str) -> tuple[Any, Any]:
    """(client, cluster or None) for ``address``: a scheduler's, or ``local:N``."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise BatchFileError("--dask needs the dask extra: pip install 'harmony-engine[dask]'"
                             ) from None
    if address.startswith("local:"):
        workers = address.removeprefix("local:")
        if not workers.isdigit() or int(workers) < 1:
            raise BatchFileError("--dask local:N needs a number of workers, e.g. local:2")
        cluster = LocalCluster(n_workers=int(workers), threads_per_worker=1, processes=True,
                               dashboard_address=None)
        return Client(cluster), cluster
    return Client(address), None


def read_frame(path: str, fmt: str) -> Any:
    import dask.dataframe as dd

    if fmt == "parquet":
        return dd.read_parquet(path)
    if fmt == "csv":
        # every cell as its text, an empty one included (as the single-process reader reads)
        return dd.read_csv(path, dtype=str, keep_default_na=False, blocksize="64MB")
    if fmt == "jsonl":
        return dd.read_json(path, lines=True, dtype=False, blocksize=64 * 2**20)
    raise BatchFileError("--dask reads Parquet, CSV or JSONL (not plain text)")


def run_dask(args: argparse.Namespace, fmt: str, fields: tuple[str, ...]) -> int:
    """The batch of ``args`` (input format ``fmt``) on the cluster ``args.dask``."""
    from engine.analysis import analyze_frame, frame_meta

    if args.output == "-":
        raise BatchFileError("--dask writes a folder of Parquet partitions: give --output DIR")
    started = time.perf_counter()
    client, cluster = cluster_client(args.dask)
    try:
        frame = read_frame(args.file, fmt)
        columns = {c.lower(): c for c in frame.columns}
        chord = columns.get("chord") or columns.get("symbol")
        if chord is None:
            raise BatchFileError(f"{args.file} has no 'chord' (or 'symbol') column")
        key = columns.get("key") or columns.get("keycontext") or "key"
        keep = [*fields, "error", "message"]
        result = frame.map_partitions(analyze_frame, chord=chord, key=key,
                                      default_key=args.key, meta=frame_meta())[keep]
        result.to_parquet(args.output, write_index=False)
        rows = int(frame.map_partitions(len).sum().compute())
        partitions = frame.npartitions
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    total = time.perf_counter() - started
    print(f"analysed {rows} rows in {partitions} partitions on Dask in {total:.3f} s "
          f"({rows / total if total else float('inf'):,.0f} rows/s, cluster start included); "
          f"wrote {args.output}/", file=sys.stderr)
    return 0
