"""A song of a corpus as the loaders give it: metadata and its sections of chords, each chord
with its bar and beat (1-based), read by the engine's own parser."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.analysis import ChartChord, chart_key
from engine.chords import Key, parse_key
from engine.errors import HarmonyError

# A chord of a song at its bar and beat: the record the chart's key finder reads.
Placed = ChartChord


@dataclass(frozen=True)
class Section:
    name: str
    chords: tuple[Placed, ...]


@dataclass(frozen=True)
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
        return sum(len(s.chords) for s in self.sections)


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
