"""The measure of a transposed chart's spelling (issue 38): in the keys a chart in C or flats
is read in, a root spelled with a sharp on a lowered degree of the key (bII, bIII, bVI, bVII:
``A#m7b5 D#7b9 G#maj7`` in C) where a musician writes a flat, and a V or ii not spelled a fifth
above the chord it falls to (``Gb7 Bmaj7``). A diminished chord is left out (``C#dim7`` rising
to Dm7 is right with a sharp), and so is a V or ii falling a fifth to a root that is not a
lowered degree or is E or B (``C#m7 F#7 Bmaj7`` in C, ``F#m7 B7 Emaj7`` in F, ``F#7 Bmaj7``
in Eb, where Cb is awkward: a ii-V into a sharp region)."""

from __future__ import annotations

from typing import Any

from engine.chords import parse, parse_key

FLAT_SIDE_MAJOR = ("C", "F", "Bb", "Eb", "Ab", "Db")
FLAT_SIDE_MINOR = ("Am", "Dm", "Gm", "Cm", "Fm", "Bbm")
LOWERED = (1, 3, 8, 10)
AWKWARD = (4, 11)   # E and B: as lowered degrees they would be Fb and Cb, which nobody writes


def mistakes(comp: dict[str, Any]) -> tuple[int, int, int]:
    """(sharp roots on lowered degrees, V or ii spelled apart from their target, chords) of a
    composition's sections, each in its own key; read right to left, so that a chain of V's
    and ii's into a sharp region (``C#m7 F#7 Bmaj7``) is known whole."""
    sharps = apart = total = 0
    for section in comp["sections"]:
        key = parse_key(section.get("key") or comp["meta"]["key"])
        chords = [parse(c["symbol"]) for c in
                  sorted(section["chords"], key=lambda c: (c["bar"], c["beat"]))]
        sharp_region = False   # the chord after this one is in (or is) a sharp region
        there = None
        for here in reversed(chords):
            total += 1
            degree = (here.root.pc - key.tonic.pc) % 12
            falls = there is not None and (there.root.pc - here.root.pc) % 12 == 5
            leads = ("b3" in here.intervals or "b7" in here.intervals) \
                and not here.quality.startswith("dim")
            if there is not None and falls and leads \
                    and (here.root.letter - there.root.letter) % 7 != 4:
                apart += 1
            into_sharps = falls and leads and sharp_region
            if here.root.alter > 0 and degree in LOWERED and not into_sharps \
                    and not here.quality.startswith("dim"):
                sharps += 1
            sharp_region = into_sharps or degree not in LOWERED or here.root.pc in AWKWARD
            there = here
    return sharps, apart, total
