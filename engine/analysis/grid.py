"""The rule grid: key mode × root offset × quality class -> interpretation (API.md §3).

The grid is built once, from the literal rows below, by laying the layers down in the
contract's priority order — a cell keeps the first interpretation that claims it:

    diatonic > blues I7 > secondary dominant > backdoor > blues IV7 > tritone substitute
             > borrowed (parallel modes) > diminished passing > iv(maj7) > chromatic

and a few cells take the chord-scale jazz pedagogy gives them rather than the rotation of their
source scale (``SCALE_BY_CELL``: the minor tonic's dorian, the borrowed v7's dorian).

It ends as read-only numpy arrays: ``GRID[mode, offset, class]`` is an index into
``INTERPRETATIONS``. Roles depend on the chord's core (triad or seventh); tensions do not move a chord's role but
do decide the ``diatonic`` flag, which ``SCALE_MASK`` tests on every chord tone.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from engine.chords import SCALE_STEPS, Chord, mask_of, transpose_mask

MODES = ("major", "minor")


class QualityClass(NamedTuple):
    """A chord's core: what the grid reads. ``minor_third`` sets the numeral's case."""

    name: str
    semitones: tuple[int, ...]
    minor_third: bool
    dominant: bool          # can act as a dominant (secondary, backdoor, tritone substitute)


# The quality axis of the grid. Tensions (9, 11, 13, alterations) fold into these cores.
CLASSES: tuple[QualityClass, ...] = (
    QualityClass("maj", (0, 4, 7), False, False),
    QualityClass("min", (0, 3, 7), True, False),
    QualityClass("dim", (0, 3, 6), True, False),
    QualityClass("aug", (0, 4, 8), False, False),
    QualityClass("sus4", (0, 5, 7), False, False),
    QualityClass("sus2", (0, 2, 7), False, False),
    QualityClass("five", (0, 7), False, False),
    QualityClass("maj7", (0, 4, 7, 11), False, False),
    QualityClass("dom7", (0, 4, 7, 10), False, True),
    QualityClass("min7", (0, 3, 7, 10), True, False),
    QualityClass("m7b5", (0, 3, 6, 10), True, False),
    QualityClass("dim7", (0, 3, 6, 9), True, False),
    QualityClass("mmaj7", (0, 3, 7, 11), True, False),
    QualityClass("augmaj7", (0, 4, 8, 11), False, False),
    QualityClass("sus7", (0, 5, 7, 10), False, True),
    # Sixths are cores of their own: the 6th decides the mode a minor sixth is borrowed from
    # (Cm6 in C comes from dorian, not aeolian).
    QualityClass("maj6", (0, 4, 7, 9), False, False),
    QualityClass("min6", (0, 3, 7, 9), True, False),
)
CLASS_INDEX = {c.name: i for i, c in enumerate(CLASSES)}

# (third, fifth, seventh) of a chord -> its class. third: "3" "b3" "sus4" "sus2" "none";
# fifth: "5" (or absent) "b5" "#5"; seventh: "7" "b7" "bb7" or "" (sixths are added tones).
CLASS_OF_SHAPE: dict[tuple[str, str, str], str] = {
    ("3", "5", ""): "maj", ("3", "b5", ""): "maj", ("3", "#5", ""): "aug",
    ("b3", "5", ""): "min", ("b3", "#5", ""): "min", ("b3", "b5", ""): "dim",
    ("3", "5", "7"): "maj7", ("3", "b5", "7"): "maj7", ("3", "#5", "7"): "augmaj7",
    ("3", "5", "b7"): "dom7", ("3", "b5", "b7"): "dom7", ("3", "#5", "b7"): "dom7",
    ("b3", "5", "b7"): "min7", ("b3", "#5", "b7"): "min7", ("b3", "b5", "b7"): "m7b5",
    ("b3", "b5", "bb7"): "dim7", ("b3", "5", "bb7"): "min",
    ("b3", "5", "7"): "mmaj7", ("b3", "b5", "7"): "mmaj7", ("b3", "#5", "7"): "mmaj7",
}
# A sixth added to a triad (no seventh) makes a sixth chord.
SIXTH_OF = {"maj": "maj6", "min": "min6"}
# Chords without a third: the seventh decides (a dominant 11 or 7sus4 still acts as V).
CLASS_WITHOUT_THIRD = {"": None, "b7": "sus7", "7": "maj7", "bb7": "dim7"}


@lru_cache(maxsize=4096)
def _class_of(intervals: tuple[str, ...]) -> int:
    labels = set(intervals)
    fifth = "b5" if "b5" in labels else "#5" if "#5" in labels else "5"
    seventh = next((s for s in ("b7", "7", "bb7") if s in labels), "")
    third = "3" if "3" in labels else "b3" if "b3" in labels else ""
    if third:
        cls = CLASS_OF_SHAPE[(third, fifth, seventh)]
        if "6" in labels:
            cls = SIXTH_OF.get(cls, cls)
        return CLASS_INDEX[cls]
    without = CLASS_WITHOUT_THIRD[seventh]
    if without is not None:
        return CLASS_INDEX[without]
    if labels & {"4", "11"}:
        return CLASS_INDEX["sus4"]
    return CLASS_INDEX["sus2" if labels & {"2", "9"} else "five"]


def quality_class(chord: Chord) -> int:
    """Index into ``CLASSES`` of the chord's core (triad or seventh)."""
    return _class_of(chord.intervals)


def class_of_labels(labels: tuple[str, ...]) -> int:
    """``quality_class`` of a chord with these interval labels."""
    return _class_of(labels)

# Function of a root by its offset above the tonic (jazz practice; bVI, bVII and bII are the
# subdominant-minor family, so predominant).
OFFSET_FUNCTION = ("tonic", "predominant", "predominant", "tonic", "tonic", "predominant",
                   "predominant", "dominant", "predominant", "tonic", "predominant", "dominant")
# In a minor key the diatonic bVII (the subtonic) is the dominant of the relative major
# (F7 -> Bbmaj7 in G minor, Autumn Leaves), not a predominant.
KEY_MODE_FUNCTION: dict[str, dict[int, str]] = {"minor": {10: "dominant"}}

# Scale families by rotation (the chord-scale of a chord on degree k of a mode is the mode's
# rotation to k); names are the catalogue's (engine.analysis.scales).
FAMILIES: dict[str, tuple[str, ...]] = {
    "major": ("ionian", "dorian", "phrygian", "lydian", "mixolydian", "aeolian", "locrian"),
    "melodic": ("melodic minor", "dorian b2", "lydian augmented", "lydian dominant",
                "mixolydian b6", "locrian natural 2", "altered"),
    "harmonic": ("harmonic minor", "locrian natural 6", "ionian augmented", "dorian #4",
                 "phrygian dominant", "lydian #2", "altered diminished"),
}


# (key mode, offset above the tonic, class) -> the chord-scale of that cell, where jazz
# pedagogy (Levine, "The Jazz Theory Book"; Berklee's chord-scale theory) departs from the
# rotation of the source scale (docs/analysis.md, "Scales"):
# - the minor tonic i, im7 (So What, Impressions, a minor blues's i7): dorian, not aeolian;
#   its natural sixth is the sound of a minor tonic in jazz;
# - the borrowed v7 of a major key (Cm7 in F): the ii of a ii-V to IV (Misty bar 2, Stella,
#   Oleo's bridge), played dorian, not phrygian.
SCALE_BY_CELL: dict[tuple[str, int, str], str] = {
    ("minor", 0, "min"): "dorian", ("minor", 0, "min7"): "dorian",
    ("major", 7, "min7"): "dorian",
}


class SourceMode(NamedTuple):
    """A scale on the key's tonic that chords are read from."""

    source: str | None      # the analyze ``source`` text (None for the key's own scale)
    scale: str              # its name on the key's tonic; {tonic} is the tonic's name
    borrowed: bool
    steps: tuple[int, ...]
    family: str
    rotation: int

    @property
    def qualifier(self) -> str:
        """The function qualifier of a chord read from it: "diatonic" for the key's own scale,
        "borrowed from {tonic} dorian", and "from {tonic} harmonic minor" (a minor key's own
        forms, not borrowed)."""
        if self.source is None:
            return "diatonic"
        return ("borrowed from " if self.borrowed else "from ") + self.scale


_AEOLIAN = SourceMode("parallel minor", "{tonic} minor", True,
                      SCALE_STEPS["minor"], "major", 5)
_HARMONIC = (0, 2, 3, 5, 7, 8, 11)
_MELODIC = (0, 2, 3, 5, 7, 9, 11)

# The key's own scale, then the parallel modes in the order they are tried.
OWN_SCALE = {
    "major": SourceMode(None, "{tonic} major", False, SCALE_STEPS["major"], "major", 0),
    "minor": SourceMode(None, "{tonic} minor", False, SCALE_STEPS["minor"], "major", 5),
}
PARALLEL_MODES: dict[str, tuple[SourceMode, ...]] = {
    "major": (
        _AEOLIAN,
        SourceMode("dorian", "{tonic} dorian", True,
                   (0, 2, 3, 5, 7, 9, 10), "major", 1),
        SourceMode("phrygian", "{tonic} phrygian", True,
                   (0, 1, 3, 5, 7, 8, 10), "major", 2),
        SourceMode("harmonic minor", "{tonic} harmonic minor", True,
                   _HARMONIC, "harmonic", 0),
        SourceMode("melodic minor", "{tonic} melodic minor", True,
                   _MELODIC, "melodic", 0),
    ),
    # A minor key's harmonic and melodic forms are its own, not borrowed.
    "minor": (
        SourceMode("harmonic minor", "{tonic} harmonic minor", False,
                   _HARMONIC, "harmonic", 0),
        SourceMode("melodic minor", "{tonic} melodic minor", False,
                   _MELODIC, "melodic", 0),
        SourceMode("parallel major", "{tonic} major", True,
                   SCALE_STEPS["major"], "major", 0),
        SourceMode("dorian", "{tonic} dorian", True,
                   (0, 2, 3, 5, 7, 9, 10), "major", 1),
        SourceMode("phrygian", "{tonic} phrygian", True,
                   (0, 1, 3, 5, 7, 8, 10), "major", 2),
    ),
}

_ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII")
# Offsets of the major scale: numerals' accidentals are relative to it in every key.
_MAJOR = SCALE_STEPS["major"]
# How jazz practice names a root by its role, whatever its spelling: dominants that substitute
# take a flat off the major scale (bII7, bVI7; on it none: VII7 in A minor), diminished chords
# that pass upward a sharp (#i°7, #iv°7).
FLAT_ROMAN = ("I", "bII", "II", "bIII", "III", "IV", "bV", "V", "bVI", "VI", "bVII", "VII")
SHARP_ROMAN = ("I", "#I", "II", "#II", "III", "IV", "#IV", "V", "#V", "VI", "#VI", "VII")


def _accidental(semitones: int) -> str:
    return "b" * -semitones if semitones < 0 else "#" * semitones


class Interpretation(NamedTuple):
    """One reading of a chord in a key; ``GRID`` cells index a tuple of these."""

    role: str               # diatonic secondary backdoor blues tritone borrowed variant passing chromatic
    function: str           # tonic predominant dominant passing chromatic
    qualifier: str          # the text after the comma; {tonic} is the key's tonic
    source: str | None
    borrowed: bool
    target: str | None      # numeral after the slash (V7/ii); None for a plain numeral
    target_offset: int      # dominants, passing chords: offset above the tonic of the chord
    #                         they lead to; diatonic and borrowed: their own; chromatic: -1
    scale: str | None       # the chord-scale the role implies (checked against the tones)
    roman: str | None       # the numeral's root as the role names it (bII, #IV, bVII), in
    #                         upper case; None (chromatic): from the root's letter


def target_numeral(mode: str, degree: int) -> str:
    """The numeral of the diatonic triad on ``degree`` (0..6) of the key: ii, bIII, iv..."""
    steps = SCALE_STEPS[mode]
    third = (steps[(degree + 2) % 7] - steps[degree]) % 12
    roman = _ROMAN[degree] if third == 4 else _ROMAN[degree].lower()
    accidental = _accidental(steps[degree] - _MAJOR[degree])
    return accidental + roman


def _diatonic_targets(mode: str) -> list[tuple[int, int]]:
    """(degree, offset) of the diatonic triads a dominant can lead to: not diminished."""
    steps = SCALE_STEPS[mode]
    return [(d, steps[d]) for d in range(7)
            if (steps[(d + 4) % 7] - steps[d]) % 12 == 7]


def _build() -> tuple[tuple[Interpretation, ...], np.ndarray]:
    interps: list[Interpretation] = []
    index: dict[Interpretation, int] = {}
    grid = np.full((len(MODES), 12, len(CLASSES)), -1, dtype=np.int16)

    def claim(mode: int, offset: int, cls: int, it: Interpretation) -> None:
        if grid[mode, offset % 12, cls] >= 0:
            return  # an earlier layer (higher priority) already reads this cell
        scale = SCALE_BY_CELL.get((MODES[mode], offset % 12, CLASSES[cls].name))
        if scale is not None:
            it = it._replace(scale=scale)
        if it not in index:
            index[it] = len(interps)
            interps.append(it)
        grid[mode, offset % 12, cls] = index[it]

    dominant = [i for i, c in enumerate(CLASSES) if c.dominant]
    for m, mode in enumerate(MODES):
        own = OWN_SCALE[mode]
        targets = _diatonic_targets(mode)
        # 1. diatonic, 6. borrowed: every class that fits the scale on one of its degrees.
        _fit_scale(claim, m, own, "diatonic")
        # The blues tonic: I7 of a major key is the blues's home chord (Billie's Bounce,
        # Tenor Madness), not first the dominant of IV it becomes when it moves there.
        if mode == "major":
            claim(m, 0, CLASS_INDEX["dom7"], Interpretation(
                "blues", "tonic", "blues tonic (the dominant of IV when it resolves there)",
                "blues", True, None, 0, "mixolydian", "I"))
            # I sus (Dolphin Dance's Dbmaj7/Eb in Eb, a modal tonic): the tonic's sus colour.
            claim(m, 0, CLASS_INDEX["sus7"], Interpretation(
                "variant", "tonic", "tonic sus (the dominant of IV when it resolves there)",
                "sus tonic", False, None, 0, "mixolydian", "I"))
        # 2. secondary dominants (triad, seventh or sus) a fifth above a diatonic target;
        #    the one above the tonic is the primary dominant (minor keys: harmonic minor).
        for degree, t in targets:
            name = target_numeral(mode, degree)
            lower = name[-1].islower()
            scale = "phrygian dominant" if lower else "mixolydian"
            if t == 0:
                if mode == "major":
                    continue  # V7 of a major key is diatonic
                it = Interpretation("secondary", "dominant", "from {tonic} harmonic minor",
                                    "harmonic minor", False, None, 0, scale, "V")
            else:
                it = Interpretation("secondary", "dominant", f"secondary dominant of {name}",
                                    f"secondary dominant of {name}", False, name, t, scale,
                                    "V")
            for c in [CLASS_INDEX["maj"], *dominant]:
                claim(m, t + 7, c, it)
        # The augmented triad on V is the augmented dominant (elsewhere it stays III+ etc.).
        claim(m, 7, CLASS_INDEX["aug"], Interpretation(
            "secondary", "dominant", "augmented dominant", "augmented dominant", False, None,
            0, "whole tone", "V"))
        # 3. backdoor dominant bVII7 (in minor keys it is diatonic already).
        backdoor = Interpretation("backdoor", "dominant", "backdoor dominant",
                                  "backdoor dominant", True, None, 0, "lydian dominant", "bVII")
        for c in dominant:
            claim(m, 10, c, backdoor)
        # 4. IV7 is the blues subdominant, not the substitute of V7/iii.
        claim(m, 5, CLASS_INDEX["dom7"], Interpretation(
            "blues", "predominant", "blues subdominant", "blues", True, None, 5, "mixolydian",
            "IV"))
        # 5. tritone substitutes of the primary and of every secondary dominant.
        for degree, t in targets:
            #    Named by the root as a lowered degree (bII7, bVI7: API.md 3, the Real Book's
            #    habit); where that degree would be a natural one (III, VI, VII: minor keys
            #    only) the bare numeral names another chord (VII7 in G minor reads F#7 where the
            #    chart has Gb7), so it is named by what it stands for: subV7/bVII (Berklee).
            name = target_numeral(mode, degree)
            of = "V7" if t == 0 else f"V7/{name}"
            roman = FLAT_ROMAN[(t + 1) % 12]
            lowered = roman.startswith("b")
            claim(m, t + 1, CLASS_INDEX["dom7"], Interpretation(
                "tritone", "dominant", f"tritone substitute of {of}",
                f"tritone substitute of {of}", False, None if lowered else name, t,
                "lydian dominant", roman if lowered else "subV"))
        for source in PARALLEL_MODES[mode]:
            _fit_scale(claim, m, source, "borrowed" if source.borrowed else "variant")
        # 7. a diminished chord a half step below a diatonic target passes into it.
        for degree, t in targets:
            name = target_numeral(mode, degree)
            it = Interpretation("passing", "passing", f"diminished approach to {name}",
                                "diminished passing chord", False, None, t,
                                "whole-half diminished", SHARP_ROMAN[(t - 1) % 12])
            for c in (CLASS_INDEX["dim7"], CLASS_INDEX["dim"]):
                claim(m, t - 1, c, it)
        # iv(maj7) of a major key (Fmmaj7 in C): the borrowed iv with the key's own seventh, a
        # predominant colour of modal interchange (its tones are in no one parallel scale).
        if mode == "major":
            claim(m, 5, CLASS_INDEX["mmaj7"], Interpretation(
                "borrowed", "predominant", "modal interchange: iv from {tonic} minor with the "
                "key's own seventh", "parallel minor", True, None, 5, "melodic minor", "IV"))
        # 8. everything left is chromatic.
        for offset in range(12):
            for c in range(len(CLASSES)):
                claim(m, offset, c, Interpretation(
                    "chromatic", "chromatic", "outside the key", None, False, None, -1, None,
                    None))
    grid.setflags(write=False)
    return tuple(interps), grid


def _fit_scale(claim: Callable[[int, int, int, Interpretation], None], m: int,
               source: SourceMode, role: str) -> None:
    scale_mask = mask_of(source.steps)
    modes = FAMILIES[source.family]
    steps = source.steps
    for k, offset in enumerate(steps):
        # The scale's own third and fifth above this degree (by letters, not pitch classes:
        # Ab-Cb-Ebb-Gbb has the pitches of C harmonic minor but is not its chord on Ab).
        third = (steps[(k + 2) % 7] - offset) % 12
        fifth = (steps[(k + 4) % 7] - offset) % 12
        for c, cls in enumerate(CLASSES):
            if transpose_mask(mask_of(cls.semitones), offset) & ~scale_mask:
                continue
            if any((s in (3, 4) and s != third) or (s in (6, 8) and s != fifth)
                   for s in cls.semitones):
                continue
            function = KEY_MODE_FUNCTION.get(MODES[m], {}).get(offset, OFFSET_FUNCTION[offset])
            claim(m, offset, c, Interpretation(
                role, function, source.qualifier, source.source,
                source.borrowed, None, offset, modes[(source.rotation + k) % 7],
                _accidental(offset - _MAJOR[k]) + _ROMAN[k]))


INTERPRETATIONS, GRID = _build()

# Pitch-class masks of each key mode's scale, relative to the tonic.
SCALE_MASK = np.array([mask_of(SCALE_STEPS[m]) for m in MODES], dtype=np.uint16)
SCALE_MASK.setflags(write=False)


def _tension_sources() -> np.ndarray:
    """TENSION_SOURCE[mode, mask]: index + 1 into PARALLEL_MODES[mode] of the first parallel
    scale holding every tone of a chord (mask relative to the tonic), 0 for none. It names
    where the tensions of a diatonic chord come from: G7b9 in C -> harmonic minor."""
    out = np.zeros((len(MODES), 4096), dtype=np.int8)
    masks = np.arange(4096)
    for m, mode in enumerate(MODES):
        for i, source in reversed(list(enumerate(PARALLEL_MODES[mode]))):
            fits = (masks & ~mask_of(source.steps) & 0xFFF) == 0
            out[m, fits] = i + 1
    out.setflags(write=False)
    return out


TENSION_SOURCE = _tension_sources()

# The same three tables as tuples, for one lookup at a time (``role_of``): a numpy array
# indexed for one scalar costs 150-200 ns, a tuple 30-60 ns. The arrays serve the batch path.
GRID_ROWS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(row) for row in plane) for plane in GRID.tolist())
SCALE_MASKS: tuple[int, ...] = tuple(SCALE_MASK.tolist())
TENSION_SOURCES: tuple[tuple[int, ...], ...] = tuple(tuple(row) for row in TENSION_SOURCE.tolist())


def numeral_prefix(it: Interpretation, cls: int, degree: int, accidental: int) -> str:
    """Roman numeral with accidental and case: ``bVI``, ``#iv``, ``ii`` (no quality mark).

    A chord whose role the grid knows takes the role's numeral, whatever its spelling
    (``E7`` in Eb is the tritone substitute ``bII7``, ``Db°7`` in C the passing ``#i°7``);
    a chromatic chord is named from its letters: ``degree`` 0..6 counts letters from the
    tonic, ``accidental`` is the root's distance in semitones from that degree of the major
    scale on the tonic (``F#m7b5`` in C is ``#ivø7``)."""
    roman = it.roman if it.roman is not None else _accidental(accidental) + _ROMAN[degree]
    return roman.lower() if CLASSES[cls].minor_third else roman


def accidental_of(degree: int, offset: int) -> int:
    """The accidental (-6..5) of a root ``offset`` semitones above the tonic on its letter
    ``degree`` (0..6) above the tonic's, against the major scale on the tonic: (6, 10) -> -1."""
    return (offset - _MAJOR[degree] + 6) % 12 - 6
