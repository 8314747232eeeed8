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

A line of ii's and V's that meets no target (its last dominant resolves nowhere) is spelled
as one line from its start, each link by its interval, so a line falling in fifths keeps its
flats (Aisha's ``Gm7 C7 Fm7 Bb7 Ebm7 Ab7 Gb13`` back to Am9), unless read from its end, as
above, it has fewer seams or fewer sharps on lowered degrees.

``spell_roots`` reads a progression right to left, so every target is spelled before the chord
that leads to it. A spelling with a double accidental or an awkward name (Cb, Fb, E#, B#) gives
way to the key's plain one. Data, not branches: ``RESOLUTIONS`` and ``LINKS`` are tables.
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


# The links of a line of ii's and V's read left to right, when it meets no target: (semitones
# from this root up to the next one's, the families this chord may have, the families the next
# may have, the interval number from this root up to the next, as transpose_spelled counts it):
# a fifth down (ii-V, V-ii, V-V), and a whole step down from a dominant to a dominant (the next
# V of a sequence falling in whole steps, its ii left out: Aisha's ``Ab7 Gb13``). Dominants
# falling in half steps are no line (``B7 Bb7 A7``, not ``B7 A#7 A7``): each is named from its
# target or its numeral.
LINKS: tuple[tuple[int, tuple[str, ...], tuple[str, ...], int], ...] = (
    (5, ("7", "m"), ("7", "m"), 4),
    (10, ("7",), ("7",), 7),
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
    kinds = [family(c) for c in chords]
    links = [_link(roots[i], kinds[i], roots[i + 1], kinds[i + 1])
             for i in range(len(chords) - 1)]
    i = len(chords) - 1
    while i >= 0:
        start = i
        while start > 0 and links[start - 1] is not None:
            start -= 1
        ends = i + 1 == len(chords) or links[i] is None
        if start < i and ends and kinds[i] == "7" and not _resolves(roots[i], kinds[i],
                                                                     following):
            # a line of ii's and V's that meets no target: spelled from its start, or from
            # its end as one that meets a target, whichever has fewer seams, then fewer sharps
            # on lowered degrees (the end on a tie)
            forward = _line(chords[start:i + 1], roots[start:i + 1], links[start:i], key)
            backward, last = _backward(chords, roots, kinds, start, i, key, following)
            if _cost(forward, roots[start:i + 1], links[start:i], key) \
                    < _cost(backward, roots[start:i + 1], links[start:i], key):
                out[start:i + 1] = forward
                following = _Named(forward[0], kinds[start], 0)
            else:
                out[start:i + 1] = backward
                following = last
            i = start - 1
            continue
        backward, following = _backward(chords, roots, kinds, i, i, key, following)
        out[i] = backward[0]
        i -= 1
    return out


def _backward(chords: Sequence[Chord], roots: Sequence[int], kinds: Sequence[str], start: int,
              end: int, key: Key, following: _Named | None) -> tuple[list[Spelled], _Named]:
    """The roots of ``chords[start:end + 1]`` read right to left, each from the one after it
    (``following``, the chord after ``end``), and the name of the one at ``start``."""
    names: list[Spelled] = []
    for i in range(end, start - 1, -1):
        held = i + 1 < len(chords) and roots[i] == roots[i + 1] and kinds[i] == kinds[i + 1]
        if following is None or not held:
            following = _spell(chords[i], roots[i], key, following)
        names.append(following.root)
    assert following is not None
    return names[::-1], following


def _cost(names: Sequence[Spelled], roots: Sequence[int], links: Sequence[int | None],
          key: Key) -> tuple[int, int]:
    """(seams, sharps on lowered degrees) of a line's names: a seam is a link whose letters
    are not its interval (``Fm7 A#7``), a lowered degree bII, bIII, bVI or bVII."""
    seams = sum(transpose_spelled(a, number, (rb - ra) % 12) != b
                for a, b, ra, rb, number in zip(names, names[1:], roots, roots[1:], links,
                                                strict=False) if number is not None)
    sharps = sum(n.alter > 0 and NUMERAL_LETTER[(n.pc - key.tonic.pc) % 12]
                 != (n.letter - key.tonic.letter) % 7 for n in names)
    return seams, sharps


def _link(pc: int, kind: str, next_pc: int, next_kind: str) -> int | None:
    """The interval number from a chord to the next when they are links of one line of ii's
    and V's (``LINKS``; a chord held, one root and one family, is a unison), else None."""
    up = (next_pc - pc) % 12
    if up == 0:
        return 1 if kind == next_kind else None
    for semitones, kinds, next_kinds, number in LINKS:
        if up == semitones and kind in kinds and next_kind in next_kinds:
            return number
    return None


def _resolves(pc: int, kind: str, following: _Named | None) -> bool:
    """The chord resolves to the one after it (a ``RESOLUTIONS`` move): that one is a target."""
    if following is None:
        return False
    up = (following.root.pc - pc) % 12
    return any(up == interval and kind in kinds for interval, kinds, _ in RESOLUTIONS)


def _line(chords: Sequence[Chord], roots: Sequence[int], links: Sequence[int | None],
          key: Key) -> list[Spelled]:
    """A line of ii's and V's that meets no target, spelled left to right: its first chord by
    its numeral, each next one by the link's interval from it, so a descending line keeps its
    flats (Aisha's ``Gm7 C7 Fm7 Bb7 Ebm7 Ab7 Gb13`` in A minor). Where that would reach a
    double accidental or an awkward name (``Cb``), the line turns to the chord's own numeral
    and goes on from there, the turn between two ii-V's, never inside one (in C minor
    ``Abm7 Db7 F#m7 B7``, not ``Db7 Gbm7 B7``)."""
    out = [_spell(chords[0], roots[0], key, None).root]
    for k in range(1, len(chords)):
        number = links[k - 1]
        assert number is not None
        spelled = transpose_spelled(out[-1], number, (roots[k] - roots[k - 1]) % 12)
        if _fine(spelled):
            out.append(spelled)
            continue
        spelled = _spell(chords[k], roots[k], key, None).root
        if number == 4 and family(chords[k - 1]) == "m" and family(chords[k]) == "7":
            ii = transpose_spelled(spelled, 5, (roots[k - 1] - roots[k]) % 12)
            held = k - 1
            while held > 0 and links[held - 1] == 1:
                held -= 1
            if _fine(ii):   # the ii (held over several chords: each) goes with its V
                out[held:k] = [ii] * (k - held)
        out.append(spelled)
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
