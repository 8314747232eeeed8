"""The columnar path of ``harmony batch``: CSV or Parquet in, JSONL or Parquet out, with no
Python object per row.

Blocks of rows come in as Arrow arrays (``csv_blocks`` for CSV, ``iter_batches`` for Parquet,
whose text columns come as the file's own dictionaries); ``engine.analysis.pairs.PairTable``
reduces each block to its distinct (chord, key) pairs and analyses the pairs it has not seen;
what is written is built once per pair and spread over the rows by index:
  - JSONL: each pair's line, ``orjson.dumps`` of its row as before, kept as bytes; the block's
    lines taken row by row land in one Arrow buffer that is written as it is;
  - Parquet: each column's value per pair as a code into the column's distinct values
    (``_Coded``, built per value by ``engine.analysis.result_columns``, no row dict), and each
    row group's text column a dictionary array of its rows' codes, which the Parquet writer
    stores as they are (``batch_io.parquet_writer``); a number or true/false column the plain
    array of its values.
The JSONL output is byte for byte that of the row-by-row path (the JSON of a row is the same
call on the same dict); the Parquet output reads back as the row path's table, in the same
65,536-row groups. The writes these outputs make run on a second thread and a Parquet file's
blocks are read ahead on a third (``server.cli.batch_threads``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import IO, Any

import numpy as np
import orjson

from engine.analysis import ROW_FIELDS, BlockPairs, PairTable, arrow_type, result_columns

SLICE = 65_536  # rows taken and written at a time (and a Parquet row group)


class JsonlOut:
    """JSON lines, one per row, each built once per distinct pair."""

    def __init__(self, out: IO[bytes], fields: tuple[str, ...]) -> None:
        self.out, self.fields = out, fields
        self.every = fields == ROW_FIELDS
        self.lines: list[bytes] = []
        self.generation = -1

    def parts(self, table: PairTable, pairs: BlockPairs) -> Iterator[Callable[[], None]]:
        """Writes of the block, a slice each (run in order, on any thread)."""

        if table.generation != self.generation:
            self.lines, self.generation = [], table.generation
        lines = self.lines
        for i in range(len(lines), len(table.rows)):
            row = table.rows[i]
            if not self.every and "error" not in row:
                row = {f: row[f] for f in self.fields}
            lines.append(orjson.dumps(row) + b"\n")
        local = _binary([lines[i] for i in pairs.ids.tolist()])
        for start in range(0, len(pairs.codes), SLICE):
            yield functools.partial(self._take_write, local,
                                    _index(pairs.codes[start:start + SLICE]))

    def _take_write(self, local: Any, index: Any) -> None:
        self._write(local.take(index))

    def _write(self, taken: Any) -> None:
        offsets = np.frombuffer(taken.buffers()[1], dtype=np.int64)
        end = int(offsets[taken.offset + len(taken)])
        start = int(offsets[taken.offset])
        self.out.write(memoryview(taken.buffers()[2])[start:end])

    def close(self) -> None:
        self.out.flush()


class _Coded:
    """One output column's distinct values over the pairs of a ``PairTable``: each pair's value
    is a code into them (1 on; 0: null), kept by ``ParquetOut`` in one matrix of every
    column's codes. A text column's row group is a dictionary array (the rows' codes, and the
    values the group uses), which the Parquet writer stores as it is; a number or true/false
    column's is the plain array of its values, gathered by numpy (the writer decodes a
    dictionary array of any other type than text before writing it: the same bytes, for
    nothing)."""

    def __init__(self, name: str) -> None:
        import pyarrow as pa

        self.name, self.kind = name, arrow_type(name)
        self.text = pa.types.is_string(self.kind)
        self.dtype = np.bool_ if pa.types.is_boolean(self.kind) else np.int16
        self.index: dict[Any, int] = {None: 0}
        self.values: Any = None  # text: the distinct values, an Arrow array, code 1 first
        self.plain: np.ndarray = np.zeros(1, dtype=self.dtype)  # number or true/false: value by code

    def extend(self, codes: np.ndarray, values: list[Any]) -> np.ndarray:
        """The codes of the pairs the table added, whose values are ``values[codes]``
        (``result_columns``: a value is built once, not once per pair)."""
        index = self.index
        grown = False
        for value in values:
            if value not in index:
                index[value] = len(index)
                grown = True
        if grown or (self.text and self.values is None):
            if self.text:
                self.values = _column(list(index)[1:], self.kind)
            else:
                self.plain = np.array([0 if v is None else v for v in index], dtype=self.dtype)
        local = np.fromiter(map(index.__getitem__, values), dtype=np.int32, count=len(values))
        return local[codes]

    def kept(self, codes: np.ndarray) -> tuple[np.ndarray | None, Any]:
        """For a text column whose group's pairs have ``codes``: (the codes renumbered over the
        values they use, or None when they use them all; those values)."""
        used = np.zeros(len(self.index), dtype=bool)
        used[codes] = True
        kept = np.flatnonzero(used[1:])
        if len(kept) == len(self.values):
            return None, self.values
        remap = np.zeros(len(used), dtype=np.int32)
        remap[kept + 1] = np.arange(1, len(kept) + 1, dtype=np.int32)
        return remap[codes], _strings_at(self.values, kept)


class ParquetOut:
    """Row groups of ``SLICE`` rows, each text column a dictionary array built from the
    pairs' values (``_Coded``): the Parquet writer stores the dictionary and the codes as they
    are, without hashing a million strings per column (``batch_io.parquet_writer``)."""

    def __init__(self, path: str, fields: tuple[str, ...]) -> None:
        self.path, self.names = path, (*fields, "error", "message")
        self.writer: Any = None
        self.generation = -1
        self.coded: list[_Coded] = []
        self.codes = np.zeros((len(self.names), 0), dtype=np.int32)  # column x pair
        self.pending: np.ndarray | None = None  # the pairs of the rows of a group not yet full

    def parts(self, table: PairTable, pairs: BlockPairs) -> Iterator[Callable[[], None]]:
        if table.generation != self.generation:
            if self.pending is not None:
                # rows of the table before it started afresh: their own (shorter) row group
                yield functools.partial(self._write, self._group(self.pending))
                self.pending = None
            self.coded = [_Coded(name) for name in self.names]
            self.codes = np.zeros((len(self.names), 0), dtype=np.int32)
            self.generation = table.generation
        if pairs.added is not None:  # the pairs this block was the first to hold
            assert pairs.start == self.codes.shape[1]
            columns = result_columns(pairs.added, self.names)
            self.codes = np.concatenate(
                [self.codes, np.stack([c.extend(*columns[c.name]) for c in self.coded])], axis=1)
        ids = pairs.ids.astype(np.int32)[pairs.codes]  # each row's pair, by its table row
        if self.pending is not None:
            ids = np.concatenate([self.pending, ids])
            self.pending = None
        start = 0
        while start + SLICE <= len(ids):
            # built here, encoded and written on the writer's thread
            yield functools.partial(self._write, self._group(ids[start:start + SLICE]))
            start += SLICE
        if start < len(ids):
            self.pending = ids[start:]

    def _group(self, ids: np.ndarray) -> Any:
        """The row group whose rows are the pairs ``ids``: the codes of every column gathered
        at once (numpy), a text column's renumbered over the values the group uses."""
        import pyarrow as pa

        present = np.zeros(self.codes.shape[1], dtype=bool)
        present[ids] = True
        pairs = np.flatnonzero(present)  # the group's pairs
        local = np.zeros(len(present), dtype=np.intp)
        local[pairs] = np.arange(len(pairs))
        codes = np.take(self.codes, pairs, axis=1)  # column x the group's pair
        dictionaries = {}
        for c, coded in enumerate(self.coded):
            if coded.text:
                renumbered, dictionaries[c] = coded.kept(codes[c])
                if renumbered is not None:
                    codes[c] = renumbered
        rows = local[ids]
        filled = codes != 0  # column x the group's pair: a value, not a null
        valid = None if filled.all() else np.take(filled, rows, axis=1)
        nulls = np.zeros(len(codes), dtype=np.int64) if valid is None else \
            len(ids) - np.count_nonzero(valid, axis=1)
        bitmaps = None if valid is None else np.packbits(valid, axis=1, bitorder="little")
        text = [c for c, coded in enumerate(self.coded) if coded.text]
        codes[text] = np.maximum(codes[text] - 1, 0)  # the index; a null's 0, under its bitmap
        grid = np.take(codes, rows, axis=1)  # column x row (a number's code: 0 for null)
        arrays = []
        for c, coded in enumerate(self.coded):
            bitmap = pa.py_buffer(bitmaps[c]) if bitmaps is not None and nulls[c] else None
            if coded.text:
                index = pa.Array.from_buffers(pa.int32(), len(ids),
                                              [bitmap, pa.py_buffer(grid[c])],
                                              null_count=int(nulls[c]))
                arrays.append(pa.DictionaryArray.from_arrays(index, dictionaries[c], safe=False))
            else:
                values = coded.plain[grid[c]]  # a null's value: the placeholder 0 (or false)
                data = np.packbits(values, bitorder="little") if coded.dtype is np.bool_ \
                    else values
                arrays.append(pa.Array.from_buffers(coded.kind, len(ids),
                                                    [bitmap, pa.py_buffer(data)],
                                                    null_count=int(nulls[c])))
        return pa.Table.from_arrays(arrays, names=list(self.names))

    def _write(self, group: Any) -> None:
        from server.cli.batch_io import parquet_writer

        if self.writer is None:
            self.writer = parquet_writer(self.path, group.schema)
        self.writer.write_table(group)

    def close(self) -> None:
        if self.pending is not None:
            self._write(self._group(self.pending))
            self.pending = None
        if self.writer is not None:
            self.writer.close()


# Arrays built from buffers: handing Python values to Arrow (pa.array, pa.scalar) imports
# pandas, half a second of a million rows' budget.

def _index(codes: np.ndarray) -> Any:
    """An Arrow int32 array over ``codes`` (no copy)."""
    import pyarrow as pa

    codes = np.ascontiguousarray(codes, dtype=np.int32)
    return pa.Array.from_buffers(pa.int32(), len(codes), [None, pa.py_buffer(codes)])


def _strings_at(strings: Any, at: np.ndarray) -> Any:
    """The values of an Arrow string array (no null, offset 0) at positions ``at``, gathered
    by numpy from its buffers (Arrow's ``take`` would import pyarrow.compute for it)."""
    import pyarrow as pa

    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int32)
    data = np.frombuffer(strings.buffers()[2] or b"", dtype=np.uint8)
    starts, lengths = offsets[at], offsets[at + 1] - offsets[at]
    taken = np.zeros(len(at) + 1, dtype=np.int32)
    np.cumsum(lengths, out=taken[1:])
    chars = np.repeat(starts - taken[:-1], lengths) + np.arange(taken[-1], dtype=np.int32)
    return pa.Array.from_buffers(pa.string(), len(at), [None, pa.py_buffer(taken),
                                                        pa.py_buffer(data[chars])])


def _binary(lines: list[bytes]) -> Any:
    import pyarrow as pa

    offsets = np.zeros(len(lines) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, lines), dtype=np.int64, count=len(lines)), out=offsets[1:])
    return pa.Array.from_buffers(pa.large_binary(), len(lines),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(lines))])


def _column(values: list[Any], kind: Any) -> Any:
    """An Arrow array of ``values`` (str, int or bool, None for null) of type ``kind``."""
    import pyarrow as pa

    valid = np.fromiter((v is not None for v in values), dtype=bool, count=len(values))
    nulls = len(values) - int(np.count_nonzero(valid))
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None
    if pa.types.is_string(kind):
        data = [v.encode() if v is not None else b"" for v in values]
        offsets = np.zeros(len(data) + 1, dtype=np.int32)
        np.cumsum(np.fromiter(map(len, data), dtype=np.int32, count=len(data)), out=offsets[1:])
        buffers = [bitmap, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))]
    elif pa.types.is_boolean(kind):
        bits = np.fromiter((bool(v) for v in values), dtype=bool, count=len(values))
        buffers = [bitmap, pa.py_buffer(np.packbits(bits, bitorder="little"))]
    else:
        numbers = np.fromiter((0 if v is None else v for v in values),
                              dtype=kind.to_pandas_dtype(), count=len(values))
        buffers = [bitmap, pa.py_buffer(numbers)]
    return pa.Array.from_buffers(kind, len(values), buffers, null_count=nulls)
