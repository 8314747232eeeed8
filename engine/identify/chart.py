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

from engine.analysis import quality_class
from engine.chords import parse
from engine.identify.answer import identify_notes
from engine.identify.music import Music
from engine.identify.notes import Sounding

PRESENCE = 0.3
BASS_REGISTER = 48   # below C3


def hear(music: Music, start: int, end: int) -> dict[str, Any] | None:
    """The first reading of the music sounding in [start, end), None for silence."""
    overlap = np.minimum(music.ends, end) - np.maximum(music.starts, start)
    sounding = overlap > 0
    if not sounding.any():
        return None
    pitches = music.pitches[sounding]
    # the bass register counts on the downbeat only: a walking bass's passing and approach
    # notes are not the chord's
    beat_end = start + (end - start) // 4
    on_beat = np.minimum(music.ends, beat_end) - np.maximum(music.starts, start)
    counted = np.where(music.pitches < BASS_REGISTER, np.maximum(on_beat, 0), overlap)
    weights = np.bincount(pitches % 12, weights=counted[sounding], minlength=12)
    present = [pc for pc in range(12) if weights[pc] >= PRESENCE * weights.max()]
    first_beat = sounding & (music.starts < start + (end - start) // 4)
    low = int(music.pitches[first_beat].min()) if first_beat.any() else int(pitches.min())
    notes = [Sounding(pc, None, None, str(pc)) for pc in present]
    answer = identify_notes(notes, Sounding(low % 12, None, low, str(low)), None)
    return answer["readings"][0] if answer["readings"] else None


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
    for index, (start, beats, beat) in enumerate(music.bars):
        end = start + beats * beat
        if index < len(written) and written[index]:
            bars.append(written[index])
            last = written[index][-1]["symbol"]
            continue
        whole = hear(music, start, end)
        cells: list[dict[str, Any]] = []
        if whole is None:
            if last is not None:
                cells = [{"symbol": last, "beat": 1, "beats": beats}]
        else:
            half = beats // 2 if beats % 2 == 0 and beats >= 4 else 0
            parts = [hear(music, start, start + half * beat),
                     hear(music, start + half * beat, end)] if half else [None, None]
            first, second = parts
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
