"""Chord core: notes (pitch class, mask, spelling, MIDI, Hz), the ``Chord`` record, the quality
tables as literal rows, chord symbols (tokenize and parse, cached) and keys.

Every other engine package reads chords through the names exported here.
"""

from engine.chords.chord import Chord
from engine.chords.keys import NUMERAL_LETTER, SCALE_STEPS, Key, by_function, on_numeral, parse_key
from engine.chords.notes import (
    AWKWARD_SPELLINGS,
    LETTER_PC,
    PitchClass,
    Spelled,
    degree_number,
    frequency,
    mask_of,
    midi_of,
    note_with_octave,
    on_letter,
    parse_note_octave,
    parse_spelled,
    spell_interval,
    transpose_mask,
    transpose_spelled,
)
from engine.chords.symbols import (
    NO_CHORD,
    inversion_of,
    inversions,
    parse,
    parse_progression,
    quality_of,
    read_chord,
    split_progression,
)
from engine.chords.tables import ADDITIONS, COMMON_BASES, QUALITIES, SPELLED_DEGREE, Quality

__all__ = [
    "ADDITIONS",
    "AWKWARD_SPELLINGS",
    "COMMON_BASES",
    "LETTER_PC",
    "NO_CHORD",
    "NUMERAL_LETTER",
    "QUALITIES",
    "SCALE_STEPS",
    "SPELLED_DEGREE",
    "Chord",
    "Key",
    "PitchClass",
    "Quality",
    "Spelled",
    "by_function",
    "degree_number",
    "frequency",
    "inversion_of",
    "inversions",
    "mask_of",
    "midi_of",
    "note_with_octave",
    "on_letter",
    "on_numeral",
    "parse",
    "parse_key",
    "parse_note_octave",
    "parse_progression",
    "parse_spelled",
    "quality_of",
    "read_chord",
    "spell_interval",
    "split_progression",
    "transpose_mask",
    "transpose_spelled",
]
