"""``harmony batch FILE``: analyse a file of chord symbols with ``engine.analysis.batch``.

It streams: rows are read, analysed and written in chunks of ``CHUNK`` (65,536), so memory is
bounded by the chunk whatever the input's size, and the output keeps the input's order. CSV or
Parquet in and JSONL or Parquet out take the columnar path (``server.cli.batch_arrow``: blocks
parsed by pyarrow, each distinct (chord, key) pair analysed once, the output built per pair and
taken by index, written on a second thread, ``batch_threads``): JSONL byte for byte the output
of the row path,
Parquet the same table (docs/analysis.md, "The columnar path").

Input (by the file's suffix, or ``--input-format``; ``.gz`` and ``.zst`` are read transparently):
  - text: chord symbols separated by whitespace (bar lines ``|`` ignored), all in ``--key``;
  - CSV with a header: a ``chord`` (or ``symbol``) column and an optional ``key`` column;
  - JSONL: one object per line with ``chord`` (or ``symbol``) and optional ``key``/``keyContext``,
    read as the engine reads a request (``engine.requests.lookup_field``): null counts as
    absent, and a field and its alias that differ make the row ``invalid_request``;
  - Parquet: a ``chord`` (or ``symbol``) column and an optional ``key`` column.
CSV headers are matched case-insensitively (``Chord,Key``).
A row without its own key takes ``--key`` (default C); a key that is there but not a string is
that row's ``invalid_key``, never replaced by ``--key``. A JSONL line that is not a JSON object
is an ``invalid_request`` row. A UTF-8 byte order mark (Excel's CSV) is skipped. Output is
JSONL (default), CSV or Parquet, one row per input chord (``--columns`` picks the fields); a
row that fails carries its error instead of a result, and the rest go on. A progress bar (rows,
rows/s, and an ETA when the input's size is known) shows on a terminal only; the rate goes to
stderr. With ``--dask ADDRESS`` (or ``local:N``) the input is read by the Dask workers and the
output is a folder of Parquet partitions (``server.cli.dask_batch``). The readers and writers
are ``server.cli.batch_io``. An input or output file that cannot be opened is
``BatchFileError`` (a ``ValueError`` with a one-line message, printed without a traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from engine.analysis import ROW_FIELDS, analyze_batch
from server.cli.batch_io import (
    SUFFIX_FORMAT,
    BatchFileError,
    Writer,
    chunked,
    iter_rows,
    open_text,
    parquet_batches,
    parquet_rows,
)

CHUNK = 65_536


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "batch", help="analyse a file of chord symbols (text, CSV, JSONL, Parquet) at corpus "
                      "speed", description="Inputs: text (symbols separated by spaces and "
        "'|', all in --key); CSV with a header naming a 'chord' (or 'symbol') column and an "
        "optional 'key' column, in any case (a CSV without a header: column 1 chords, column 2 "
        "keys); JSONL objects with 'chord' and 'key'; Parquet with 'chord' and 'key' columns. "
        ".gz and .zst are read as they are. Rows without a key take --key. Exit 1 when no row "
        "is analysed.")
    p.add_argument("file", help="input file, or - for standard input")
    p.add_argument("--key", default=None, help="key for rows without one (default C)")
    p.add_argument("--input-format", choices=("text", "csv", "jsonl", "parquet"), default=None,
                   help="default: from the file suffix (.csv, .jsonl, .parquet; then .gz or "
                        ".zst), else text")
    p.add_argument("--format", choices=("jsonl", "csv", "parquet"), default=None,
                   help="output format (default: from the output's suffix, else jsonl)")
    p.add_argument("--output", "-o", default="-", help="output file (default standard output)")
    p.add_argument("--columns", help="output fields, comma-separated (default all: "
                                     + ",".join(ROW_FIELDS) + ")")
    p.add_argument("--dask", metavar="ADDRESS", help="run on a Dask cluster (a scheduler "
                   "address, or local:N for N local workers); needs the dask extra")
    p.set_defaults(run=run)
    return p


def _formats(args: argparse.Namespace) -> tuple[str, str]:
    name = args.file.lower()
    for suffix in (".gz", ".zst"):
        name = name.removesuffix(suffix)
    fmt = args.input_format or SUFFIX_FORMAT.get(Path(name).suffix, "text")
    out = args.format or SUFFIX_FORMAT.get(Path(args.output.lower()).suffix, "jsonl")
    if out == "text":
        out = "jsonl"
    if out == "parquet" and args.output == "-":
        raise BatchFileError("Parquet output needs a file: give --output FILE.parquet")
    return fmt, out


def _fields(text: str | None) -> tuple[str, ...]:
    if not text:
        return ROW_FIELDS
    fields = tuple(f.strip() for f in text.split(",") if f.strip())
    unknown = [f for f in fields if f not in ROW_FIELDS]
    if unknown or not fields:
        raise BatchFileError(f"unknown --columns {', '.join(unknown) or '(none)'}; choose from "
                             + ",".join(ROW_FIELDS))
    return fields


def run(args: argparse.Namespace) -> int:
    fields = _fields(getattr(args, "columns", None))
    if getattr(args, "dask", None):
        from server.cli.dask_batch import run_dask

        name = args.file.lower().removesuffix(".gz").removesuffix(".zst")
        return run_dask(args, args.input_format or SUFFIX_FORMAT.get(Path(name).suffix, "text"),
                        fields)
    fmt, out_fmt = _formats(args)
    if fmt in ("csv", "parquet") and args.file != "-" and out_fmt != "csv" and (
            fmt, out_fmt) != ("parquet", "jsonl"):
        done = _columnar(args, fmt, out_fmt, fields)
        if done is not None:
            return done
    size = None if args.file == "-" else _size(args.file)
    start = time.perf_counter()
    bar = _progress(total=size, unit="B")
    n = errors = 0
    with contextlib.ExitStack() as stack:
        if fmt == "parquet":
            if args.file == "-":
                raise BatchFileError("Parquet input needs a file")
            rows: Iterable[tuple[Any, Any]] = parquet_rows(args.file, args.key, CHUNK)
            position: Any = None
        else:
            stream = sys.stdin if args.file == "-" else stack.enter_context(
                open_text(args.file, "r"))
            rows = iter_rows(stream, fmt, args.key)
            raw = getattr(stream, "buffer", None) or getattr(stream, "fileobj", None)
            position = getattr(raw, "tell", None) if args.file != "-" else None
        if out_fmt == "parquet":
            writer = Writer(None, out_fmt, fields, args.output)
        else:
            out = sys.stdout if args.output == "-" else stack.enter_context(
                open_text(args.output, "w"))
            writer = Writer(out, out_fmt, fields)
        stack.callback(writer.close)
        for chords, keys in chunked(rows, CHUNK):
            result = analyze_batch(chords, keys)
            writer.write(result)
            n += len(result)
            errors += int((result.error != 0).sum())
            if position is not None and size:
                with contextlib.suppress(OSError, ValueError):
                    bar.n = min(size, position())
            bar.set_postfix_str(f"{n:,} rows", refresh=True)
    bar.close()
    return _done(n, errors, time.perf_counter() - start)


def _columnar(args: argparse.Namespace, fmt: str, out_fmt: str,
              fields: tuple[str, ...]) -> int | None:
    """CSV or Parquet in, JSONL or Parquet out, through ``server.cli.batch_arrow`` (no Python
    object per row); None when the CSV's first line is one the row path must read."""

    from server.cli.batch_arrow import JsonlOut, ParquetOut
    from server.cli.batch_io import binary_output, open_binary
    from server.cli.batch_threads import read_ahead, run_blocks
    from server.cli.csv_blocks import csv_source

    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if fmt == "csv":
            raw = stack.enter_context(open_binary(args.file))
            blocks = csv_source(raw)
            if blocks is None:
                return None
        else:
            # Parquet: blocks of one output row group's rows, read ahead on a thread of their
            # own (the first is ready soon; the next ones are decoded while one is analysed)
            blocks = read_ahead(
                (_text(b.column(0)), _text(b.column(1)) if b.num_columns > 1 else None)
                for b in parquet_batches(args.file, CHUNK, dictionary=True))
        out: Any = ParquetOut(args.output, fields) if out_fmt == "parquet" else \
            JsonlOut(binary_output(args.output, stack), fields)
        bar = stack.enter_context(_progress(unit=" rows"))

        def progress(rows: int) -> None:
            bar.update(rows - bar.n)

        n, errors = run_blocks(blocks, out, args.key, progress)
    return _done(n, errors, time.perf_counter() - start)


def _progress(total: int | None = None, unit: str = "") -> Any:
    """The progress bar on a terminal; elsewhere one that shows nothing (tqdm, and the
    multiprocessing lock it makes, not even imported: a script's run starts sooner)."""
    if not sys.stderr.isatty():
        return _Quiet()
    from tqdm import tqdm

    return tqdm(total=total, desc="analysing", unit=unit, unit_scale=True, file=sys.stderr,
                mininterval=0.2)


class _Quiet:
    """tqdm's calls that ``harmony batch`` makes, doing nothing."""

    n = 0

    def update(self, n: int) -> None:
        self.n += n

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _Quiet:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _text(array: Any) -> Any:
    """A Parquet column as ``PairTable.block`` reads it: a dictionary array as it is, else
    strings (a number column's values as text)."""
    import pyarrow as pa

    return array if pa.types.is_dictionary(array.type) else array.cast(pa.string())


def _done(n: int, errors: int, total: float) -> int:
    print(f"analysed {n} rows ({errors} {'error' if errors == 1 else 'errors'}) in "
          f"{total:.3f} s ({n / total if total else float('inf'):,.0f} rows/s)",
          file=sys.stderr)
    if n == 0 or errors == n:  # nothing analysed: a script should know
        print("harmony: no row was analysed" + (" (every row failed)" if n else ""),
              file=sys.stderr)
        return 1
    return 0


def _size(path: str) -> int | None:
    try:
        return Path(path).stat().st_size
    except OSError:
        return None
