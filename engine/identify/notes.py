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
"""The notes named: pitch class -> its spelling (its first: ``Sounding.at``), each one's letter
in 3 bits at 3 * its pitch class (``naming.Spelt.letters``), and their set."""
Heard = tuple[list[str], int, list[int], list[str | None] | None, Spelling | None, int,
              str | None]
"""A request's notes as ``engine.identify.answer`` reads them: the notes as echoed, the set
(bass included), each pitch class once in the order given (the bass last when it is not among
them), the name each was first given (None: the reading names it; the list None when no note
is named), their ``Spelling`` (None when none is named), the bass's pitch class (-1: none) and
its name as given."""


def spelling_of(at: dict[int, int]) -> Spelling:
    """``Spelling`` of the spellings ``at`` (pitch class -> ``Sounding.at``)."""
    letters = named = 0
    for pc, spelled in at.items():
        letters |= spelled // 5 << 3 * pc
        named |= 1 << pc
    return at, letters, named


def plain_heard(field: str, value: Any, bass: Any) -> Heard | None:
    """What ``read_pcs`` (``field`` "pcs") or ``read_notes`` ("notes") and ``read_note`` for
    ``bass`` read, as ``Heard``, the bass the lowest note when none is given and every note
    has a pitch; for plain items alone, each read by one lookup: pitch classes 0..11, MIDI
    numbers 0..127 and note names (every name ``NAMED`` holds, and those read before). None
    for anything else (read it in full, where its error is named)."""
    if type(value) is not list or not 0 < len(value) <= MAX_NOTES:
        return None
    mask, heard = 0, []
    given: list[str | None] | None = None
    spelling: Spelling | None = None
    if field == "pcs":
        for item in value:
            if type(item) is not int or not 0 <= item <= 11:
                return None
            if not mask >> item & 1:
                mask |= 1 << item
                heard.append(item)
        texts, low, low_name = [*map(_TEXT.__getitem__, value)], -1, None
    else:
        for item in value:   # MIDI numbers alone: a keyboard, a file
            if type(item) is not int or not 0 <= item <= 127:
                read = _notes_read(value)
                if read is None:
                    return None
                texts, mask, heard, given, spelling, low, low_name = read
                break
            pc = item % 12
            if not mask >> pc & 1:
                mask |= 1 << pc
                heard.append(pc)
        else:
            texts, low, low_name = [*map(_TEXT.__getitem__, value)], min(value) % 12, None
    bass_given = None
    if bass is None:
        b, bass_given = low, low_name
    elif type(bass) is int and 0 <= bass <= 127:
        b = bass % 12
    else:
        found = plain_note(bass)
        if found is None:
            return None
        b, bass_given = found.pc, found.name
        if found.at >= 0:
            if spelling is None:
                given, spelling = [None] * len(heard), spelling_of({b: found.at})
            elif b not in spelling[0]:
                at, letters, named = spelling
                at[b] = found.at
                spelling = at, letters | found.at // 5 << 3 * b, named | 1 << b
    if b >= 0 and not mask >> b & 1:
        mask |= 1 << b
        heard.append(b)
        if given is not None:
            given.append(bass_given)
    return texts, mask, heard, given, spelling, b, bass_given


def _notes_read(value: list[Any]) -> tuple[list[str], int, list[int],
                                           list[str | None] | None, Spelling | None, int,
                                           str | None] | None:
    """``plain_heard``'s notes (texts, mask, heard, given, spelling, the lowest note's pitch
    class or -1, its name), None when one does not read by lookup. Names of distinct pitch
    classes (a chord as written) are read in one short pass; anything else one note at a
    time (``_named_notes``). A name is a string: a bool or a float never reads as one."""
    heard: list[int] = []
    given: list[str | None] = []
    at: dict[int, int] = {}
    mask = letters = 0
    lowest, low, low_name = 128, -1, None
    get = _NOTES.get
    try:
        for item in value:
            found = get(item)
            if found is None or found[5] < 0 or mask & found[1]:   # not a name, or again
                return _named_notes(value)
            pc, bit, midi, _, name, at[pc], letter = found
            mask |= bit
            heard.append(pc)
            given.append(name)
            letters |= letter
            if midi is None:
                lowest = -1
            elif midi < lowest:
                lowest, low, low_name = midi, pc, name
    except TypeError:   # an item no dict holds (a list): read in full, where it is named
        return None
    if lowest < 0:
        low, low_name = -1, None
    return [*value], mask, heard, given, (at, letters, mask), low, low_name


_PLAIN_TYPES = frozenset({str, int})


def _named_notes(value: list[Any]) -> tuple[list[str], int, list[int], list[str | None] | None,
                                            Spelling | None, int, str | None] | None:
    """``plain_heard``'s notes when they are not MIDI numbers alone: (texts, mask, heard,
    given, spelling, the lowest note's pitch class or -1, its name)."""
    texts: list[str] = []
    heard: list[int] = []
    given: list[str | None] = []
    at: dict[int, int] = {}
    mask, low, lowest, low_name, letters, named = 0, -1, 128, None, 0, 0
    get = _NOTES.get
    for item in value:
        kind = type(item)
        found = get(item) if kind is str or kind is int else None   # a bool is not a note
        if found is None:
            found = _note(item) if kind is str or kind is int else None
            if found is None:
                return None
        pc, bit, midi, text, name, spelling, letter = found
        texts.append(text)
        if not mask & bit:
            mask |= bit
            heard.append(pc)
            given.append(name)
        if spelling >= 0 and not named & bit:
            at[pc] = spelling
            letters |= letter
            named |= bit
        if midi is None:
            lowest = -1
        elif midi < lowest:
            lowest, low, low_name = midi, pc, name
    if lowest < 0:
        low, low_name = -1, None
    if not named:
        return texts, mask, heard, None, None, low, low_name
    return texts, mask, heard, given, (at, letters, named), low, low_name


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


Note = tuple[int, int, int | None, str, str | None, int, int]
"""A note as ``plain_heard`` reads it: pitch class, its bit, MIDI number, text, name, spelling
(``Sounding.at``) and its letter in 3 bits at 3 * its pitch class (``naming.Spelt.letters``)."""


def _as_note(n: Sounding) -> Note:
    return (n.pc, 1 << n.pc, n.midi, n.text, n.name, n.at,
            0 if n.at < 0 else n.at // 5 << 3 * n.pc)


@lru_cache(maxsize=2048)
def _note(value: str | int) -> Note | None:
    """``_as_note`` of ``_known``; None for what does not read."""
    try:
        return _as_note(_known(value))
    except _Unread:
        return None


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
_NOTES: dict[str | int, Note] = {value: _as_note(n) for value, n in NAMED.items()}


def lowest(notes: list[Sounding]) -> Sounding | None:
    """The bass as sounded: the lowest note when every note has a pitch, else None."""
    if not notes or any(n.midi is None for n in notes):
        return None
    return min(notes, key=lambda n: n.midi if n.midi is not None else 0)
