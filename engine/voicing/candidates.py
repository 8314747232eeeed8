"""From a chord and a style to candidate voicings: every placement of the style's shapes
(``engine.voicing.shapes``, of the tones ``engine.voicing.selection`` holds) inside a MIDI range
and the style's register windows (``candidates``, placed and costed by
``engine.voicing.register``), as numpy integer arrays for the kernels.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from engine.chords import Chord
from engine.voicing.register import register_cost, split_placements
from engine.voicing.selection import BASS_SLOT, Selection, select
from engine.voicing.shapes import shapes
from engine.voicing.styles import DEEP_REACH, REACH_COST, REGISTERS, Style


@dataclass(frozen=True, slots=True)
class Candidates:
    """Every placement of a style's shapes in a range. ``midi`` int64[C, V] rows ascending,
    the first ``count[c]`` notes of row c sounding (the rest repeat its top note);
    ``tone`` int64[C, V] index into ``selection.tones`` per voice; ``guide`` int8[C, V];
    ``register`` int64[C] (see ``register_cost``)."""

    selection: Selection
    midi: np.ndarray
    tone: np.ndarray
    guide: np.ndarray
    span: int                    # the narrowest shape's span in semitones
    register: np.ndarray         # int64[C]: the register cost of each row (search units)
    count: np.ndarray            # int64[C]: the voices each row sounds (the first ``count``)


def starting(table: Candidates, style: Style) -> Candidates:
    """The rows of ``table`` a line of ``style`` may start on: its ``start`` slot's tone
    (a guide_seventh line starts on the 7th), where ``range`` holds it; every row for the
    other layouts."""
    if style.layout != "line" or style.start not in table.selection.slots:
        return table
    tone = table.selection.slots.index(style.start)
    keep = table.tone[:, 0] == tone
    if not keep.any():   # a range that holds only the other tone
        return table
    return replace(table, midi=table.midi[keep], tone=table.tone[keep],
                   guide=table.guide[keep], register=table.register[keep],
                   count=table.count[keep])


@lru_cache(maxsize=8192)
def candidates(chord: Chord, style: Style, low: int, high: int,
               bass_low: int | None = None, thin: bool = False, deep: bool = False
               ) -> Candidates:
    """Every placement of every shape inside [low, high] and inside the style's register
    windows (all placements in range when none lies inside them), shape by shape, lowest
    first, each with its register cost. A style with a bass places its upper structure by
    octaves and the bass by octaves below it (``Register.split``), the bass from ``bass_low``
    (None: ``low``) up; a slash bass may lie an octave further under the chord than
    ``Register.max_span``. ``thin``: the three-voice shapes too (``shapes``; an arrival).
    ``deep``: a bass may lie ``Register.deep`` under its window, its upper voices at their
    lowest (a chord of a long stepwise bass run, ``operation._walks``; elsewhere those
    placements would only slow the search)."""
    bass_low = low if bass_low is None else bass_low
    pitch, tone, extra, count = shapes(chord, style, thin)
    register = REGISTERS[style.name]
    midi = tones = np.empty((0, pitch.shape[1]), dtype=np.int64)
    added = np.empty(0, dtype=np.int64)
    counts = np.empty(0, dtype=np.int64)
    if register.split:
        sel = select(chord, style)
        slash = BASS_SLOT in sel.slots
        # a tone on top may reach beyond the span (the shell's 1-7-3-b5 and 1-b7-11)
        reach = dict(register.reach)
        spans = np.array([register.max_span + 12 * slash + reach.get(sel.tones[t].label, 0)
                          for t in tone[:, -1]], dtype=np.int64)
        midi, tones = split_placements(pitch, tone, low, high, spans, bass_low,
                                       register.bass_gap)
        counts = np.full(len(midi), pitch.shape[1], dtype=np.int64)   # (no thin shapes)
        # a shape reaching beyond the span costs more: played where it keeps the line
        added = REACH_COST * (midi[:, -1] - midi[:, 0] > register.max_span + 12 * slash)
    if len(midi) == 0:       # (a split style in a range too narrow to part its bass: whole)
        octaves = np.arange(0, 128, 12, dtype=np.int64)
        placed = pitch[:, None, :] + octaves[None, :, None]            # [S, O, V]
        ok = (placed[:, :, 0] >= low) & (placed[:, :, -1] <= high)
        midi = placed[ok]
        tones = np.broadcast_to(tone[:, None, :], placed.shape)[ok]
        added = np.broadcast_to(extra[:, None], placed.shape[:2])[ok]
        counts = np.broadcast_to(count[:, None], placed.shape[:2])[ok]
    cost, outside = register_cost(midi, register if deep else replace(register, deep=0), low,
                                  high, bass_low)
    if len(added):
        cost = cost + added
    if register.split and deep and register.bass is not None and midi.shape[1] > 1:
        # under its window a bass carries the upper voices at their lowest (DEEP_REACH)
        outside = outside + ((midi[:, 0] < register.bass[0])
                             & (midi[:, 1] >= register.low[0] + DEEP_REACH))
    if (outside == 0).any():
        inside = outside == 0
        midi, tones, cost, counts = midi[inside], tones[inside], cost[inside], counts[inside]
    sel = select(chord, style)
    flags = np.array([t.guide for t in sel.tones], dtype=np.int8)
    span = int((pitch[:, -1] - pitch[:, 0]).min())
    table = Candidates(sel, np.ascontiguousarray(midi), np.ascontiguousarray(tones),
                       flags[tones], span, np.ascontiguousarray(cost),
                       np.ascontiguousarray(counts))
    for array in (table.midi, table.tone, table.guide, table.register, table.count):
        array.setflags(write=False)  # cached and shared between requests
    return table
