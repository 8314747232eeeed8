"""Pitch classes, 12-bit pitch-class masks, spelled notes, MIDI numbers and frequencies.

A spelled note is a letter (0..6 for C D E F G A B) plus an alteration in semitones
(-2 double flat .. +2 double sharp). Spelling follows intervals, not the keyboard: the note a
sixth above C is some kind of A, whatever its pitch class.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

import numpy as np

PitchClass = int
"""An integer 0..11, C = 0."""

PcMask = np.uint16
"""A 12-bit pitch-class set: bit n set means pitch class n is present."""

LETTERS = "CDEFGAB"
LETTER_PC = (0, 2, 4, 5, 7, 9, 11)
ACCIDENTALS = {-2: "bb", -1: "b", 0: "", 1: "#", 2: "##"}
_ACCIDENTAL_VALUE = {"": 0, "#": 1, "##": 2, "b": -1, "bb": -2, "x": 2}
_UNICODE = str.maketrans({"♯": "#", "♭": "b", "𝄪": "x", "𝄫": "bb"})
_NOTE_RE = re.compile(r"^([A-Ga-g])(##|#|x|bb|b)?(-?\d+)?$")
_DEGREE_RE = re.compile(r"^(bb|b|##|#)?(\d+)$")

AWKWARD_SPELLINGS = frozenset({"B#", "E#", "Cb", "Fb"})
"""Right by interval, but a chromatic chord root spelled so reads better as the natural."""


class Spelled(NamedTuple):
    """A spelled pitch class: ``letter`` 0..6 (C..B) and ``alter`` in semitones."""

    letter: int
    alter: int

    @property
    def pc(self) -> PitchClass:
        return (LETTER_PC[self.letter] + self.alter) % 12

    @property
    def name(self) -> str:
        return LETTERS[self.letter] + ACCIDENTALS[self.alter]

    def __str__(self) -> str:
        return self.name


def normalize_accidentals(text: str) -> str:
    """Read the Unicode ``♯`` ``♭`` as ``#`` ``b``."""
    return text.translate(_UNICODE)


@lru_cache(maxsize=256)
def parse_spelled(text: str) -> Spelled:
    """``"Bb"`` -> Spelled(6, -1). Raises ValueError on anything else (no octave allowed)."""
    m = _NOTE_RE.match(normalize_accidentals(text.strip()))
    if not m or m.group(3) is not None:
        raise ValueError(f"not a note name: {text!r}")
    return _spelled(m)


def parse_note_octave(text: str) -> tuple[Spelled, int]:
    """``"Eb3"`` -> (Spelled, MIDI 51). Scientific pitch: C4 = 60, B#3 = 60, Cb4 = 59."""
    m = _NOTE_RE.match(normalize_accidentals(text.strip()))
    if not m or m.group(3) is None:
        raise ValueError(f"not a note name with octave: {text!r}")
    sp = _spelled(m)
    return sp, midi_of(sp, int(m.group(3)))


def _spelled(m: re.Match[str]) -> Spelled:
    return Spelled(LETTERS.index(m.group(1).upper()), _ACCIDENTAL_VALUE[m.group(2) or ""])


def midi_of(sp: Spelled, octave: int) -> int:
    """The MIDI number of ``sp`` in scientific ``octave`` (by its letter): (B#, 3) -> 60."""
    return (octave + 1) * 12 + LETTER_PC[sp.letter] + sp.alter


def degree_number(label: str) -> int:
    """``"b13"`` -> 13, ``"bb7"`` -> 7, ``"#11"`` -> 11."""
    m = _DEGREE_RE.match(label)
    if not m:
        raise ValueError(f"not a degree label: {label!r}")
    return int(m.group(2))


def transpose_spelled(root: Spelled, number: int, semitones: int) -> Spelled:
    """The note ``number`` letter-steps (1 = unison, 3 = third, 9 = ninth...) and
    ``semitones`` above ``root``. Alterations beyond a double accidental are folded to the
    nearest enharmonic letter so that a name always exists."""
    target = (root.pc + semitones) % 12
    sp = on_letter(target, (root.letter + number - 1) % 7)
    if abs(sp.alter) > 2:  # e.g. a double-sharp root's augmented interval
        sp = on_letter(target, (sp.letter + (1 if sp.alter > 0 else -1)) % 7)
    return sp


def on_letter(pc: PitchClass, letter: int) -> Spelled:
    """Pitch class ``pc`` spelled on ``letter``: (6, F) -> F#, (6, G) -> Gb. The alteration
    is the nearest one, -6..5, so it may be beyond a double accidental."""
    return Spelled(letter, (pc - LETTER_PC[letter] + 6) % 12 - 6)


def spell_interval(root: Spelled, label: str, semitones: int) -> Spelled:
    """Spell the chord tone with degree label ``label`` (``"b3"``) ``semitones`` above root."""
    return transpose_spelled(root, degree_number(label), semitones)


def note_with_octave(sp: Spelled, midi: int) -> str:
    """Name a MIDI number as ``sp`` plus the octave its letter sits in: (B#, 60) -> "B#3"."""
    octave = (midi - sp.alter) // 12 - 1
    return f"{sp.name}{octave}"


def frequency(midi: int | float, tuning: float = 440.0) -> float:
    """Equal-tempered frequency in Hz, A4 (MIDI 69) = ``tuning``, rounded to 3 decimals."""
    return round(tuning * 2.0 ** ((midi - 69) / 12.0), 3)


def mask_of(pcs: Iterable[int]) -> int:
    """The 12-bit mask of some pitch classes (or of semitones above a root: taken mod 12)."""
    m = 0
    for pc in pcs:
        m |= 1 << (pc % 12)
    return m


def transpose_mask(mask: int, semitones: int) -> int:
    """A 12-bit set moved up ``semitones`` (down when negative): bit p goes to p + semitones.
    Moving a chord's set down by the tonic gives it relative to the key."""
    s = semitones % 12
    return ((mask << s) | (mask >> (12 - s))) & 0xFFF


def pcs_of(mask: int) -> list[PitchClass]:
    """Pitch classes of a 12-bit mask, ascending."""
    return [pc for pc in range(12) if mask >> pc & 1]
