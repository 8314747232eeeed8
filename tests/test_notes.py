from hypothesis import given
from hypothesis import strategies as st

from engine.chords.notes import (
    Spelled,
    frequency,
    mask_of,
    midi_of,
    note_with_octave,
    on_letter,
    parse_note_octave,
    parse_spelled,
    pcs_of,
    spell_interval,
    transpose_mask,
)


def test_spelling_follows_the_interval() -> None:
    c = parse_spelled("C")
    assert [spell_interval(c, lab, s).name for lab, s in
            (("1", 0), ("b3", 3), ("b5", 6), ("bb7", 9))] == ["C", "Eb", "Gb", "Bbb"]
    fs = parse_spelled("F#")
    assert spell_interval(fs, "#9", 15).name == "G##"
    assert spell_interval(parse_spelled("B"), "b7", 10).name == "A"


def test_on_letter_spells_a_pitch_class_on_any_letter() -> None:
    assert [on_letter(6, letter).name for letter in (3, 4)] == ["F#", "Gb"]
    assert on_letter(0, 6) == Spelled(6, 1)      # B#
    assert on_letter(1, 5).alter == 4           # beyond a double accidental: the caller folds


def test_unicode_accidentals_and_octaves() -> None:
    assert parse_spelled("B♭") == Spelled(6, -1)
    assert parse_note_octave("C4")[1] == 60
    assert parse_note_octave("B#3")[1] == 60
    assert parse_note_octave("Cb4")[1] == 59
    assert midi_of(parse_spelled("B#"), 3) == 60 and midi_of(parse_spelled("Cb"), 4) == 59
    assert note_with_octave(parse_spelled("B#"), 60) == "B#3"
    assert note_with_octave(parse_spelled("Cb"), 59) == "Cb4"


def test_frequency_uses_tuning() -> None:
    assert frequency(69) == 440.0
    assert frequency(60) == 261.626
    assert frequency(69, 432.0) == 432.0


@given(st.lists(st.integers(0, 11)))
def test_mask_round_trip(pcs: list[int]) -> None:
    assert pcs_of(mask_of(pcs)) == sorted(set(pcs))


@given(st.lists(st.integers(0, 11)), st.integers(-12, 12))
def test_transpose_mask_moves_every_pitch_class(pcs: list[int], semitones: int) -> None:
    moved = transpose_mask(mask_of(pcs), semitones)
    assert moved == mask_of(pc + semitones for pc in pcs)
    assert transpose_mask(moved, -semitones) == mask_of(pcs)


@given(st.integers(0, 6), st.integers(-2, 2), st.integers(0, 127))
def test_octave_names_round_trip(letter: int, alter: int, octave_base: int) -> None:
    sp = Spelled(letter, alter)
    midi = octave_base - (octave_base - sp.pc) % 12  # a MIDI number of that pitch class
    if midi < 0:
        midi += 12
    assert parse_note_octave(note_with_octave(sp, midi))[1] == midi
