"""Where a style's shapes may stand: their placements inside a MIDI range (by octaves; a style
with a bass places it apart from its upper structure) and the register cost of each placement
against the style's windows (``engine.voicing.styles.REGISTERS``), for the search's first key.
"""

from __future__ import annotations

import numpy as np

from engine.voicing.styles import (
    DEEP_BELOW,
    DEEP_SPAN,
    DEEP_UNIT,
    LOW_BASS,
    LOW_BASS_GAP,
    LOW_INTERVAL_LIMITS,
    Register,
)

# In units of the search's first key (engine.voicing.kernels: a semitone of motion costs
# MOTION_UNIT = 16; a split style's bass, which follows the roots and may leap, BASS_UNIT = 4):
# a windowed note costs 1 per half semitone from its window's
# centre (a pull of 1/8 semitone of motion per semitone off centre: the start and the drift of
# a long tune, never a leap), and OUTSIDE_UNIT per semitone outside its window, which happens
# only where ``range`` leaves no placement inside.
OUTSIDE_UNIT = 64
# the lowest note under each interval (styles.LOW_INTERVAL_LIMITS), by semitones 0..127
_LIMIT = np.array([LOW_INTERVAL_LIMITS.get(d, 0) for d in range(128)], dtype=np.int64)


def split_placements(pitch: np.ndarray, tone: np.ndarray, low: int, high: int,
                     max_span: int | np.ndarray, bass_low: int, gap: int = LOW_BASS_GAP
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Placements of shapes whose voice 0 is a bass: the upper voices moved by ``k`` octaves,
    the bass by ``m <= k`` (so it stays below them), the upper voices within [low, high] and
    the bass within [bass_low, high], at most ``max_span`` (one, or int64[S] per shape) from
    bass to top, a bass under
    LOW_BASS at least ``gap`` under the next voice, and the bass and the voice above it not
    under their LOW_INTERVAL_LIMITS; a bass under DEEP_BELOW (F2: no 7th clear right above it)
    may lie DEEP_SPAN further under the shape (the root alone, the shell's 3rd a tenth up)."""
    octaves = np.arange(0, 11, dtype=np.int64)
    m, k = np.meshgrid(octaves, octaves, indexing="ij")
    keep = m <= k
    m, k = m[keep], k[keep]                                           # [P]
    placed = np.concatenate([pitch[:, None, :1] + 12 * m[None, :, None],
                             pitch[:, None, 1:] + 12 * k[None, :, None]], axis=2)  # [S, P, V]
    span = np.reshape(max_span, (-1, 1)) + DEEP_SPAN * (placed[:, :, 0] < DEEP_BELOW)
    ok = ((placed[:, :, 0] >= bass_low) & (placed[:, :, -1] <= high)
          & (placed[:, :, -1] - placed[:, :, 0] <= span))
    if placed.shape[2] > 1:   # a low bass keeps a fifth under the upper voices
        ok &= placed[:, :, 1] >= low
        ok &= (placed[:, :, 0] >= LOW_BASS) | (placed[:, :, 1] - placed[:, :, 0] >= gap)
        ok &= placed[:, :, 0] >= _LIMIT[np.clip(placed[:, :, 1] - placed[:, :, 0], 0, 127)]
    return placed[ok], np.broadcast_to(tone[:, None, :], placed.shape)[ok]


def register_cost(midi: np.ndarray, register: Register, low: int, high: int,
                  bass_low: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``midi`` (int64[C, V], ascending): the register cost (search units) and the
    semitones outside the windows. Each window is first clamped to [low, high] (the bass's to
    [bass_low, high]), so a range away from a window pulls the voicing to the window's nearest
    edge inside the range. A bass may lie ``register.deep`` under its window (never under
    ``bass_low``), each semitone there costing DEEP_UNIT."""
    upper = 1 if register.split and midi.shape[1] > 1 else 0
    notes = [(midi[:, upper], register.low, low, 0), (midi[:, -1], register.top, low, 0)]
    if register.split:
        assert register.bass is not None
        notes.append((midi[:, 0], register.bass, bass_low, register.deep))
    cost = np.zeros(len(midi), dtype=np.int64)
    outside = np.zeros(len(midi), dtype=np.int64)
    for note, (lo, hi), floor, deep in notes:
        lo, hi = min(max(lo, floor), high), max(min(hi, high), floor)
        under = np.clip(lo - note, 0, min(deep, max(0, lo - floor)))
        out = np.maximum(0, np.maximum(lo - under - note, note - hi))
        outside += out
        cost += (OUTSIDE_UNIT * out + DEEP_UNIT * under
                 + register.pull * np.abs(2 * note - lo - hi))
    return cost, outside
