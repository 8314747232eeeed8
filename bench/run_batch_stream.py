"""Streaming batch figures: rows/s end to end for CSV -> JSONL and Parquet -> Parquet on one
core, peak RSS of ``harmony batch`` at 1 M / 5 M / 20 M rows (it should stay flat: memory is
bounded by the 65,536-row chunk), and a Dask LocalCluster run's rows/s and its overhead per
partition. Inputs are drawn from the shared jazz corpora's symbols and keys (or a small
built-in vocabulary when they are absent), repeated.

Run: .venv/bin/python bench/run_batch_stream.py [--sizes 1000000,5000000,20000000]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

CORPORA = Path(os.environ.get("HARMONY_CORPORA", REPO.parent / "shared" / "corpora"))
PROBE = ("import sys; from server.cli.main import main; code = main(sys.argv[1:]); "
         "print('VmHWM', next(int(l.split()[1]) for l in open('/proc/self/status') "
         "if l.startswith('VmHWM')), file=sys.stderr); sys.exit(code)")


def vocabulary() -> list[tuple[str, str]]:
    if (CORPORA / "jazz-ccp").is_dir():
        from tests.corpus_tokens import keyed_tokens

        return [(s, k or "C") for s, k in keyed_tokens(CORPORA)]
    return [("Dm7", "C"), ("G7", "C"), ("Cmaj7", "C"), ("Bb7", "F"), ("Ebmaj7", "Bb")]


def write_csv(path: Path, rows: int, pairs: list[tuple[str, str]]) -> None:
    rng = random.Random(1)
    block = "".join(f"{s},{k}\n" for s, k in (rng.choice(pairs) for _ in range(100_000)))
    with path.open("w") as f:
        f.write("chord,key\n")
        for _ in range(rows // 100_000):
            f.write(block)


def harmony(*args: str) -> tuple[float, int]:
    """Seconds and the peak RSS (KiB) of one ``harmony`` run (its own rate line, which leaves
    out the start of the process, is printed too)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=REPO, capture_output=True,
                          text=True, check=True)
    seconds = time.perf_counter() - start
    peak = int(next(line.split()[1] for line in done.stderr.splitlines()
                    if line.startswith("VmHWM")))
    own = next((line for line in done.stderr.splitlines() if line.startswith("analysed")), "")
    print(f"    harmony: {own}", flush=True)
    return seconds, peak


def dask_partitions() -> None:
    """analyze_frame over 1 M rows already on a 2-worker LocalCluster, split in 2 to 128
    partitions: rows/s, and the cost of a partition (the slope)."""
    import logging

    import pandas as pd
    from dask import dataframe as dd
    from dask.distributed import Client, LocalCluster, wait

    from engine.analysis import analyze_frame, frame_meta

    rng = random.Random(1)
    pairs = vocabulary()
    rows = [rng.choice(pairs) for _ in range(1_000_000)]
    frame = pd.DataFrame({"chord": [c for c, _ in rows], "key": [k for _, k in rows]})
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    client = Client(cluster)
    try:
        seconds = {}
        for n in (2, 8, 32, 128):
            data = client.persist(dd.from_pandas(frame, npartitions=n))
            wait(data)
            data.map_partitions(analyze_frame, meta=frame_meta()).map_partitions(len).sum(
            ).compute()  # warm the workers
            start = time.perf_counter()
            data.map_partitions(analyze_frame, meta=frame_meta()).map_partitions(len).sum(
            ).compute()
            seconds[n] = time.perf_counter() - start
            print(f"Dask 2 workers, 1 M rows in {n:>3} partitions: {seconds[n]:.3f} s, "
                  f"{1_000_000 / seconds[n]:,.0f} rows/s", flush=True)
        slope = (seconds[128] - seconds[8]) / 120
        print(f"Dask overhead per partition: {slope * 1000:.1f} ms", flush=True)
    finally:
        client.close()
        cluster.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000000,5000000,20000000")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    pairs = vocabulary()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        for rows in sizes:
            src = tmp / f"in{rows}.csv"
            write_csv(src, rows, pairs)
            seconds, peak = harmony("batch", str(src), "-o", str(tmp / "out.jsonl"))
            print(f"CSV -> JSONL {rows:>11,} rows: {seconds:6.2f} s, {rows / seconds:,.0f} "
                  f"rows/s, peak RSS {peak / 1024:.0f} MB", flush=True)
            if rows == sizes[0]:
                seconds, peak = harmony("batch", str(src), "-o", str(tmp / "in.parquet"))
                seconds, peak = harmony("batch", str(tmp / "in.parquet"),
                                        "-o", str(tmp / "out.parquet"))
                print(f"Parquet -> Parquet {rows:>11,} rows: {seconds:6.2f} s, "
                      f"{rows / seconds:,.0f} rows/s, peak RSS {peak / 1024:.0f} MB", flush=True)
                try:
                    import dask
                except ImportError:
                    print("dask not installed: the Dask figure is skipped")
                    continue
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "server.cli", "batch", str(src),
                                "--dask", "local:2", "-o", str(tmp / "dask")], cwd=REPO,
                               check=True, capture_output=True)
                seconds = time.perf_counter() - start
                parts = len(list((tmp / "dask").glob("*.parquet")))
                print(f"Dask LocalCluster (2 workers) {rows:,} rows in {parts} partitions: "
                      f"{seconds:.2f} s with the cluster's start, {rows / seconds:,.0f} rows/s",
                      flush=True)
            src.unlink()
    try:
        import dask  # noqa: F401
    except ImportError:
        return 0
    dask_partitions()
    return 0


if __name__ == "__main__":
    sys.exit(main())
