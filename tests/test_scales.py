"""The scale catalogue and the chord-scale choice: conventions checked on every row."""

from __future__ import annotations

import pytest

from engine import resolve
from engine.grid import CLASSES, FAMILIES
from engine.notes import parse_spelled
from engine.scales import CLASS_SCALES, FOLLOWERS, SCALES
from engine.tables import QUALITIES

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


@pytest.mark.parametrize("row", QUALITIES, ids=lambda r: r.canonical or "major")
def test_chosen_scales_hold_the_chord_tones(row: object) -> None:
    canonical = row.canonical  # type: ignore[attr-defined]
    r = resolve({"chord": "D" + canonical})
    tones = {m % 12 for m in r["midi"]}
    first = r["scales"][0]
    assert first["priority"] == "primary"
    if len(r["scales"]) > 1 or tones <= _pcs(first["notes"]):
        for entry in r["scales"]:
            # compared as pitch classes: a scale spells by its own degrees (altered: b13,
            # where aug7 has #5)
            assert tones <= _pcs(entry["notes"]), (canonical, entry["name"])
            assert _pcs(entry["avoid"]) <= _pcs(entry["notes"]) - tones


def _pcs(notes: list[str]) -> set[int]:
    return {parse_spelled(n).pc for n in notes}
