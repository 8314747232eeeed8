"""The musical rules of reharmonisation as data: which chord becomes what.

``engine.reharm`` reads these tables; each technique there is a small function that finds
where its rule applies in an analysed progression. Intervals are written as
``(number, semitones)``: the letter distance (1 = unison, 5 = fifth) and the pitch distance,
so that every new root is spelled by interval, never by keyboard (Db7, not C#7, in C).
"""

from __future__ import annotations

from typing import Final

Interval = tuple[int, int]

TECHNIQUES: Final = (
    "tritone_sub",
    "ii_v_insertion",
    "modal_interchange",
    "secondary_dominants",
    "dominant_chain",
    "coltrane_changes",
    "backdoor",
    "diminished_passing",
    "related_ii",
)
"""Identifiers of the contract (API.md §6), in the fixed order alternatives are listed."""

FIFTH_UP: Final[Interval] = (5, 7)
"""A dominant's root lies a perfect fifth above the chord it resolves to."""

TRITONE: Final[Interval] = (5, 6)
"""The substitute dominant sits a diminished fifth away: G7 -> Db7, spelled as bII of the target."""

# --- chord families -----------------------------------------------------------------------
# What a technique needs to know about a chord, by the analysis grid's quality class (the
# chord's core triad or seventh, tensions folded in: G13 and G7b9 are both dom7). Classes not
# listed (aug, sus, power chords) are "other" and take part in no technique.
CLASS_FAMILY: Final[dict[str, str]] = {
    "maj": "major", "maj6": "major", "maj7": "major",
    "min": "minor", "min6": "minor", "min7": "minor", "mmaj7": "minor",
    "dom7": "dominant",
    "m7b5": "half-diminished", "dim": "half-diminished",  # both the vii of a major key
    "dim7": "diminished",
}

MODAL_BARS_PER_CHORD: Final = 4
"""A progression without a dominant seventh chord that holds each chord four bars or more on
average is a modal vamp (So What, Impressions, Maiden Voyage's sus chords): no functional
cadence is added to it, and its minor tonic takes no picardy third."""

TARGET_FAMILIES: Final = frozenset({"major", "minor", "dominant"})
"""A chord that can be tonicised (approached by its own dominant) has a perfect fifth."""

TONIC_COLOURS: Final = frozenset({"maj6", "maj7", "min6", "mmaj7"})
"""Classes that colour a triad as a resting chord: on the key's own triad of a degree they
are targets even with the sixth or seventh from outside the key (Dm6, Dm(maj7) in D minor)."""

# --- tritone_sub --------------------------------------------------------------------------
TRITONE_QUALITY: Final[dict[str, str]] = {
    "7": "7", "9": "9", "13": "13",
    # The altered scale of G is the lydian dominant scale of Db: the same seven notes.
    "7alt": "7#11", "7#11": "7alt",
}
"""Quality of the substitute by quality of the original; any other dominant gives ``7``."""

# --- ii_v_insertion -----------------------------------------------------------------------
SECOND_UP: Final[Interval] = (2, 2)
FIFTH_UP_FROM_II: Final[Interval] = (7, 10)
"""The ii-V's target lies a minor seventh above the ii (Fm7 -> Eb)."""
SIXTH_UP: Final[Interval] = (6, 9)
"""The fifth of the ii chord: a major sixth above its target."""
APPROACH_QUALITIES: Final[dict[str, tuple[str, str]]] = {
    "major": ("m7", "7"),      # Dm7 G7 into C
    "minor": ("m7b5", "7b9"),  # Bm7b5 E7b9 into Am: iiø7 V7b9
}

# --- modal_interchange --------------------------------------------------------------------
TO_MINOR: Final = {"": "m", "6": "m6", "maj7": "m7", "maj9": "m9", "6/9": "m6/9"}
TO_MAJOR: Final = {"m": "", "m6": "6", "m7": "maj7", "m9": "maj9", "m6/9": "6/9"}
TO_HALF_DIMINISHED: Final = {"m": "dim", "m7": "m7b5"}
TO_DORIAN_IV: Final = {"m": "7", "m6": "7", "m7": "7", "m9": "9"}
"""The minor key's iv borrows the dorian IV7 (Fm7 -> F7 in C minor, its A natural the dorian
sixth), the subdominant of the jazz minor blues, not the major key's IVmaj7."""
FROM_HALF_DIMINISHED: Final = {"dim": "m", "m7b5": "m7"}

SAME_ROOT: Final[Interval] = (1, 0)
"""The root stays: only the quality changes, and the root keeps the user's spelling."""

BORROWED: Final[dict[tuple[str, int], tuple[Interval, dict[str, str], bool]]] = {
    # (key mode, scale degree) -> (new root above the chord's own root, quality map, only as
    # final chord). The root moves from the user's spelling of it (Bbm7 in C# is the vi:
    # Amaj7), never from the key's spelling of the degree.
    # Major keys borrow the predominants of the parallel minor; tonic and dominant stay.
    ("major", 2): (SAME_ROOT, TO_HALF_DIMINISHED, False),  # Dm7 -> Dm7b5
    ("major", 4): (SAME_ROOT, TO_MINOR, False),            # Fmaj7 -> Fm7
    ("major", 6): ((1, -1), TO_MAJOR, False),              # Am7 -> Abmaj7: bVI
    # Minor keys borrow from the parallel major and dorian modes: the minor ii, the dorian
    # IV7, and the picardy third, which only makes sense as the last chord (and not at all in
    # a modal vamp).
    ("minor", 2): (SAME_ROOT, FROM_HALF_DIMINISHED, False),  # Bm7b5 -> Bm7 in A minor
    ("minor", 4): (SAME_ROOT, TO_DORIAN_IV, False),          # Dm7 -> D7
    ("minor", 1): (SAME_ROOT, TO_MAJOR, True),               # final Am -> A
}
BORROWED_FROM: Final = {("major", 2): "minor", ("major", 4): "minor", ("major", 6): "minor",
                        ("minor", 2): "major", ("minor", 4): "dorian", ("minor", 1): "major"}
"""The parallel mode each borrowing comes from, for the explanation (C minor, A dorian)."""

# --- related_ii ---------------------------------------------------------------------------
RELATED_II: Final[Interval] = FIFTH_UP
"""The related ii of a dominant lies a fifth above it (Am7 before D7)."""
RELATED_II_QUALITY: Final = {"major": "m7", "minor": "m7b5"}
"""By the dominant's target: m7 into a major chord (Dm7 G7 C), iiø7 into a minor one (Bm7b5
E7 Am), and m7 when the dominant goes elsewhere (the ii-V is heard in major)."""

# --- secondary_dominants / dominant_chain -------------------------------------------------
DOMINANT_QUALITY: Final = "7"
CHAIN_LENGTH: Final = 2
"""How many dominants the chain adds in place of the chord before an existing dominant."""
CHAIN_STEPS: Final[tuple[Interval, ...]] = tuple(
    ((4 * n) % 7 + 1, (7 * n) % 12) for n in range(CHAIN_LENGTH, 0, -1))
"""Roots of the added dominants above the first existing one, farthest first: n fifths up is
4n letter steps and 7n semitones (A and D above G: a ninth and a fifth)."""

# --- coltrane_changes ---------------------------------------------------------------------
COLTRANE_CENTRES: Final[tuple[Interval, ...]] = ((6, 8), (3, 4))
"""Tonal centres a major third below and above the target (Ab and E for C): the cycle
Eb7 Abmaj7 B7 Emaj7 G7 Cmaj7 steps through them, each entered by its own dominant."""
COLTRANE_QUALITIES: Final = ("7", "maj7")

# --- backdoor -----------------------------------------------------------------------------
BACKDOOR_DOMINANT: Final[tuple[Interval, str]] = ((7, 10), "7")  # bVII7 of the target
BACKDOOR_PREDOMINANT: Final[tuple[Interval, str]] = ((4, 5), "m7")  # iv7 of the target

# --- diminished_passing -------------------------------------------------------------------
PASSING_QUALITY: Final = "dim7"
PASSING_STEPS: Final[dict[int, tuple[str, Interval]]] = {
    # the bass's motion in semitones (mod 12) -> (the chord whose bass the dim7 is spelled
    # from, interval above that bass)
    2: ("target", (7, 11)),   # up: a half step below the target's bass, Cmaj7 C#dim7 Dm7
    10: ("source", (1, -1)),  # down: the source's bass a half step lower, C/E Ebdim7 Dm7
}
