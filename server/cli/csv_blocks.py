"""A CSV file's chord and key columns as Arrow blocks, read as Python's ``csv`` module reads
them (``batch_io.iter_rows``) but parsed in C (``pyarrow.csv``) a block of bytes at a time.

The two parsers agree on a block that holds no quote and no empty line: each line split at its
commas, ``\\n``, ``\\r\\n`` and ``\\r`` ending lines. A block is cut after its last ``\\n``, so no
line spans two blocks. Where they could differ, Python's reader decides, as before:
  - a block with an empty line (``csv`` gives it no cell at all, Arrow empty cells), or a row
    of another width than the first (Arrow refuses it), is read by ``csv``;
  - from the first quote on, the rest of the file is read by ``csv`` (a quoted cell may hold a
    newline, so the blocks could no longer be cut at one).
A block that is not ASCII is decoded first, so a file that is not UTF-8 fails with the
``UnicodeDecodeError`` it always did. Yields (chords, keys or None): Arrow string arrays, a
missing cell null. ``csv_source`` reads the header line and opens the blocks (or leaves a file
whose first line only Python's reader can read to the row path).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import IO, Any

BLOCK = 1 << 20  # bytes parsed at a time (~150,000 rows of the jazz corpora)
ROWS = 65_536  # rows a block of Python's reader holds


class _Chained(io.RawIOBase):
    """``head`` then the rest of ``tail``: the unread file, for Python's reader."""

    def __init__(self, head: bytes, tail: IO[bytes]) -> None:
        self.head, self.tail = memoryview(head), tail

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n] = self.head[:n]
            self.head = self.head[n:]
            return n
        data = self.tail.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def csv_blocks(raw: IO[bytes], head: bytes, width: int, chord_at: int,
               key_at: int | None) -> Iterator[tuple[Any, Any]]:
    """Blocks of the rows of ``raw`` (``head``, bytes already read, first): rows ``width``
    cells wide, the chord in cell ``chord_at`` and the key in ``key_at``."""
    pending = head
    while True:
        data = raw.read(BLOCK)
        pending += data
        if not data:
            cut = len(pending)
        else:
            cut = pending.rfind(b"\n") + 1
            if cut == 0:
                continue
        block, pending = pending[:cut], pending[cut:]
        if b'"' in block:
            yield from _python_blocks(_Chained(block + pending, raw), chord_at, key_at)
            return
        if block:
            yield _block(block, width, chord_at, key_at)
        if not data:
            return


def _block(block: bytes, width: int, chord_at: int, key_at: int | None) -> tuple[Any, Any]:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    if not block.isascii():
        block.decode("utf-8")  # a file that is not UTF-8 fails here, as it did line by line
    if block.startswith((b"\n", b"\r")) or b"\n\n" in block or b"\n\r" in block \
            or b"\r\r" in block:
        return next(_python_blocks(io.BytesIO(block), chord_at, key_at, rows=None))
    names = [f"c{i}" for i in range(width)]
    keep = [names[chord_at], *([names[key_at]] if key_at is not None else [])]
    try:
        table = pcsv.read_csv(
            io.BytesIO(block),
            read_options=pcsv.ReadOptions(column_names=names, block_size=BLOCK + 1),
            parse_options=pcsv.ParseOptions(quote_char=False, ignore_empty_lines=False),
            convert_options=pcsv.ConvertOptions(
                column_types=dict.fromkeys(keep, pa.string()), include_columns=keep,
                strings_can_be_null=False))
    except pa.ArrowInvalid:  # a row of another width: Python's reader says what it holds
        return next(_python_blocks(io.BytesIO(block), chord_at, key_at, rows=None))
    chords = table.column(0).combine_chunks()
    return chords, table.column(1).combine_chunks() if key_at is not None else None


def _python_blocks(raw: IO[bytes] | io.RawIOBase, chord_at: int, key_at: int | None,
                   rows: int | None = ROWS) -> Iterator[tuple[Any, Any]]:
    """Python's reader over ``raw``, in blocks of ``rows`` rows (None: all in one)."""
    import pyarrow as pa

    text = io.TextIOWrapper(io.BufferedReader(raw) if isinstance(raw, io.RawIOBase) else raw,
                            encoding="utf-8", newline="")
    chords: list[str | None] = []
    keys: list[str | None] = []
    for row in csv.reader(text):
        chords.append(row[chord_at] if chord_at < len(row) else None)
        keys.append(row[key_at] if key_at is not None and key_at < len(row) else None)
        if len(chords) == rows:
            yield pa.array(chords, pa.string()), pa.array(keys, pa.string())
            chords, keys = [], []
    if chords or rows is None:
        yield pa.array(chords, pa.string()), pa.array(keys, pa.string())


def csv_source(raw: IO[bytes]) -> Iterator[tuple[Any, Any]] | None:
    """The blocks of a CSV file, or None when its first line is one the row path must read
    (empty, quoted, or cut by a lone ``\\r``)."""
    from server.cli.batch_io import csv_columns

    data = b""
    while b"\n" not in data:
        more = raw.read(BLOCK)
        if not more:
            return None
        data += more
    first, _, rest = data.partition(b"\n")
    first = first.removeprefix(b"\xef\xbb\xbf")
    if not first.strip() or b'"' in first or b"\r" in first.removesuffix(b"\r"):
        return None
    cells = next(csv.reader([first.decode("utf-8")]))
    chord_at, key_at, header = csv_columns(cells)
    head = rest if header else first + b"\n" + rest
    return csv_blocks(raw, head, len(cells), chord_at, key_at)
