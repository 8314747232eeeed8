"""Batch figures in one command.

1. ``harmony batch`` end to end, CSV -> JSONL and Parquet -> Parquet, beside the I/O floor of
   the same files measured in the same run: pyarrow reading the input and writing the same
   rows with no analysis (JSONL by orjson, one ``dumps`` a row; Parquet by pyarrow), and the
   cost of writing harmony's own output alone (its bytes for JSONL; its table, encoded by
   pyarrow in the same 65,536-row groups, for Parquet). Each figure is the median of five
   runs, the set-ups alternated run by run; each run is its own process. Rows/s are given in
   the process (after its imports, the figure ``harmony batch`` prints) and with the
   process's start. Peak RSS of ``harmony batch`` at two sizes shows memory staying flat.
2. ``analyze_batch`` over the two jazz corpora (189,564 tokens) against a pure-Python loop
   over ``analyze``: chords per second and the ratios.

Inputs are the jazz corpora's (chord, key) pairs drawn at random (or a small built-in
vocabulary when ../shared/corpora is absent).

Run: .venv/bin/python bench/run_batch.py [--rows 1000000] [--large 5000000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.run_batch_stream import vocabulary, write_csv  # noqa: E402

CORPORA = Path(os.environ.get("HARMONY_CORPORA", REPO.parent / "shared" / "corpora"))
HARMONY = ("import sys, time; from server.cli.main import main; cpu = time.process_time(); "
           "code = main(sys.argv[1:]); print('cpu', time.process_time() - cpu, file=sys.stderr); "
           "print('VmHWM', next(int(l.split()[1]) for l in "
           "open('/proc/self/status') if l.startswith('VmHWM')), file=sys.stderr); "
           "sys.exit(code)")
CSV_FLOOR = """
import sys, time
import orjson, pyarrow as pa, pyarrow.csv as pcsv
start, cpu = time.perf_counter(), time.process_time()
strings = pcsv.ConvertOptions(column_types={"chord": pa.string(), "key": pa.string()})
with open(sys.argv[2], "wb") as out:
    for batch in pcsv.open_csv(sys.argv[1], convert_options=strings):
        dumps = orjson.dumps
        out.write(b"".join(dumps({"chord": c, "key": k}) + b"\\n" for c, k in
                           zip(batch.column(0).to_pylist(), batch.column(1).to_pylist())))
print("seconds", time.perf_counter() - start, file=sys.stderr)
print("cpu", time.process_time() - cpu, file=sys.stderr)
print('VmHWM', next(int(l.split()[1]) for l in open('/proc/self/status')
                    if l.startswith('VmHWM')), file=sys.stderr)
"""
PARQUET_FLOOR = """
import sys, time
import pyarrow as pa, pyarrow.parquet as pq
start, cpu = time.perf_counter(), time.process_time()
writer = None
for batch in pq.ParquetFile(sys.argv[1]).iter_batches(batch_size=65536):
    table = pa.Table.from_batches([batch])
    writer = writer or pq.ParquetWriter(sys.argv[2], table.schema)
    writer.write_table(table)
writer.close()
print("seconds", time.perf_counter() - start, file=sys.stderr)
print("cpu", time.process_time() - cpu, file=sys.stderr)
print('VmHWM', next(int(l.split()[1]) for l in open('/proc/self/status')
                    if l.startswith('VmHWM')), file=sys.stderr)
"""


def process(args: list[str]) -> tuple[float, float, int, float]:
    """(wall seconds, seconds in the process, peak RSS in KiB, CPU seconds in the process, all
    threads) of one run."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True,
                          check=True)
    wall = time.perf_counter() - start
    inner = peak = cpu = 0.0
    for line in done.stderr.splitlines():
        if line.startswith("cpu"):
            cpu = float(line.split()[1])
        elif line.startswith("VmHWM"):
            peak = int(line.split()[1])
        elif line.startswith("seconds"):
            inner = float(line.split()[1])
        elif line.startswith("analysed"):  # "analysed N rows (...) in T s (...)"
            inner = float(line.split(" in ")[1].split()[0])
    return wall, inner, int(peak), cpu


def median(runs: list[tuple[float, float, int, float]], at: int) -> float:
    return statistics.median(r[at] for r in runs)


def write_alone(kind: str, produced: Path, dst: Path) -> float:
    """Seconds to write harmony's own output again, from memory: the output's floor."""
    if kind == "jsonl":
        data = produced.read_bytes()
        start = time.perf_counter()
        with dst.open("wb") as out:
            out.write(data)
        return time.perf_counter() - start
    import pyarrow.parquet as pq

    table = pq.read_table(produced)
    groups = [table.slice(i, 65_536).combine_chunks() for i in range(0, table.num_rows, 65_536)]
    start = time.perf_counter()
    writer = pq.ParquetWriter(dst, table.schema)
    for group in groups:
        writer.write_table(group)
    writer.close()
    return time.perf_counter() - start


def end_to_end(rows: int, large: int, runs: int) -> None:
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    pairs = vocabulary()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        src = tmp / "in.csv"
        write_csv(src, rows, pairs)
        strings = pcsv.ConvertOptions(column_types={"chord": pa.string(), "key": pa.string()})
        pq.write_table(pcsv.read_csv(src, convert_options=strings), tmp / "in.parquet")
        cases = {
            "csv": (["-c", HARMONY, "batch", str(src), "-o", str(tmp / "out.jsonl")],
                    ["-c", CSV_FLOOR, str(src), str(tmp / "floor.jsonl")]),
            "parquet": (["-c", HARMONY, "batch", str(tmp / "in.parquet"),
                         "-o", str(tmp / "out.parquet")],
                        ["-c", PARQUET_FLOOR, str(tmp / "in.parquet"),
                         str(tmp / "floor.parquet")]),
        }
        figures: dict[str, dict[str, list[tuple[float, float, int, float]]]] = {
            kind: {"harmony": [], "floor": [], "write": []} for kind in cases}
        for _ in range(runs):  # alternated: each set-up once a round
            for kind, (harmony, floor) in cases.items():
                figures[kind]["harmony"].append(process(harmony))
                figures[kind]["floor"].append(process(floor))
                out = tmp / ("out.jsonl" if kind == "csv" else "out.parquet")
                seconds = write_alone("jsonl" if kind == "csv" else "parquet", out,
                                      tmp / f"again{out.suffix}")
                figures[kind]["write"].append((seconds, seconds, 0, seconds))
        print(f"harmony batch end to end, {rows:,} rows, median of {runs} alternated runs "
              f"(load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores):")
        names = {"csv": "CSV -> JSONL", "parquet": "Parquet -> Parquet"}
        for kind, runs_of in figures.items():
            h, f, w = runs_of["harmony"], runs_of["floor"], runs_of["write"]
            print(f"  {names[kind]}")
            print(f"    harmony batch      : {rows / median(h, 1):>12,.0f} rows/s in the process"
                  f", {rows / median(h, 0):>12,.0f} with its start; peak RSS "
                  f"{median(h, 2) / 1024:.0f} MB; {median(h, 3):.2f} CPU s")
            floor_what = "orjson a row" if kind == "csv" else "pyarrow"
            print(f"    I/O floor          : {rows / median(f, 1):>12,.0f} rows/s in the process"
                  f", {rows / median(f, 0):>12,.0f} with its start; peak RSS "
                  f"{median(f, 2) / 1024:.0f} MB; {median(f, 3):.2f} CPU s (pyarrow reads, "
                  f"{floor_what} writes the input's rows)")
            print(f"    output write alone : {rows / median(w, 1):>12,.0f} rows/s (harmony's "
                  f"output written again from memory)")
            print(f"    harmony / floor    : {median(f, 1) / median(h, 1):>12.2f} in the process")
        if large > rows:
            big = tmp / "large.csv"
            write_csv(big, large, pairs)
            _, inner, peak, _ = process(["-c", HARMONY, "batch", str(big),
                                      "-o", str(tmp / "large.jsonl")])
            print(f"  CSV -> JSONL {large:,} rows: {large / inner:,.0f} rows/s in the process, "
                  f"peak RSS {peak / 1024:.0f} MB (against {median(figures['csv']['harmony'], 2) / 1024:.0f}"
                  f" MB at {rows:,}: flat when equal)")


def core() -> None:
    from engine import analyze
    from engine.analysis.batch import analyze_batch, lookup
    from engine.errors import HarmonyError
    from tests.corpus_tokens import keyed_tokens

    def best(fn, repeat: int = 5) -> float:  # type: ignore[no-untyped-def]
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return min(times)

    rows = keyed_tokens(CORPORA)
    chords = [s for s, _ in rows]
    keys = [k for _, k in rows]  # a song without a key is read in C
    n = len(rows)

    cold = best(lambda: analyze_batch(chords, keys), repeat=1)
    whole = best(lambda: analyze_batch(chords, keys))
    result = analyze_batch(chords, keys)
    st, kt = result.symbol_table, result.key_table
    lookup_time = best(lambda: lookup(result.sym, result.key, st, kt), repeat=20)
    read_out = best(lambda: sum(1 for _ in analyze_batch(chords, keys).rows()), repeat=3)

    requests = [{"chord": s, "key": k} for s, k in rows]

    def loop() -> None:
        for r in requests:
            with suppress(HarmonyError):  # a bad row counts as done, as in the batch
                analyze(r)

    loop()  # warm the caches, as the batch has
    python = best(loop, repeat=2)

    print(f"jazz corpora: {n:,} rows, {len(st.chords):,} distinct symbols, "
          f"{len(kt.keys)} distinct keys, {int((result.error != 0).sum())} error rows")
    print(f"  batch lookup after parsing : {n / lookup_time:>14,.0f} chords/s "
          f"({lookup_time * 1e3:.2f} ms)")
    print(f"  analyze_batch, whole       : {n / whole:>14,.0f} chords/s ({whole * 1e3:.1f} ms;"
          f" first call {cold * 1e3:.1f} ms)")
    print(f"  analyze_batch + row dicts  : {n / read_out:>14,.0f} chords/s")
    print(f"  Python loop over analyze   : {n / python:>14,.0f} chords/s "
          f"({python / n * 1e6:.2f} us per chord)")
    print(f"  ratio lookup / loop        : {python / lookup_time:>14,.0f}x")
    print(f"  ratio whole batch / loop   : {python / whole:>14,.1f}x")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--large", type=int, default=5_000_000,
                        help="a second CSV -> JSONL run at this size, for the peak RSS")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    end_to_end(args.rows, args.large, args.runs)
    if (CORPORA / "jazz-ccp").is_dir():
        core()
    else:
        print(f"run_batch: corpora not found at {CORPORA}, the analyze_batch figures skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
