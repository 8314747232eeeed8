"""The measure of a transposed chart's spelling (issue 38): in the keys a chart in C or flats
is read in, a root spelled with a sharp on a lowered degree of the key (bII, bIII, bVI, bVII:
``A#m7b5 D#7b9 G#maj7`` in C) where a musician writes a flat, a V or ii not spelled a fifth
above the chord it falls to (``Gb7 Bmaj7``), and a chord held over several that changes its
name (``Gb13sus F#13sus``, ``Gb7sus F#7``: one root and one family); a root that stays while
the family changes may change its name with its function (``Dbmaj7 | C#m7 F#7 | Bmaj7``). A diminished chord is left out (``C#dim7`` rising to Dm7 is
right with a sharp), and so is the one link of V's and ii's that meets a target on the sharp
side, one off the lowered degrees or on E or B (``C#m7 F#7 Bmaj7`` in Eb, where Cb is
awkward; ``F#7 Bmaj7`` in C minor): the V right before it, and the ii right before that V. A
longer chain into such a target is a mistake for each sharp (``A#7 D#7 G#7 C#7 F#7 Bmaj7`` in
C minor). A section's last chord is read against the first chord of the section the form
plays next, as ``transpose`` spelled it (the ``C#m7 F#7`` that ends an A in Eb leads to the
bridge's ``Bmaj7``).

A line of ii's and V's that meets no target (its last chord a dominant that does not resolve:
Aisha's ``Gm7 C7 Fm7 Bb7 Ebm7 Ab7 Gb13``, back to Am9) has no target on the sharp side to
reach for: when it can be spelled in one piece, each link from the one before (a fifth down,
or a whole step down from a dominant to a dominant) with no double accidental or awkward name,
every sharp root on a lowered degree in it is a mistake, and so is every seam, a link whose
letters are not its interval (``Fm7 A#7``): ``loose``."""

from __future__ import annotations

from typing import Any

from engine.chords import AWKWARD_SPELLINGS, Chord, Key, on_numeral, parse, parse_key
from engine.chords.notes import transpose_spelled
from engine.compose.spelling import family

FLAT_SIDE_MAJOR = ("C", "F", "Bb", "Eb", "Ab", "Db")
FLAT_SIDE_MINOR = ("Am", "Dm", "Gm", "Cm", "Fm", "Bbm")
LOWERED = (1, 3, 8, 10)
AWKWARD = (4, 11)   # E and B: as lowered degrees they would be Fb and Cb, which nobody writes


# A line's links: (semitones up to the next root, this chord's families, the next one's, the
# interval number up to the next root): a fifth down between ii's and V's, a whole step down
# from a dominant to a dominant, a chord held (one root, one family).
LINKS = ((5, ("7", "m"), ("7", "m"), 4), (10, ("7",), ("7",), 7))


def mistakes(comp: dict[str, Any], cases: list[str] | None = None
             ) -> tuple[int, int, int, int, int]:
    """(sharp roots on lowered degrees, V or ii spelled apart from their target, held roots
    renamed, sharps and seams in a line that meets no target, chords) of a composition's
    sections, each in its own key; read right to left, so that a chain of V's and ii's into a
    sharp region (``C#m7 F#7 Bmaj7``) is known whole. ``cases``, when given, gets a line for
    each mistake: what, the section, the chord in brackets among its neighbours (``||`` and the
    next section's first chord after a section's last)."""
    sharps = apart = held = loose = total = 0
    firsts = {s["id"]: parse(min(s["chords"], key=lambda c: (c["bar"], c["beat"]))["symbol"])
              for s in comp["sections"] if s["chords"]}
    form = comp["form"]
    following: dict[str, str] = {}
    for here_id, there_id in zip(form, [*form[1:], *form[:1]], strict=True):
        following.setdefault(here_id, there_id)
    for section in comp["sections"]:
        key = parse_key(section.get("key") or comp["meta"]["key"])
        chords = [parse(c["symbol"]) for c in
                  sorted(section["chords"], key=lambda c: (c["bar"], c["beat"]))]
        there = firsts.get(following.get(section["id"], ""))
        for i, number in _loose_lines(chords, there, key):
            here = chords[i]
            if here.root.alter > 0 and (here.root.pc - key.tonic.pc) % 12 in LOWERED:
                loose += 1
                _case(cases, "loose sharp", section["id"], chords, i, there)
            if number is not None and transpose_spelled(
                    here.root, number, (chords[i + 1].root.pc - here.root.pc) % 12) \
                    != chords[i + 1].root:
                loose += 1
                _case(cases, "loose seam", section["id"], chords, i, there)
        # how the chord after this one meets the sharp side: 0 it is there, 1 a V into it,
        # 2 the ii of that V, None it is not
        link = 0 if there is not None and _sharp_side(there, key) else None
        for i in range(len(chords) - 1, -1, -1):
            here = chords[i]
            total += 1
            if there is not None and here.root.pc == there.root.pc \
                    and family(here) == family(there):
                if here.root != there.root:
                    held += 1
                    _case(cases, "held", section["id"], chords, i, there)
                continue
            degree = (here.root.pc - key.tonic.pc) % 12
            falls = there is not None and (there.root.pc - here.root.pc) % 12 == 5
            minor = "b3" in here.intervals
            leads = (minor or "b7" in here.intervals) and not here.quality.startswith("dim")
            if there is not None and falls and leads \
                    and (here.root.letter - there.root.letter) % 7 != 4:
                apart += 1
                _case(cases, "apart", section["id"], chords, i, there)
            ii_of_v = minor and there is not None and "b7" in there.intervals \
                and "b3" not in there.intervals
            meets = falls and leads and (link == 0 or (link == 1 and ii_of_v))
            if here.root.alter > 0 and degree in LOWERED and not here.quality.startswith("dim"):
                if not meets:
                    sharps += 1
                    _case(cases, "sharp", section["id"], chords, i, there)
                link = (link or 0) + 1 if meets else None
            else:
                link = 0 if _sharp_side(here, key) else None
            there = here
    return sharps, apart, held, loose, total


def _loose_lines(chords: list[Chord], there: Chord | None, key: Key
                 ) -> list[tuple[int, int | None]]:
    """(index, the interval number of its link to the next chord of the line, None for the
    last) of every chord in a line of ii's and V's that meets no target and can be spelled in
    one piece from its first chord's numeral."""
    def link(a: Chord, b: Chord) -> int | None:
        up = (b.root.pc - a.root.pc) % 12
        if up == 0:
            return 1 if family(a) == family(b) else None
        return next((n for semitones, kinds, next_kinds, n in LINKS
                     if up == semitones and family(a) in kinds and family(b) in next_kinds),
                    None)

    out: list[tuple[int, int | None]] = []
    end = len(chords) - 1
    while end >= 0:
        start = end
        while start > 0 and link(chords[start - 1], chords[start]) is not None:
            start -= 1
        after = chords[end + 1] if end + 1 < len(chords) else there
        resolves = after is not None and (after.root.pc - chords[end].root.pc) % 12 in (5, 11)
        if start < end and family(chords[end]) == "7" and not resolves:
            name = on_numeral(chords[start].root.pc, key)
            numbers = [link(chords[k], chords[k + 1]) for k in range(start, end)]
            whole = True
            for k, number in zip(range(start + 1, end + 1), numbers, strict=True):
                assert number is not None
                name = transpose_spelled(name, number,
                                         (chords[k].root.pc - chords[k - 1].root.pc) % 12)
                whole = whole and abs(name.alter) <= 1 and name.name not in AWKWARD_SPELLINGS
            if whole:
                out += [(k, numbers[k - start] if k < end else None)
                        for k in range(start, end + 1)]
        end = start - 1
    return out


def _case(cases: list[str] | None, what: str, section: str, chords: list[Chord], i: int,
          there: Chord | None) -> None:
    if cases is not None:
        around = " ".join(c.symbol for c in chords[max(0, i - 3):i])
        after = " ".join(c.symbol for c in chords[i + 1:i + 3]) if i + 1 < len(chords) \
            else f"|| {there.symbol if there else '(end)'}"
        cases.append(f"{what} {section}: {around} [{chords[i].symbol}] {after}")


def _sharp_side(chord: Chord, key: Key) -> bool:
    """A root off the lowered degrees, or one whose flat name is awkward (Fb, Cb)."""
    return (chord.root.pc - key.tonic.pc) % 12 not in LOWERED or chord.root.pc in AWKWARD
