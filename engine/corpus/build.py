"""Songs -> the index's arrays, a few thousand songs at a time: each piece's chords are read
by concatenating its sections' arrays (``columns_of``: no Python object a chord), every other
step is an array operation or a kernel pass, and the keys of the songs whose chart gives none are found by one kernel pass
over the piece (``engine.analysis.keyfind_batch``). ``build_index`` keeps the pieces in memory;
``write_index`` writes them to the index folder as they come, so that building from a
generator of songs holds one piece of songs at a time (the suffix array needs the tokens
alone, one byte a chord).
"""

from __future__ import annotations

import io
import json
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, islice, pairwise
from operator import attrgetter
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt
import pydivsufsort

from engine.analysis import ChordFacts, chart_key_names
from engine.chords import Key, parse_key
from engine.corpus.index import FORMAT, Index, SongInfo, finish
from engine.corpus.songs import Chords, Song, canonical_key
from engine.corpus.tokens import DTYPES, ChordTable, Stream, closing, stream_piece

PIECE = 4096            # songs read into arrays at a time
_SECTIONS, _COLUMNS, _SIZE, _TABLE, _NAME, _KEY = map(
    attrgetter, ("sections", "columns", "size", "table", "name", "key"))
_NONE = np.zeros((3, 0), dtype=np.float64)


@dataclass(frozen=True)
class Columns:
    """A piece of songs' chords laid end to end, read from their sections' arrays: ``offsets``
    (songs + 1,): where each song's chords start; per chord (n,): ``sections`` (its section's
    number in its song), ``numbers`` (in ``loads[which]``, ``which`` None: all in
    ``loads[0]``), ``bars``, ``beats``; ``names``: each song's sections' names."""

    offsets: npt.NDArray[np.int64]
    sections: npt.NDArray[np.int64]
    numbers: npt.NDArray[np.int64]
    loads: list[Chords]
    which: npt.NDArray[np.int64] | None
    bars: npt.NDArray[np.int64]
    beats: npt.NDArray[np.float64]
    names: list[tuple[str, ...]]


def columns_of(songs: list[Song]) -> Columns:
    """The chords of ``songs`` as columns: a few C-level passes a section (no Python object
    read a chord), its array concatenated with the others."""
    sections = list(chain.from_iterable(map(_SECTIONS, songs)))
    per_song = np.fromiter(map(len, map(_SECTIONS, songs)), dtype=np.int64, count=len(songs))
    sizes = np.fromiter(map(_SIZE, sections), dtype=np.int64, count=len(sections))
    first = np.zeros(len(songs) + 1, dtype=np.int64)
    np.cumsum(per_song, out=first[1:])
    ends = np.zeros(len(sections) + 1, dtype=np.int64)
    np.cumsum(sizes, out=ends[1:])
    in_song = np.repeat(np.arange(len(sections), dtype=np.int64) - np.repeat(first[:-1], per_song),
                        sizes)
    tables = list(map(_TABLE, sections))
    loads = list({id(t): t for t in tables}.values()) if len(set(map(id, tables))) > 1 \
        else tables[:1]
    which = None
    if len(loads) > 1:
        slot = {id(t): k for k, t in enumerate(loads)}
        which = np.repeat(np.fromiter((slot[id(t)] for t in tables), dtype=np.int64,
                                      count=len(tables)), sizes)
    joined = np.concatenate((_NONE, *map(_COLUMNS, sections)), axis=1)
    names = list(map(_NAME, sections))      # read while the sections are in the cache
    return Columns(ends[first], in_song, joined[0].astype(np.int64), loads, which,
                   joined[1].astype(np.int64), joined[2],
                   [tuple(names[a:z]) for a, z in pairwise(first.tolist())])


@dataclass
class _Reader:
    """Reads pieces of songs into stream columns, numbering the chords of all of them."""

    table: ChordTable = field(default_factory=ChordTable)
    facts: ChordFacts = field(default_factory=ChordFacts)   # of the table's chords
    songs: int = 0
    keys: dict[str | None, tuple[str | None, Key | None]] = field(default_factory=dict)

    def piece(self, songs: list[Song]) -> tuple[dict[str, npt.NDArray[Any]], list[SongInfo]]:
        read = columns_of(songs)
        offsets, bars, beats = read.offsets, read.bars, read.beats
        ids = self.table.numbers(read.loads, read.numbers, read.which)
        counts = np.diff(offsets)
        given = list(map(self._canonical, map(_KEY, songs)))
        keys = [k for _, k in given]
        keyless = np.array([k is None for k in keys], dtype=bool)
        if keyless.any():
            found: tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any],
                         npt.NDArray[Any]] = (ids, bars, beats, offsets)
            if not keyless.all():       # else every chord is read: none copied
                chosen = np.repeat(keyless, counts)
                starts = np.zeros(int(keyless.sum()) + 1, dtype=np.int64)
                np.cumsum(counts[keyless], out=starts[1:])
                found = (ids[chosen], bars[chosen], beats[chosen], starts)
            names = iter(chart_key_names(self.table.chords, *found, facts=self.facts))
            keys = [k if not missing else _key(next(names))
                    for k, missing in zip(keys, keyless, strict=True)]
        tonics = np.array([-1 if k is None else k.tonic.pc for k in keys], dtype=np.int64)
        columns = stream_piece(self.songs, self.table, tonics, offsets, ids, read.sections,
                               bars, beats)
        infos = [SongInfo(s.id, s.title, s.composer, name, s.source, sections,
                          None if k is None else k.name)
                 for s, (name, _), k, sections in zip(songs, given, keys, read.names,
                                                      strict=True)]
        self.songs += len(songs)
        return columns, infos

    def _canonical(self, text: str | None) -> tuple[str | None, Key | None]:
        found = self.keys.get(text)
        if found is None:
            found = self.keys[text] = canonical_key(text)
        return found


def _key(name: str | None) -> Key | None:
    return None if name is None else parse_key(name)


def _pieces(songs: Iterable[Song]) -> Iterator[list[Song]]:
    it = iter(songs)
    while piece := list(islice(it, PIECE)):
        yield piece


def build_index(songs: Iterable[Song]) -> Index:
    """The index of ``songs``, in memory."""
    reader = _Reader()
    parts: dict[str, list[npt.NDArray[Any]]] = {name: [] for name in (*Stream.ARRAYS,
                                                                       "families")}
    infos: list[SongInfo] = []
    for piece in _pieces(songs):
        columns, more = reader.piece(piece)
        for name, part in parts.items():
            part.append(columns[name])
        infos.extend(more)
    for name, column in closing(reader.songs).items():
        parts[name].append(column)
    families = np.concatenate([np.zeros(0, dtype=np.int32), *parts.pop("families")])
    arrays = {name: np.concatenate(parts.pop(name)) for name in Stream.ARRAYS}
    stream = Stream(**arrays, qualities=tuple(reader.table.qualities),
                    symbols=tuple(reader.table.symbols))
    suffixes = np.asarray(pydivsufsort.divsufsort(stream.tokens), dtype=np.int32)
    return finish(stream, suffixes, tuple(infos), families)


def write_index(songs: Iterable[Song], folder: Path) -> dict[str, int]:
    """Writes the index of ``songs`` to ``folder`` (the files ``save_index`` writes, byte for
    byte), one piece of songs in memory at a time; returns the songs and chords written."""
    folder.mkdir(parents=True, exist_ok=True)
    reader = _Reader()
    files = {name: _NpyWriter(folder / f"{name}.npy", DTYPES.get(name, np.int32))
             for name in (*Stream.ARRAYS, "families")}
    tokens: list[npt.NDArray[np.uint8]] = []
    with tempfile.TemporaryFile("w+", encoding="utf-8", dir=folder) as rows:
        try:
            for piece in _pieces(songs):
                columns, infos = reader.piece(piece)
                for name, writer in files.items():
                    writer.write(columns[name])
                tokens.append(columns["tokens"])
                if infos:
                    # one encoder call a piece; a SongInfo is a tuple: written as song_row
                    rows.write((", " if rows.tell() else "") +
                               json.dumps(infos, ensure_ascii=False)[1:-1])
            end = closing(reader.songs)
            for name in Stream.ARRAYS:
                files[name].write(end[name])
        finally:
            for writer in files.values():
                writer.close()
        tokens.append(end["tokens"])
        stream = np.concatenate(tokens)
        del tokens
        np.save(folder / "suffixes.npy",
                np.asarray(pydivsufsort.divsufsort(stream), dtype=np.int32))
        head = json.dumps({"format": FORMAT, "qualities": list(reader.table.qualities),
                           "symbols": list(reader.table.symbols)}, ensure_ascii=False)
        rows.seek(0)
        with (folder / "songs.json").open("w", encoding="utf-8") as out:
            out.write(head[:-1] + ', "songs": [')
            while chunk := rows.read(1 << 20):
                out.write(chunk)
            out.write("]}")
    return {"songs": reader.songs, "chords": int(len(stream) - reader.songs - 1)}


class _NpyWriter:
    """A ``.npy`` file of one dimension written piece by piece: its header (128 bytes for any
    length, as ``np.save`` pads it) is written again with the length at the end."""

    HEADER = 128

    def __init__(self, path: Path, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)
        self.length = 0
        self.file: BinaryIO = path.open("wb")
        self._header()

    def _header(self) -> None:
        self.file.seek(0)
        header = {"descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False,
                  "shape": (self.length,)}
        buffer = io.BytesIO()
        np.lib.format.write_array_header_1_0(buffer, header)
        if len(buffer.getvalue()) != self.HEADER:
            raise ValueError(f"an index column of {self.length:,} entries")
        self.file.write(buffer.getvalue())

    def write(self, values: npt.NDArray[Any]) -> None:
        self.file.write(np.ascontiguousarray(values, dtype=self.dtype).data)
        self.length += len(values)

    def close(self) -> None:
        if not self.file.closed:
            self._header()
            self.file.close()
