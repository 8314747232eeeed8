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

import numpy as np
import numpy.typing as npt

from engine.analysis import CLASSES, quality_class
from engine.chords import Chord, Key
from engine.corpus.songs import Song, reading_key

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


def stream_of(songs: Sequence[Song], keys: Sequence[Key | None] | None = None) -> Stream:
    """The token stream of ``songs``; ``keys``: each song's reading key when the caller has
    found them already (``reading_key``, which finds a key for a chart that gives none)."""
    rows: list[tuple[int, int, int, int, float, int, int, int, int, int]] = []
    qualities: dict[str, int] = {}
    symbols: dict[str, int] = {}
    for s, song in enumerate(songs):
        # the chart's own key, else the one found from the whole chart
        key = reading_key(song) if keys is None else keys[s]
        tonic = key.tonic.pc if key is not None else None
        rows.append((SEPARATOR, s, 0, 0, 0.0, -1, -1, -1, -1, -1))
        previous: int | None = None   # the form goes on from section to section
        for k, section in enumerate(song.sections):
            for placed in section.chords:
                chord = placed.chord
                root = chord.root_pc
                fam = family_of(chord)
                motion = NO_MOTION if previous is None else (root - previous) % 12
                rows.append((token(motion, fam), s, k, placed.bar, placed.beat, root, fam,
                             qualities.setdefault(chord.quality, len(qualities)),
                             -1 if tonic is None else (root - tonic) % 12,
                             symbols.setdefault(chord.symbol, len(symbols))))
                previous = root
    rows.append((SEPARATOR, len(songs), 0, 0, 0.0, -1, -1, -1, -1, -1))
    columns = list(zip(*rows, strict=True))
    dtypes = (np.uint8, np.int32, np.int16, np.int16, np.float32, np.int8, np.int8, np.int16,
              np.int8, np.int32)
    arrays = [np.array(c, dtype=d) for c, d in zip(columns, dtypes, strict=True)]
    return Stream(**dict(zip(Stream.ARRAYS, arrays, strict=True)), qualities=tuple(qualities),
                  symbols=tuple(symbols))
