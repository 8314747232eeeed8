"""Chord roots spelled by their function in a key, as a transposed chart is written: a chord
that resolves is spelled from where it goes (a V or ii a fifth above its target, a tritone
substitute or a descending diminished a half step above it, a leading-tone diminished a half
step below it; a major chord falling a fifth, I to IV, is no V and keeps its own degree); any
other root on the letter of its numeral in the key (``engine.chords.on_numeral``, the table
reharmonize spells by too), with flats for the lowered degrees (bII, bIII, bV, bVI, bVII:
``Bbm7b5 Eb7b9 Abmaj7`` in C, the backdoor ``Fm7 Bb7``), the raised fourth for a minor,
half-diminished or diminished chord there (``F#m7b5`` in C).

A name foreign to the chord's numeral (a sharp on a lowered degree: ``F#7`` on the bIII of Eb)
is taken only to meet the chord it resolves to, and reaches back one link: the V (or subV, or
leading-tone diminished) right before a target named by its numeral, and the ii right before
that V (``C#m7 F#7 Bmaj7`` in Eb, where the bVI, Cb, is written B). A longer chain keeps its
own numerals and meets the target across one enharmonic seam (Jordu's ``Db7 F#7 Bmaj7`` in
C minor, not ``A#7 D#7 G#7 C#7 F#7``). A chord held over several (``Gb13sus`` for four bars,
``Gb7sus Gb7``: one root and one family, major, minor, dominant or diminished) has one name,
the one of its last chord; a root that stays while the family changes may change its name
with its function (``Dbmaj7 | C#m7 F#7 | Bmaj7`` in Db).

``spell_roots`` reads a progression right to left, so every target is spelled before the chord
that leads to it. A spelling with a double accidental or an awkward name (Cb, Fb, E#, B#) gives
way to the key's plain one. Data, not branches: ``RESOLUTIONS`` is a table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.chords import (
    AWKWARD_SPELLINGS,
    NUMERAL_LETTER,
    Chord,
    Key,
    Spelled,
    on_numeral,
    transpose_spelled,
)

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


@dataclass(frozen=True, slots=True)
class _Named:
    """A spelled root, its chord's family, and how far it is from its numeral's name: 0 named
    by its numeral (or the key's plain name), 1 named from the target it resolves to, 2 a ii
    named from such a V."""

    root: Spelled
    kind: str
    borrowed: int


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
    """``pc`` as ``key`` spells it when nothing else says: its numeral, lowered with a flat."""
    return _tidy(on_numeral(pc, key), key)


def spell_roots(chords: Sequence[Chord], roots: Sequence[int], key: Key,
                after: int | None = None) -> list[Spelled]:
    """The spelled roots of ``chords`` (their pitch classes ``roots``, already moved to
    ``key``), each from the next one's spelling when it resolves to it; ``after`` is the root
    (pitch class) of the chord that follows the last one, spelled plainly."""
    out: list[Spelled] = [Spelled(0, 0)] * len(chords)
    following = _Named(plain(after, key), "", 0) if after is not None else None
    for i in range(len(chords) - 1, -1, -1):
        held = i + 1 < len(chords) and roots[i] == roots[i + 1] \
            and family(chords[i]) == family(chords[i + 1])
        if following is None or not held:
            following = _spell(chords[i], roots[i], key, following)
        out[i] = following.root
    return out


def _spell(chord: Chord, pc: int, key: Key, following: _Named | None) -> _Named:
    kind = family(chord)
    semitones = (pc - key.tonic.pc) % 12
    steps = NUMERAL_LETTER[semitones] - (semitones == 6 and kind in SHARP_TRITONE)  # #iv
    own = _tidy(on_numeral(pc, key, steps), key)
    if following is not None:
        up = (following.root.pc - pc) % 12
        for interval, kinds, number in RESOLUTIONS:
            if up != interval or kind not in kinds:
                continue
            spelled = transpose_spelled(following.root, number, (pc - following.root.pc) % 12)
            if spelled == own:
                return _Named(own, kind, 0)
            ii_of_v = interval == 5 and kind == "m" and following.kind == "7"
            if _fine(spelled) and (following.borrowed == 0
                                   or (following.borrowed == 1 and ii_of_v)):
                return _Named(spelled, kind, following.borrowed + 1)
    return _Named(own, kind, 0)


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
