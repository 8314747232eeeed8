"""Conventions of the quality tables, and properties over every quality x 21 spelled roots."""

from __future__ import annotations

import numpy as np
import pytest

from engine import resolve
from engine.chords.notes import LETTER_PC, LETTERS, mask_of, parse_spelled
from engine.chords.symbols import parse, quality_of
from engine.chords.tables import (
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
from engine.errors import InvalidRequest

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


def test_every_quality_on_every_root() -> None:
    # every canonical quality x 21 spelled roots, in plain loops (a sample would miss pairs)
    for quality in CANONICAL:
        for root_name in ROOTS:
            _check_quality_on_root(quality, root_name)


def _check_quality_on_root(quality: str, root_name: str) -> None:
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
    # resolve places the root in the octave asked (by its letter: Cb4 is 59, B#3 60) and the
    # chord above it; an octave that would leave MIDI 0..127 is invalid_request
    for octave in range(-2, 11):
        root_midi = 12 * (octave + 1) + LETTER_PC[root.letter] + root.alter
        midi = [root_midi + s for s in chord.semitones]
        if min(midi) >= 0 and max(midi) <= 127:
            assert resolve({"chord": root_name + quality, "octave": octave})["midi"] == midi
        else:
            with pytest.raises(InvalidRequest) as err:
                resolve({"chord": root_name + quality, "octave": octave})
            assert err.value.field == "octave"


def test_slash_bass_inversion_on_every_quality_root_and_bass() -> None:
    for quality in CANONICAL:
        for root_name in ("C", "F#", "Bb", "Cb"):
            plain = parse(root_name + quality)
            for bass_name in ROOTS:
                chord = parse(f"{root_name}{quality}/{bass_name}")
                assert chord.bass_name == bass_name and chord.notes == plain.notes
                bass_pc = parse_spelled(bass_name).pc
                if bass_pc not in chord.pcs:
                    assert chord.inversion is None, chord.symbol
                    continue
                # a chord tone in the bass is never read as a non-chord bass; which place it
                # takes is pinned by test_inversion_of_a_chord_tone_bass below
                assert chord.inversion in range(7), chord.symbol


@pytest.mark.parametrize(("symbol", "inversion"), [
    ("C/C", 0), ("C/E", 1), ("Cm/Eb", 1), ("C/G", 2), ("C7/Bb", 3), ("Cdim7/Bbb", 3),
    ("C9/D", 4), ("Cadd9/D", 4), ("Csus2/D", 4), ("C11/F", 5), ("Csus4/F", 5),
    ("C13/A", 6), ("C6/A", 6), ("C/D", None), ("C7/F#", None),
])
def test_inversion_of_a_chord_tone_bass(symbol: str, inversion: int | None) -> None:
    assert parse(symbol).inversion == inversion
