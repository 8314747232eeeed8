"""Keys: a tonic and major or minor (API.md §2). Modes are refused with the parent key.

A key is ``C``, ``F#``, ``Bb``; minor is ``Cm``, ``C-``, ``C minor`` (also ``Cmin``, as in
iReal charts); ``C major`` is ``C``. A mode (``Bb lydian``) is not a key: the error names the
major or minor key whose notes it uses, so the caller can ask again; ``A harmonic minor`` and
``A melodic minor`` point to ``Am``, whose harmonic and melodic forms are its own. Refused too:
a tonic with a double accidental (``Cbb``, ``Gx``: no chart is written in such a key) and a
bare lowercase tonic (``c`` is C major in some notations, C minor in classical ones); a
lowercase tonic with a mode word (``c minor``, ``cm``) is read. Every key a refusal names is
one that is read (``Gx dorian`` -> G, ``cbb`` -> Bb or Bbm).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from functools import lru_cache
from operator import attrgetter
from typing import Any, Literal

from engine.chords.notes import (
    Spelled,
    normalize_accidentals,
    on_letter,
    parse_spelled,
    transpose_spelled,
)
from engine.errors import InvalidKey

Mode = Literal["major", "minor"]

# Semitones of the seven degrees above the tonic; minor keys read the natural minor scale
# (jazz practice: in A minor, Fmaj7 and G7 are diatonic; E7 comes from harmonic minor).
SCALE_STEPS: dict[str, tuple[int, ...]] = {
    "major": (0, 2, 4, 5, 7, 9, 11),
    "minor": (0, 2, 3, 5, 7, 8, 10),
}

# Words after the tonic that name a key mode.
_MODE_WORDS: dict[str, Mode] = {
    "": "major", "M": "major", "maj": "major", "major": "major", "m": "minor", "-": "minor",
    "min": "minor", "minor": "minor",
}

# Modes refused, with the interval (letter steps, semitones) from the mode's tonic up to the
# tonic of the key to use instead, that key's mode, and the message ({given}: the text given,
# {key}: the key to use).
_SAME_NOTES = "{given!r} is a mode, not a key: use key {key} (it has the same notes)"
_OWN_FORMS = ("{given!r} is a form of the key {key}: use key {key} (a minor key already reads "
              "its harmonic and melodic forms as its own, e.g. its V7)")
_MODES: dict[str, tuple[int, int, Mode, str]] = {
    "ionian": (1, 0, "major", _SAME_NOTES),
    "dorian": (7, 10, "major", _SAME_NOTES),
    "phrygian": (6, 8, "major", _SAME_NOTES),
    "lydian": (5, 7, "major", _SAME_NOTES),
    "mixolydian": (4, 5, "major", _SAME_NOTES),
    "aeolian": (1, 0, "minor", _SAME_NOTES),
    "locrian": (2, 1, "major", _SAME_NOTES),
    "harmonic minor": (1, 0, "minor", _OWN_FORMS),
    "melodic minor": (1, 0, "minor", _OWN_FORMS),
}

_MINUS_SIGNS = str.maketrans({"−": "-", "–": "-"})  # U+2212 and the en dash, as in symbols
_KEY_RE = re.compile(r"^\s*([A-Ga-g](?:##|#|x|bb|b)?)\s*(.*?)\s*$")


@dataclass(frozen=True, slots=True)
class Key:
    """A key: ``tonic``, ``mode``, canonical ``name`` ("C", "Cm") and the seven spelled
    degrees of its scale (natural minor for minor keys)."""

    tonic: Spelled
    mode: Mode
    name: str
    scale: tuple[Spelled, ...]
    # The hash computed once, as ``Chord``'s (keys share its caches; 0.23 µs a lookup), of
    # the canonical name and the mode, which set keys apart.
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.name, self.mode)))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled by its values, never its hash: a string's hash differs between processes.
        return (Key, _key_values(self))

    @property
    def mode_index(self) -> int:
        """0 for major, 1 for minor: the first axis of the rule grid."""
        return 0 if self.mode == "major" else 1


# The fields given to ``__init__``, in order: what a pickle is made of.
_key_values = attrgetter(*(f.name for f in fields(Key) if f.init))


def make_key(tonic: Spelled, mode: Mode) -> Key:
    steps = SCALE_STEPS[mode]
    scale = tuple(transpose_spelled(tonic, i + 1, s) for i, s in enumerate(steps))
    return Key(tonic, mode, tonic.name + ("m" if mode == "minor" else ""), scale)


@lru_cache(maxsize=512)
def _parse(text: str) -> Key:
    # The whole key is read first (tonic, then mode word), so that a refusal can name a key
    # that is accepted: "Gx dorian" -> G (not "A dorian", itself a mode), "cbb" -> Bb or Bbm.
    m = _KEY_RE.match(normalize_accidentals(text).translate(_MINUS_SIGNS))
    if not m:
        raise InvalidKey(f"cannot read key {text!r}: expected a tonic such as C, F#, Bb or Cm")
    written, word, given = m.group(1), m.group(2), text.strip()
    tonic = parse_spelled(written[0].upper() + written[1:])
    # One-letter words are case sensitive (M major, m minor); longer words are not.
    mode = _MODE_WORDS.get(word) or (_MODE_WORDS.get(word.lower()) if len(word) > 1 else None)
    if mode is not None:
        key = make_key(tonic, mode)
        if not word and written[0].islower():
            major = _accepted(key).name
            raise InvalidKey(f"key {given!r} is ambiguous (a lowercase tonic is minor in some "
                             f"notations): write {major} for major or {major}m for minor")
        if key != _accepted(key):
            raise InvalidKey(f"key {given!r} has a double accidental: no chart is written in "
                             f"that key (use {_accepted(key).name})")
        return key
    refused = _MODES.get(" ".join(word.lower().split()))
    if refused is not None:
        number, semitones, parent_mode, why = refused
        parent = make_key(transpose_spelled(tonic, number, semitones), parent_mode)
        raise InvalidKey(why.format(given=given, key=_accepted(parent).name))
    raise InvalidKey(f"cannot read key {text!r}: expected a tonic such as C, F#, Bb or Cm")


def _accepted(key: Key) -> Key:
    """The key itself, or for a tonic with a double accidental the same pitch on the
    neighbouring letter (Cbb -> Bb, Gx -> A, C##m -> Dm), which is read."""
    if abs(key.tonic.alter) <= 1:
        return key
    step = 1 if key.tonic.alter > 0 else -1
    return make_key(on_letter(key.tonic.pc, (key.tonic.letter + step) % 7), key.mode)


# The letter of analyze's numeral for each number of semitones above the tonic (FLAT_ROMAN:
# I bII II bIII III IV bV V bVI VI bVII VII), as letter steps above the tonic's letter: the
# lowered degrees are spelled with flats, the tritone as bV.
NUMERAL_LETTER = (0, 1, 1, 2, 2, 3, 4, 4, 5, 5, 6, 6)


def on_numeral(pc: int, key: Key, letter_steps: int | None = None) -> Spelled:
    """``pc`` spelled on the letter of its numeral in ``key`` (Ab, the bVI of C; Cb, the bVI
    of Eb), or ``letter_steps`` above the tonic's letter when given (F#, the #iv of C)."""
    semitones = (pc - key.tonic.pc) % 12
    steps = NUMERAL_LETTER[semitones] if letter_steps is None else letter_steps
    return transpose_spelled(key.tonic, steps + 1, semitones)


def by_function(sp: Spelled, key: Key) -> bool:
    """The note is spelled on the letter of the numeral analyze gives it in the key: Cb in Eb
    (bVI), Cb in Bb (bII), Fb in Eb (bII)."""
    return (sp.letter - key.tonic.letter) % 7 == NUMERAL_LETTER[(sp.pc - key.tonic.pc) % 12]


def parse_key(text: str | None) -> Key:
    """Read a key (None or empty -> C). Raises ``InvalidKey`` (code ``invalid_key``)."""
    if text is None or not text.strip():
        return _parse("C")
    return _parse(text)
