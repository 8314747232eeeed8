"""Reading the notes of an identify request: names with or without octave (``"E3"``,
``"Bb"``), MIDI numbers (integers 0..127, or their digits as text), or pitch classes (0..11).

Every note is kept as a ``Sounding`` (its pitch class, its spelling when it was named, its
MIDI number when it has one), so that ranking can read the bass (the lowest note when every
note has a pitch) and the spelling (a diminished seventh's root is the note its thirds stack
from).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from engine.chords import Spelled, midi_of, parse_note_octave, parse_spelled
from engine.errors import InvalidRequest
from engine.identify.naming import letter_bit
from engine.requests import as_int

MAX_NOTES = 32
_EXPECTED = "a note name (A-G with # or b, optionally an octave: 'Eb', 'F#3') or a MIDI number 0-127"


class Sounding(NamedTuple):
    pc: int
    spelled: Spelled | None   # None for a MIDI number or a pitch class
    midi: int | None          # None for a name without octave or a pitch class
    text: str                 # as it is echoed: the name as given (trimmed), or the number
    name: str | None = None   # the spelling's name (``spelled.name``), None when unnamed
    at: int = -1              # the spelling as letter * 5 + alteration + 2, -1 when unnamed


def read_note(value: Any, field: str) -> Sounding:
    """One note of ``field``; ``InvalidRequest`` naming it when it does not read."""
    if isinstance(value, str | int) and not isinstance(value, bool):
        try:
            return _known(value)
        except _Unread:
            pass
    return _read(value, field)


class _Unread(Exception):
    pass


@lru_cache(maxsize=2048)
def _known(value: str | int) -> Sounding:
    """``_read`` kept per note (a chord's notes repeat: 2 µs a name read each time)."""
    try:
        return _read(value, "")
    except InvalidRequest:
        raise _Unread from None


def _read(value: Any, field: str) -> Sounding:
    number = as_int(value) if not isinstance(value, str) else (
        int(value.strip()) if value.strip().isdigit() else None)
    if number is not None:
        if not 0 <= number <= 127:
            raise InvalidRequest(f"note {value!r} in field '{field}' is not {_EXPECTED}",
                                 field=field)
        return Sounding(number % 12, None, number, str(number))
    if not isinstance(value, str) or not value.strip():
        raise InvalidRequest(f"note {value!r} in field '{field}' is not {_EXPECTED}",
                             field=field)
    text = value.strip()
    try:
        spelled, midi = parse_note_octave(text)
    except ValueError:
        try:
            spelled, midi = parse_spelled(text), None
        except ValueError:
            raise InvalidRequest(f"note {text!r} in field '{field}' is not {_EXPECTED}",
                                 field=field) from None
    if midi is not None and not 0 <= midi <= 127:
        raise InvalidRequest(f"note {text!r} in field '{field}' is outside MIDI 0-127",
                             field=field)
    return Sounding(spelled.pc, spelled, midi, text, spelled.name,
                    spelled.letter * 5 + spelled.alter + 2)


def read_notes(value: Any, field: str = "notes") -> list[Sounding]:
    """The notes of ``field``: a list of names and MIDI numbers."""
    items = value
    if not isinstance(items, list):
        raise InvalidRequest(f"field '{field}' must be a list of notes", field=field)
    if not items:
        raise InvalidRequest(f"field '{field}' must contain at least one note", field=field)
    if len(items) > MAX_NOTES:
        raise InvalidRequest(f"field '{field}' has more than {MAX_NOTES} notes", field=field)
    return [_MIDI[item] if type(item) is int and 0 <= item <= 127 else read_note(item, field)
            for item in items]


def read_pcs(value: Any, field: str = "pcs") -> list[Sounding]:
    """Pitch classes 0..11 (a list of integers)."""
    if not isinstance(value, list) or not value:
        raise InvalidRequest(f"field '{field}' must be a non-empty list of pitch classes 0-11",
                             field=field)
    if len(value) > MAX_NOTES:
        raise InvalidRequest(f"field '{field}' has more than {MAX_NOTES} items", field=field)
    out = []
    for item in value:
        if type(item) is int and 0 <= item <= 11:
            out.append(_PITCH_CLASSES[item])
            continue
        pc = as_int(item)
        if pc is None or not 0 <= pc <= 11:
            raise InvalidRequest(f"pitch class {item!r} in field '{field}' is not an integer "
                                 "0-11", field=field)
        out.append(Sounding(pc, None, None, str(pc)))
    return out


Spelling = tuple[dict[int, int], int, int]
"""The notes named: pitch class -> its spelling (its first: ``Sounding.at``), their letters
(the sum of each one's ``naming.letter_bit``), and their set."""


def spelling_of(at: dict[int, int]) -> Spelling:
    """``Spelling`` of the spellings ``at`` (pitch class -> ``Sounding.at``)."""
    letters = named = 0
    for pc, spelled in at.items():
        letters |= letter_bit(pc, spelled // 5)
        named |= 1 << pc
    return at, letters, named


def plain_note(value: Any) -> Sounding | None:
    """``read_note`` for a MIDI number or a note name read by lookup, None for anything else."""
    kind = type(value)
    if kind is not int and kind is not str:   # a bool is not a note
        return None
    found = NAMED.get(value)
    if found is None:
        try:
            found = _known(value)
        except _Unread:
            return None
    return found


_PITCH_CLASSES = tuple(Sounding(pc, None, None, str(pc)) for pc in range(12))
_MIDI = tuple(Sounding(n % 12, None, n, str(n)) for n in range(128))
_TEXT = tuple(str(n) for n in range(128))


def _named() -> dict[str | int, Sounding]:
    """Every MIDI number, and every name A-G with '', '#', 'b', '##' or 'bb', without octave and
    in each octave -1..9 whose MIDI number is 0..127: what ``_read`` reads (a test compares)."""
    out: dict[str | int, Sounding] = dict(enumerate(_MIDI))
    for letter, name in enumerate("CDEFGAB"):
        for alter, accidental in ((-2, "bb"), (-1, "b"), (0, ""), (1, "#"), (2, "##")):
            sp = Spelled(letter, alter)
            text = name + accidental
            at = letter * 5 + alter + 2
            out[text] = Sounding(sp.pc, sp, None, text, text, at)
            for octave in range(-1, 10):
                midi = midi_of(sp, octave)
                if 0 <= midi <= 127:
                    out[f"{text}{octave}"] = Sounding(sp.pc, sp, midi, f"{text}{octave}", text,
                                                      at)
    return out


NAMED = _named()
"""A note as given (an int, or a name as written) -> the note read."""


def lowest(notes: list[Sounding]) -> Sounding | None:
    """The bass as sounded: the lowest note when every note has a pitch, else None."""
    if not notes or any(n.midi is None for n in notes):
        return None
    return min(notes, key=lambda n: n.midi if n.midi is not None else 0)
