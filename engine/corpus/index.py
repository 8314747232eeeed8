"""The index of a corpus (built by ``build``): its token stream (``tokens``), a suffix array
over the tokens and the songs' metadata, written once as ``.npy`` files and a ``songs.json`` in one folder and opened
with ``np.load(mmap_mode="r")``, so every worker process shares the same pages.

The suffix array comes from ``pydivsufsort`` (libdivsufsort): measured here, 5 M tokens in
0.12 s. A run of tokens is found by two binary searches over it (``positions``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from engine.corpus.loaders import fold_title
from engine.corpus.tokens import FAMILIES, SEPARATOR, Stream

# 2: each song's reading key (its own, or the one found from the chart); 3: a song's sections
# follow on in the token stream (one separator per song, not per section); 4: each song's count
# of chords of each family (``families.npy``), so a search skips the songs a pattern cannot
# match and answers a single chord without a scan
FORMAT = 4
_ID, _TITLE = attrgetter("id"), attrgetter("title")


class SongInfo(NamedTuple):
    """A song of the index, as ``songs.json`` lists it (``song_row``). A tuple, not a frozen
    dataclass: one is made a song at every build and every ``open_index``, and a dataclass's
    construction cost 1-2 µs more a song (a second a million songs)."""

    id: str
    title: str
    composer: str
    key: str | None          # the chart's own key, None when it gives none
    source: str
    sections: tuple[str, ...]
    reading: str | None = None   # the key numerals are read in: ``key``, else the one found


@dataclass(frozen=True)
class Index:
    stream: Stream
    suffixes: npt.NDArray[np.int32]
    songs: tuple[SongInfo, ...]
    starts: npt.NDArray[np.int64]       # per song: index of its first separator
    order: npt.NDArray[np.int64]        # per song: its rank by (title, case-folded; id)
    folded_titles: tuple[str, ...]      # per song: its title case- and accent-folded
    families: npt.NDArray[np.int32]     # (songs, len(FAMILIES)): its chords of each family
    ids: tuple[str, ...]                # per song: its id

    def positions(self, run: Sequence[int]) -> npt.NDArray[np.int64]:
        """Every start in the stream where ``run`` (a sequence of tokens) occurs, sorted."""
        tokens = self.stream.tokens
        pattern = np.asarray(run, dtype=np.uint8)
        lo = _bound(tokens, self.suffixes, pattern, upper=False)
        hi = _bound(tokens, self.suffixes, pattern, upper=True)
        return np.sort(np.asarray(self.suffixes[lo:hi], dtype=np.int64))

    def song_of(self, position: int) -> int:
        return int(self.stream.song[position])


def _compare(tokens: npt.NDArray[np.uint8], start: int, pattern: npt.NDArray[np.uint8]) -> int:
    """-1, 0, 1: the suffix at ``start``, cut to the pattern's length, against the pattern."""
    piece = tokens[start: start + len(pattern)]
    differ = np.flatnonzero(piece != pattern[: len(piece)])
    if len(differ):
        i = int(differ[0])
        return -1 if piece[i] < pattern[i] else 1
    return -1 if len(piece) < len(pattern) else 0


def _bound(tokens: npt.NDArray[np.uint8], suffixes: npt.NDArray[np.int32],
           pattern: npt.NDArray[np.uint8], upper: bool) -> int:
    lo, hi = 0, len(suffixes)
    while lo < hi:
        mid = (lo + hi) // 2
        c = _compare(tokens, int(suffixes[mid]), pattern)
        if c < 0 or (upper and c == 0):
            lo = mid + 1
        else:
            hi = mid
    return lo


def finish(stream: Stream, suffixes: npt.NDArray[np.int32], songs: tuple[SongInfo, ...],
           families: npt.NDArray[np.int32]) -> Index:
    """The index of a stream, its suffix array, its songs and their family counts (flat, as
    ``stream_piece`` gives them), with what every index derives."""
    return Index(stream, suffixes, songs, _starts(stream), _order(songs),
                 tuple(map(fold_title, map(_TITLE, songs))),
                 np.asarray(families).reshape(len(songs), len(FAMILIES)),
                 tuple(map(_ID, songs)))


def song_row(s: SongInfo) -> list[Any]:
    """A song as ``songs.json`` lists it."""
    return [s.id, s.title, s.composer, s.key, s.source, list(s.sections), s.reading]


def _starts(stream: Stream) -> npt.NDArray[np.int64]:
    """Each song's separator (the first entry of its number), and the closing one: token 0
    stands at them and nowhere else."""
    return np.flatnonzero(np.asarray(stream.tokens) == SEPARATOR).astype(np.int64)


def _order(songs: Sequence[SongInfo]) -> npt.NDArray[np.int64]:
    keys = list(zip(map(str.casefold, map(_TITLE, songs)), map(_ID, songs), strict=True))
    ranked = sorted(range(len(songs)), key=keys.__getitem__)
    order = np.empty(len(songs), dtype=np.int64)
    order[ranked] = np.arange(len(songs))
    return order


def save_index(index: Index, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in Stream.ARRAYS:
        np.save(folder / f"{name}.npy", getattr(index.stream, name))
    np.save(folder / "suffixes.npy", index.suffixes)
    np.save(folder / "families.npy", np.ascontiguousarray(index.families).reshape(-1))
    meta: dict[str, Any] = {
        "format": FORMAT, "qualities": index.stream.qualities,
        "symbols": index.stream.symbols,
        "songs": [song_row(s) for s in index.songs]}
    (folder / "songs.json").write_text(json.dumps(meta, ensure_ascii=False))


def open_index(folder: Path) -> Index:
    """An index written by ``save_index``, its arrays memory-mapped read-only."""
    meta = json.loads((folder / "songs.json").read_text())
    if meta.get("format") != FORMAT:
        raise ValueError(f"{folder} holds a corpus index of another format; import it again")
    arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r") for name in Stream.ARRAYS}
    stream = Stream(**arrays, qualities=tuple(meta["qualities"]),
                    symbols=tuple(meta["symbols"]))
    songs = tuple(SongInfo(i, t, c, k, src, tuple(secs), reading)
                  for i, t, c, k, src, secs, reading in meta["songs"])
    return finish(stream, np.load(folder / "suffixes.npy", mmap_mode="r"), songs,
                  np.load(folder / "families.npy", mmap_mode="r"))
