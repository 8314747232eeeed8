"""A song of a corpus as the loaders give it: metadata and its sections of chords, each chord
with its bar and beat (1-based), read by the engine's own parser.

A section holds its chords as columns (issue 40): each chord's number in the load's table of
distinct chords (``Chords``: a symbol is parsed once a load), its bar and its beat, in one numpy
array. The index build reads a piece of songs by concatenating those arrays, no Python object
a chord; ``Section.chords`` gives the records (``Placed``) to whoever reads a chord at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from engine.analysis import ChartChord, chart_key
from engine.chords import Chord, Key, parse, parse_key
from engine.errors import HarmonyError

# A chord of a song at its bar and beat: the record the chart's key finder reads.
Placed = ChartChord


class Chords:
    """The distinct chords of a load, numbered in the order they are first read: the songs'
    sections hold numbers into it. Each symbol (as written, stripped) is parsed once: reading
    a chord again is one dictionary lookup. It grows with the distinct symbols read, never with
    the chords."""

    def __init__(self) -> None:
        self.chords: list[Chord] = []
        self._numbers: dict[str, int] = {}

    def number(self, symbol: str) -> int:
        """The number of ``symbol``'s chord; raises ``InvalidChord`` (nothing numbered) when
        the symbol does not parse."""
        found = self._numbers.get(symbol)
        if found is None:
            chord = parse(symbol)
            found = self._numbers[symbol] = len(self.chords)
            self.chords.append(chord)
        return found

    def __len__(self) -> int:
        return len(self.chords)


@dataclass(frozen=True, eq=False, slots=True)
class Section:
    """A section's chords as one array of three rows, one column a chord in the order they are
    played: its number in ``table``, its bar, its beat. One array of floats (the numbers and
    bars are integers, exact in a float64), not three: the build reads a section by one
    concatenation, and at a million songs drawn from a few thousand sections the cost was
    the memory each array touched (three arrays a section: 1.9 s of CPU a million songs more).
    ``size`` is the count of chords, kept so that counting reads no array."""

    name: str
    table: Chords
    columns: npt.NDArray[np.float64]        # (3, size): number, bar, beat
    size: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", self.columns.shape[1])

    @classmethod
    def of(cls, name: str, table: Chords, numbers: list[int], bars: list[int],
           beats: list[float]) -> Section:
        return cls(name, table, np.array((numbers, bars, beats), dtype=np.float64
                                         ).reshape(3, len(numbers)))

    @property
    def numbers(self) -> npt.NDArray[np.int64]:
        return self.columns[0].astype(np.int64)

    @property
    def bars(self) -> npt.NDArray[np.int64]:
        return self.columns[1].astype(np.int64)

    @property
    def beats(self) -> npt.NDArray[np.float64]:
        return self.columns[2]

    @property
    def chords(self) -> tuple[Placed, ...]:
        """The section's chords as records (built at each call)."""
        return tuple(map(Placed, self.bars.tolist(), self.beats.tolist(),
                         map(self.table.chords.__getitem__, self.numbers.tolist())))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Section):
            return NotImplemented
        return self.name == other.name and self.chords == other.chords

    def __hash__(self) -> int:
        return hash((self.name, self.chords))


@dataclass(frozen=True, slots=True)
class Song:
    id: str
    title: str
    composer: str
    key: str | None          # canonical ("F", "Dm"), None when unknown
    source: str
    sections: tuple[Section, ...]
    note: str = ""           # where the chart comes from (the shipped corpus's source notes)

    @property
    def chords(self) -> int:
        return sum(s.size for s in self.sections)


@dataclass(frozen=True)
class Problem:
    """A song or chord that could not be read: reported, skipped; the rest loads."""

    file: str
    song: str | None
    bar: int | None
    symbol: str | None
    message: str

    def to_dict(self) -> dict[str, object]:
        return {"file": self.file, "song": self.song, "bar": self.bar, "symbol": self.symbol,
                "message": self.message}


@dataclass
class Problems:
    items: list[Problem] = field(default_factory=list)

    def add(self, file: str, message: str, song: str | None = None, bar: int | None = None,
            symbol: str | None = None) -> None:
        self.items.append(Problem(file, song, bar, symbol, message))


def reading_key(song: Song) -> Key | None:
    """The key a song's numerals are read in: its own when the chart gives one, else the key
    of the whole chart as a musician reads it (``engine.analysis.chart_key``); None for a
    song without chords."""
    _, key = canonical_key(song.key)
    if key is not None:
        return key
    chords = [p for s in song.sections for p in s.chords]
    return parse_key(chart_key(chords).name) if chords else None


def canonical_key(text: str | None) -> tuple[str | None, Key | None]:
    """A song's key as written ('F', 'Dmin', 'D minor', 'Bb-') -> ('Dm', Key); unknown -> None."""
    if not text or not text.strip():
        return None, None
    written = text.strip()
    for suffix, minor in (("min", "m"), ("-", "m")):
        if written.endswith(suffix) and len(written) > len(suffix):
            written = written[: -len(suffix)] + minor
    try:
        key = parse_key(written)
    except HarmonyError:
        return None, None
    return key.name, key
