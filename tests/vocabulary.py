"""Every chord quality the parser knows, on C: the named qualities, the chart spellings of
``CHART_QUALITIES`` and the common bases with one or two written alterations
(``tables.COMMON_BASES`` x ``tables.COMMON_ALTERATIONS``), one chord per canonical suffix. For
tests that check a convention over the whole vocabulary."""

from __future__ import annotations

from functools import cache
from itertools import combinations

from engine.chords.chord import Chord
from engine.chords.symbols import parse
from engine.chords.tables import COMMON_ALTERATIONS, COMMON_BASES, QUALITY_NAMES
from engine.errors import InvalidChord

# Canonical suffixes of API.md §1 plus altered, sus and omission forms from real charts (some,
# such as add9 or 7no3, are built by the grammar rather than named rows).
CHART_QUALITIES = (
    "", "m", "dim", "aug", "sus2", "sus4", "5", "6", "m6", "6/9", "m6/9", "7", "maj7", "m7",
    "m7b5", "dim7", "m(maj7)", "7sus4", "aug7", "maj7#5", "9", "maj9", "m9", "11", "m11", "13",
    "maj13", "m13", "add9", "7b9", "7#9", "7#11", "7b13", "7#9#11", "7b9b13", "13b9", "13#11",
    "9#11", "7#5#9", "7alt", "7b5", "maj7b5", "9sus4", "13sus4", "7b9sus4", "madd9", "7no3",
    "maj7no5")


@cache
def vocabulary() -> tuple[Chord, ...]:
    chords = {quality: parse("C" + quality)
              for quality in dict.fromkeys((*QUALITY_NAMES, *CHART_QUALITIES))}
    for base in COMMON_BASES:
        for n in (1, 2):
            for alts in combinations(COMMON_ALTERATIONS, n):
                try:
                    chord = parse("C" + base + "".join(alts))
                except InvalidChord:
                    continue
                chords[chord.quality] = chord
    return tuple(chords.values())
