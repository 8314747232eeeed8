"""The I/O of ``harmony batch``: readers of text, CSV, JSONL and Parquet rows (plain, ``.gz``
or ``.zst``), the chunking, the writers of JSONL, CSV and Parquet, and the output file
(``binary_output``). ``server.cli.batch`` runs them; ``server.cli.dask_batch`` shares the
formats and the error."""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import itertools
import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any

import numpy as np
import orjson

from engine.analysis import ROW_FIELDS, BadRow, BatchResult
from engine.errors import InvalidRequest
from engine.requests import lookup_field

SUFFIX_FORMAT = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet",
                 ".pq": "parquet"}
MEMO = 200_000  # JSON lines kept across chunks, by (symbol, key)


class BatchFileError(ValueError):
    """An input or output file that cannot be opened: the message names it and says why."""


def without_bom(stream: Iterable[str]) -> Iterator[str]:
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
    lines = without_bom(stream)
    if fmt == "text":
        for line in lines:
            for tok in line.replace("|", " ").split():
                yield tok, default_key
    elif fmt == "csv":
        reader = csv.reader(lines)
        first = next(reader, [])
        chord_at, key_at, header = csv_columns(first)
        body: Iterable[list[str]] = reader if header else itertools.chain([first], reader)
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


def csv_columns(first: list[str]) -> tuple[int, int | None, bool]:
    """(cell of the chord, of the key or None, whether ``first`` is a header) of a CSV whose
    first row is ``first``; without a header, column 1 holds the chords and column 2 the keys
    (said on stderr)."""
    header = [h.strip().lower() for h in first]
    chord_at = next((header.index(n) for n in ("chord", "symbol") if n in header), None)
    if chord_at is not None:
        return chord_at, header.index("key") if "key" in header else None, True
    if not first or not _is_chord(first[0]):
        raise BatchFileError(f"the CSV header {','.join(first)!r} has no 'chord' (or "
                             "'symbol') column, and its first cell is no chord "
                             "symbol either: add a header 'chord,key'")
    print("harmony: the CSV has no header: column 1 read as chords"
          + (", column 2 as keys" if len(first) > 1 else ""), file=sys.stderr)
    return 0, 1 if len(first) > 1 else None, False


def _is_chord(text: str) -> bool:
    from engine.chords import parse
    from engine.errors import HarmonyError

    try:
        parse(text.strip())
    except HarmonyError:
        return False
    return True


def parquet_batches(path: str, size: int, dictionary: bool = False) -> Iterator[Any]:
    """Arrow record batches of a Parquet file's chord column (``chord`` or ``symbol``, any
    case) and, when it has one, its ``key`` column, in that order. ``dictionary``: a string
    column comes as a dictionary array, its values and each row's code as the file holds them
    (no string per row built, none hashed again: ``PairTable.block`` reads the codes)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = pq.ParquetFile(path)
    names = {n.lower(): n for n in source.schema_arrow.names}
    chord = names.get("chord") or names.get("symbol")
    if chord is None:
        raise BatchFileError(f"{path} has no 'chord' (or 'symbol') column")
    key = names.get("key")
    columns = [chord, *([key] if key else [])]
    if dictionary:
        texts = [c for c in columns if source.schema_arrow.field(c).type in (pa.string(),
                                                                          pa.large_string())]
        source = pq.ParquetFile(path, read_dictionary=texts)
    yield from source.iter_batches(batch_size=size, columns=columns)


def parquet_rows(path: str, default_key: str | None, size: int
                 ) -> Iterator[tuple[Any, Any]]:
    for batch in parquet_batches(path, size):
        chords = batch.column(0).to_pylist()
        keys = (batch.column(1).to_pylist() if batch.num_columns > 1
                else [None] * len(chords))
        yield from zip(chords, (default_key if k is None else k for k in keys), strict=True)


def chunked(rows: Iterable[tuple[Any, Any]], size: int
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
        from engine.analysis import result_table

        table = result_table(result, (*self.fields, "error", "message"))
        if self.parquet is None:
            self.parquet = parquet_writer(self.path, table.schema)
        self.parquet.write_table(table)

    def close(self) -> None:
        if self.parquet is not None:
            self.parquet.close()


def parquet_writer(path: str | None, schema: Any) -> Any:
    """The Parquet output's writer (docs/batch.md, "Parquet output"): snappy pages, dictionary
    encoded as pyarrow's default; min/max statistics of the number and true/false columns only
    (those of the text columns cost a third of the writing, and no reader prunes a row group by
    a chord's name); no Arrow schema stored, so a dictionary array written reads back as the
    strings it holds (the Parquet types alone give string, int16 and bool)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    numbers = [f.name for f in schema
               if not pa.types.is_string(f.type.value_type if pa.types.is_dictionary(f.type)
                                         else f.type)]
    return pq.ParquetWriter(path, schema, store_schema=False, write_statistics=numbers)


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


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else value


def open_binary(path: str) -> IO[bytes]:
    """An input file's bytes (a .gz or .zst one decompressed on the fly)."""
    try:
        if path.endswith(".gz"):
            return gzip.open(path, "rb")  # type: ignore[return-value]
        if path.endswith(".zst"):
            import zstandard

            return zstandard.ZstdDecompressor().stream_reader(open(path, "rb"))
        return open(path, "rb")
    except OSError as exc:
        raise BatchFileError(f"cannot open input file {path!r}: "
                             f"{exc.strerror or exc}") from None


def open_text(path: str, mode: str) -> IO[str]:
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


def binary_output(path: str, stack: contextlib.ExitStack) -> IO[bytes]:
    """The output file (or standard output) as bytes."""
    if path == "-":
        sys.stdout.flush()
        return sys.stdout.buffer
    try:
        return stack.enter_context(open(path, "wb"))
    except OSError as exc:
        raise BatchFileError(f"cannot open output file {path!r}: "
                             f"{exc.strerror or exc}") from None
