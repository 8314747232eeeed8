"""The ``identify`` operation (API.md 17): notes -> the chord symbols that name them, ranked.

``{"notes": ["E3", "G3", "B3", "D4"]}`` -> ``{"notes": [...], "bass": "E", "readings": [...]}``;
each reading is a symbol of our grammar with its root, quality, bass and inversion, the notes it
explains, the chord tones it leaves out and the notes it does not explain, and with a ``key``
its numeral and function as ``analyze`` gives them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from engine.chords import parse_key
from engine.errors import HarmonyError, InvalidRequest
from engine.identify.answer import copy_answer, identify_notes, plain_answer
from engine.identify.notes import lowest, plain_numbers, read_note, read_notes, read_pcs
from engine.requests import MAX_SYMBOL, get_str, require_object

IDENTIFY_FIELDS = ("notes", "pcs", "bass", "key", "keyContext", "midi", "musicxml")


def identify(request: Any) -> dict[str, Any]:
    """``{"notes": ["B", "D", "F", "A"], "key": "C"}`` -> readings, ``G9`` (rootless) first."""
    # Pitch classes or MIDI numbers (and a bass number) without a key: read and answered from
    # the tables alone, the request's checks folded into one pass over its items (they were a
    # third of the call).
    if type(request) is dict and len(request) <= 2:
        field = "pcs" if "pcs" in request else "notes"
        value = request.get(field)
        if type(value) is list and (len(request) == 1 or type(request.get("bass")) is int):
            plain = plain_numbers(field, value, request.get("bass"))
            if plain is not None:
                return plain_answer(*plain)
    # A request of plain names (and numbers) is answered from the answers kept by its values:
    # reading the names again costs more than the rest of a repeated call. MIDI numbers alone
    # without a key are read and answered from the tables faster than a kept answer is copied.
    if type(request) is dict and len(request) <= 2 and type(request.get("notes")) is list:
        key_text = request.get("key")
        if len(request) == 1 or type(key_text) is str:
            notes = request["notes"]
            if all(type(n) is str or type(n) is int for n in notes) and (
                    key_text is not None or any(type(n) is str for n in notes)):
                try:
                    return copy_answer(_by_values(tuple(notes), key_text))
                except _NotPlain:
                    pass
    return _identify(request)


class _NotPlain(Exception):
    """A request the plain path does not answer: read it in full (its error is named there)."""


@lru_cache(maxsize=4096)
def _by_values(notes: tuple[str | int, ...], key_text: str | None) -> dict[str, Any]:
    try:
        return _identify({"notes": list(notes), "key": key_text}, copy=False)
    except HarmonyError:
        raise _NotPlain from None


def _identify(request: Any, copy: bool = True) -> dict[str, Any]:
    req = require_object(request, IDENTIFY_FIELDS)
    key_text = get_str(req, "key", max_len=MAX_SYMBOL, aliases=("keyContext",))
    key = None if key_text is None else parse_key(key_text)
    if req.get("midi") is not None or req.get("musicxml") is not None:
        if req.get("notes") is not None or req.get("pcs") is not None:
            raise InvalidRequest("give notes or a file, not both", field="notes")
        from engine.identify.files import analyze_music, music_of
        music = music_of(req)
        assert music is not None
        return analyze_music(music, key_text)
    if req.get("notes") is not None:
        if req.get("pcs") is not None:
            raise InvalidRequest("give either 'notes' or 'pcs', not both", field="pcs")
        notes = read_notes(req["notes"])
    elif req.get("pcs") is not None:
        notes = read_pcs(req["pcs"])
    else:
        raise InvalidRequest("field 'notes' is required (or 'pcs')", field="notes")
    bass = read_note(req["bass"], "bass") if req.get("bass") is not None else lowest(notes)
    return identify_notes(notes, bass, key, fresh=copy)


__all__ = ["IDENTIFY_FIELDS", "identify", "identify_notes"]
