"""Batch figures in one command.

1. ``harmony batch`` end to end, CSV -> JSONL and Parquet -> Parquet, beside the I/O floor of
   the same files measured in the same run: pyarrow reading the input and writing the same
   rows with no analysis (JSONL by orjson, one ``dumps`` a row; Parquet by pyarrow), and the
   cost of writing harmony's own output alone (its bytes for JSONL; its table, encoded by
   pyarrow in the same 65,536-row groups, for Parquet). Each figure is the median of five
   runs, the set-ups alternated run by run; each run is its own process. Rows/s are given end
   to end (the command as a user runs it, the process's start included: the aims) and in the
   process (after its imports, the figure ``harmony batch`` prints), at two sizes (1 M and
   5 M rows), with the peak RSS (flat when equal at both), and the fastest run's rate beside
   the median (on a shared machine, the nearest to a quiet one's). ``--before DIR`` runs a checkout
   of the code before a change beside this one, alternated, and checks that both write the
   same output. First, the imports of ``harmony batch`` (``python -X importtime``) and the
   whole run on a one-row file: the fixed cost of a run; then where one Parquet -> Parquet
   run's time goes, stage by stage (``bench/batch_stages.py``: the interpreter, the imports,
   reading, the distinct pairs, their analysis, the output's columns and row groups, the
   writer's thread, the moment the first row goes out), median of the runs.
   Each checkout's package is compiled to bytecode first (``compileall``), as ``pip install``
   does: where PYTHONDONTWRITEBYTECODE is set (this machine's sessions), a checkout's source
   would otherwise be compiled again by every run (~40-60 ms of CPU), which no installed
   ``harmony`` pays.
2. ``analyze_batch`` over the two jazz corpora (189,564 tokens) against a pure-Python loop
   over ``analyze``: chords per second and the ratios.

Inputs are the jazz corpora's (chord, key) pairs drawn at random (or a small built-in
vocabulary when ../shared/corpora is absent).

Run: .venv/bin/python bench/run_batch.py [--rows 1000000] [--large 5000000] [--runs 5]
     [--before DIR] [--no-core]
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
HARMONY = ("import os, sys; from server.cli.main import main; code = main(sys.argv[1:]); "
           "print('cpu', sum(os.times()[:2]), file=sys.stderr); "
           "print('VmHWM', next(int(l.split()[1]) for l in "
           "open('/proc/self/status') if l.startswith('VmHWM')), file=sys.stderr); "
           "sys.exit(code)")
CSV_FLOOR = """
import os, sys, time
import orjson, pyarrow as pa, pyarrow.csv as pcsv
start = time.perf_counter()
strings = pcsv.ConvertOptions(column_types={"chord": pa.string(), "key": pa.string()})
with open(sys.argv[2], "wb") as out:
    for batch in pcsv.open_csv(sys.argv[1], convert_options=strings):
        dumps = orjson.dumps
        out.write(b"".join(dumps({"chord": c, "key": k}) + b"\\n" for c, k in
                           zip(batch.column(0).to_pylist(), batch.column(1).to_pylist())))
print("seconds", time.perf_counter() - start, file=sys.stderr)
print("cpu", sum(os.times()[:2]), file=sys.stderr)
print('VmHWM', next(int(l.split()[1]) for l in open('/proc/self/status')
                    if l.startswith('VmHWM')), file=sys.stderr)
"""
PARQUET_FLOOR = """
import os, sys, time
import pyarrow as pa, pyarrow.parquet as pq
start = time.perf_counter()
writer = None
for batch in pq.ParquetFile(sys.argv[1]).iter_batches(batch_size=65536):
    table = pa.Table.from_batches([batch])
    writer = writer or pq.ParquetWriter(sys.argv[2], table.schema)
    writer.write_table(table)
writer.close()
print("seconds", time.perf_counter() - start, file=sys.stderr)
print("cpu", sum(os.times()[:2]), file=sys.stderr)
print('VmHWM', next(int(l.split()[1]) for l in open('/proc/self/status')
                    if l.startswith('VmHWM')), file=sys.stderr)
"""


def process(args: list[str], cwd: Path = REPO) -> tuple[float, float, int, float]:
    """(wall seconds, seconds in the process, peak RSS in KiB, CPU seconds of the whole process,
    its start and imports and all its threads) of one run; ``cwd`` the checkout whose code runs (``-c`` imports from it)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
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
    """Seconds to write harmony's own output again, from memory: the output's floor (Parquet:
    its text columns read back as dictionaries and written as ``harmony batch`` writes them,
    ``parquet_writer``, in the same 65,536-row groups)."""
    if kind == "jsonl":
        data = produced.read_bytes()
        start = time.perf_counter()
        with dst.open("wb") as out:
            out.write(data)
        return time.perf_counter() - start
    import pyarrow as pa
    import pyarrow.parquet as pq

    from server.cli.batch_io import parquet_writer

    texts = [f.name for f in pq.read_schema(produced) if f.type == pa.string()]
    table = pq.read_table(produced, read_dictionary=texts)
    groups = [table.slice(i, 65_536).combine_chunks() for i in range(0, table.num_rows, 65_536)]
    start = time.perf_counter()
    writer = parquet_writer(str(dst), table.schema)
    for group in groups:
        writer.write_table(group)
    writer.close()
    return time.perf_counter() - start


def imports(cwd: Path, tiny: Path, out: Path) -> tuple[float, int]:
    """(milliseconds of imports, modules imported) of ``harmony batch`` on a one-row file, by
    ``python -X importtime`` (the sum of each module's own time)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", HARMONY, "batch", str(tiny),
                           "-o", str(out)], cwd=cwd, capture_output=True, text=True, check=True)
    own = [int(line.split("|")[0].split(":")[1]) for line in done.stderr.splitlines()
           if line.startswith("import time:") and "self [us]" not in line]
    return sum(own) / 1000, len(own)


NAMES = {"csv": "CSV -> JSONL", "parquet": "Parquet -> Parquet"}
Runs = list[tuple[float, float, int, float]]


def compiled(cwd: Path) -> None:
    """The checkout's package compiled to bytecode, as an installed one is."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", "engine", "server", "bench"],
                   cwd=cwd, capture_output=True, check=True)


STAGES = ("interpreter", "numpy + pyarrow", "harmony's imports", "read", "distinct pairs",
          "analysis", "result rows", "output columns", "row groups", "first row out", "write",
          "close", "end to end")


def stages(cwd: Path, given: Path, out: Path) -> tuple[dict[str, tuple[float, float]], float]:
    """One run of ``bench/batch_stages.py``: stage -> (wall ms, CPU ms; a moment's CPU is
    nan), and the process's CPU ms."""
    done = subprocess.run([sys.executable, str(REPO / "bench" / "batch_stages.py"),
                           repr(time.time()), str(given), str(out)], cwd=cwd,
                          capture_output=True, text=True, check=True)
    found: dict[str, tuple[float, float]] = {}
    cpu = float("nan")
    for line in done.stderr.splitlines():
        cells = line.split("\t")
        if cells[0] == "stage":
            found[cells[1]] = (float(cells[2]), float(cells[3]))
        elif cells[0] == "moment":
            found[cells[1]] = (float(cells[2]), float("nan"))
        elif cells[0] == "cpu":
            cpu = float(cells[1])
    return found, cpu


def split(codes: dict[str, Path], given: Path, tmp: Path, runs: int, rows: int) -> None:
    taken: dict[str, list[tuple[dict[str, tuple[float, float]], float]]] = {n: [] for n in codes}
    for _ in range(runs):
        for name, cwd in codes.items():
            taken[name].append(stages(cwd, given, tmp / f"stages-{name}.parquet"))
    print(f"where a Parquet -> Parquet run of {rows:,} rows goes (bench/batch_stages.py, median "
          f"of {runs} alternated runs; wall ms / CPU ms of the thread that runs it, the starts "
          "CPU of the process; moments from the launch):")
    names = list(codes)
    print("  " + f"{'stage':<20}" + "".join(f"{n:>22}" for n in names))
    for stage in STAGES:
        cells = []
        for name in names:
            got = [run[0][stage] for run in taken[name] if stage in run[0]]
            if not got:
                cells.append(f"{'-':>22}")
                continue
            wall = statistics.median(g[0] for g in got)
            cpu = statistics.median(g[1] for g in got)
            cells.append(f"{wall:>12.0f}" + (f" / {cpu:>5.0f}" if cpu == cpu else " " * 8) + "  ")
        print("  " + f"{stage:<20}" + "".join(cells))
    print("  " + f"{'CPU of the process':<20}" + "".join(
        f"{statistics.median(r[1] for r in taken[n]):>20.0f}  " for n in names))


def end_to_end(sizes: list[int], runs: int, before: Path | None) -> None:
    pairs = vocabulary()
    codes = {"after": REPO, **({"before": before} if before else {})}
    for cwd in codes.values():
        compiled(cwd)
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        tiny = tmp / "tiny.csv"
        tiny.write_text("chord,key\nDm7,C\n")
        print(f"imports of `harmony batch` on a one-row CSV (python -X importtime, {runs} runs, "
              "median):")
        for name, cwd in codes.items():
            taken = [imports(cwd, tiny, tmp / "tiny.jsonl") for _ in range(runs)]
            start = [process(["-c", HARMONY, "batch", str(tiny), "-o", str(tmp / "tiny.jsonl")],
                             cwd) for _ in range(runs)]
            print(f"  {name:<6}: {statistics.median(t[0] for t in taken):7.0f} ms in "
                  f"{taken[0][1]} modules; the whole run {median(start, 0):.3f} s wall, "
                  f"{median(start, 3):.3f} CPU s (process start included)")
        for rows in sizes:
            _sized(tmp, rows, runs, codes, pairs)
            if rows == sizes[0]:
                split(codes, tmp / "in.parquet", tmp, runs, rows)


def _sized(tmp: Path, rows: int, runs: int, codes: dict[str, Path],
           pairs: list[tuple[str, str]]) -> None:
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    src = tmp / "in.csv"
    write_csv(src, rows, pairs)
    strings = pcsv.ConvertOptions(column_types={"chord": pa.string(), "key": pa.string()})
    pq.write_table(pcsv.read_csv(src, convert_options=strings), tmp / "in.parquet")
    inputs = {"csv": (src, "jsonl"), "parquet": (tmp / "in.parquet", "parquet")}
    floors = {"csv": CSV_FLOOR, "parquet": PARQUET_FLOOR}
    figures: dict[str, dict[str, Runs]] = {
        kind: {name: [] for name in (*codes, "floor", "write")} for kind in inputs}
    for _ in range(runs):  # alternated: each set-up once a round
        for kind, (given, suffix) in inputs.items():
            for name, cwd in codes.items():
                figures[kind][name].append(process(
                    ["-c", HARMONY, "batch", str(given), "-o", str(tmp / f"{name}.{suffix}")],
                    cwd))
            figures[kind]["floor"].append(process(
                ["-c", floors[kind], str(given), str(tmp / f"floor.{suffix}")]))
            seconds = write_alone(suffix, tmp / f"after.{suffix}", tmp / f"again.{suffix}")
            figures[kind]["write"].append((seconds, seconds, 0, seconds))
    if "before" in codes:
        same = pq.read_table(tmp / "before.parquet").equals(pq.read_table(tmp / "after.parquet"))
        print(f"  Parquet output of before and after equal as tables: {same}; JSONL equal byte "
              f"for byte: {(tmp / 'before.jsonl').read_bytes() == (tmp / 'after.jsonl').read_bytes()}")
    print(f"harmony batch, {rows:,} rows, median of {runs} alternated runs "
          f"(load {os.getloadavg()[0]:.1f} at the end, {os.cpu_count()} cores):")
    for kind, runs_of in figures.items():
        print(f"  {NAMES[kind]}")
        for name in codes:
            h = runs_of[name]
            print(f"    harmony {name:<6} : {rows / median(h, 0):>12,.0f} rows/s end to end (the "
                  f"command as run; fastest run {rows / min(r[0] for r in h):,.0f}), "
                  f"{rows / median(h, 1):>12,.0f} in the process; peak RSS "
                  f"{median(h, 2) / 1024:.0f} MB; {median(h, 3):.2f} CPU s")
        f, w = runs_of["floor"], runs_of["write"]
        floor_what = "orjson a row" if kind == "csv" else "pyarrow"
        print(f"    I/O floor      : {rows / median(f, 0):>12,.0f} rows/s end to end (fastest run "
              f"{rows / min(r[0] for r in f):,.0f}), "
              f"{rows / median(f, 1):>12,.0f} in the process; peak RSS {median(f, 2) / 1024:.0f}"
              f" MB; {median(f, 3):.2f} CPU s (pyarrow reads, {floor_what} writes the input's "
              "rows)")
        print(f"    output alone   : {rows / median(w, 1):>12,.0f} rows/s (harmony's output "
              "written again from memory)")
        h = runs_of["after"]
        print(f"    after / floor  : {median(f, 0) / median(h, 0):>12.2f} end to end, "
              f"{median(f, 1) / median(h, 1):.2f} in the process")
        if "before" in codes:
            b = runs_of["before"]
            print(f"    after / before : {median(b, 0) / median(h, 0):>12.2f} end to end, "
                  f"{median(b, 1) / median(h, 1):.2f} in the process, "
                  f"{median(b, 3) / median(h, 3):.2f} in CPU")


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
                        help="a second size, every figure again (0: none)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, help="a checkout of the code before a change "
                        "(e.g. git worktree add /tmp/before main): run beside this one, "
                        "alternated")
    parser.add_argument("--no-core", action="store_true", help="skip the analyze_batch figures")
    args = parser.parse_args()
    end_to_end([args.rows, *([args.large] if args.large > args.rows else [])], args.runs,
               args.before.resolve() if args.before else None)
    if args.no_core:
        return 0
    if (CORPORA / "jazz-ccp").is_dir():
        core()
    else:
        print(f"run_batch: corpora not found at {CORPORA}, the analyze_batch figures skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
