"""A chord chart from music: each bar heard whole or in halves (the harmonic rhythm of a
chart: one chord a bar, or two), each part identified from the time its pitch classes sound
(held notes count for the time they sound in it) over its lowest note on the downbeat.

A pitch class sounds in a part when it fills at least ``PRESENCE`` of the time of the one
that sounds longest (passing and approach notes of a walking bass or a melody fall below).
A bar is split when its halves name chords of different roots or classes (a root and fifth
inside the other half's chord is that chord), each named without a tone added; else the bar has one chord, and a bar without notes holds the last.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from engine.analysis import quality_class
from engine.chords import parse
from engine.identify.answer import identify_notes
from engine.identify.music import Music
from engine.identify.notes import Sounding

PRESENCE = 0.3
BASS_REGISTER = 48   # below C3


def hear(music: Music, start: int, end: int) -> dict[str, Any] | None:
    """The first reading of the music sounding in [start, end), None for silence."""
    return hear_all(music, np.array([start]), np.array([end]))[0]


def hear_all(music: Music, starts: npt.NDArray[np.int64],
             ends: npt.NDArray[np.int64]) -> list[dict[str, Any] | None]:
    """``hear`` for each segment [starts[i], ends[i]), the segments in order and apart: the
    notes are matched to the segments they overlap (each note to a run of segments found by
    binary search), and the time of each pitch class summed for every segment at once."""
    # (note, segment) pairs: a note overlaps the segments ending after its start and
    # starting before its end
    lo = np.searchsorted(ends, music.starts, side="right")
    hi = np.searchsorted(starts, music.ends, side="left")
    spans = np.maximum(hi - lo, 0)
    note = np.repeat(np.arange(len(music.pitches)), spans)
    segment = np.repeat(lo, spans) + (np.arange(len(note)) - np.repeat(np.cumsum(spans) - spans, spans))
    n_start, n_end, pitch = music.starts[note], music.ends[note], music.pitches[note]
    s_start, s_end = starts[segment], ends[segment]
    overlap = np.minimum(n_end, s_end) - np.maximum(n_start, s_start)
    sounding = overlap > 0
    note, segment, overlap, pitch = note[sounding], segment[sounding], overlap[sounding], \
        pitch[sounding]
    n_start, n_end, s_start, s_end = n_start[sounding], n_end[sounding], s_start[sounding], \
        s_end[sounding]
    # the bass register counts on the downbeat only: a walking bass's passing and approach
    # notes are not the chord's
    beat_end = s_start + (s_end - s_start) // 4
    on_beat = np.minimum(n_end, beat_end) - np.maximum(n_start, s_start)
    counted = np.where(pitch < BASS_REGISTER, np.maximum(on_beat, 0), overlap)
    weights = np.bincount(segment * 12 + pitch % 12, weights=counted,
                          minlength=12 * len(starts)).reshape(len(starts), 12)
    present = weights >= PRESENCE * weights.max(axis=1, keepdims=True)
    # the bass: the lowest note sounding on the first beat, else the lowest sounding
    lowest = np.full(len(starts), 1 << 30, dtype=np.int64)
    np.minimum.at(lowest, segment, pitch)
    on_first = np.full(len(starts), 1 << 30, dtype=np.int64)
    first = n_start < beat_end
    np.minimum.at(on_first, segment[first], pitch[first])
    low = np.where(on_first < 1 << 30, on_first, lowest)
    heard = np.bincount(segment, minlength=len(starts)) > 0
    out: list[dict[str, Any] | None] = []
    for i in range(len(starts)):
        if not heard[i]:
            out.append(None)
            continue
        notes = [_PITCH_CLASS[pc] for pc in np.flatnonzero(present[i]).tolist()]
        bass = int(low[i])
        answer = identify_notes(notes, Sounding(bass % 12, None, bass, str(bass)), None)
        out.append(answer["readings"][0] if answer["readings"] else None)
    return out


_PITCH_CLASS = tuple(Sounding(pc, None, None, str(pc)) for pc in range(12))


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """One chord heard twice: the same root and class, or a root and fifth (no third: a
    comping stab) inside the other's tones (then the whole chord is one chord; F then F7 are
    two)."""
    ca, cb = parse(a["symbol"]), parse(b["symbol"])
    if (ca.quality == "5" and ca.mask & ~cb.mask == 0) or \
            (cb.quality == "5" and cb.mask & ~ca.mask == 0):
        return True
    return ca.root.pc == cb.root.pc and quality_class(ca) == quality_class(cb)


def chart_bars(music: Music) -> list[list[dict[str, Any]]]:
    """Bars of ``{"symbol", "beat", "beats"}``."""
    written = _symbol_bars(music) if music.symbols else []
    bars: list[list[dict[str, Any]]] = []
    last: str | None = None
    bar_start = np.array([b[0] for b in music.bars], dtype=np.int64)
    beats_of = np.array([b[1] for b in music.bars], dtype=np.int64)
    beat_of = np.array([b[2] for b in music.bars], dtype=np.int64)
    halves = np.where((beats_of % 2 == 0) & (beats_of >= 4), beats_of // 2, 0)
    wholes = hear_all(music, bar_start, bar_start + beats_of * beat_of)
    # each bar's halves, in bars whose meter halves: first, second, first, second...
    split = np.flatnonzero(halves)
    middle = bar_start[split] + halves[split] * beat_of[split]
    parted = hear_all(music, np.stack([bar_start[split], middle], axis=1).ravel(),
                      np.stack([middle, bar_start[split] + beats_of[split] * beat_of[split]],
                               axis=1).ravel())
    halves_of = {int(b): (parted[2 * i], parted[2 * i + 1]) for i, b in enumerate(split)}
    for index, (_, beats, _) in enumerate(music.bars):
        if index < len(written) and written[index]:
            bars.append(written[index])
            last = written[index][-1]["symbol"]
            continue
        whole = wholes[index]
        cells: list[dict[str, Any]] = []
        if whole is None:
            if last is not None:
                cells = [{"symbol": last, "beat": 1, "beats": beats}]
        else:
            half = int(halves[index])
            first, second = halves_of.get(index, (None, None))
            if first and second and not first["added"] and not second["added"] and \
                    not _same(first, second):
                cells = [{"symbol": first["symbol"], "beat": 1, "beats": half},
                         {"symbol": second["symbol"], "beat": half + 1, "beats": beats - half}]
            else:
                cells = [{"symbol": whole["symbol"], "beat": 1, "beats": beats}]
            last = cells[-1]["symbol"]
        bars.append(cells)
    while bars and not bars[-1]:
        bars.pop()
    return bars


def _symbol_bars(music: Music) -> list[list[dict[str, Any]]]:
    count = max(len(music.bars), 1 + max(b for b, _, _ in music.symbols))
    bars: list[list[dict[str, Any]]] = [[] for _ in range(count)]
    for bar, beat, symbol in music.symbols:
        bars[bar].append({"symbol": parse(symbol).canonical, "beat": beat, "beats": 0})
    for index, cells in enumerate(bars):
        length = music.bars[index][1] if index < len(music.bars) else 4
        for i, cell in enumerate(cells):
            following = cells[i + 1]["beat"] if i + 1 < len(cells) else length + 1
            cell["beats"] = following - cell["beat"]
    return bars


def lead_sheet(bars: list[list[dict[str, Any]]]) -> str:
    """Four bars a line, ``| F7 | Bb7 | F7 | Cm7 F7 |``."""
    cells = [" ".join(c["symbol"] for c in bar) or "%" for bar in bars]
    return "\n".join("| " + " | ".join(cells[i:i + 4]) + " |" for i in range(0, len(cells), 4))
