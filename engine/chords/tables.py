"""The chord-quality vocabulary as literal data rows, built once into read-only arrays.

A chord symbol is read as ``ROOT HEAD MODIFIER* ("/" BASS)?`` (see ``engine.chords.symbols``):

- ``QUALITIES`` rows are the heads: every canonical quality that has a name of its own, with
  its aliases, degree labels and plain-English name. A row may be defined as a base row plus
  alterations (``m7b5`` = ``m7`` + ``b5``); the builder checks that its degrees agree.
- ``ALTERATIONS``, ``ADDITIONS``, ``OMISSIONS`` and ``SUSPENSIONS`` are the modifiers that
  follow a head (``7`` + ``b9`` + ``#11``); any number of them, appended or in parentheses.

The canonical suffix of a parsed chord is its base row + alterations in ascending order of
degree + additions + omissions (``7b9#11``, ``7sus4b9``, ``madd9``), unless a named row
matches exactly (``7`` + ``#5`` is ``aug7``).

Tones follow jazz practice: ``13`` leaves out the 11th (it clashes with the third), ``11``
leaves out the third, ``m11`` and ``m13`` keep the 11th, ``7alt`` is 1 3 b7 b9 #9 #11 b13.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from engine.chords.notes import Spelled, mask_of, transpose_spelled

# Degree label -> (interval number, semitones above the root). Ninths and beyond sit above 12.
DEGREES: MappingProxyType[str, tuple[int, int]] = MappingProxyType({
    "1": (1, 0), "2": (2, 2), "b3": (3, 3), "3": (3, 4), "4": (4, 5), "b5": (5, 6),
    "5": (5, 7), "#5": (5, 8), "b6": (6, 8), "6": (6, 9), "bb7": (7, 9), "b7": (7, 10),
    "7": (7, 11), "b9": (9, 13), "9": (9, 14), "#9": (9, 15), "11": (11, 17),
    "#11": (11, 18), "b13": (13, 20), "13": (13, 21),
})


class QualityRow(NamedTuple):
    canonical: str
    aliases: str          # space separated; minor/major marks are expanded by _spellings()
    degrees: str          # space separated degree labels
    name: str
    base: str = ""        # for a row that is a base row plus alterations
    alterations: str = ""


# fmt: off
QUALITIES: tuple[QualityRow, ...] = (
    # triads and dyads
    QualityRow("", "M maj Maj ma major", "1 3 5", "major"),
    QualityRow("m", "m minor", "1 b3 5", "minor"),
    QualityRow("dim", "dim ° o 0", "1 b3 b5", "diminished", "m", "b5"),
    QualityRow("aug", "aug + +5", "1 3 #5", "augmented", "", "#5"),
    QualityRow("m#5", "m+ maug m+5 m#5", "1 b3 #5", "minor augmented", "m", "#5"),
    QualityRow("sus2", "sus2", "1 2 5", "suspended second"),
    QualityRow("sus4", "sus4 sus 4", "1 4 5", "suspended fourth"),
    QualityRow("sus24", "sus24 sus2sus4", "1 2 4 5", "suspended second and fourth"),
    QualityRow("5", "5", "1 5", "power chord"),
    # sixths
    QualityRow("6", "6 M6 maj6 add6", "1 3 5 6", "major sixth"),
    QualityRow("m6", "m6", "1 b3 5 6", "minor sixth"),
    QualityRow("6/9", "6/9 69 M69 maj69 6add9", "1 3 5 6 9", "six-nine"),
    QualityRow("m6/9", "m6/9 m69", "1 b3 5 6 9", "minor six-nine"),
    # sevenths
    QualityRow("7", "7 dom dom7", "1 3 5 b7", "dominant seventh"),
    QualityRow("maj7", "maj7 Δ j7", "1 3 5 7", "major seventh"),
    QualityRow("m7", "m7", "1 b3 5 b7", "minor seventh"),
    QualityRow("m7b5", "m7b5 m7-5 ø ø7 h h7", "1 b3 b5 b7", "half-diminished seventh",
               "m7", "b5"),
    QualityRow("dim7", "dim7 °7 o7 07", "1 b3 b5 bb7", "diminished seventh"),
    QualityRow("m(maj7)", "m(maj7) mmaj7 m/maj7 m/ma7 m/M7 mΔ", "1 b3 5 7",
               "minor major seventh"),
    QualityRow("7sus4", "7sus4 7sus", "1 4 5 b7", "dominant seventh suspended fourth"),
    QualityRow("maj7sus4", "maj7sus4 maj7sus", "1 4 5 7", "major seventh suspended fourth"),
    QualityRow("aug7", "aug7 7aug +7 7+ 7+5", "1 3 #5 b7", "augmented seventh", "7", "#5"),
    QualityRow("maj7#5", "maj7#5 maj7+5 maj7+ +maj7 augmaj7 Δ+", "1 3 #5 7",
               "augmented major seventh", "maj7", "#5"),
    QualityRow("dim(maj7)", "dim(maj7) dimmaj7 oM7 °M7 o(maj7)", "1 b3 b5 7",
               "diminished major seventh"),
    QualityRow("dim7(maj7)", "dim7(maj7) o7M7 °7M7", "1 b3 b5 bb7 7",
               "diminished seventh with major seventh"),
    QualityRow("7alt", "7alt alt alt7", "1 3 b7 b9 #9 #11 b13", "altered dominant seventh",
               "7", "alt"),
    # ninths, elevenths, thirteenths
    QualityRow("9", "9 dom9", "1 3 5 b7 9", "dominant ninth"),
    QualityRow("maj9", "maj9 Δ9", "1 3 5 7 9", "major ninth"),
    QualityRow("m9", "m9", "1 b3 5 b7 9", "minor ninth"),
    QualityRow("m9b5", "m9b5 ø9 h9", "1 b3 b5 b7 9", "half-diminished ninth", "m9", "b5"),
    QualityRow("m(maj9)", "m(maj9) mmaj9", "1 b3 5 7 9", "minor major ninth"),
    QualityRow("9sus4", "9sus4 9sus", "1 4 5 b7 9", "dominant ninth suspended fourth"),
    QualityRow("maj9sus4", "maj9sus4 maj9sus", "1 4 5 7 9", "major ninth suspended fourth"),
    QualityRow("11", "11 dom11", "1 5 b7 9 11", "dominant eleventh"),
    QualityRow("maj11", "maj11 Δ11", "1 3 5 7 9 11", "major eleventh"),
    QualityRow("m11", "m11", "1 b3 5 b7 9 11", "minor eleventh"),
    QualityRow("m(maj11)", "m(maj11) mmaj11", "1 b3 5 7 9 11", "minor major eleventh"),
    QualityRow("13", "13 dom13", "1 3 5 b7 9 13", "dominant thirteenth"),
    QualityRow("maj13", "maj13 Δ13", "1 3 5 7 9 13", "major thirteenth"),
    QualityRow("m13", "m13", "1 b3 5 b7 9 11 13", "minor thirteenth"),
    QualityRow("m(maj13)", "m(maj13) mmaj13", "1 b3 5 7 9 11 13", "minor major thirteenth"),
    QualityRow("13sus4", "13sus4 13sus", "1 4 5 b7 9 13", "dominant thirteenth suspended fourth"),
    # The augmented family as fake books write it, C+ or Caug before the extension, as C+7 is
    # aug7 and C+maj7 maj7#5: each is its extension + #5 (C7+9 stays 7#9; C+11 is C(#11),
    # "+11" being a sharp eleven). Names as the grammar composes them for C9#5, C13#5...
    QualityRow("9#5", "9#5 +9 aug9", "1 3 #5 b7 9", "dominant ninth sharp five", "9", "#5"),
    QualityRow("13#5", "13#5 +13 aug13", "1 3 #5 b7 9 13", "dominant thirteenth sharp five",
               "13", "#5"),
    QualityRow("maj9#5", "maj9#5 +maj9 augmaj9", "1 3 #5 7 9", "major ninth sharp five",
               "maj9", "#5"),
    QualityRow("maj13#5", "maj13#5 +maj13 augmaj13", "1 3 #5 7 9 13",
               "major thirteenth sharp five", "maj13", "#5"),
)


class Modifier(NamedTuple):
    canonical: str        # as written in a canonical suffix
    spellings: str        # space separated
    removes: str          # degree labels it replaces (when present)
    adds: str             # degree labels it brings
    words: str            # for the plain-English name


# Alterations replace the natural degree of the same number when the chord has it.
ALTERATIONS: tuple[Modifier, ...] = (
    Modifier("b5", "b5 -5", "5", "b5", "flat five"),
    Modifier("#5", "#5 +5 +", "5", "#5", "sharp five"),
    Modifier("b6", "b6", "", "b6", "flat six"),
    Modifier("b9", "b9 -9", "9", "b9", "flat nine"),
    Modifier("#9", "#9 +9", "9", "#9", "sharp nine"),
    Modifier("#11", "#11 +11 #4 +4", "11", "#11", "sharp eleven"),
    Modifier("b13", "b13 -13", "13", "b13", "flat thirteen"),
    Modifier("alt", "alt", "5 9 11 13", "b9 #9 #11 b13", "altered"),
)

# Added tones never replace anything. ``add2`` is read as ``add9`` (as tonal and most charts).
ADDITIONS: tuple[Modifier, ...] = (
    Modifier("add4", "add4", "", "4", "add four"),
    Modifier("add6", "add6", "", "6", "add six"),
    Modifier("addb9", "addb9", "", "b9", "add flat nine"),
    Modifier("add9", "add9 add2", "", "9", "add nine"),
    Modifier("add#9", "add#9", "", "#9", "add sharp nine"),
    Modifier("add11", "add11", "", "11", "add eleven"),
    Modifier("add#11", "add#11", "", "#11", "add sharp eleven"),
    Modifier("add13", "add13", "", "13", "add thirteen"),
)

OMISSIONS: tuple[Modifier, ...] = (
    Modifier("no3", "no3 omit3", "3 b3", "", "no third"),
    Modifier("no5", "no5 omit5", "5 b5 #5", "", "no fifth"),
)

# A suspension turns a base row into its suspended row (``7b9sus`` = ``7sus4`` + ``b9``).
SUSPENSIONS: MappingProxyType[str, MappingProxyType[str, str]] = MappingProxyType({
    "sus4": MappingProxyType({"": "sus4", "7": "7sus4", "9": "9sus4", "13": "13sus4",
                              "maj7": "maj7sus4", "maj9": "maj9sus4"}),
    "sus": MappingProxyType({"": "sus4", "7": "7sus4", "9": "9sus4", "13": "13sus4",
                             "maj7": "maj7sus4", "maj9": "maj9sus4"}),
    "sus2": MappingProxyType({"": "sus2"}),
    "sus24": MappingProxyType({"": "sus24"}),
})

# The everyday altered vocabulary, resolved once at import (each base with up to two of
# these alterations, e.g. 7b9#11, 13b9, maj7#11); anything rarer is read by the grammar.
COMMON_BASES = ("", "m", "6", "m6", "6/9", "7", "maj7", "m7", "m(maj7)", "9", "maj9", "m9",
                "11", "m11", "13", "maj13", "7sus4", "9sus4", "m7b5", "dim7")
COMMON_ALTERATIONS = ("b5", "#5", "b9", "#9", "#11", "b13")

# Whole suffixes from real charts that are shorthand for a grammatical spelling.
SHORTHANDS: MappingProxyType[str, str] = MappingProxyType({
    "2": "add9",      # pop "C2": an added second, kept with the third (as tonal reads it)
    "67": "7add6",    # a dominant seventh with the sixth on top
})
# fmt: on

_MINOR_MARKS = ("m", "mi", "min", "-")
_MAJOR_MARKS = ("maj", "M", "ma", "Maj", "Δ", "^")
_MAJ_BEFORE_NUMBER = re.compile(r"maj(?=\d)")


def _spellings(row: QualityRow) -> list[str]:
    """Every written form of a row: its aliases with each minor mark (m mi min -) in place of
    a leading ``m`` of a minor row, and each major-seventh mark (maj M ma Maj Δ ^) in place of
    a ``maj`` that precedes a number."""
    minor = row.canonical.startswith("m") and not row.canonical.startswith("maj")
    out: list[str] = []
    for alias in row.aliases.split(" "):
        forms = [alias]
        if minor and alias.startswith("m") and not alias.startswith(("mi", "maj")):
            forms = [mark + alias[1:] for mark in _MINOR_MARKS]
        if _MAJ_BEFORE_NUMBER.search(alias):
            forms = [_MAJ_BEFORE_NUMBER.sub(mark, f, count=1) for f in forms
                     for mark in _MAJOR_MARKS]
        out.extend(f for f in forms if f not in out)
    return out


@dataclass(frozen=True, slots=True)
class Quality:
    """A resolved chord quality, root-free: what every chord of this suffix shares."""

    canonical: str
    labels: tuple[str, ...]       # degree labels, in interval order
    semitones: tuple[int, ...]    # above the root
    numbers: tuple[int, ...]      # interval numbers: letter steps above the root, 1-based
    mask: int                     # 12-bit pitch-class set with the root on bit 0
    name: str                     # plain English, without the root


def make_quality(canonical: str, labels: list[str] | tuple[str, ...], name: str) -> Quality:
    """A Quality from degree labels (any order; sorted into interval order here)."""
    ordered = sorted(labels, key=lambda lab: (DEGREES[lab][1], DEGREES[lab][0]))
    semis = tuple(DEGREES[lab][1] for lab in ordered)
    return Quality(canonical, tuple(ordered), semis, tuple(DEGREES[lab][0] for lab in ordered),
                   mask_of(semis), name)


def _modifier_index(rows: tuple[Modifier, ...]) -> dict[str, Modifier]:
    index: dict[str, Modifier] = {}
    for row in rows:
        for spelling in row.spellings.split(" "):
            assert spelling not in index, spelling
            index[spelling] = row
    return index


ALTERATION_BY_SPELLING = MappingProxyType(_modifier_index(ALTERATIONS))
ADDITION_BY_SPELLING = MappingProxyType(_modifier_index(ADDITIONS))
OMISSION_BY_SPELLING = MappingProxyType(_modifier_index(OMISSIONS))
ALTERATION_ORDER = MappingProxyType({m.canonical: i for i, m in enumerate(ALTERATIONS)})
ADDITION_ORDER = MappingProxyType({m.canonical: i for i, m in enumerate(ADDITIONS)})
OMISSION_ORDER = MappingProxyType({m.canonical: i for i, m in enumerate(OMISSIONS)})


def apply_modifier(labels: list[str], mod: Modifier) -> None:
    """Replace the degrees ``mod`` alters (when present) by the ones it brings, in place."""
    for lab in mod.removes.split():
        if lab in labels:
            labels.remove(lab)
    labels.extend(mod.adds.split())


def _build() -> tuple[dict[str, int], dict[str, str], dict[tuple[str, tuple[str, ...]], str],
                      list[Quality]]:
    by_canonical: dict[str, int] = {}
    alias_to_canonical: dict[str, str] = {}
    named: dict[tuple[str, tuple[str, ...]], str] = {}
    qualities: list[Quality] = []
    alias_to_canonical[""] = ""  # the bare root is the major triad
    for i, row in enumerate(QUALITIES):
        assert row.canonical not in by_canonical, row.canonical
        by_canonical[row.canonical] = i
        labels = row.degrees.split(" ")
        assert all(lab in DEGREES for lab in labels), row
        qualities.append(make_quality(row.canonical, labels, row.name))
        for spelling in _spellings(row):
            # an alias means one canonical quality, never two
            assert alias_to_canonical.get(spelling, row.canonical) == row.canonical, spelling
            alias_to_canonical[spelling] = row.canonical
        if row.alterations:
            alts = tuple(row.alterations.split(" "))
            named[(row.base, alts)] = row.canonical
            derived = list(qualities[by_canonical[row.base]].labels)
            for alt in alts:
                apply_modifier(derived, ALTERATION_BY_SPELLING[alt])
            assert sorted(derived) == sorted(labels), (row, derived)
    return by_canonical, alias_to_canonical, named, qualities


_BY_CANONICAL, _ALIASES, _NAMED, _QUALITY_LIST = _build()

QUALITY_BY_CANONICAL: MappingProxyType[str, Quality] = MappingProxyType(
    {q.canonical: q for q in _QUALITY_LIST})
"""Every named row as a Quality, by canonical suffix."""
CANONICAL_BY_ALIAS: MappingProxyType[str, str] = MappingProxyType(_ALIASES)
"""Every written head (``"mi7"``, ``"Δ"``, ``"h7"``) -> its canonical suffix."""
NAMED_ALTERED: MappingProxyType[tuple[str, tuple[str, ...]], str] = MappingProxyType(_NAMED)
"""(base, alterations in canonical order) -> the named row they make (("7", ("#5",)) -> "aug7")."""
BASE_OF: MappingProxyType[str, tuple[str, tuple[str, ...]]] = MappingProxyType(
    {row.canonical: (row.base, tuple(row.alterations.split(" "))) for row in QUALITIES
     if row.alterations})
"""A named altered row -> (base row, its alterations)."""

QUALITY_NAMES: tuple[str, ...] = tuple(row.canonical for row in QUALITIES)
MAX_TONES = 7


def _arrays() -> tuple[np.ndarray, np.ndarray]:
    masks = np.array([q.mask for q in _QUALITY_LIST], dtype=np.uint16)
    vectors = np.full((len(_QUALITY_LIST), MAX_TONES), -1, dtype=np.int8)
    for i, q in enumerate(_QUALITY_LIST):
        vectors[i, :len(q.semitones)] = q.semitones
    masks.flags.writeable = False
    vectors.flags.writeable = False
    return masks, vectors


QUALITY_MASKS, QUALITY_SEMITONES = _arrays()
"""Row i of ``QUALITIES``: its 12-bit mask (uint16) and its semitones padded with -1 (int8)."""


def _spelling_table() -> dict[Spelled, dict[str, tuple[str, int]]]:
    """For every root with up to a double accidental: degree label -> (note name, pc)."""
    table: dict[Spelled, dict[str, tuple[str, int]]] = {}
    for letter in range(7):
        for alter in (-2, -1, 0, 1, 2):
            root = Spelled(letter, alter)
            notes = {}
            for lab, (number, semis) in DEGREES.items():
                sp = transpose_spelled(root, number, semis)
                notes[lab] = (sp.name, sp.pc)
            table[root] = notes
    return table


SPELLED_DEGREE: MappingProxyType[Spelled, dict[str, tuple[str, int]]] = MappingProxyType(
    _spelling_table())
"""root -> degree label -> (spelled note name, pitch class): spelling by interval, built once."""
