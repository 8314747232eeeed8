"""Chord roots spelled by their function in a key, as a transposed chart is written: a chord
that resolves is spelled from where it goes (a V or ii a fifth above its target, a tritone
substitute or a descending diminished a half step above it, a leading-tone diminished a half
step below it; a major chord falling a fifth, I to IV, is no V and keeps its own degree); any
other root by its degree in the key, with flats for the lowered degrees (bII, bIII, bV, bVI,
bVII: ``Bbm7b5 Eb7b9 Abmaj7`` in C, the backdoor ``Fm7 Bb7``), the raised fourth for a minor,
half-diminished or diminished chord there (``F#m7b5`` in C).

``spell_roots`` reads a progression right to left, so every target is spelled before the chord
that leads to it. A spelling with a double accidental or an awkward name (Cb, Fb, E#, B#) gives
way to the key's plain one. Data, not branches: ``DEGREES`` and ``RESOLUTIONS`` are tables.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.chords import AWKWARD_SPELLINGS, Chord, Key, Spelled, transpose_spelled

# Semitones above the tonic -> (letter steps above the tonic's letter, 1-based, as
# transpose_spelled counts them): the lowered degrees with flats, the tritone as bV.
DEGREES = {0: 1, 1: 2, 2: 2, 3: 3, 4: 3, 5: 4, 6: 5, 7: 5, 8: 6, 9: 6, 10: 7, 11: 7}
# The tritone as #IV for these families: a minor, half-diminished or diminished chord there is
# the #iv of the key (or a ii of iii), never a bv.
SHARP_TRITONE = ("m", "dim")
# (semitones from this root up to the next chord's root, the families that resolve so, the
# interval number from the next root up to this one, as transpose_spelled counts it): a fifth
# above the target, a second above it (subV, descending diminished), a seventh above it, that
# is a half step below (leading-tone diminished).
RESOLUTIONS: tuple[tuple[int, tuple[str, ...], int], ...] = (
    (5, ("7", "m"), 5),                # a V or a ii falling a fifth: V-I, ii-V, VI-ii
    (11, ("7", "dim"), 2),             # Db7 C, Ebdim7 Dm7: a half step above, a flat name
    (1, ("dim",), 7),                  # C#dim7 Dm7: a half step below, a sharp name
)


def family(chord: Chord) -> str:
    """'dim' (dim, dim7, m7b5 are not: half-diminished is a ii), 'm', '7' or '' (major)."""
    q = chord.quality
    if q.startswith("dim"):
        return "dim"
    if q.startswith("m") and not q.startswith("maj"):
        return "m"
    if "b3" in chord.intervals:
        return "m"
    return "7" if "b7" in chord.intervals else ""


def plain(pc: int, key: Key) -> Spelled:
    """``pc`` as ``key`` spells it when nothing else says: its degree, lowered with a flat."""
    semitones = (pc - key.tonic.pc) % 12
    return _tidy(transpose_spelled(key.tonic, DEGREES[semitones], semitones), key)


def spell_roots(chords: Sequence[Chord], roots: Sequence[int], key: Key,
                after: int | None = None) -> list[Spelled]:
    """The spelled roots of ``chords`` (their pitch classes ``roots``, already moved to
    ``key``), each from the next one's spelling when it resolves to it; ``after`` is the root
    (pitch class) of the chord that follows the last one, spelled plainly."""
    out: list[Spelled] = [Spelled(0, 0)] * len(chords)
    following: Spelled | None = plain(after, key) if after is not None else None
    for i in range(len(chords) - 1, -1, -1):
        out[i] = _spell(chords[i], roots[i], key, following)
        following = out[i]
    return out


def _spell(chord: Chord, pc: int, key: Key, following: Spelled | None) -> Spelled:
    kind = family(chord)
    if following is not None:
        up = (following.pc - pc) % 12
        for interval, kinds, number in RESOLUTIONS:
            if up == interval and kind in kinds:
                spelled = transpose_spelled(following, number, (pc - following.pc) % 12)
                if _fine(spelled):
                    return spelled
    semitones = (pc - key.tonic.pc) % 12
    number = DEGREES[semitones]
    if semitones == 6 and kind in SHARP_TRITONE:
        number -= 1   # #iv, not bv
    return _tidy(transpose_spelled(key.tonic, number, semitones), key)


def _fine(note: Spelled) -> bool:
    return abs(note.alter) <= 1 and note.name not in AWKWARD_SPELLINGS


def _tidy(note: Spelled, key: Key) -> Spelled:
    """A double accidental or an awkward name -> the key's scale degree, else the natural,
    else the accidental of the key's side."""
    if _fine(note):
        return note
    for degree in key.scale:
        if degree.pc == note.pc:
            return degree
    flats = key.tonic.alter < 0 or any(n.alter < 0 for n in key.scale)
    for alter in (0, -1, 1) if flats else (0, 1, -1):
        for letter in range(7):
            candidate = Spelled(letter, alter)
            if candidate.pc == note.pc and candidate.name not in AWKWARD_SPELLINGS:
                return candidate
    raise AssertionError(note)
