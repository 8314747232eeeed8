"""The scale catalogue and the chord-scale choice (API.md §3).

A scale is a row of degree labels from its root (spelling follows the labels, so a scale on
any root is spelled letter by letter) and one sentence of character. A chord's scales are
chosen from candidates in order — the scale its role in the key implies, the scales that
usually go with that one, then the scales of its quality — keeping only scales that hold every
chord tone; when no candidate does, the catalogue's scales that do; when no scale does at all
(``13#5``), the scales missing the fewest tones (``_ranked``). ``avoid`` notes are scale tones
a half step above a chord tone of the core (root, third, fifth, seventh) that the chord does
not itself contain, except the tensions the chord's class makes available
(``AVAILABLE_TENSIONS``: b9 and b13 on a dominant), and in a scale that lacks a chord tone, its
notes a half step either side of that tone.

analyze also hears a slash bass that is not a chord tone: scales that hold it go first, and
the note a half step above it is avoided in every scale (``C/F#`` -> lydian; ``C/Db`` ionian
avoids D). resolve reads the quality alone (API.md §4), bass or not.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from engine.analysis.grid import CLASSES
from engine.chords import (
    SCALE_STEPS,
    Chord,
    Spelled,
    degree_number,
    mask_of,
    spell_interval,
    transpose_mask,
)

_MAJOR = SCALE_STEPS["major"]   # labels are read against the major scale: b3, #4


class Scale(NamedTuple):
    name: str
    labels: tuple[str, ...]
    semitones: tuple[int, ...]
    mask: int                 # 12-bit set relative to the scale's root
    character: str


def _semitones(label: str) -> int:
    n = degree_number(label)
    return _MAJOR[(n - 1) % 7] + label.count("#") - label.count("b")


# name, degree labels, character. Altered-family labels follow the chord tensions they carry
# (b9 #9 #11 b13 are written b2 #2 #4 b6), so the scale spells like the chord 7alt.
_ROWS: tuple[tuple[str, str, str], ...] = (
    ("ionian", "1 2 3 4 5 6 7", "The major scale: bright and settled, with the 4th as the one note to handle with care over a major seventh chord."),
    ("dorian", "1 2 b3 4 5 6 b7", "Minor with a raised 6th: the cool, open minor sound of the ii chord and of modal jazz."),
    ("phrygian", "1 b2 b3 4 5 b6 b7", "Minor with a flat 2nd: dark and Spanish-tinged, the sound of the iii chord."),
    ("lydian", "1 2 3 #4 5 6 7", "Major with a raised 4th: floating and bright, with no avoid note over a major seventh chord."),
    ("mixolydian", "1 2 3 4 5 6 b7", "Major with a flat 7th: the plain dominant sound, bluesy and unresolved."),
    ("aeolian", "1 2 b3 4 5 b6 b7", "The natural minor scale: sad and grounded, the sound of the vi chord."),
    ("locrian", "1 b2 b3 4 b5 b6 b7", "The darkest mode, with a flat 2nd and flat 5th: the plain half-diminished sound."),
    ("melodic minor", "1 2 b3 4 5 6 7", "Minor with a major 6th and 7th: the bittersweet jazz minor over minor-major and minor sixth chords."),
    ("dorian b2", "1 b2 b3 4 5 6 b7", "Dorian with a flat 2nd: a suspended, phrygian-tinged minor sound for sus(b9) chords."),
    ("lydian augmented", "1 2 3 #4 #5 6 7", "Lydian with a raised 5th: the shimmering sound of the major seventh sharp five chord."),
    ("lydian dominant", "1 2 3 #4 5 6 b7", "Mixolydian with a raised 4th: the bright dominant of tritone substitutes and the bVII7."),
    ("mixolydian b6", "1 2 3 4 5 b6 b7", "Mixolydian with a flat 6th: a dominant leaning toward a minor resolution."),
    ("locrian natural 2", "1 2 b3 4 b5 b6 b7", "Locrian with a major 2nd: a smoother half-diminished sound with a usable ninth."),
    ("altered", "1 b2 #2 3 #4 b6 b7", "Every tension altered (b9, #9, #11, b13): maximum pull toward the resolution."),
    ("harmonic minor", "1 2 b3 4 5 b6 7", "Minor with a major 7th: the exotic minor whose fifth mode is the minor key's dominant."),
    ("locrian natural 6", "1 b2 b3 4 b5 6 b7", "The second mode of harmonic minor: half-diminished with a major 6th."),
    ("ionian augmented", "1 2 3 4 #5 6 7", "The third mode of harmonic minor: major with a raised 5th."),
    ("dorian #4", "1 2 b3 #4 5 6 b7", "The fourth mode of harmonic minor: dorian with a raised 4th, tense and gypsy-like."),
    ("phrygian dominant", "1 b2 3 4 5 b6 b7", "A dominant with flat 9 and flat 13: the V7 of a minor key, Spanish and intense."),
    ("lydian #2", "1 #2 3 #4 5 6 7", "The sixth mode of harmonic minor: lydian with a raised 2nd."),
    ("altered diminished", "1 b2 b3 b4 b5 b6 bb7", "The seventh mode of harmonic minor: the diminished seventh chord with passing tones."),
    ("half-whole diminished", "1 b2 #2 3 #4 5 6 b7", "Alternating half and whole steps: a symmetric dominant with b9, #9, #11 and a natural 13."),
    ("whole-half diminished", "1 2 b3 4 b5 b6 bb7 7", "Alternating whole and half steps: the symmetric scale of the diminished seventh chord."),
    ("whole tone", "1 2 3 #4 #5 b7", "Six whole steps: dreamy and unresolved, the sound of the augmented dominant."),
    ("major pentatonic", "1 2 3 5 6", "Five notes without half steps: open and singable, never wrong over a major chord."),
    ("minor pentatonic", "1 b3 4 5 b7", "Five notes of the minor sound without half steps: the bluesy core of minor chords."),
    ("blues", "1 b3 4 b5 5 b7", "Minor pentatonic with the flat 5th: the blue note over dominant and minor chords."),
    ("bebop dominant", "1 2 3 4 5 6 b7 7", "Mixolydian with a passing major 7th, so chord tones fall on the beat in eighth-note lines."),
)


def _scale(name: str, labels: str, character: str) -> Scale:
    lab = tuple(labels.split())
    semis = tuple(_semitones(x) for x in lab)
    return Scale(name, lab, semis, mask_of(semis), character)


SCALES: dict[str, Scale] = {name: _scale(name, labels, ch) for name, labels, ch in _ROWS}

# Scales that usually go with a role's scale, tried right after it.
FOLLOWERS: dict[str, tuple[str, ...]] = {
    "ionian": ("lydian", "major pentatonic"),
    "lydian": ("ionian", "major pentatonic"),
    "dorian": ("minor pentatonic", "aeolian"),
    "aeolian": ("dorian", "minor pentatonic"),
    "phrygian": ("aeolian",),
    "mixolydian": ("bebop dominant", "blues"),
    "locrian": ("locrian natural 2",),
    "phrygian dominant": ("half-whole diminished", "altered"),
    "lydian dominant": ("mixolydian", "whole tone"),
    "whole-half diminished": (),
}

# Scales of each quality class, by preference, when the role gives none or it does not fit.
CLASS_SCALES: dict[str, tuple[str, ...]] = {
    "maj": ("ionian", "lydian", "major pentatonic", "mixolydian"),
    "min": ("dorian", "aeolian", "melodic minor", "minor pentatonic", "phrygian"),
    "dim": ("locrian", "whole-half diminished", "locrian natural 2"),
    "aug": ("whole tone", "lydian augmented"),
    "sus4": ("mixolydian", "dorian", "phrygian"),
    "sus2": ("ionian", "mixolydian", "dorian"),
    "five": ("ionian", "aeolian", "mixolydian"),
    "maj7": ("ionian", "lydian", "lydian augmented"),
    # whole tone before altered: a 7#5 without b9/#9 (only those fit both) is the textbook
    # whole-tone chord; any altered ninth rules whole tone out and leaves altered first.
    "dom7": ("mixolydian", "bebop dominant", "lydian dominant", "half-whole diminished",
             "whole tone", "altered", "phrygian dominant", "mixolydian b6"),
    "min7": ("dorian", "aeolian", "phrygian", "minor pentatonic"),
    "m7b5": ("locrian", "locrian natural 2"),
    "dim7": ("whole-half diminished",),
    "mmaj7": ("melodic minor", "harmonic minor"),
    "augmaj7": ("lydian augmented", "ionian augmented"),
    "sus7": ("mixolydian", "dorian b2", "phrygian"),
    "maj6": ("ionian", "major pentatonic", "lydian"),
    "min6": ("dorian", "melodic minor"),
}

# Qualities whose scale does not depend on the role: the symmetric diminished seventh is
# played with its symmetric scale wherever it stands.
CLASS_FIRST: dict[str, str] = {"dim7": "whole-half diminished"}

# Semitones above the root that a class makes available although they sit a half step above
# a chord tone: on a dominant (and a 7sus) the b9 over the root and the b13 over the fifth are
# the tensions the phrygian dominant, half-whole diminished and altered scales are chosen for.
# The natural 11 over a major third stays an avoid note everywhere.
AVAILABLE_TENSIONS: dict[str, tuple[int, ...]] = {"dom7": (1, 8), "sus7": (1, 8)}
_AVAILABLE_MASK: dict[str, int] = {c.name: mask_of(AVAILABLE_TENSIONS.get(c.name, ()))
                                   for c in CLASSES}

MAX_SCALES = 3  # one primary, then up to two secondary


def scale_notes(scale: Scale, root: Spelled) -> list[str]:
    return [spell_interval(root, lab, s).name for lab, s in zip(scale.labels, scale.semitones,
                                                                 strict=True)]


_FIFTH, _SHARP_FIFTH = 1 << 7, 1 << 8   # bits of a root-relative mask


def _ranked(chord_mask: int, core_mask: int, order: list[str]) -> list[str]:
    """The scales to offer, best first: those of ``order`` that hold every chord tone; if none
    does, those of the whole catalogue that do, fewest avoid notes first (Cdim(maj7): whole-half
    diminished); if no scale holds them all (C13#5: the #5 and the 13), the scales missing the
    fewest core tones, then the fewest tones other than a natural 5, then the fewest tones
    (C13#5: whole tone and mixolydian b6, which lack only the 13; mixolydian lacks the #5;
    C7#9b13: altered, which lacks only the 5), in ``order`` then catalogue order."""
    held = [n for n in order if not chord_mask & ~SCALES[n].mask]
    if held:
        return held
    everywhere = [*order, *(n for n in SCALES if n not in order)]
    held = [n for n in everywhere if not chord_mask & ~SCALES[n].mask]
    if held:
        return sorted(held, key=lambda n: len(_avoid(SCALES[n], chord_mask, core_mask, 0, 0)))

    # A written b13 (or #5) is the sound the chord asks for: the natural 5 beside it is then
    # the tone a scale may lack (C9#11b13: whole tone, not lydian dominant without the b13).
    core = core_mask & ~_FIFTH if chord_mask & _SHARP_FIFTH else core_mask

    def missing(name: str) -> tuple[int, int, int]:
        lacked = chord_mask & ~SCALES[name].mask
        return (bin(lacked & core).count("1"), bin(lacked & ~_FIFTH).count("1"),
                bin(lacked).count("1"))
    fewest = min(missing(n) for n in everywhere)
    return [n for n in everywhere if missing(n) == fewest]


def _avoid(scale: Scale, chord_mask: int, core_mask: int, bass_mask: int,
           available: int) -> tuple[int, ...]:
    """Indices of the scale's avoid notes: a scale note not sounding that lies a half step
    above a core tone or the slash bass (unless the class makes it available), or a half step
    either side of a chord tone the scale lacks (it stands in that tone's place: mixolydian's
    5 against the #5 of C13#5; a bass is not a chord tone and may be missing)."""
    sounding, below = chord_mask | bass_mask, core_mask | bass_mask
    lacked = chord_mask & ~scale.mask
    beside = transpose_mask(lacked, 1) | transpose_mask(lacked, -1)
    return tuple(i for i, s in enumerate(scale.semitones)
                 if not sounding >> (s % 12) & 1
                 and (beside >> (s % 12) & 1
                      or (not available >> (s % 12) & 1 and below >> ((s - 1) % 12) & 1)))


@lru_cache(maxsize=4096)
def _choose(root: Spelled, chord_mask: int, core_mask: int, bass_mask: int, cls: str,
            hint: str | None) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]:
    """(name, notes, avoid) of the chosen scales. Masks are relative to the chord root;
    ``bass_mask`` is a slash bass that is not a chord tone (0 for none, or when not heard)."""
    first = [CLASS_FIRST[cls]] if cls in CLASS_FIRST else []
    order = [*first, hint, *FOLLOWERS.get(hint or "", ()), *CLASS_SCALES[cls]] if hint \
        else [*first, *CLASS_SCALES[cls]]
    seen = _ranked(chord_mask, core_mask, list(dict.fromkeys(n for n in order if n)))
    # The bass sounds too: scales that hold it go first (C/F# -> lydian), in the same order.
    seen.sort(key=lambda n: bool(bass_mask & ~SCALES[n].mask))
    available = _AVAILABLE_MASK[cls]
    out = []
    for name in seen[:MAX_SCALES]:
        scale = SCALES[name]
        # the bass sounds whether the scale holds it or not: C/Db ionian avoids the D, a
        # minor ninth above the Db
        notes = scale_notes(scale, root)
        avoid = _avoid(scale, chord_mask, core_mask, bass_mask, available)
        out.append((name, tuple(notes), tuple(notes[i] for i in avoid)))
    return tuple(out)


def _core_mask(chord: Chord) -> int:
    """Root, third, fifth and seventh (degree numbers up to 7), relative to the root."""
    return mask_of(s for label, s in zip(chord.intervals, chord.semitones, strict=True)
                   if degree_number(label) <= 7 and degree_number(label) != 6
                   and label not in ("2", "4"))


@lru_cache(maxsize=8192)
def kept_scales(chord: Chord, cls: int, hint: str | None, slash_bass: bool
                ) -> tuple[dict[str, Any], ...]:
    """The chord-scale entries of API.md §3, primary first, built once per (chord, class,
    hint, bass heard) and shared: their sequences are tuples and nobody changes them
    (``chord_scales`` and ``analyze_chord`` hand out copies). analyze keeps them in its kept
    analysis as they are, instead of building each entry again with tuples (analyze over
    8,640 pairs it had not seen: 12.4 -> 9.5 µs a call, issue 21)."""
    chord_mask = mask_of(chord.semitones)
    bass = 0 if chord.bass is None or not slash_bass \
        else 1 << (chord.bass.pc - chord.root.pc) % 12
    chosen = _choose(chord.root, chord_mask, _core_mask(chord), bass & ~chord_mask,
                     CLASSES[cls].name, hint)
    return tuple({"name": name, "character": SCALES[name].character,
                  "priority": "primary" if i == 0 else "secondary",
                  "notes": notes, "avoid": avoid}
                 for i, (name, notes, avoid) in enumerate(chosen))


def chord_scales(chord: Chord, cls: int, hint: str | None = None, *,
                 slash_bass: bool = False) -> list[dict[str, Any]]:
    """The chord-scale entries of API.md §3, primary first. ``hint`` is the scale the chord's
    role implies; ``slash_bass`` lets a non-chord-tone bass order the scales and add its avoid
    note (analyze). Both unset: from the quality alone, as resolve does (API.md §4). Fresh
    dicts and lists every call."""
    return [{**kept, "notes": [*kept["notes"]], "avoid": [*kept["avoid"]]}
            for kept in kept_scales(chord, cls, hint, slash_bass)]
