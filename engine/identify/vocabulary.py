"""The qualities ``identify`` may name, each with what naming it costs, as data.

A reading's cost says how far it is from the name a musician would give first: the everyday
chords (triads, sevenths) cost nothing, a sixth or ninth a little, an alteration or added tone
more; leaving a chord tone out, or reading the bass as an inversion or a slash, costs too
(``engine.identify.ranking``). The vocabulary is the named rows of ``engine.chords.tables`` and
the symbols the grammar composes from them with up to two alterations or one added tone: every
quality of the two jazz corpora reads back as itself or as a symbol with the same notes.
"""

from __future__ import annotations

from itertools import combinations
from types import MappingProxyType
from typing import NamedTuple

from engine.chords import ADDITIONS, COMMON_BASES, QUALITIES, Quality, quality_of

# fmt: off
# What naming a row costs: the everyday chords 0, then by how often a chart writes them.
ROW_COST: MappingProxyType[str, float] = MappingProxyType({
    "": 0, "m": 0, "7": 0, "maj7": 0, "m7": 0, "m7b5": 0, "dim7": 0,
    "dim": 0.5, "aug": 0.5,
    "6": 1, "m6": 1, "9": 1, "maj9": 1, "m9": 1, "sus4": 1, "7sus4": 1,
    "sus2": 1.5, "6/9": 1.5, "m6/9": 1.5, "13": 1.5, "m11": 1.5, "9sus4": 1.5,
    "m(maj7)": 1.5, "aug7": 1.5,
    "11": 2, "maj13": 2, "m13": 2, "13sus4": 2, "maj7#5": 2, "5": 2,
    "m9b5": 2.5, "m(maj9)": 2.5, "9#5": 2.5,
    "m#5": 3, "sus24": 3, "dim(maj7)": 3, "maj7sus4": 3, "maj11": 3, "7alt": 3,
    "13#5": 3, "maj9#5": 3, "maj9sus4": 3.5, "maj13#5": 3.5,
    "dim7(maj7)": 4, "m(maj11)": 4, "m(maj13)": 4,
})
# fmt: on
ALTERATION_COST = 1.5     # each alteration written after the head (7b9, 7b9#11)
# A minor chord's raised or flat-six fifth is rare as a name: E G C D is Cadd9/E before Em7#5
# or Em7b13 without its fifth, C Eb G Ab is Abmaj7/C before Cmb6. So is its flat ninth, the
# Phrygian colour (the charts' Cm7b9 is one, named with all its tones): C E F# A Bb, the
# Lydian dominant's voicing, is C13#11, not Am6b9/C.
MINOR_ALTERATION_COST: MappingProxyType[str, float] = MappingProxyType(
    {"#5": 2.5, "b6": 2.5, "b13": 2.5, "b9": 2.5})
ADDITION_COST = 2.0       # each added tone (add9, 7add13)
# an added altered tension is rarer than an added ninth: A C E Bb over C is C13 and C7add13
# without their fifth before Amaddb9/C
ADDED_TENSION_COST: MappingProxyType[str, float] = MappingProxyType(
    {"addb9": 3.0, "add#9": 3.0, "add#11": 2.5})
# ... and on a minor triad, by the added tension: a flat ninth over a minor triad is E
# Phrygian's colour, rarely a chord's name in a chart; its four tones, E G B F, are the 3-7-13
# shell of G13, which a jazz musician names first when no bass says E (G13 and G7add13 cost
# 4.5, their fifth and ninth left out: table.QUALITY_OMISSION_COST), so it costs more than that
MINOR_ADDED_TENSION_COST: MappingProxyType[str, float] = MappingProxyType({"addb9": 5.0})
# Alterations the vocabulary composes (b6 for the minor flat-six chords of the corpora), on
# the grammar's everyday bases (tables.COMMON_BASES), up to two; a dominant takes three
# (7b9#9b13 and the like are charted). Added tones go on the bases charts add them to.
ALTERATIONS = ("b5", "#5", "b6", "b9", "#9", "#11", "b13")
TENSIONS = ("b9", "#9", "#11")
UPPER_ADDITIONS = ("add13", "add11")
LOWER_ADDITIONS = ("add6", "add4")
COMPOSED_ALWAYS = ("b5", "#5", "b9", "#9", "#11")
MOST_ALTERATIONS = MappingProxyType({"7": 3, "7sus4": 3})
ADDED_TO = ("", "m", "7", "m7", "maj7", "6", "m6", "dim", "aug", "sus4", "7sus4", "m(maj7)",
            "9", "13", "maj9", "m9", "dim7")


class Entry(NamedTuple):
    suffix: str           # canonical quality suffix
    cost: float
    semitones: tuple[int, ...]
    labels: tuple[str, ...]
    mask: int             # 12-bit, root on bit 0
    quality: Quality


def _entries() -> tuple[Entry, ...]:
    best: dict[int, Entry] = {}

    def offer(written: str, cost: float) -> None:
        try:
            q = quality_of(written)
        except ValueError:
            return
        entry = Entry(q.canonical, cost, q.semitones, q.labels, q.mask, q)
        kept = best.get(q.mask)
        # one name per set of tones: the cheapest, then the shortest
        if kept is None or (cost, len(q.canonical)) < (kept.cost, len(kept.suffix)):
            best[q.mask] = entry

    for row in QUALITIES:
        offer(row.canonical, ROW_COST[row.canonical])
    for head in COMMON_BASES:
        if head == "dim7":
            continue  # a diminished seventh with a tension is read as its rootless 7b9
        # a flat six on a triad or sixth chord (Cmb6), a flat thirteen over a seventh (C7b13)
        seventh = _has_seventh(head)
        flat_six = "b13" if seventh else "b6"
        # a tension alters a seventh chord: over a triad it is an added tone (Cm(addb9))
        usable = [a for a in ALTERATIONS if a in (flat_six, *COMPOSED_ALWAYS)
                  and (seventh or a not in TENSIONS or head.startswith("sus")
                       or "6" in quality_of(head).labels)]
        for n in range(1, MOST_ALTERATIONS.get(head, 2) + 1):
            for alts in combinations(usable, n):
                prices = MINOR_ALTERATION_COST if head.startswith("m") and not \
                    head.startswith("maj") else {}
                offer(head + "".join(alts), ROW_COST[head] + sum(
                    prices.get(a, ALTERATION_COST) for a in alts))
    for head in ADDED_TO:
        # a sixth or fourth added to a triad, a thirteenth or eleventh to a seventh chord
        skip = UPPER_ADDITIONS if not _has_seventh(head) else LOWER_ADDITIONS
        for add in ADDITIONS:
            if add.canonical not in skip:
                prices = MINOR_ADDED_TENSION_COST if head == "m" else ADDED_TENSION_COST
                offer(head + add.canonical, ROW_COST[head] + prices.get(
                    add.canonical, ADDED_TENSION_COST.get(add.canonical, ADDITION_COST)))
    return tuple(sorted(best.values(), key=lambda e: (e.cost, e.mask)))


def _has_seventh(head: str) -> bool:
    return any(lab in ("b7", "7", "bb7") for lab in quality_of(head).labels)


VOCABULARY: tuple[Entry, ...] = _entries()
"""Every quality identify names, one per set of tones above the root, cheapest first."""
