"""The scale catalogue and the chord-scale choice: conventions checked on every row."""

from __future__ import annotations

import pytest

from engine import analyze, resolve
from engine.analysis.grid import CLASSES, FAMILIES
from engine.analysis.scales import CLASS_SCALES, FOLLOWERS, SCALES
from engine.chords.chord import Chord
from engine.chords.notes import parse_spelled
from tests.vocabulary import vocabulary

CONTRACT_NAMES = (
    "ionian", "dorian", "phrygian", "lydian", "mixolydian", "aeolian", "locrian",
    "melodic minor", "dorian b2", "lydian augmented", "lydian dominant", "mixolydian b6",
    "locrian natural 2", "altered", "harmonic minor", "phrygian dominant",
    "half-whole diminished", "whole-half diminished", "whole tone", "major pentatonic",
    "minor pentatonic", "blues", "bebop dominant",
)


def test_catalogue_names_and_characters() -> None:
    assert set(CONTRACT_NAMES) <= set(SCALES)
    for name, scale in SCALES.items():
        assert name == name.lower()
        assert scale.character.endswith(".") and scale.character.count(". ") == 0, name
        assert scale.semitones[0] == 0 and list(scale.semitones) == sorted(scale.semitones)
        assert len(set(scale.semitones)) == len(scale.semitones)


def test_every_referenced_scale_exists() -> None:
    named = {n for fam in FAMILIES.values() for n in fam} | set(FOLLOWERS)
    named |= {n for v in FOLLOWERS.values() for n in v}
    named |= {n for v in CLASS_SCALES.values() for n in v}
    assert named <= set(SCALES)
    assert set(CLASS_SCALES) == {c.name for c in CLASSES}


def test_mode_families_are_rotations() -> None:
    for family in FAMILIES.values():
        parent = SCALES[family[0]].semitones
        for k, name in enumerate(family):
            rotated = sorted((s - parent[k]) % 12 for s in parent)
            assert list(SCALES[name].semitones) == rotated, name


@pytest.mark.parametrize("root", ["C", "F#", "Bb", "Db", "G#", "Cb"])
def test_seven_note_scales_spell_one_letter_per_degree(root: str) -> None:
    r = resolve({"chord": root + "maj7"})
    for entry in r["scales"]:
        letters = [n[0] for n in entry["notes"]]
        if len(letters) == 7:
            assert len(set(letters)) == 7, entry
    assert r["scales"][0]["notes"][0] == root


_CATALOGUE_PCS = {name: set(scale.semitones) for name, scale in SCALES.items()}  # on C


@pytest.mark.parametrize("chord", vocabulary(), ids=lambda c: "C" + c.quality)
def test_every_scale_holds_the_chord_or_avoids_what_clashes(chord: Chord) -> None:
    # "keep only scales that hold every chord tone": when a scale of the catalogue holds them
    # all, every listed scale does; when none does (C13#5: the #5 and the 13), a listed scale
    # lacks a tone, and its notes a half step either side of that tone (which it plays in the
    # tone's place: mixolydian's 5 against the #5) are avoid notes
    tones = set(chord.pcs)
    held = any(tones <= pcs for pcs in _CATALOGUE_PCS.values())
    for r in (resolve({"chord": chord.symbol}), analyze({"chord": chord.symbol, "key": "C"}),
              analyze({"chord": chord.symbol, "key": "F"})):
        assert r["scales"][0]["priority"] == "primary"
        for entry in r["scales"]:
            # compared as pitch classes: a scale spells by its own degrees (altered: b13,
            # where aug7 has #5)
            scale = _pcs(entry["notes"])
            lacked = tones - scale
            assert not (held and lacked), (chord.symbol, r.get("key"), entry["name"])
            clashing = {p for p in scale - tones if {(p + 1) % 12, (p - 1) % 12} & lacked}
            assert clashing <= _pcs(entry["avoid"]) <= scale - tones, \
                (chord.symbol, r.get("key"), entry)


@pytest.mark.parametrize(("chord", "key", "scales"), [
    # the 13#5 (1 3 #5 b7 9 13) fits no scale: whole tone and mixolydian b6 lack only the 13;
    # mixolydian (the role's scale) lacks the #5 and would play the natural 5 against it
    ("G+13", "C", {"whole tone": [], "mixolydian b6": ["C"]}),
    ("Caug13", "F", {"whole tone": [], "mixolydian b6": ["F"]}),
    # no scale of its class holds the diminished major seventh: the catalogue's that do
    ("Cdim(maj7)", "C", {"whole-half diminished": [], "lydian #2": ["E", "G"]}),
    ("Cm#11", "Bb", {"dorian #4": [], "blues": [], "lydian #2": ["E"]}),
])
def test_a_chord_no_scale_of_its_class_holds(chord: str, key: str,
                                             scales: dict[str, list[str]]) -> None:
    assert _scales(chord, key) == scales


def _pcs(notes: list[str]) -> set[int]:
    return {parse_spelled(n).pc for n in notes}


def _scales(chord: str, key: str) -> dict[str, list[str]]:
    return {s["name"]: s["avoid"] for s in analyze({"chord": chord, "key": key})["scales"]}


# (chord, key, scale, avoid): the textbook avoid notes of each chord-scale. On a dominant the
# b9 over the root and the b13 over the fifth are tensions; the 11 over the major third is not.
AVOID = [
    ("G7", "Cm", "phrygian dominant", ["C"]),
    ("G7", "C", "mixolydian", ["C"]),
    ("G7#9", "C", "half-whole diminished", []),
    ("G7#5", "C", "altered", []),
    ("G7alt", "C", "altered", []),
    ("E7", "Am", "phrygian dominant", ["A"]),
    ("E7", "Am", "half-whole diminished", []),
    ("C7b13", "F", "phrygian dominant", ["F"]),
    ("C7b13", "F", "mixolydian b6", ["F"]),
    ("C7b9", "F", "half-whole diminished", []),
    ("C7sus4b9", "F", "dorian b2", []),
    ("C7sus4b9", "F", "phrygian", []),
    ("Cmaj7", "C", "ionian", ["F"]),
    ("Cmaj7", "C", "lydian", []),
    ("Fmaj7", "C", "lydian", []),
    ("C", "C", "ionian", ["F"]),
    ("C6", "C", "ionian", ["F"]),
    ("Dm7", "C", "dorian", []),
    ("Am7", "C", "aeolian", ["F"]),
    ("Em7", "C", "phrygian", ["F", "C"]),
    ("Bm7b5", "C", "locrian", ["C"]),
    ("Bm7b5", "C", "locrian natural 2", []),
    ("Cdim7", "C", "whole-half diminished", []),
    ("Cm(maj7)", "Cm", "melodic minor", []),
    ("C7#5", "F", "whole tone", []),
]


@pytest.mark.parametrize(("chord", "key", "scale", "avoid"), AVOID)
def test_avoid_notes_follow_the_chord_class(chord: str, key: str, scale: str,
                                            avoid: list[str]) -> None:
    assert _scales(chord, key)[scale] == avoid


@pytest.mark.parametrize("root", ["C", "G", "F#", "Bb", "Db"])
def test_every_dominant_scale_keeps_b9_and_b13_available(root: str) -> None:
    # b9 and b13 are never avoid notes on a dominant, whatever the scale and key
    for suffix in ("7", "7b9", "7#9", "7b13", "7#5", "7alt", "13", "7sus4", "7sus4b9"):
        for key in ("C", "Cm", root, root + "m"):
            r = analyze({"chord": root + suffix, "key": key})
            b9 = _transposed(root, 1)
            b13 = _transposed(root, 8)
            for entry in r["scales"]:
                assert not _pcs(entry["avoid"]) & (b9 | b13), (root + suffix, key, entry)


def _transposed(root: str, semitones: int) -> set[int]:
    return {(parse_spelled(root).pc + semitones) % 12}


@pytest.mark.parametrize("chord", ["C7#5", "C+7", "C9#5", "C7#5#11", "Caug7"])
def test_sharp_five_dominant_gets_whole_tone_first(chord: str) -> None:
    assert resolve({"chord": chord})["scales"][0]["name"] == "whole tone"
    assert "whole tone" in _scales(chord, "F")


@pytest.mark.parametrize("chord", ["C7#5#9", "C7#5b9", "C7alt"])
def test_sharp_five_with_altered_ninth_stays_altered(chord: str) -> None:
    assert resolve({"chord": chord})["scales"][0]["name"] == "altered"


@pytest.mark.parametrize(("chord", "first"), [
    ("C9#11b13", "whole tone"),     # was lydian dominant, which never plays the written Ab
    ("C7#9b13", "altered"),         # was half-whole diminished, without the b13
    ("C7#11b13", "whole tone"),
])
def test_a_written_b13_outranks_the_natural_fifth_when_no_scale_holds_both(
        chord: str, first: str) -> None:
    assert resolve({"chord": chord})["scales"][0]["name"] == first


def test_slash_bass_counts_for_the_scale() -> None:
    # F# sounds in the bass: lydian holds it, ionian's F would clash with it
    scales = analyze({"chord": "C/F#", "key": "C"})["scales"]
    assert scales[0]["name"] == "lydian"
    assert scales[0]["avoid"] == []
    assert analyze({"chord": "C/Bb", "key": "C"})["scales"][0]["name"] == "mixolydian"
    # without a slash nothing changes
    assert analyze({"chord": "C", "key": "C"})["scales"][0]["name"] == "ionian"
    # a bass no scale of the class holds still sounds: the note a half step above it is a
    # minor ninth over it (this test pinned C/Db's scales to C's: ionian avoided F only)
    assert _scales("C/Db", "C") == {"ionian": ["D", "F"], "lydian": ["D"],
                                    "major pentatonic": ["D"]}
    assert _scales("C/Ab", "C")["ionian"] == ["F", "A"]
    # in a scale that holds the bass, the note a half step above it is avoided: G/E in C,
    # mixolydian avoids F over the E as well as C over the B
    first = analyze({"chord": "G/E", "key": "C"})["scales"][0]
    assert (first["name"], first["avoid"]) == ("mixolydian", ["C", "F"])


@pytest.mark.parametrize("chord", ["C/F#", "C/Bb", "C/Db", "Dm7/C#", "G7/Ab", "C/E"])
def test_resolve_scales_come_from_the_quality_alone(chord: str) -> None:
    # API.md §4: resolve's scales ignore the bass (analyze may let it order its scales)
    assert resolve({"chord": chord})["scales"] == resolve({"chord": chord.split("/")[0]})["scales"]
