"""``harmony batch FILE``: analyse a file of chord symbols with ``engine.analysis.batch``.

Input (by the file's suffix, or ``--input-format``):
  - text: chord symbols separated by whitespace (bar lines ``|`` ignored), all in ``--key``;
  - CSV with a header: a ``chord`` (or ``symbol``) column and an optional ``key`` column;
  - JSONL: one object per line with ``chord`` (or ``symbol``) and optional ``key``/``keyContext``,
    read as the engine reads a request (``engine.requests.lookup_field``): null counts as
    absent, and a field and its alias that differ make the row ``invalid_request``.
A row without its own key takes ``--key`` (default C); a key that is there but not a string is
that row's ``invalid_key``, never replaced by ``--key``. A JSONL line that is not a JSON object
is an ``invalid_request`` row. A UTF-8 byte order mark (Excel's CSV) is skipped. Output is
JSONL (default) or CSV, one line per input chord; a row that fails carries its error instead of
a result, and the rest go on. A progress bar shows on a terminal only; the rate (rows per
second) goes to stderr. An input or output file that cannot be opened is ``BatchFileError``
(a ``ValueError`` with a one-line message, which ``harmony`` prints without a traceback).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import orjson
from tqdm import tqdm

from engine.analysis import ROW_FIELDS, BadRow, BatchResult, analyze_batch
from engine.errors import InvalidRequest
from engine.requests import lookup_field

_SUFFIX_FORMAT = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "batch", help="analyse a file of chord symbols (text, CSV or JSONL) at corpus speed")
    p.add_argument("file", help="input file, or - for standard input")
    p.add_argument("--key", default=None, help="key for rows without one (default C)")
    p.add_argument("--input-format", choices=("text", "csv", "jsonl"), default=None,
                   help="default: from the file suffix (.csv, .jsonl), else text")
    p.add_argument("--format", choices=("jsonl", "csv"), default="jsonl", help="output format")
    p.add_argument("--output", "-o", default="-", help="output file (default standard output)")
    p.set_defaults(run=run)
    return p


class BatchFileError(ValueError):
    """An input or output file that cannot be opened: the message names it and says why."""


def _without_bom(stream: Iterable[str]) -> Iterator[str]:
    """The lines of ``stream``, without a UTF-8 byte order mark before the first."""
    first = True
    for line in stream:
        yield line.removeprefix("\ufeff") if first else line
        first = False


def read_rows(stream: Iterable[str], fmt: str, default_key: str | None
              ) -> tuple[list[Any], list[Any]]:
    """(chords, keys) from an input stream in ``fmt``, one pair per row. Values are passed to
    ``analyze_batch`` as found, so that a row holding the wrong thing becomes its error."""
    chords: list[Any] = []
    keys: list[Any] = []
    lines = _without_bom(stream)
    if fmt == "text":
        for line in lines:
            for tok in line.replace("|", " ").split():
                chords.append(tok)
                keys.append(default_key)
    elif fmt == "csv":
        for row in csv.DictReader(lines):
            chords.append(row.get("chord") or row.get("symbol"))
            keys.append(row.get("key") or default_key)
    else:
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                chords.append(BadRow(f"line {n} is not JSON ({exc})"))
                keys.append(default_key)
                continue
            if not isinstance(obj, dict):
                chords.append(BadRow(f"line {n} is not a JSON object with a chord"))
                keys.append(default_key)
                continue
            try:
                _, chord = lookup_field(obj, "chord", ("symbol",))
                _, key = lookup_field(obj, "key", ("keyContext",))
            except InvalidRequest as exc:  # {"key": "C", "keyContext": "Eb"}: which one?
                chords.append(BadRow(f"line {n}: {exc.message}"))
                keys.append(default_key)
                continue
            chords.append(chord)
            keys.append(default_key if key is None else key)
    return chords, keys


def write_rows(result: BatchResult, out: IO[str], fmt: str, rows: Iterable[int]) -> None:
    if fmt == "jsonl":
        memo: dict[tuple[int, int], str] = {}
        for i in rows:
            pair = (int(result.sym[i]), int(result.key[i]))
            line = memo.get(pair)
            if line is None:
                line = memo[pair] = orjson.dumps(result.row(i)).decode() + "\n"
            out.write(line)
        return
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*ROW_FIELDS, "error"])
    for i in rows:
        row = result.row(i)
        error = row.get("error")
        writer.writerow([_cell(row.get(f)) for f in ROW_FIELDS] + [error["code"] if error else ""])


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else value


def _open(path: str, mode: str) -> IO[str]:
    # plain utf-8: read_rows skips a byte order mark (Excel's CSV) for files and stdin alike
    try:
        return open(path, mode, encoding="utf-8", newline="")
    except OSError as exc:
        what = "input" if mode == "r" else "output"
        raise BatchFileError(f"cannot open {what} file {path!r}: "
                             f"{exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    fmt = args.input_format or _SUFFIX_FORMAT.get(Path(args.file).suffix.lower(), "text")
    if args.file == "-":
        chords, keys = read_rows(sys.stdin, fmt, args.key)
    else:
        with _open(args.file, "r") as f:
            chords, keys = read_rows(f, fmt, args.key)
    start = time.perf_counter()
    result = analyze_batch(chords, keys)
    analysed = time.perf_counter() - start
    bar = tqdm(range(len(result)), desc="writing", unit="rows", file=sys.stderr,
               disable=not sys.stderr.isatty(), mininterval=0.2)
    if args.output == "-":
        write_rows(result, sys.stdout, args.format, bar)
    else:
        with _open(args.output, "w") as out:
            write_rows(result, out, args.format, bar)
    total = time.perf_counter() - start
    errors = int((result.error != 0).sum())
    n = len(result)
    print(f"analysed {n} rows ({errors} {'error' if errors == 1 else 'errors'}) in "
          f"{analysed:.3f} s "
          f"({n / analysed if analysed else float('inf'):,.0f} rows/s); "
          f"with output {total:.3f} s ({n / total if total else float('inf'):,.0f} rows/s)",
          file=sys.stderr)
    return 0
