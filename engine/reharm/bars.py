"""Bars in, bars out (API.md §6): the input's chords placed in their bars, and an alternative
laid back on the same bars.

A string with ``|`` bar lines is read as ``analyze`` reads a chart (``engine.analysis.chart``):
the chords of a bar share it, the first ones longer (three in 4/4: two beats, one, one). A
string without any ``|``, or a list of symbols, gives each chord a bar. An alternative keeps
the input's time: a change's chords share the time of the chord(s) they stand for (an inserted
chord takes its equal share of its host's time, on the beat when the host has a beat for each,
else on halves, quarters...), so the bars of every alternative sum to the input's. Times are
floats whose fractions are halves, quarters...: exact in binary, so the sums are exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.analysis import BEATS, bars_of
from engine.chords import split_progression
from engine.errors import InvalidRequest


@dataclass(frozen=True, slots=True)
class Timed:
    """One input chord's place: its bar (0-based), where it starts in the bar (beats from the
    downbeat) and how long it lasts (beats)."""

    bar: int
    start: float
    beats: float
    written: tuple[int | float, int | float]   # (beat 1-based, beats) as the answer writes them


def read_bars(value: Any, field: str = "progression") -> tuple[list[str], list[Timed], int]:
    """(symbols as written, each one's time, number of bars) of a ``progression`` field."""
    if isinstance(value, str) and "|" in value:
        rows = bars_of(value, field)
    else:
        rows = [[symbol] for symbol in split_progression(value, field=field)]
    symbols: list[str] = []
    times: list[Timed] = []
    for bar, row in enumerate(rows):
        if len(row) > BEATS:
            raise InvalidRequest(f"bar {bar + 1} of '{field}' has {len(row)} chords but only "
                                 f"{BEATS} beats", field=field)
        for symbol, (start, beats) in zip(row, shares(float(BEATS), len(row)), strict=True):
            symbols.append(symbol)
            times.append(Timed(bar, start, beats, (_number(start + 1), _number(beats))))
    return symbols, times, len(rows)


def shares(total: float, n: int) -> list[tuple[float, float]]:
    """(start, length) of ``n`` chords sharing ``total`` beats: equal when the time divides,
    else the first ones longer, on the finest grid of beats, halves, quarters... that gives each
    chord at least one step (four beats for three chords: 2, 1, 1; one beat for two: ½, ½)."""
    unit = 1.0
    while total / unit < n:
        unit /= 2
    steps = int(total / unit)
    marks = [-(-i * steps // n) for i in range(n + 1)]  # ceil(i * steps / n), as a chart places
    return [(marks[i] * unit, (marks[i + 1] - marks[i]) * unit) for i in range(n)]


def _number(x: float) -> int | float:
    return int(x) if x.is_integer() else x


def placed(symbols: Sequence[str], times: Sequence[Timed]) -> list[dict[str, Any]]:
    """Each input chord as the answer's bars write it, in its own time."""
    return [{"symbol": s, "beat": t.written[0], "beats": t.written[1]}
            for s, t in zip(symbols, times, strict=True)]


def lay_out(times: Sequence[Timed], kept: Sequence[dict[str, Any]], n_bars: int,
            spans: Sequence[tuple[int, int, Sequence[str]]]) -> list[list[dict[str, Any]]]:
    """The bars of an alternative. ``kept``: every input chord in its own time (``placed``);
    ``spans``: (first input index, last input index, the chords that share their time), in
    order, not overlapping; the input chords outside them stay as they are. A chord that would
    cross a bar line is written again at the top of the next bar, as a chart writes a held
    chord."""
    bars: list[list[dict[str, Any]]] = [[] for _ in range(n_bars)]
    i = 0
    for first, last, chords in (*spans, (len(times), len(times), ())):
        for j in range(i, first):
            bars[times[j].bar].append(kept[j].copy())
        i = last + 1
        if first == last and len(chords) == 1:  # one chord for one: the same time
            t = times[first]
            bars[t.bar].append({"symbol": chords[0], "beat": t.written[0],
                                "beats": t.written[1]})
            continue
        if not chords:
            continue
        origin = times[first].bar * BEATS + times[first].start
        total = sum(times[k].beats for k in range(first, last + 1))
        for symbol, (start, beats) in zip(chords, shares(total, len(chords)), strict=True):
            at, left = origin + start, beats
            while left > 0:
                bar, beat = divmod(at, BEATS)
                length = min(left, BEATS - beat)
                bars[int(bar)].append({"symbol": symbol, "beat": _number(beat + 1),
                                       "beats": _number(length)})
                at, left = at + length, left - length
    return bars
