"""The key of a user's progression when the direction names none.

Every candidate key (the 12 tonics x major/minor, or the 12 tonics of a mode the direction
named) gets a cost, the lowest wins:

- each sounding chord adds the cost of its triad's tones (root, third, fifth, and the slash
  bass) outside the key's scale, times its length in bars: sevenths and tensions are colour
  (a blues's I7 is its tonic). A minor key's scale is the natural minor with its leading
  tone, so a V7 belongs to its minor key; its raised sixth (the melodic minor's, dorian's)
  costs half a wrong note (``PARTIAL``), so ``Cm7 | F7`` (a dorian vamp) is C minor but a
  major tune's secondary dominant (``Cmaj7 A7 | Dm7 G7 | Cmaj7``, whose A7 and G7 would both
  fit D minor with the whole sixth) does not tip it into the minor key on its ii or vi;
- a tonic actually heard takes a bonus off: the last chord on the tonic with the mode's third
  (or none) ``FINAL``, a V7 -> I arrival on it (a dominant on the fifth above the tonic
  followed by a chord on the tonic) ``CADENCE``, the first chord on it ``FIRST``.

A progression that ends with a V7 -> I arrival is in that I's key (the candidates are those
keys alone): a tune ends at home, whatever it visits on the way.

The bonuses together are worth at most one wrong note held for a bar (``MAX_BONUS``), so the
notes decide: bonuses only balance a wrong note when the tonic is heard at both ends (or
arrived at by a cadence at the end), and ties go to the larger bonus, then to major, then to
the lower tonic. ``Dm7 G7 | Cmaj7`` is C major, ``Dm7 | Dm7 | Ebmaj7 | Dm7`` is D minor (its
Eb balanced by the Dm7 at both ends, over Bb major and G minor that hear no tonic), ``Dm7 G7
C | Am`` is C major (the cadence outweighs a final relative minor), ``Em7 | Fmaj7`` with
"Phrygian" is E phrygian. The tonic is spelled as the progression spells it (a chord root or
bass of that pitch class, the last one first), else by ``TONIC_NAMES``.
"""

from __future__ import annotations

import itertools

from engine.chords import SCALE_STEPS, Chord, Spelled, parse_spelled

FINAL, CADENCE, FIRST = 0.5, 0.75, 0.5
MAX_BONUS = 1.0                      # one wrong triad tone held for a bar
WRONG = 1.0                          # a triad tone outside the key, held for a bar
# Tones outside a mode's scale that cost less than a wrong note: the minor key's raised sixth
# (pitch class above the tonic -> cost).
PARTIAL: dict[str, dict[int, float]] = {"minor": {9: 0.5}}
LEADING_TONE = 11
# Degrees of the major scale each mode starts on: its scale is the major scale rotated.
MODE_START = {"major": 0, "dorian": 1, "phrygian": 2, "lydian": 3, "mixolydian": 4,
              "aeolian": 5, "locrian": 6}
MINOR_THIRD_MODES = frozenset({"minor", "dorian", "phrygian", "aeolian", "locrian"})
TONIC_NAMES = {"major": ("C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"),
               "minor": ("C", "C#", "D", "Eb", "E", "F", "F#", "G", "G#", "A", "Bb", "B")}
# A timed chord: (chord, length in bars).
Timed = tuple[Chord, float]


def scale_pcs(mode: str) -> frozenset[int]:
    """Pitch classes above the tonic of a mode (minor: natural minor plus the leading tone;
    its raised sixth is ``PARTIAL``)."""
    if mode == "minor":
        return frozenset(SCALE_STEPS["minor"]) | {LEADING_TONE}
    major = SCALE_STEPS["major"]
    start = MODE_START[mode]
    return frozenset((s - major[start]) % 12 for s in major)


def find_key(chords: list[Timed], modes: tuple[str, ...]) -> tuple[Spelled, str]:
    """The best (tonic, mode) for the chords among the 12 tonics of each of ``modes``: the
    lowest cost, then the larger bonus, then the earlier mode, then the lower tonic."""
    # A final V7 -> I decides: a tune ends in its key, whatever it visits on the way (All the
    # Things You Are passes through C, Eb, G and E before its Eb7 -> Abmaj7).
    ending = [(mode, tonic) for mode in modes for tonic in range(12)
              if _final_cadence(chords, tonic, mode)]
    best: tuple[float, float, int, int, str] | None = None
    for mi, mode in enumerate(modes):
        scale = scale_pcs(mode)
        for tonic in range(12):
            if ending and (mode, tonic) not in ending:
                continue
            bonus = _bonus(chords, tonic, mode)
            rank = (_wrong(chords, tonic, scale, PARTIAL.get(mode, {})) - bonus, -bonus, mi,
                    tonic, mode)
            if best is None or rank[:4] < best[:4]:
                best = rank
    assert best is not None
    pc, mode = best[3], best[4]
    return _spelling(chords, pc, mode), mode


def _wrong(chords: list[Timed], tonic: int, scale: frozenset[int],
           partial: dict[int, float]) -> float:
    """Triad tones outside the scale (``partial`` ones at their own cost), weighted by their
    length in bars."""
    cost = 0.0
    for chord, bars in chords:
        tones = set(chord.pcs[:3]) if chord.bass is None else {*chord.pcs[:3], chord.bass.pc}
        steps = [(pc - tonic) % 12 for pc in tones]
        cost += bars * sum(partial.get(s, WRONG) for s in steps if s not in scale)
    return cost


def _bonus(chords: list[Timed], tonic: int, mode: str) -> float:
    """How clearly the tonic is heard: as the last chord, arrived at from its V7, as the first
    chord; at most ``MAX_BONUS``."""
    first, last = chords[0][0], chords[-1][0]
    bonus = FINAL if last.root.pc == tonic and _third_fits(last, mode) else 0.0
    bonus += FIRST if first.root.pc == tonic else 0.0
    for (a, _), (b, _) in itertools.pairwise(chords):
        if b.root.pc == tonic and _is_dominant_of(a, tonic):
            bonus += CADENCE
    return min(MAX_BONUS, bonus)


def _final_cadence(chords: list[Timed], tonic: int, mode: str) -> bool:
    """Whether the progression ends on the tonic (with the mode's third, and no dominant
    seventh: ``Bb7 Eb7`` is a chain of dominants, not an arrival), held for as many chords as
    it likes, straight after its V7."""
    last = chords[-1][0]
    if last.root.pc != tonic or not _third_fits(last, mode) or _is_dominant_of(last, tonic - 7):
        return False
    held = len(chords) - 1
    while held > 0 and chords[held - 1][0].root.pc == tonic:
        held -= 1
    return held > 0 and _is_dominant_of(chords[held - 1][0], tonic)


def _is_dominant_of(chord: Chord, tonic: int) -> bool:
    return (chord.root.pc - tonic) % 12 == 7 and "3" in chord.intervals \
        and "b7" in chord.intervals


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
