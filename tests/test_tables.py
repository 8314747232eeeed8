"""Conventions of the quality tables, and properties over every quality x 21 spelled roots."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from engine.notes import LETTER_PC, LETTERS, mask_of, parse_spelled
from engine.symbols import parse, quality_of
from engine.tables import (
    ADDITIONS,
    ALTERATIONS,
    CANONICAL_BY_ALIAS,
    DEGREES,
    QUALITIES,
    QUALITY_BY_CANONICAL,
    QUALITY_MASKS,
    QUALITY_NAMES,
    QUALITY_SEMITONES,
)

# Composed canonical suffixes the contract names, beside the named rows.
COMPOSED = ("7b9", "7#9", "7#11", "7b13", "7#9#11", "7b9b13", "13b9", "13#11", "9#11",
            "7#5#9", "7b5", "maj7b5", "maj7#11", "add9", "madd9", "7sus4b9", "m7b9", "6/9#11",
            "7b9#11", "7#5b9", "9#5", "augadd9", "no3", "7no3", "m(maj7)b6", "Mb5")
CANONICAL = (*QUALITY_NAMES, *COMPOSED)
ROOTS = tuple(letter + acc for letter in LETTERS for acc in ("b", "", "#"))

API_ALIASES = {  # API.md §1: written form -> canonical suffix
    "": "", "M": "", "maj": "", "m": "m", "min": "m", "-": "m", "dim": "dim", "°": "dim",
    "o": "dim", "aug": "aug", "+": "aug", "sus2": "sus2", "sus4": "sus4", "sus": "sus4",
    "5": "5", "6": "6", "m6": "m6", "6/9": "6/9", "69": "6/9", "m6/9": "m6/9", "m69": "m6/9",
    "7": "7", "maj7": "maj7", "M7": "maj7", "ma7": "maj7", "Maj7": "maj7", "Δ": "maj7",
    "Δ7": "maj7", "^7": "maj7", "m7": "m7", "min7": "m7", "-7": "m7", "m7b5": "m7b5",
    "-7b5": "m7b5", "ø": "m7b5", "ø7": "m7b5", "h7": "m7b5", "h": "m7b5", "dim7": "dim7",
    "°7": "dim7", "o7": "dim7", "07": "dim7", "0": "dim", "m(maj7)": "m(maj7)",
    "mMaj7": "m(maj7)", "m^7": "m(maj7)", "-Δ7": "m(maj7)", "mM7": "m(maj7)",
    "m/maj7": "m(maj7)", "7sus4": "7sus4", "7sus": "7sus4", "aug7": "aug7", "+7": "aug7",
    "7#5": "aug7", "7+5": "aug7", "7+": "aug7", "maj7#5": "maj7#5", "maj7+5": "maj7#5",
    "+maj7": "maj7#5", "maj7b5": "maj7b5", "7b5": "7b5", "9": "9", "11": "11", "13": "13",
    "maj9": "maj9", "maj11": "maj11", "maj13": "maj13", "m9": "m9", "m11": "m11",
    "m13": "m13", "m(maj9)": "m(maj9)", "add9": "add9", "add2": "add9", "add11": "add11",
    "madd9": "madd9", "9sus4": "9sus4", "13sus4": "13sus4", "7b9sus4": "7sus4b9",
    "7b9": "7b9", "7#9": "7#9", "7#11": "7#11", "7b13": "7b13", "7#9#11": "7#9#11",
    "7b9b13": "7b9b13", "13b9": "13b9", "13#11": "13#11", "9#11": "9#11", "7#5#9": "7#5#9",
    "7(b9,#11)": "7b9#11", "7(#9)": "7#9", "7alt": "7alt", "no3": "no3", "no5": "no5",
    "omit3": "no3", "mi": "m",
}


def test_contract_aliases_map_to_their_canonical_suffix() -> None:
    for written, canonical in API_ALIASES.items():
        assert quality_of(written).canonical == canonical, written


def test_rows_are_unique_named_and_consistent() -> None:
    assert len(set(QUALITY_NAMES)) == len(QUALITY_NAMES)
    names = [row.name for row in QUALITIES]
    assert all(names) and len(set(names)) == len(names)
    assert all(m.words for m in (*ALTERATIONS, *ADDITIONS))
    # no two named rows share a tone set with the same labels
    labels = [QUALITY_BY_CANONICAL[c].labels for c in QUALITY_NAMES]
    assert len(set(labels)) == len(labels)


def test_arrays_are_read_only_and_match_rows() -> None:
    assert QUALITY_MASKS.dtype == np.uint16 and not QUALITY_MASKS.flags.writeable
    assert not QUALITY_SEMITONES.flags.writeable
    for i, canonical in enumerate(QUALITY_NAMES):
        q = QUALITY_BY_CANONICAL[canonical]
        assert int(QUALITY_MASKS[i]) == q.mask
        assert tuple(int(s) for s in QUALITY_SEMITONES[i] if s >= 0) == q.semitones


def test_every_alias_maps_to_one_canonical_suffix() -> None:
    for alias, canonical in CANONICAL_BY_ALIAS.items():
        assert quality_of(alias).canonical == canonical
        assert canonical in QUALITY_BY_CANONICAL
    # a canonical suffix, read as written, is itself
    for canonical in CANONICAL:
        assert quality_of(canonical).canonical == canonical


@given(st.sampled_from(CANONICAL), st.sampled_from(ROOTS))
def test_quality_by_root_properties(quality: str, root_name: str) -> None:
    chord = parse(root_name + quality)
    root = parse_spelled(root_name)
    assert chord.quality == quality and chord.root == root
    # mask matches semitones, and the pitch classes of the spelled notes
    assert chord.mask == mask_of([root.pc + s for s in chord.semitones])
    assert chord.mask == mask_of(list(chord.pcs))
    assert chord.semitones == tuple(DEGREES[lab][1] for lab in chord.intervals)
    assert list(chord.semitones) == sorted(chord.semitones)
    # letters follow interval numbers, unless that would need a triple accidental
    for label, semis, note in zip(chord.intervals, chord.semitones, chord.notes, strict=True):
        number = DEGREES[label][0]
        letter = (root.letter + number - 1) % 7
        alter = (root.pc + semis - LETTER_PC[letter] + 6) % 12 - 6
        sp = parse_spelled(note)
        if abs(alter) <= 2:
            assert sp.letter == letter, (root_name + quality, label, note)
        assert sp.pc == (root.pc + semis) % 12
    assert chord.name.startswith(root_name + " ") and len(chord.name) > len(root_name) + 1
    # MIDI with the root in octave 4 stays in range
    assert 0 <= 60 + root.pc + max(chord.semitones) <= 127


@given(st.sampled_from(CANONICAL), st.sampled_from(ROOTS), st.sampled_from(ROOTS))
def test_slash_bass_inversion(quality: str, root_name: str, bass_name: str) -> None:
    chord = parse(f"{root_name}{quality}/{bass_name}")
    plain = parse(root_name + quality)
    assert chord.bass_name == bass_name and chord.notes == plain.notes
    bass_pc = parse_spelled(bass_name).pc
    if bass_pc not in chord.pcs:
        assert chord.inversion is None
    elif chord.inversion is not None:
        label = chord.intervals[chord.pcs.index(bass_pc)]
        assert DEGREES[label][0] == (1, 3, 5, 7)[chord.inversion]
