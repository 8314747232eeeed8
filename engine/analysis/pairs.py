"""``PairTable``: the distinct (chord, key) pairs of a stream of Arrow blocks, each analysed
once, whatever block it first appears in.

A streamed batch repeats itself (a million rows of the jazz corpora hold ~5,000 distinct pairs),
and a row's result depends on its chord and key texts alone. So a block is reduced to its
distinct pairs in C (Arrow's dictionary encoding, numpy), only the pairs never seen before are
analysed (``analyze_batch``), and a writer spreads what it built once per pair over the rows by
index (``Arrow take``): no Python work per row. Memory stays bounded: past ``limit`` pairs the
table starts afresh before the next block (``generation`` tells a writer that its own
per-pair cache must go too).

pyarrow is imported when called, not when the engine is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.analysis.batch import BatchResult, analyze_batch

LIMIT = 200_000
"""Pairs kept across blocks (their result rows: ~1 KB each)."""

_DENSE = 1 << 20
"""Above this many possible (chord, key) codes in a block, pairs are found by sorting."""


@dataclass(frozen=True)
class BlockPairs:
    """A block's rows as pairs: ``codes[row]`` indexes ``ids``, and ``ids[code]`` is that
    pair's id in the ``PairTable`` (shapes: (rows,) int32 and (distinct pairs,) int64).
    ``added`` is the analysis of the pairs this block was the first to hold (ids ``start`` on,
    in its order), None when it brought none."""

    codes: np.ndarray
    ids: np.ndarray
    added: BatchResult | None = None
    start: int = 0


class PairTable:
    """Every distinct pair seen, by id: its analysis (``results``, in the order they were
    added), whether it failed (``errors``), and its result row (``rows``, built when asked).

    A pair is known by its texts: each text of a block's chord and key columns is given a
    number the first time it is seen (a dictionary that comes back from block to block, as a
    Parquet file's does, is looked up once), a pair is the two numbers, and a block's pairs
    are matched against the known ones by a sorted search (numpy): no Python work per row, and
    per block only for the texts and pairs it is the first to hold."""

    def __init__(self, default_key: str | None = None, limit: int = LIMIT) -> None:
        self.default_key = default_key
        self.limit = limit
        self.generation = 0
        self._clear()

    def _clear(self) -> None:
        self.results: list[BatchResult] = []
        self.errors = np.zeros(0, dtype=np.int8)
        self._rows: list[dict[str, Any]] = []
        self._rows_of = 0  # results whose rows are built
        self._texts: tuple[dict[Any, int], dict[Any, int]] = ({}, {})  # chord, key -> number
        self._seen: list[Any] = [None, None]  # (dictionary, its numbers) of the last block
        self._known = np.zeros(0, dtype=np.int64)  # the pairs' numbers, sorted
        self._known_ids = np.zeros(0, dtype=np.int64)
        self._names: list[tuple[str | None, str | None]] = []

    def __len__(self) -> int:
        return len(self.errors)

    @property
    def rows(self) -> list[dict[str, Any]]:
        """Result rows (``analyze_batch``'s dicts) of every pair, by id."""
        while self._rows_of < len(self.results):
            self._rows.extend(self.results[self._rows_of].rows())
            self._rows_of += 1
        return self._rows

    def block(self, chords: Any, keys: Any = None) -> BlockPairs:
        """The pairs of one block: Arrow string arrays of chords and keys (``keys`` None, or a
        null or empty key, means ``default_key``, else C; a null chord is a row without one)."""
        if len(self) > self.limit:
            self._clear()
            self.generation += 1
        chord_codes, chord_numbers = self._numbered(chords, 0)
        if keys is None:
            key_codes = np.zeros(len(chord_codes), dtype=np.int32)
            key_numbers = np.array([self._number(1, self.default_key)], dtype=np.int64)
        else:
            key_codes, key_numbers = self._numbered(keys, 1)
        width = len(key_numbers)
        distinct, codes = _distinct(chord_codes.astype(np.int64) * width + key_codes,
                                    len(chord_numbers) * width)
        pair = chord_numbers[distinct // width] << 32 | key_numbers[distinct % width]
        if len(self._known):
            at = np.minimum(np.searchsorted(self._known, pair), len(self._known) - 1)
            found = self._known[at] == pair
            ids = np.where(found, self._known_ids[at], -1)
            if found.all():
                return BlockPairs(codes, ids)
        else:
            found, ids = np.zeros(len(pair), dtype=bool), np.full(len(pair), -1)
        # new pairs in the order the block holds them (a dictionary may hold a text twice:
        # such a pair is analysed once)
        new, first, where = np.unique(pair[~found], return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        new = new[order]
        start = len(self)
        ids[~found] = start + rank[where.reshape(-1)]
        chord_of = list(self._texts[0])
        key_of = list(self._texts[1])
        added = analyze_batch([chord_of[n] for n in (new >> 32).tolist()],
                              [key_of[n] for n in (new & 0xFFFFFFFF).tolist()])
        self.results.append(added)
        self.errors = np.concatenate([self.errors, added.error])
        known = np.concatenate([self._known, new])
        order = np.argsort(known, kind="stable")
        self._known = known[order]
        self._known_ids = np.concatenate(
            [self._known_ids, np.arange(start, start + len(new), dtype=np.int64)])[order]
        return BlockPairs(codes, ids, added, start)

    def _number(self, column: int, text: Any) -> int:
        texts = self._texts[column]
        return texts.setdefault(text, len(texts))

    def _numbered(self, array: Any, column: int) -> tuple[np.ndarray, np.ndarray]:
        """(each row's code into the block's values, each value's number): a key that is
        null or empty is ``default_key``. A dictionary the block before came with (a Parquet
        file's, from block to block) keeps its numbers: its texts are not read again."""
        import pyarrow as pa

        seen = self._seen[column]
        if isinstance(array, pa.DictionaryArray) and seen is not None and \
                seen[0].equals(array.dictionary):
            codes, nulls = _dictionary_codes(array)
            numbers = seen[1]
            if nulls:  # a null row: the code after the dictionary's values
                numbers = np.append(numbers, self._number(column, self._text(column, None)))
            return codes, numbers
        codes, values = _encode(array)
        numbers = np.fromiter((self._number(column, self._text(column, v)) for v in values),
                              dtype=np.int64, count=len(values))
        if isinstance(array, pa.DictionaryArray):
            self._seen[column] = (array.dictionary, numbers[:len(array.dictionary)])
        return codes, numbers

    def _text(self, column: int, value: Any) -> Any:
        """A key that is null or empty is ``default_key``; a chord is as it is."""
        return self.default_key if column == 1 and (value is None or value == "") else value


def _encode(array: Any) -> tuple[np.ndarray, list[Any]]:
    """(codes, values) of an Arrow string array, or of a dictionary array of strings (its own
    codes, as a Parquet file held them); a null is the value None. A value may appear twice
    among a dictionary's values: its rows are then two pairs, analysed alike. (No Python value
    is handed to Arrow: that would import pandas, half a second of a million rows' budget.)"""
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        if pa.types.is_dictionary(array.type):
            array = array.cast(array.type.value_type)
        array = array.combine_chunks()
    if pa.types.is_dictionary(array.type):
        values = array.dictionary.to_pylist()
        codes, nulls = _dictionary_codes(array)
        if nulls:  # a null row: the code after the dictionary's values
            values.append(None)
        return codes, values
    import pyarrow.compute as pc  # here: a Parquet file's dictionaries need none of it

    encoded = pc.dictionary_encode(array, null_encoding="encode")
    return _int32(encoded.indices), encoded.dictionary.to_pylist()  # a null: its own entry


def _dictionary_codes(array: Any) -> tuple[np.ndarray, bool]:
    """(each row's code, whether a row is null: its code is then the dictionary's length)
    of a dictionary array."""
    import pyarrow as pa

    indices = array.indices
    if indices.type != pa.int32():
        indices = indices.cast(pa.int32())
    codes = _int32(indices)
    if not indices.null_count:
        return codes, False
    # the nulls' codes set by numpy: Arrow's fill_null would import pyarrow.compute and
    # pandas, a second of a run (a Parquet key column with a null row in it)
    valid = np.unpackbits(np.frombuffer(indices.buffers()[0], dtype=np.uint8),
                          count=indices.offset + len(indices), bitorder="little")
    codes = codes.copy()
    codes[valid[indices.offset:] == 0] = len(array.dictionary)
    return codes, True


def _int32(indices: Any) -> np.ndarray:
    """The values of an Arrow int32 array without nulls, as numpy (no copy)."""
    if not len(indices):
        return np.zeros(0, dtype=np.int32)
    return np.frombuffer(indices.buffers()[1], dtype=np.int32)[
        indices.offset:indices.offset + len(indices)]


def _distinct(pair: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct values of ``pair``, each row's index into them), in O(rows) by marking a
    table of the ``space`` possible codes when it is small enough, else by sorting."""
    if space <= _DENSE:
        seen = np.zeros(space, dtype=bool)
        seen[pair] = True
        distinct = np.flatnonzero(seen)
        index = np.empty(space, dtype=np.int32)
        index[distinct] = np.arange(len(distinct), dtype=np.int32)
        return distinct, index[pair]
    distinct, inverse = np.unique(pair, return_inverse=True)
    return distinct, inverse.reshape(-1).astype(np.int32)
