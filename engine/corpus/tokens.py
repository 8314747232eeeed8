"""Songs -> one small integer per chord, and the side arrays a match is read back from.

A chord's token is ``1 + motion * FAMILIES + family``: ``motion`` is its root's rise in
semitones from the chord before (0..11; 12 for the first chord of a song, which has none)
and ``family`` its quality family (table ``FAMILY``). A song's sections follow one another in
the stream as the form plays them (the loaders write repeats and endings out), so a pattern
matches across a section boundary: the first chord of a section moves from the last chord of
the section before. Token 0 separates songs only, so no match crosses one. Transposing a song
changes no token: a pattern in chord symbols matches in every key.

Side arrays, one entry per token (separators included): the song, the section, bar and beat,
the root's pitch class, the exact quality, the root's distance from the song's tonic (-1 when
the key is unknown) and the chord symbol as written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from engine.analysis import CLASSES, quality_class
from engine.chords import Chord
from engine.corpus.songs import Chords

SEPARATOR = 0
NO_MOTION = 12
# Quality class (engine.analysis.CLASSES) -> family. A 7sus chord does a dominant's work.
FAMILY_OF_CLASS = {
    "maj": "major", "maj6": "major", "maj7": "major", "augmaj7": "major", "five": "major",
    "min": "minor", "min6": "minor", "min7": "minor", "mmaj7": "minor",
    "dom7": "dominant", "sus7": "dominant",
    "m7b5": "half-diminished",
    "dim": "diminished", "dim7": "diminished",
    "aug": "augmented",
    "sus4": "sus", "sus2": "sus",
}
FAMILIES = ("major", "minor", "dominant", "half-diminished", "diminished", "augmented", "sus",
            "other")
FAMILY = {name: i for i, name in enumerate(FAMILIES)}


def family_of(chord: Chord) -> int:
    cls = quality_class(chord)
    name = CLASSES[cls].name if cls >= 0 else ""
    return FAMILY[FAMILY_OF_CLASS.get(name, "other")]


def token(motion: int, family: int) -> int:
    return 1 + motion * len(FAMILIES) + family


@dataclass(frozen=True)
class Stream:
    tokens: npt.NDArray[np.uint8]
    song: npt.NDArray[np.int32]
    section: npt.NDArray[np.int16]
    bar: npt.NDArray[np.int16]
    beat: npt.NDArray[np.float32]
    root: npt.NDArray[np.int8]
    family: npt.NDArray[np.int8]
    quality: npt.NDArray[np.int16]      # index into ``qualities``
    degree: npt.NDArray[np.int8]        # semitones above the song's tonic; -1 unknown
    symbol: npt.NDArray[np.int32]       # index into ``symbols``
    qualities: tuple[str, ...]
    symbols: tuple[str, ...]

    ARRAYS = ("tokens", "song", "section", "bar", "beat", "root", "family", "quality", "degree",
              "symbol")


class ChordTable:
    """The distinct chords of a corpus, numbered in order of first appearance, with what the
    stream needs of each (root, family, quality and symbol numbers). A song's chords come as
    numbers in the table of the load that read them (``songs.Chords``); each load's numbers
    are mapped to the corpus's by one array (kept with the load, so it is never collected while
    the table lives), so a piece of chords is numbered by one gather, and only the chords the
    corpus has not seen yet are read as objects, each once."""

    def __init__(self) -> None:
        self.chords: list[Chord] = []
        self.qualities: dict[str, int] = {}
        self.symbols: dict[str, int] = {}
        self._rows: list[tuple[int, int, int, int]] = []
        self._maps: dict[int, tuple[Chords, npt.NDArray[np.int64]]] = {}
        self.columns = np.zeros((0, 4), dtype=np.int64)   # root, family, quality, symbol

    def numbers(self, loads: Sequence[Chords], raw: npt.NDArray[Any],
                which: npt.NDArray[Any] | None = None) -> npt.NDArray[np.int64]:
        """Each chord's number in the corpus, new chords numbered in the order they come:
        ``raw`` (n,) is its number in ``loads[which[i]]`` (in ``loads[0]`` when ``which`` is
        None)."""
        maps = [self._map(load) for load in loads]
        bases = np.zeros(len(maps) + 1, dtype=np.int64)
        np.cumsum([len(m) for m in maps], out=bases[1:])
        keys = np.asarray(raw, dtype=np.int64)
        if which is not None and len(maps) > 1:
            keys = keys + bases[np.asarray(which, dtype=np.int64)]
        found = self._gather(maps, keys)
        new = np.flatnonzero(found < 0)
        if len(new):
            # each distinct new chord once, in order of first appearance (a first piece finds
            # none: its every distinct chord is here)
            values, first = np.unique(keys[new], return_index=True)
            for key in values[np.argsort(first, kind="stable")].tolist():
                load = int(np.searchsorted(bases, key, side="right")) - 1
                maps[load][key - bases[load]] = self._add(loads[load].chords[key - bases[load]])
            self.columns = np.array(self._rows, dtype=np.int64).reshape(len(self._rows), 4)
            found = self._gather(maps, keys)
        return found

    @staticmethod
    def _gather(maps: list[npt.NDArray[np.int64]],
                keys: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        if not len(keys):
            return np.zeros(0, dtype=np.int64)
        return (maps[0] if len(maps) == 1 else np.concatenate(maps))[keys]

    def _map(self, load: Chords) -> npt.NDArray[np.int64]:
        """The corpus number of each of ``load``'s chords, -1 for the ones not seen yet."""
        kept = self._maps.get(id(load))
        if kept is None or len(kept[1]) < len(load):
            grown = np.full(len(load), -1, dtype=np.int64)
            if kept is not None:
                grown[:len(kept[1])] = kept[1]
            kept = self._maps[id(load)] = (load, grown)
        return kept[1]

    def _add(self, chord: Chord) -> int:
        self.chords.append(chord)
        self._rows.append((chord.root_pc, family_of(chord),
                           self.qualities.setdefault(chord.quality, len(self.qualities)),
                           self.symbols.setdefault(chord.symbol, len(self.symbols))))
        return len(self.chords) - 1


DTYPES = {"tokens": np.uint8, "song": np.int32, "section": np.int16, "bar": np.int16,
          "beat": np.float32, "root": np.int8, "family": np.int8, "quality": np.int16,
          "degree": np.int8, "symbol": np.int32}


def stream_piece(first: int, table: ChordTable, tonics: npt.NDArray[np.int64],
                 offsets: npt.NDArray[np.int64], ids: npt.NDArray[np.int64],
                 sections: npt.NDArray[np.int64], bars: npt.NDArray[np.integer[Any]],
                 beats: npt.NDArray[np.float64]) -> dict[str, npt.NDArray[Any]]:
    """The stream of songs numbered from ``first``, each after its separator: the columns of
    ``Stream.ARRAYS``, and ``families`` (songs * len(FAMILIES),): each song's count of chords
    of each family, flat (``index.song_families``, the same by array operations). ``offsets`` (songs + 1,): where each song's chords start in the (n,)
    arrays ``ids`` (numbers in ``table``), ``sections``, ``bars`` and ``beats``; ``tonics``
    (songs,): each song's tonic pitch class, -1 unknown. One kernel pass writes every column
    (``_fill``; its slow twin, the same as array operations, is ``tests/naive.py``)."""
    size = len(ids) + len(offsets) - 1
    out = {name: np.empty(size, dtype=DTYPES[name]) for name in Stream.ARRAYS}
    families = np.zeros((len(offsets) - 1, len(FAMILIES)), dtype=np.int32)
    _fill(first, table.columns, np.asarray(tonics, dtype=np.int64),
          np.asarray(offsets, dtype=np.int64), np.asarray(ids, dtype=np.int64),
          np.asarray(sections, dtype=np.int64), np.asarray(bars, dtype=np.int64),
          np.asarray(beats, dtype=np.float64), families,
          *(out[name] for name in Stream.ARRAYS))
    out["families"] = families.reshape(-1)
    return out


@njit(cache=True)
def _fill(first: int, columns: npt.NDArray[np.int64], tonics: npt.NDArray[np.int64],
          offsets: npt.NDArray[np.int64], ids: npt.NDArray[np.int64],
          sections: npt.NDArray[np.int64], bars: npt.NDArray[np.int64],
          beats: npt.NDArray[np.float64], families: npt.NDArray[np.int32],
          tokens: npt.NDArray[np.uint8],
          song: npt.NDArray[np.int32], section: npt.NDArray[np.int16],
          bar: npt.NDArray[np.int16], beat: npt.NDArray[np.float32],
          root: npt.NDArray[np.int8], family: npt.NDArray[np.int8],
          quality: npt.NDArray[np.int16], degree: npt.NDArray[np.int8],
          symbol: npt.NDArray[np.int32]) -> None:  # pragma: no cover (jitted)
    """Writes each song's separator and chords into the (n + songs,) columns, song by song,
    and counts its chords of each family into ``families`` (songs, families). ``columns``
    (chords in the table, 4): root, family, quality, symbol."""
    for s in range(offsets.shape[0] - 1):
        at = offsets[s] + s
        tokens[at] = SEPARATOR
        song[at] = first + s
        section[at] = 0
        bar[at] = 0
        beat[at] = 0.0
        root[at] = -1
        family[at] = -1
        quality[at] = -1
        degree[at] = -1
        symbol[at] = -1
        tonic = tonics[s]
        previous = -1
        for c in range(offsets[s], offsets[s + 1]):
            at += 1
            i = ids[c]
            r = columns[i, 0]
            f = columns[i, 1]
            motion = NO_MOTION if previous < 0 else (r - previous) % 12
            previous = r
            tokens[at] = 1 + motion * families.shape[1] + f
            families[s, f] += 1
            song[at] = first + s
            section[at] = sections[c]
            bar[at] = bars[c]
            beat[at] = beats[c]
            root[at] = r
            family[at] = f
            quality[at] = columns[i, 2]
            degree[at] = (r - tonic) % 12 if tonic >= 0 else -1
            symbol[at] = columns[i, 3]


def closing(songs: int) -> dict[str, npt.NDArray[Any]]:
    """The separator that ends the stream (numbered after the last song): its columns."""
    end = stream_piece(songs, ChordTable(), np.zeros(1, dtype=np.int64),
                       np.zeros(2, dtype=np.int64), np.zeros(0, dtype=np.int64),
                       np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
                       np.zeros(0, dtype=np.float64))
    return {name: end[name] for name in Stream.ARRAYS}
