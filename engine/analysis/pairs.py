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

from engine.analysis.batch import analyze_batch

LIMIT = 200_000
"""Pairs kept across blocks (their result rows: ~1 KB each)."""

_DENSE = 1 << 20
"""Above this many possible (chord, key) codes in a block, pairs are found by sorting."""


@dataclass(frozen=True)
class BlockPairs:
    """A block's rows as pairs: ``codes[row]`` indexes ``ids``, and ``ids[code]`` is that
    pair's row in ``PairTable.rows`` (shapes: (rows,) int32 and (distinct pairs,) int64)."""

    codes: np.ndarray
    ids: np.ndarray


class PairTable:
    """Result rows (``analyze_batch``'s dicts) of every distinct pair seen, by id."""

    def __init__(self, default_key: str | None = None, limit: int = LIMIT) -> None:
        self.default_key = default_key
        self.limit = limit
        self.generation = 0
        self.rows: list[dict[str, Any]] = []
        self._ids: dict[tuple[str | None, str | None], int] = {}

    def block(self, chords: Any, keys: Any = None) -> BlockPairs:
        """The pairs of one block: Arrow string arrays of chords and keys (``keys`` None, or a
        null or empty key, means ``default_key``, else C; a null chord is a row without one)."""
        if len(self.rows) > self.limit:
            self.rows, self._ids = [], {}
            self.generation += 1
        chord_codes, chord_values = _encode(chords)
        if keys is None:
            key_codes, key_values = np.zeros(len(chord_codes), dtype=np.int32), [None]
        else:
            key_codes, key_values = _encode(keys)
        key_codes, key_values = self._default(key_codes, key_values)
        width = len(key_values)
        distinct, codes = _distinct(chord_codes.astype(np.int64) * width + key_codes,
                                    len(chord_values) * width)
        ids = np.empty(len(distinct), dtype=np.int64)
        new: list[int] = []
        names = list(zip([chord_values[c] for c in (distinct // width).tolist()],
                         [key_values[k] for k in (distinct % width).tolist()], strict=True))
        for j, name in enumerate(names):
            found = self._ids.get(name)
            if found is None:
                new.append(j)
            else:
                ids[j] = found
        if new:
            result = analyze_batch([names[j][0] for j in new], [names[j][1] for j in new])
            start = len(self.rows)
            self.rows.extend(result.rows())  # one row per new pair, in order
            for offset, j in enumerate(new):
                self._ids[names[j]] = ids[j] = start + offset
        return BlockPairs(codes, ids)

    def _default(self, codes: np.ndarray, values: list[Any]) -> tuple[np.ndarray, list[Any]]:
        """A null or empty key is ``default_key`` (None: C, when the row is analysed)."""
        index: dict[Any, int] = {}
        remap = np.array([index.setdefault(self.default_key if v is None or v == "" else v,
                                           len(index)) for v in values], dtype=np.int32)
        return remap[codes] if len(codes) else codes, list(index)


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
        indices = array.indices
        if indices.type != pa.int32():
            indices = indices.cast(pa.int32())
        if indices.null_count:  # a null row: the code after the dictionary's values
            indices = indices.fill_null(len(values))
            values.append(None)
    else:
        import pyarrow.compute as pc  # here: a Parquet file's dictionaries need none of it

        encoded = pc.dictionary_encode(array, null_encoding="encode")
        values = encoded.dictionary.to_pylist()
        indices = encoded.indices  # no null (a null has its own entry)
    if not len(indices):
        return np.zeros(0, dtype=np.int32), values
    codes = np.frombuffer(indices.buffers()[1], dtype=np.int32)[
        indices.offset:indices.offset + len(indices)]
    return codes, values


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
