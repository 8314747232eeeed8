"""``harmony batch FILE``: analyse a file of chord symbols with ``engine.analysis.batch``.

It streams: rows are read, analysed and written in chunks of ``CHUNK`` (65,536), so memory is
bounded by the chunk whatever the input's size, and the output keeps the input's order.

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
output is a folder of Parquet partitions (``server.cli.dask_batch``). An input or output file that cannot be opened is ``BatchFileError``
(a ``ValueError`` with a one-line message, which ``harmony`` prints without a traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import gzip
import io
import itertools
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np
import orjson
from tqdm import tqdm

from engine.analysis import ROW_FIELDS, BadRow, BatchResult, analyze_batch
from engine.errors import InvalidRequest
from engine.requests import lookup_field

_SUFFIX_FORMAT = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet",
                  ".pq": "parquet"}
CHUNK = 65_536
MEMO = 200_000  # JSON lines kept across chunks, by (symbol, key)


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


class BatchFileError(ValueError):
    """An input or output file that cannot be opened: the message names it and says why."""


def _without_bom(stream: Iterable[str]) -> Iterator[str]:
    """The lines of ``stream``, without a UTF-8 byte order mark before the first (the rest
    pass through untouched, not line by line in Python)."""
    lines = iter(stream)
    first = next(lines, None)
    if first is None:
        return iter(())
    return itertools.chain((first.removeprefix("\ufeff"),), lines)


def iter_rows(stream: Iterable[str], fmt: str, default_key: str | None
              ) -> Iterator[tuple[Any, Any]]:
    """(chord, key) per row of a text stream in ``fmt``. Values are passed to ``analyze_batch``
    as found, so that a row holding the wrong thing becomes its error."""
    lines = _without_bom(stream)
    if fmt == "text":
        for line in lines:
            for tok in line.replace("|", " ").split():
                yield tok, default_key
    elif fmt == "csv":
        reader = csv.reader(lines)
        first = next(reader, [])
        header = [h.strip().lower() for h in first]
        chord_at = next((header.index(n) for n in ("chord", "symbol") if n in header), None)
        key_at = header.index("key") if "key" in header else None
        if chord_at is None:
            if not first or not _is_chord(first[0]):
                raise BatchFileError(f"the CSV header {','.join(first)!r} has no 'chord' (or "
                                     "'symbol') column, and its first cell is no chord "
                                     "symbol either: add a header 'chord,key'")
            # no header: the first column holds the chords, the second (if any) the keys
            print("harmony: the CSV has no header: column 1 read as chords"
                  + (", column 2 as keys" if len(first) > 1 else ""), file=sys.stderr)
            chord_at, key_at = 0, 1 if len(first) > 1 else None
        body: Iterable[list[str]] = reader if header_given(header) else \
            itertools.chain([first], reader)
        for row in body:
            chord = row[chord_at] if chord_at < len(row) else None
            key = row[key_at] if key_at is not None and key_at < len(row) else None
            yield chord, key or default_key
    else:
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                yield BadRow(f"line {n} is not JSON ({exc})"), default_key
                continue
            if not isinstance(obj, dict):
                yield BadRow(f"line {n} is not a JSON object with a chord"), default_key
                continue
            try:
                _, chord = lookup_field(obj, "chord", ("symbol",))
                _, key = lookup_field(obj, "key", ("keyContext",))
            except InvalidRequest as exc:  # {"key": "C", "keyContext": "Eb"}: which one?
                yield BadRow(f"line {n}: {exc.message}"), default_key
                continue
            yield chord, default_key if key is None else key


def header_given(header: list[str]) -> bool:
    return any(n in header for n in ("chord", "symbol"))


def _is_chord(text: str) -> bool:
    from engine.chords import parse
    from engine.errors import HarmonyError

    try:
        parse(text.strip())
    except HarmonyError:
        return False
    return True


def read_rows(stream: Iterable[str], fmt: str, default_key: str | None
              ) -> tuple[list[Any], list[Any]]:
    """All the rows at once (small inputs and tests): (chords, keys)."""
    pairs = list(iter_rows(stream, fmt, default_key))
    return [c for c, _ in pairs], [k for _, k in pairs]


def parquet_rows(path: str, default_key: str | None) -> Iterator[tuple[Any, Any]]:
    import pyarrow.parquet as pq

    source = pq.ParquetFile(path)
    names = {n.lower(): n for n in source.schema_arrow.names}
    chord = names.get("chord") or names.get("symbol")
    if chord is None:
        raise BatchFileError(f"{path} has no 'chord' (or 'symbol') column")
    key = names.get("key")
    for batch in source.iter_batches(batch_size=CHUNK,
                                     columns=[chord, *([key] if key else [])]):
        chords = batch.column(0).to_pylist()
        keys = batch.column(1).to_pylist() if key else [None] * len(chords)
        yield from zip(chords, (default_key if k is None else k for k in keys), strict=True)


def chunked(rows: Iterable[tuple[Any, Any]], size: int = CHUNK
            ) -> Iterator[tuple[list[Any], list[Any]]]:
    chords: list[Any] = []
    keys: list[Any] = []
    for chord, key in rows:
        chords.append(chord)
        keys.append(key)
        if len(chords) == size:
            yield chords, keys
            chords, keys = [], []
    if chords:
        yield chords, keys


class Writer:
    """Rows out in one format, chunk after chunk (``fields``: the columns kept)."""

    def __init__(self, out: IO[str] | None, fmt: str, fields: tuple[str, ...],
                 path: str | None = None) -> None:
        self.out, self.fmt, self.fields, self.path = out, fmt, fields, path
        self.parquet: Any = None
        self.memo: dict[tuple[Any, Any], str] = {}  # JSON lines by (symbol, key), all chunks
        if fmt == "csv":
            assert out is not None
            self.csv = csv.writer(out, lineterminator="\n")
            self.csv.writerow([*fields, "error", "message"])

    def write(self, result: BatchResult) -> None:
        if self.fmt == "jsonl":
            assert self.out is not None
            write_jsonl(result, self.out, self.fields, self.memo)
        elif self.fmt == "csv":
            for row in result.rows():
                error = row.get("error")
                self.csv.writerow([_cell(row.get(f)) for f in self.fields]
                                  + ([error["code"], error["message"]] if error else ["", ""]))
        else:
            self._parquet(result)

    def _parquet(self, result: BatchResult) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        from engine.analysis import analyze_frame

        table = analyze_frame(pa.table({"chord": [_plain(c) for c in result.symbols],
                                        "key": [_plain(k) for k in result.keys]}))
        table = table.select([*self.fields, "error", "message"])
        if self.parquet is None:
            self.parquet = pq.ParquetWriter(self.path, table.schema)
        self.parquet.write_table(table)

    def close(self) -> None:
        if self.parquet is not None:
            self.parquet.close()


def _plain(value: Any) -> Any:
    """A cell as a Parquet column holds it (anything but a string becomes its text)."""
    return value if value is None or isinstance(value, str) else repr(value)


def write_jsonl(result: BatchResult, out: IO[str], fields: tuple[str, ...],
                memo: dict[tuple[Any, Any], str] | None = None) -> None:
    """The result's rows as JSON lines: one line built per distinct (symbol, key) pair (kept in
    ``memo`` across chunks, up to ``MEMO`` pairs), spread over the rows by index and written
    at once (row by row it was 1.4 s a million rows; this is a tenth of that)."""
    if len(result) == 0:
        return
    memo = {} if memo is None else memo
    every = fields == ROW_FIELDS
    width = int(result.key.max()) + 1
    pair = result.sym.astype(np.int64) * width + result.key
    distinct, first, codes = np.unique(pair, return_index=True, return_inverse=True)
    lines = []
    for i in first:
        i = int(i)
        name = (result.symbols[i], result.keys[i])
        plain = all(v is None or isinstance(v, str) for v in name)
        line = memo.get(name) if plain else None
        if line is None:
            row = result.row(i)
            if not every and "error" not in row:
                row = {f: row[f] for f in fields}
            line = orjson.dumps(row).decode() + "\n"
            if plain and len(memo) < MEMO:
                memo[name] = line
        lines.append(line)
    del distinct
    out.write("".join(np.array(lines, dtype=object)[codes.reshape(-1)]))


def write_rows(result: BatchResult, out: IO[str], fmt: str, rows: Iterable[int]) -> None:
    """One batch result written whole (kept for callers of the in-memory path)."""
    del rows
    writer = Writer(out, fmt, ROW_FIELDS)
    writer.write(result)


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else value


def _open(path: str, mode: str) -> IO[str]:
    # plain utf-8: iter_rows skips a byte order mark (Excel's CSV) for files and stdin alike;
    # a .gz or .zst input is decompressed on the fly.
    try:
        if mode == "r" and path.endswith(".gz"):
            return gzip.open(path, "rt", encoding="utf-8", newline="")
        if mode == "r" and path.endswith(".zst"):
            import zstandard

            raw = zstandard.ZstdDecompressor().stream_reader(open(path, "rb"))  # noqa: SIM115 (the wrapper closes it)
            return io.TextIOWrapper(raw, encoding="utf-8", newline="")
        return open(path, mode, encoding="utf-8", newline="")
    except OSError as exc:
        what = "input" if mode == "r" else "output"
        raise BatchFileError(f"cannot open {what} file {path!r}: "
                             f"{exc.strerror or exc}") from None


def _formats(args: argparse.Namespace) -> tuple[str, str]:
    name = args.file.lower()
    for suffix in (".gz", ".zst"):
        name = name.removesuffix(suffix)
    fmt = args.input_format or _SUFFIX_FORMAT.get(Path(name).suffix, "text")
    out = args.format or _SUFFIX_FORMAT.get(Path(args.output.lower()).suffix, "jsonl")
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
        return run_dask(args, args.input_format or _SUFFIX_FORMAT.get(Path(name).suffix, "text"),
                        fields)
    fmt, out_fmt = _formats(args)
    if fmt == out_fmt == "parquet" and args.file != "-":
        return _parquet_to_parquet(args, fields)
    size = None if args.file == "-" else _size(args.file)
    start = time.perf_counter()
    bar = tqdm(total=size, desc="analysing", unit="B", unit_scale=True, file=sys.stderr,
               disable=not sys.stderr.isatty(), mininterval=0.2)
    n = errors = 0
    with contextlib.ExitStack() as stack:
        if fmt == "parquet":
            if args.file == "-":
                raise BatchFileError("Parquet input needs a file")
            rows: Iterable[tuple[Any, Any]] = parquet_rows(args.file, args.key)
            position: Any = None
        else:
            stream = sys.stdin if args.file == "-" else stack.enter_context(
                _open(args.file, "r"))
            rows = iter_rows(stream, fmt, args.key)
            raw = getattr(stream, "buffer", None) or getattr(stream, "fileobj", None)
            position = getattr(raw, "tell", None) if args.file != "-" else None
        if out_fmt == "parquet":
            writer = Writer(None, out_fmt, fields, args.output)
        else:
            out = sys.stdout if args.output == "-" else stack.enter_context(
                _open(args.output, "w"))
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
    total = time.perf_counter() - start
    print(f"analysed {n} rows ({errors} {'error' if errors == 1 else 'errors'}) in "
          f"{total:.3f} s ({n / total if total else float('inf'):,.0f} rows/s)",
          file=sys.stderr)
    if n == 0 or errors == n:  # nothing analysed: a script should know
        print("harmony: no row was analysed" + (" (every row failed)" if n else ""),
              file=sys.stderr)
        return 1
    return 0


def _parquet_to_parquet(args: argparse.Namespace, fields: tuple[str, ...]) -> int:
    """Parquet in and out: Arrow batches straight through ``analyze_arrow`` (no Python object
    per row), one row group written per batch."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from engine.analysis import analyze_arrow

    start = time.perf_counter()
    source = pq.ParquetFile(args.file)
    names = {n.lower(): n for n in source.schema_arrow.names}
    chord = names.get("chord") or names.get("symbol")
    if chord is None:
        raise BatchFileError(f"{args.file} has no 'chord' (or 'symbol') column")
    key = names.get("key")
    n = errors = 0
    writer = None
    try:
        # A chunk a batch: 4 chunks a batch was 1.13 against 1.06 M rows/s but 356 MB peak.
        for batch in source.iter_batches(batch_size=CHUNK,
                                         columns=[chord, *([key] if key else [])]):
            chords = batch.column(0).cast(pa.string())
            keys = batch.column(1).cast(pa.string()) if key else None
            table = analyze_arrow(chords, keys, args.key).select([*fields, "error", "message"])
            if writer is None:
                writer = pq.ParquetWriter(args.output, table.schema)
            writer.write_table(table)
            n += table.num_rows
            errors += table.num_rows - table.column("error").null_count
    finally:
        if writer is not None:
            writer.close()
    total = time.perf_counter() - start
    print(f"analysed {n} rows ({errors} {'error' if errors == 1 else 'errors'}) in "
          f"{total:.3f} s ({n / total if total else float('inf'):,.0f} rows/s)",
          file=sys.stderr)
    return 0


def _size(path: str) -> int | None:
    try:
        return Path(path).stat().st_size
    except OSError:
        return None
