"""The key of a whole chart, read as a musician reads it (docs/analysis.md, "The key of a
chart"): where the tune starts and arrives, its cadences and their weight, a final turnaround
as a return to the top, the share of time on each tonic, and the notes that fit each key.

Every candidate (tonic x mode) gets a score, the weighted sum of the cues in ``CUES``; the
highest wins, and the scores' softmax is each candidate's confidence. The cues, each a number
per candidate:

- ``fit_triads``: the share of the chart's time whose triads lie in the key's scale. A minor
  key's scale is the natural minor with its leading tone, its raised sixth (dorian's, melodic
  minor's) counting half;
- ``tonic_time``: the share of time on a tonic chord (root on the tonic, the mode's third, no
  dominant seventh: a major key's I, I6, Imaj7; a minor key's i, im7, im6, i(maj7)). A minor
  chord that moves on to the dominant a fourth above is the ii of a ii-V, never a tonic, in
  this cue and every other (Everything Happens To Me opens on ``Cm7 F7`` in Bb);
- ``first`` / ``first_dominant``: the first chord is the tonic (a blues's I7 as
  ``first_dominant``);
- ``blues``: the 12-bar blues's landmarks, I7 in bar 1, IV in bar 5, I in bar 7;
- ``minor``: a constant for the minor keys (most charts are major: the prior);
- ``final``: the chart's last tonic-like chord once the final turnaround is set aside (its
  dominants, diminished chords and ii-V's lead back to the top, not home);
- ``end_downbeat``: a tonic on the downbeat of one of the last two bars;
- ``cadences``: V -> I arrivals on the tonic, each weighted by how long the arrival is held
  (a bar counts 1, at most 2);
- ``first_arrival``: the first chord reached from its dominant in the first four bars is the
  tonic (a tune that starts on its ii-V, such as Along Came Betty or Satin Doll);
- ``phrase_ends``: the share of phrase ends (the downbeats of the last two bars of each
  eight-bar phrase, where a song form's phrases arrive) on the tonic.
- ``opens_on_IV``: a major key whose IV is the first chord (a major triad, sixth or major
  seventh): a major chord that opens a standard is its I, else most often its IV (After
  You've Gone, Remember).

The weights were fitted (multinomial logistic regression over the 24 candidates) on the 1,149
iReal standards whose key is known and checked by two-fold cross-validation (bench/run_keyfind.py
refits them and prints both figures: 89.6 % and 92.0 % on held-out halves, 91.6 % fitted on
all): they are data, kept in ``CUES``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np
import numpy.typing as npt

from engine.chords import NO_CHORD, SCALE_STEPS, Chord, Spelled, parse, parse_spelled

# cue -> weight (per unit of the cue as defined above)
CUES: dict[str, float] = {
    "fit_triads": 7.761, "tonic_time": 4.277, "first": 3.855, "first_dominant": 2.209,
    "blues": 7.218, "minor": -2.118, "end_downbeat": 1.652, "cadences": 0.086,
    "first_arrival": 0.744, "final": 1.186, "cadence_share": 1.074, "phrase_ends": 1.801,
    "opens_on_IV": 1.868,
}
WEIGHTS = np.array(list(CUES.values()))
MAX_ARRIVAL = 2.0           # bars of a cadence's arrival that count
PHRASE = 8                  # bars of a phrase; its last two bars are where it arrives
MODE_START = {"major": 0, "dorian": 1, "phrygian": 2, "lydian": 3, "mixolydian": 4,
              "aeolian": 5, "locrian": 6}
MINOR_THIRD_MODES = frozenset({"minor", "dorian", "phrygian", "aeolian", "locrian"})
TONIC_NAMES = {"major": ("C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"),
               "minor": ("C", "C#", "D", "Eb", "E", "F", "F#", "G", "G#", "A", "Bb", "B")}
LEADING_TONE, RAISED_SIXTH = 11, 9


@dataclass(frozen=True)
class ChartChord:
    """A chord of a chart: its bar (1-based), beat (1-based) and the chord."""

    bar: int
    beat: float
    chord: Chord


@dataclass(frozen=True)
class KeyReading:
    tonic: Spelled
    mode: str
    confidence: float       # the candidate's softmax share of all candidates' scores

    @property
    def name(self) -> str:
        return self.tonic.name + ("m" if self.mode == "minor" else
                                  "" if self.mode == "major" else " " + self.mode)


@cache
def scale_weights(mode: str) -> npt.NDArray[np.float64]:
    """How much each pitch class above the tonic belongs to the mode: 1 in its scale, 0.5 for
    the minor key's raised sixth, else 0 (one read-only array per mode)."""
    weights = np.zeros(12)
    if mode == "minor":
        weights[list(SCALE_STEPS["minor"])] = 1.0
        weights[LEADING_TONE] = 1.0
        weights[RAISED_SIXTH] = 0.5
    else:
        major = SCALE_STEPS["major"]
        start = MODE_START[mode]
        weights[[(s - major[start]) % 12 for s in major]] = 1.0
    weights.setflags(write=False)
    return weights


def chart_keys(chords: Sequence[ChartChord], beats: int = 4,
               modes: tuple[str, ...] = ("major", "minor"), best: int | None = None
               ) -> list[KeyReading]:
    """The candidate keys of the chart, best first (ties: the earlier mode, the lower
    tonic), all of them or the ``best`` few (spelling each costs a scan of the chart).
    ``chords`` in order; ``beats`` a bar."""
    flat, shares = _shares(chords, beats, modes)
    order = sorted(range(flat.size), key=lambda i: (-flat[i], i))[:best]
    return [KeyReading(_spelling(chords, i % 12, modes[i // 12]), modes[i // 12],
                       round(float(shares[i]), 3)) for i in order]


def chart_key(chords: Sequence[ChartChord], beats: int = 4,
              modes: tuple[str, ...] = ("major", "minor")) -> KeyReading:
    """The best candidate alone (``chart_keys``' first, without spelling the other 23)."""
    flat, shares = _shares(chords, beats, modes)
    i = int(np.argmax(flat))  # the first of equal scores: the earlier mode, the lower tonic
    return KeyReading(_spelling(chords, i % 12, modes[i // 12]), modes[i // 12],
                      round(float(shares[i]), 3))


def key_of_symbols(placed: Iterable[tuple[int, float, str]], beats: int = 4,
                   modes: tuple[str, ...] = ("major", "minor")) -> KeyReading | None:
    """``chart_key`` of a user's chart given as (bar, beat, symbol), both 1-based, no-chord
    marks skipped; None when the chart has no chord. Conduct and reharmonize read keyless
    charts through it."""
    chart = [ChartChord(bar, beat, parse(s)) for bar, beat, s in placed if s not in NO_CHORD]
    return chart_key(chart, beats, modes) if chart else None


def _shares(chords: Sequence[ChartChord], beats: int, modes: tuple[str, ...]
            ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Every candidate's score (mode-major order) and its softmax share."""
    if not chords:
        raise ValueError("a chart without chords has no key")
    flat = (chart_cues(chords, beats, modes) @ WEIGHTS).ravel()
    shares = np.exp(flat - flat.max())
    return flat, shares / shares.sum()


def is_dominant(chord: Chord) -> bool:
    """A dominant seventh, or its sus form: a fifth-down resolution's source."""
    iv = chord.intervals
    return "b7" in iv and ("3" in iv or "4" in iv) and "b3" not in iv


def _is_diminished(chord: Chord) -> bool:
    return "b3" in chord.intervals and "b5" in chord.intervals and "b7" not in chord.intervals


def chart_cues(chords: Sequence[ChartChord], beats: int = 4,
               modes: tuple[str, ...] = ("major", "minor")) -> npt.NDArray[np.float64]:
    """The cues of every candidate, shape (len(modes), 12 tonics, len(CUES)), in ``CUES``'s
    order (bench/run_keyfind.py fits the weights on them). Each chord's facts are read once;
    the cues are array operations over them (a chart of 40 chords in ~0.25 ms)."""
    n = len(chords)
    facts = [_facts(c.chord) for c in chords]
    roots = np.array([f[0] for f in facts])
    has3, hasb3, hasb5, hasb7, dominant = np.array([f[1:6] for f in facts], dtype=bool).T
    bars = np.array([c.bar for c in chords])
    beat = np.array([c.beat for c in chords], dtype=float)
    lengths = np.empty(n)
    lengths[:-1] = (bars[1:] - bars[:-1]) * beats + beat[1:] - beat[:-1]
    lengths[-1] = beats - beat[-1] + 1
    lengths = np.maximum(lengths, 0.5) / beats          # in bars
    total = lengths.sum()
    held3 = lengths @ np.array([f[7] for f in facts]) / total   # (12,) time-weighted triads
    last_bar = int(bars[-1])
    final_index = _final_tonic_index(chords, dominant)
    # a dominant falling a fifth into a chord that is not one: an arrival's positions
    falls = np.zeros(n, dtype=bool)
    falls[:-1] = dominant[:-1] & ((roots[:-1] - roots[1:]) % 12 == 7) & ~dominant[1:]
    arrive = np.flatnonzero(falls) + 1                    # the arrived-at chords
    first = next((int(i) for i in arrive if i - 1 < 8 and bars[i] <= 4), None)
    late = (beat == 1) & (bars >= last_bar - 1)
    ends = (beat == 1) & ((bars - 1) % PHRASE >= PHRASE - 2)
    ii = _ii_of_ii_v(roots, hasb3, dominant, facts)
    table = np.zeros((len(modes), 12, len(CUES)))
    for m, mode in enumerate(modes):
        minor_third = mode in MINOR_THIRD_MODES
        tonic_like = hasb3 & ~hasb5 & ~ii if minor_third else has3 & ~hasb7
        weights = scale_weights(mode)
        cues = table[m]
        cues[:, 0] = held3[_ROTATE] @ weights
        np.add.at(cues[:, 1], roots[tonic_like], lengths[tonic_like] / total)
        if tonic_like[0]:
            cues[roots[0], 2] = 1.0
        if dominant[0]:
            cues[roots[0], 3] = 1.0
        if not minor_third and last_bar >= 12 and dominant[0]:
            _blues_landmarks(cues, bars, roots)
        cues[:, 5] = 1.0 if mode == "minor" else 0.0
        cues[roots[late & tonic_like], 6] = 1.0
        home = arrive[tonic_like[arrive]]
        np.add.at(cues[:, 7], roots[home], np.minimum(lengths[home], MAX_ARRIVAL))
        if first is not None and tonic_like[first]:
            cues[roots[first], 8] = 1.0
        if final_index is not None and tonic_like[final_index]:
            cues[roots[final_index], 9] = 1.0
        arrivals = cues[:, 7].sum()
        if arrivals:
            cues[:, 10] = cues[:, 7] / arrivals
        if ends.any():
            np.add.at(cues[:, 11], roots[ends & tonic_like], 1 / ends.sum())
        if mode == "major" and has3[0] and not hasb7[0]:
            cues[(roots[0] - 5) % 12, 12] = 1.0     # a major chord first: the IV it may be
    return table


def _blues_landmarks(cues: npt.NDArray[np.float64], bars: npt.NDArray[np.int_],
                     roots: npt.NDArray[np.int_]) -> None:
    """The ``blues`` cue: the chords that start bars 1, 5 and 7 are I, IV and I."""
    first_bars = {int(b): int(r) for b, r in zip(bars[::-1], roots[::-1], strict=True)}
    if all(b in first_bars for b in (1, 5, 7)) and \
            first_bars[5] == (first_bars[1] + 5) % 12 and first_bars[7] == first_bars[1]:
        cues[first_bars[1], 4] = 1.0


def _ii_of_ii_v(roots: npt.NDArray[np.int_], minor: npt.NDArray[np.bool_],
                dominant: npt.NDArray[np.bool_], facts: Sequence[object]
                ) -> npt.NDArray[np.bool_]:
    """The minor chords that move on (the next different chord, round to the top) to the
    dominant a fourth above, in a chart where the key they prepare has its chord: the ii of a
    ii-V, not a tonic."""
    runs = np.array([id(f) for f in facts])     # ``_facts`` is cached: one object a chord
    # where each run of one chord starts, then 0: the chart's last run moves on to its first
    starts = np.append(np.flatnonzero(runs[1:] != runs[:-1]) + 1, 0)
    following = starts[np.searchsorted(starts[:-1], np.arange(len(runs)), side="right")]
    ii = minor & dominant[following] & ((roots[following] - roots) % 12 == 5)
    # a ii-V whose target never sounds (a i-IV7 vamp, Cm7 | F7) is the dorian tonic, not a ii
    sounding = np.zeros(12, dtype=bool)
    sounding[roots[~dominant]] = True
    return ii & sounding[(roots + 10) % 12]


_ROTATE = np.array([[(t + s) % 12 for s in range(12)] for t in range(12)])


@lru_cache(maxsize=4096)
def _facts(chord: Chord) -> tuple[int, bool, bool, bool, bool, bool, tuple[float, ...],
                                  tuple[float, ...]]:
    """(root, has 3, has b3, has b5, has b7, dominant, and the weight of each pitch class among
    its first four tones, then among its triad's: the shares ``fit_triads`` sums)."""
    iv = chord.intervals
    return (chord.root.pc, "3" in iv, "b3" in iv, "b5" in iv, "b7" in iv, is_dominant(chord),
            _shares_of(chord.pcs[:4]), _shares_of(chord.pcs[:3]))


def _shares_of(pcs: Sequence[int]) -> tuple[float, ...]:
    weights = [0.0] * 12
    for pc in pcs:
        weights[pc] += 1 / len(pcs)
    return tuple(weights)


def _final_tonic_index(chords: Sequence[ChartChord], dominant: npt.NDArray[np.bool_]
                       ) -> int | None:
    """The last chord that is not part of a final turnaround: dominants, diminished chords and
    a chord that falls a fifth into the next (the vi and ii of I-vi-ii-V, the last one falling
    into the chart's first chord) lead back to the top."""
    n = len(chords)
    for i in range(n - 1, -1, -1):
        chord = chords[i].chord
        if dominant[i] or _is_diminished(chord):
            continue
        following = chords[(i + 1) % n].chord
        if "b3" in chord.intervals and (following.root.pc - chord.root.pc) % 12 == 5:
            continue
        return i
    return None


def _spelling(chords: Sequence[ChartChord], pc: int, mode: str) -> Spelled:
    """The tonic as the chart spells it (a root or bass of that pitch class, the last one
    first), else the usual name."""
    for c in reversed(chords):
        for note in (c.chord.root, c.chord.bass):
            if note is not None and note.pc == pc:
                return note
    return parse_spelled(TONIC_NAMES["minor" if mode in MINOR_THIRD_MODES else "major"][pc])
