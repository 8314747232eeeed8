"""The common forms of an identify request read by lookup, one note a table lookup.

Pitch classes, MIDI numbers and note names (with or without octave) are read straight into
what ``engine.identify.answer`` reads (``Heard``): the set, each pitch class once in the order
given, the names given and their spelling, the bass. Names of distinct pitch classes are read
in one short pass (``_notes_read``: a name is one lookup in ``_NAMES``, a pitch class named
again is found once at the end by the set's bit count), anything else one note at a time
(``_named_notes``); what does not read that way is None, read in full by the caller where
its error is named. Reading a list in C instead (``map`` over the tables, ``dict.fromkeys``
for the order, ``zip`` to split the fields) was measured slower on Python 3.11: ~36,000
instructions for 7 names against ~22,000 (valgrind), a slot wrapper's call costing more than
the loop's lookup.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from engine.identify.naming import letter_bit
from engine.identify.notes import (
    _TEXT,
    MAX_NOTES,
    NAMED,
    Sounding,
    Spelling,
    plain_note,
    spelling_of,
)

Heard = tuple[list[str], int, list[int], list[str | None] | None, Spelling | None, int,
              str | None]
"""A request's notes as ``engine.identify.answer`` reads them: the notes as echoed, the set
(bass included), each pitch class once in the order given (the bass last when it is not among
them), the name each was first given (None: the reading names it; the list None when no note
is named), their ``Spelling`` (None when none is named), the bass's pitch class (-1: none) and
its name as given."""

Note = tuple[int, int, int | None, str, str | None, int, int]
"""A note as read here: pitch class, its bit, MIDI number, text, name, spelling
(``Sounding.at``) and its letter as a bit (``naming.letter_bit``; 0 unnamed)."""


def plain_heard(field: str, value: Any, bass: Any) -> Heard | None:
    """What ``read_pcs`` (``field`` "pcs") or ``read_notes`` ("notes") and ``read_note`` for
    ``bass`` read, as ``Heard``, the bass the lowest note when none is given and every note
    has a pitch; for plain items alone, each read by one lookup: pitch classes 0..11, MIDI
    numbers 0..127 and note names (every name ``NAMED`` holds, and those read before). None
    for anything else (read it in full, where its error is named)."""
    if type(value) is not list or not 0 < len(value) <= MAX_NOTES:
        return None
    if bass is None and field != "pcs" and type(value[0]) is str:
        return _notes_read(value)   # names, the lowest the bass: read as they are
    mask, heard, texts = 0, [], []
    given: list[str | None] | None = None
    spelling: Spelling | None = None
    low_name = None
    if field == "pcs":
        for item in value:
            if type(item) is not int or not 0 <= item <= 11:
                return None
            texts.append(_TEXT[item])
            if not mask >> item & 1:
                mask |= 1 << item
                heard.append(item)
        low = -1
    else:
        for item in value:   # MIDI numbers alone: a keyboard, a file
            if type(item) is not int or not 0 <= item <= 127:
                read = _notes_read(value)
                if read is None:
                    return None
                texts, mask, heard, given, spelling, low, low_name = read
                break
            texts.append(_TEXT[item])   # an append in the loop: ~1/3 of a map over the table
            pc = item % 12
            if not mask >> pc & 1:
                mask |= 1 << pc
                heard.append(pc)
        else:
            low = min(value) % 12
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
                spelling = at, letters | letter_bit(b, found.at // 5), named | 1 << b
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
    get = _NAMES.get
    try:
        for item in value:
            found = get(item)
            if found is None:   # not a name of the table
                return _named_notes(value)
            pc, bit, midi, name, at[pc], letter = found
            mask |= bit
            heard.append(pc)
            given.append(name)
            letters |= letter
            if midi < lowest:   # a name without octave is below all: no bass sounded
                lowest, low, low_name = midi, pc, name
    except TypeError:   # an item no dict holds (a list): read in full, where it is named
        return None
    if mask.bit_count() != len(heard):   # a pitch class named again: one note at a time
        return _named_notes(value)
    if lowest < 0:
        low, low_name = -1, None
    return [*value], mask, heard, given, (at, letters, mask), low, low_name


def _named_notes(value: list[Any]) -> Heard | None:
    """``plain_heard``'s notes one at a time, when they are not names of distinct pitch
    classes alone: (texts, mask, heard, given, spelling, the lowest note's pitch class or -1,
    its name)."""
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


def _as_note(n: Sounding) -> Note:
    return (n.pc, 1 << n.pc, n.midi, n.text, n.name, n.at,
            0 if n.at < 0 else letter_bit(n.pc, n.at // 5))


@lru_cache(maxsize=2048)
def _note(value: str | int) -> Note | None:
    """``_as_note`` of a note read by ``plain_note``; None for what does not read."""
    found = plain_note(value)
    return None if found is None else _as_note(found)


_NO_OCTAVE = -1000   # below every MIDI number: the lowest, and no bass
_NOTES: dict[str | int, Note] = {value: _as_note(n) for value, n in NAMED.items()}
"""A note as given (an int, or a name as written) -> the note read."""
_NAMES: dict[str, tuple[int, int, int, str | None, int, int]] = {
    value: (pc, bit, _NO_OCTAVE if midi is None else midi, name, at, letter)
    for value, (pc, bit, midi, _, name, at, letter) in _NOTES.items() if type(value) is str}
"""A name (with or without octave) -> what ``_notes_read`` reads of it: pitch class, its bit,
MIDI number (``_NO_OCTAVE`` without octave), name, spelling and letter (``Note``)."""
