"""A chart as ``analyze`` takes it (API.md 3.1): a string with ``|`` bar lines, spaces between
the chords of a bar, optional section labels and ``||`` (``"A: Dm7 G7 | Cmaj7 || B: ..."``),
or a list of bars (each a list of symbols, or a string of them) or of symbols (a chord a bar).
The chords of a bar share it, the first ones longer (three in 4/4: beats 1, 3, 4), as
conduct and compose place them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from engine.chords import NO_CHORD, Chord, parse
from engine.errors import InvalidChord, InvalidRequest
from engine.requests import MAX_PROGRESSION

BEATS = 4


@dataclass(frozen=True)
class Section:
    label: str
    first_bar: int          # 1-based
    bars: int


ChartSection = Section  # its name outside the package (beside compose's sections)


@dataclass(frozen=True)
class Placed:
    bar: int                # 1-based, across the chart
    beat: float             # 1-based
    symbol: str             # as written (trimmed)
    chord: Chord


@dataclass(frozen=True)
class Chart:
    sections: tuple[Section, ...]
    chords: tuple[Placed, ...]
    bars: int
    labelled: bool          # the sections were named in the request


def read_chart(value: Any, field: str = "progression") -> Chart:
    """The chart of a ``progression`` field; ``InvalidRequest`` / ``InvalidChord`` (with the
    chord's ``index``) naming ``field``."""
    parts = _parts(value, field)
    sections: list[Section] = []
    chords: list[Placed] = []
    bar = 0
    index = 0
    labelled = False
    for n, (label, bars) in enumerate(parts):
        labelled = labelled or label is not None
        name = label if label is not None else chr(ord("A") + n) if n < 26 else f"S{n + 1}"
        sections.append(Section(name, bar + 1, len(bars)))
        for symbols in bars:
            bar += 1
            if len(symbols) > BEATS:
                raise InvalidRequest(f"bar {bar} of '{field}' has {len(symbols)} chords but "
                                     f"only {BEATS} beats", field=field)
            for i, symbol in enumerate(symbols):
                if index >= MAX_PROGRESSION:
                    raise InvalidRequest(f"field '{field}' has more than {MAX_PROGRESSION} "
                                         "chords", field=field)
                if symbol not in NO_CHORD:
                    try:
                        chord = parse(symbol)
                    except InvalidChord as e:
                        error = e.at_index(index)
                        error.details["field"] = field
                        raise error from None
                    chords.append(Placed(bar, 1 + math.ceil(i * BEATS / len(symbols)),
                                         symbol, chord))
                index += 1
    if not chords:
        raise InvalidRequest(f"field '{field}' has no chords", field=field)
    return Chart(tuple(sections), tuple(chords), bar, labelled)


def bars_of(value: Any, field: str = "progression") -> list[list[str]]:
    """The bars of a ``progression`` field as written, section labels and ``||`` read and
    dropped, ``NC`` kept (reharmonize lays its alternatives on them)."""
    return [bar for _, bars in _parts(value, field) for bar in bars]


def labelled_parts(text: str) -> list[tuple[str | None, str]]:
    """The parts of a chart string between ``||``, each with its label (the text before a
    ``:`` that holds no bar line, trimmed: ``A``, ``Verse 1``) or None, and its body. One rule
    for analyze's charts and compose's ``create`` (API.md 3.1: "as in compose's create")."""
    parts: list[tuple[str | None, str]] = []
    for part in text.split("||"):
        if not part.strip():
            continue
        head, colon, body = part.partition(":")
        if colon and head.strip() and "|" not in head:
            parts.append((head.strip(), body))
        else:
            parts.append((None, part))
    return parts


def _parts(value: Any, field: str) -> list[tuple[str | None, list[list[str]]]]:
    """(label or None, bars of symbols) per section."""
    if isinstance(value, str):
        parts = [(label, [b for b in (bar.split() for bar in text.split("|")) if b])
                 for label, text in labelled_parts(value)]
        return [p for p in parts if p[1]] or _empty(field)
    if isinstance(value, list) and value:
        rows: list[list[str]] = []
        for item in value:
            if isinstance(item, str):
                symbols = item.replace("|", " ").split()
            elif isinstance(item, list) and all(isinstance(s, str) for s in item):
                symbols = [s.strip() for s in item if s.strip()]
            else:
                raise InvalidRequest(f"field '{field}' must be a string, a list of bars or a "
                                     "list of chord symbols", field=field)
            if symbols:
                rows.append(symbols)
        return [(None, rows)] if rows else _empty(field)
    raise InvalidRequest(f"field '{field}' must be a string, a list of bars or a list of chord "
                         "symbols", field=field)


def _empty(field: str) -> list[tuple[str | None, list[list[str]]]]:
    raise InvalidRequest(f"field '{field}' has no chords", field=field)
