"""The key of a user's progression when the direction names none.

Every candidate key (the 12 tonics x major/minor, or the 12 tonics of a mode the direction
named) gets a cost, the lowest wins:

- each sounding chord adds the number of its triad's tones (root, third, fifth, and the slash
  bass) outside the key's scale, times its length in bars: sevenths and tensions are colour
  (a blues's I7 is its tonic), and minor keys allow the raised seventh of harmonic minor, so a
  V7 belongs to its minor key;
- the last chord on the tonic, with the mode's third (or none), takes ``FINAL`` off; each
  V7 -> I (a dominant on the fifth above the tonic followed by a chord on the tonic) takes
  ``CADENCE`` off; the first chord on the tonic takes ``FIRST`` off.

The bonuses are below one wrong note held for a bar, so the notes decide and the cadences
break ties: ``Dm7 G7 | Cmaj7`` is C major, ``Em7 | Fmaj7`` with "Phrygian" is E phrygian.
Ties go to major, then to the lower tonic. The tonic is spelled as the progression spells it
(a chord root or bass of that pitch class, the last one first), else by ``TONIC_NAMES``.
"""

from __future__ import annotations

import itertools

from engine.chord import Chord
from engine.keys import SCALE_STEPS
from engine.notes import Spelled, parse_spelled

FINAL, CADENCE, FIRST = 0.75, 0.5, 0.25
# Degrees of the major scale each mode starts on: its scale is the major scale rotated.
MODE_START = {"major": 0, "dorian": 1, "phrygian": 2, "lydian": 3, "mixolydian": 4,
              "aeolian": 5, "locrian": 6}
MINOR_THIRD_MODES = frozenset({"minor", "dorian", "phrygian", "aeolian", "locrian"})
TONIC_NAMES = {"major": ("C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"),
               "minor": ("C", "C#", "D", "Eb", "E", "F", "F#", "G", "G#", "A", "Bb", "B")}
# A timed chord: (chord, length in bars).
Timed = tuple[Chord, float]


def scale_pcs(mode: str) -> frozenset[int]:
    """Pitch classes above the tonic of a mode (minor: natural minor plus the leading tone)."""
    if mode == "minor":
        return frozenset(SCALE_STEPS["minor"]) | {11}
    major = SCALE_STEPS["major"]
    start = MODE_START[mode]
    return frozenset((s - major[start]) % 12 for s in major)


def find_key(chords: list[Timed], modes: tuple[str, ...]) -> tuple[Spelled, str]:
    """The best (tonic, mode) for the chords among the 12 tonics of each of ``modes``."""
    best: tuple[float, int, int, str] | None = None
    for mi, mode in enumerate(modes):
        scale = scale_pcs(mode)
        for tonic in range(12):
            cost = _cost(chords, tonic, mode, scale)
            if best is None or (cost, mi, tonic) < best[:3]:
                best = (cost, mi, tonic, mode)
    assert best is not None
    _, _, pc, mode = best
    return _spelling(chords, pc, mode), mode


def _cost(chords: list[Timed], tonic: int, mode: str, scale: frozenset[int]) -> float:
    cost = 0.0
    for chord, bars in chords:
        tones = set(chord.pcs[:3]) if chord.bass is None else {*chord.pcs[:3], chord.bass.pc}
        cost += bars * sum((pc - tonic) % 12 not in scale for pc in tones)
    first, last = chords[0][0], chords[-1][0]
    if last.root.pc == tonic and _third_fits(last, mode):
        cost -= FINAL
    if first.root.pc == tonic:
        cost -= FIRST
    for (a, _), (b, _) in itertools.pairwise(chords):
        if b.root.pc == tonic and (a.root.pc - tonic) % 12 == 7 and \
                "3" in a.intervals and "b7" in a.intervals:
            cost -= CADENCE
    return cost


def _third_fits(chord: Chord, mode: str) -> bool:
    if "b3" in chord.intervals:
        return mode in MINOR_THIRD_MODES
    if "3" in chord.intervals:
        return mode not in MINOR_THIRD_MODES
    return True


def _spelling(chords: list[Timed], pc: int, mode: str) -> Spelled:
    for chord, _ in reversed(chords):
        for note in (chord.root, chord.bass):
            if note is not None and note.pc == pc:
                return note
    return parse_spelled(TONIC_NAMES["minor" if mode in MINOR_THIRD_MODES else "major"][pc])
