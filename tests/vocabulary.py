"""Every chord quality the parser knows, on C: the named qualities and the common bases with one
or two written alterations (``tables.COMMON_BASES`` x ``tables.COMMON_ALTERATIONS``), one chord
per canonical suffix. For tests that check a convention over the whole vocabulary."""

from __future__ import annotations

from functools import cache
from itertools import combinations

from engine.chord import Chord
from engine.errors import InvalidChord
from engine.symbols import parse
from engine.tables import COMMON_ALTERATIONS, COMMON_BASES, QUALITY_NAMES


@cache
def vocabulary() -> tuple[Chord, ...]:
    chords = {quality: parse("C" + quality) for quality in QUALITY_NAMES}
    for base in COMMON_BASES:
        for n in (1, 2):
            for alts in combinations(COMMON_ALTERATIONS, n):
                try:
                    chord = parse("C" + base + "".join(alts))
                except InvalidChord:
                    continue
                chords[chord.quality] = chord
    return tuple(chords.values())
