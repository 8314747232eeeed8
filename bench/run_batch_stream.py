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
                    import dask  # noqa: F401
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
