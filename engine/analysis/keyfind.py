"""The key of a whole chart, read as a musician reads it (docs/analysis.md, "The key of a
chart"): where the tune starts and arrives, its cadences and their weight, a final turnaround
as a return to the top, the share of time on each tonic, and the notes that fit each key.

Every candidate (tonic x mode) gets a score, the weighted sum of the cues in ``CUES``; the
highest wins, and the scores' softmax is each candidate's confidence. The cues, each a number
per candidate:

- ``fit`` / ``fit_triads``: the share of the chart's time whose chord tones (the first four;
  the triad alone) lie in the key's scale. A minor key's scale is the natural minor with its
  leading tone, its raised sixth (dorian's, melodic minor's) counting half;
- ``tonic_time``: the share of time on a tonic chord (root on the tonic, the mode's third, no
  dominant seventh: a major key's I, I6, Imaj7; a minor key's i, im7, im6, i(maj7));
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
  tonic (a tune that starts on its ii-V, such as Along Came Betty or Satin Doll).

The weights were fitted (multinomial logistic regression over the 24 candidates) on the 1,149
iReal standards whose key is known and checked by two-fold cross-validation (bench/run_keyfind.py
refits them and prints both figures: 88 % on held-out halves, 89 % fitted on all): they are
data, kept in ``CUES``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.chords import SCALE_STEPS, Chord, Spelled, parse_spelled

# cue -> weight (per unit of the cue as defined above)
CUES: dict[str, float] = {
    "fit": 1.773, "fit_triads": 7.857, "tonic_time": 6.907, "first": 3.138,
    "first_dominant": 2.251, "blues": 7.105, "minor": -2.681, "end_downbeat": 1.569,
    "cadences": 0.074, "first_arrival": 1.079, "final": 1.363, "cadence_share": 0.732,
}
WEIGHTS = np.array(list(CUES.values()))
MAX_ARRIVAL = 2.0           # bars of a cadence's arrival that count
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


def scale_weights(mode: str) -> npt.NDArray[np.float64]:
    """How much each pitch class above the tonic belongs to the mode: 1 in its scale, 0.5 for
    the minor key's raised sixth, else 0."""
    weights = np.zeros(12)
    if mode == "minor":
        weights[list(SCALE_STEPS["minor"])] = 1.0
        weights[LEADING_TONE] = 1.0
        weights[RAISED_SIXTH] = 0.5
        return weights
    major = SCALE_STEPS["major"]
    start = MODE_START[mode]
    weights[[(s - major[start]) % 12 for s in major]] = 1.0
    return weights


def chart_keys(chords: Sequence[ChartChord], beats: int = 4,
               modes: tuple[str, ...] = ("major", "minor")) -> list[KeyReading]:
    """Every candidate key of the chart, best first (ties: the earlier mode, the lower
    tonic). ``chords`` in order; ``beats`` a bar."""
    if not chords:
        raise ValueError("a chart without chords has no key")
    scores = chart_cues(chords, beats, modes) @ WEIGHTS
    flat = scores.ravel()
    shares = np.exp(flat - flat.max())
    shares /= shares.sum()
    order = sorted(range(flat.size), key=lambda i: (-flat[i], i))
    return [KeyReading(_spelling(chords, i % 12, modes[i // 12]), modes[i // 12],
                       round(float(shares[i]), 3)) for i in order]


def chart_key(chords: Sequence[ChartChord], beats: int = 4,
              modes: tuple[str, ...] = ("major", "minor")) -> KeyReading:
    return chart_keys(chords, beats, modes)[0]


def _is_dominant(chord: Chord) -> bool:
    """A dominant seventh, or its sus form: a fifth-down resolution's source."""
    iv = chord.intervals
    return "b7" in iv and ("3" in iv or "4" in iv) and "b3" not in iv


def _is_diminished(chord: Chord) -> bool:
    return "b3" in chord.intervals and "b5" in chord.intervals and "b7" not in chord.intervals


def _tonic_like(chord: Chord, minor_third: bool) -> bool:
    """A tonic chord of a mode with that third: the third, no dominant seventh (major), no
    diminished fifth (minor)."""
    iv = chord.intervals
    if minor_third:
        return "b3" in iv and "b5" not in iv
    return "3" in iv and "b7" not in iv


def chart_cues(chords: Sequence[ChartChord], beats: int = 4,
               modes: tuple[str, ...] = ("major", "minor")) -> npt.NDArray[np.float64]:
    """The cues of every candidate, shape (len(modes), 12 tonics, len(CUES)), in ``CUES``'s
    order (bench/run_keyfind.py fits the weights on them)."""
    n = len(chords)
    roots = np.array([c.chord.root.pc for c in chords])
    lengths = np.empty(n)
    for i, c in enumerate(chords):
        nxt = chords[i + 1] if i + 1 < n else None
        lengths[i] = ((nxt.bar - c.bar) * beats + nxt.beat - c.beat) if nxt is not None \
            else beats - c.beat + 1
    lengths = np.maximum(lengths, 0.5) / beats          # in bars
    total = lengths.sum()
    tones4 = np.zeros((n, 12))
    tones3 = np.zeros((n, 12))
    for i, c in enumerate(chords):
        pcs4, pcs3 = c.chord.pcs[:4], c.chord.pcs[:3]
        tones4[i, list(pcs4)] += 1 / len(pcs4)
        tones3[i, list(pcs3)] += 1 / len(pcs3)
    held4 = lengths @ tones4 / total                      # (12,) time-weighted tones
    held3 = lengths @ tones3 / total
    dominant = np.array([_is_dominant(c.chord) for c in chords])
    last_bar = chords[-1].bar
    bar_root: dict[int, Chord] = {}
    for c in chords:
        bar_root.setdefault(c.bar, c.chord)
    final_index = _final_tonic_index(chords, dominant)
    table = np.zeros((len(modes), 12, len(CUES)))
    rotate = np.array([[(t + s) % 12 for s in range(12)] for t in range(12)])
    for m, mode in enumerate(modes):
        minor_third = mode in MINOR_THIRD_MODES
        tonic_like = np.array([_tonic_like(c.chord, minor_third) for c in chords])
        weights = scale_weights(mode)
        cues = table[m]
        cues[:, 0] = held4[rotate] @ weights
        cues[:, 1] = held3[rotate] @ weights
        np.add.at(cues[:, 2], roots[tonic_like], lengths[tonic_like] / total)
        if tonic_like[0]:
            cues[roots[0], 3] = 1.0
        if dominant[0]:
            cues[roots[0], 4] = 1.0
        if not minor_third and last_bar >= 12 and dominant[0]:
            r = {b: bar_root[b].root.pc for b in (1, 5, 7) if b in bar_root}
            if len(r) == 3 and r[5] == (r[1] + 5) % 12 and r[7] == r[1]:
                cues[r[1], 5] = 1.0
        cues[:, 6] = 1.0 if mode == "minor" else 0.0
        for c, like in zip(chords, tonic_like, strict=True):
            if like and c.beat == 1 and c.bar >= last_bar - 1:
                cues[c.chord.root.pc, 7] = 1.0
        first_arrival_seen = False
        for i in range(n - 1):
            if dominant[i] and (roots[i] - roots[i + 1]) % 12 == 7 and not dominant[i + 1]:
                if tonic_like[i + 1]:
                    cues[roots[i + 1], 8] += min(lengths[i + 1], MAX_ARRIVAL)
                if not first_arrival_seen and i < 8 and chords[i + 1].bar <= 4:
                    first_arrival_seen = True
                    if tonic_like[i + 1]:
                        cues[roots[i + 1], 9] = 1.0
        if final_index is not None and tonic_like[final_index]:
            cues[roots[final_index], 10] = 1.0
        arrivals = cues[:, 8].sum()
        if arrivals:
            cues[:, 11] = cues[:, 8] / arrivals
    return table


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
