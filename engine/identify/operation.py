"""The ``identify`` operation (API.md 17): notes -> the chord symbols that name them, ranked.

``{"notes": ["E3", "G3", "B3", "D4"]}`` -> ``{"notes": [...], "bass": "E", "readings": [...]}``;
each reading is a symbol of our grammar with its root, quality, bass and inversion, the notes it
explains, the chord tones it leaves out and the notes it does not explain, and with a ``key``
its numeral and function as ``analyze`` gives them.
"""

from __future__ import annotations

from typing import Any

from engine.chords import Key, parse_key
from engine.errors import InvalidRequest
from engine.identify.answer import identify_notes
from engine.identify.notes import (
    Sounding,
    lowest,
    plain_note,
    plain_notes,
    read_note,
    read_notes,
    read_pcs,
)
from engine.requests import MAX_SYMBOL, get_str, require_object

IDENTIFY_FIELDS = ("notes", "pcs", "bass", "key", "keyContext", "midi", "musicxml")


def identify(request: Any) -> dict[str, Any]:
    """``{"notes": ["B", "D", "F", "A"], "key": "C"}`` -> readings, ``G9`` (rootless) first."""
    if type(request) is dict:
        plain = _plain(request)
        if plain is not None:
            return identify_notes(*plain)
    return _identify(request)


def _plain(request: dict[str, Any]) -> tuple[list[Sounding], Sounding | None, Key | None] | None:
    """The notes, bass and key of a request of the common forms (``notes`` or ``pcs``, a
    ``bass``, a ``key``), each note read by one lookup and the request's checks folded into
    that pass (they were a third of a call); None for anything else, read in full where its
    error is named. A key that does not read raises here as there."""
    field = "pcs" if "pcs" in request else "notes"
    bass, key_text = request.get("bass"), request.get("key")
    if len(request) != 1 + ("bass" in request) + ("key" in request):
        return None   # another field, or none
    read = plain_notes(field, request.get(field))
    if read is None:
        return None
    notes, low = read
    if bass is not None:
        bass = plain_note(bass)
        if bass is None:
            return None
    else:
        bass = low
    if key_text is None:
        return notes, bass, None
    if type(key_text) is not str or len(key_text) > MAX_SYMBOL:
        return None
    return notes, bass, parse_key(key_text)


def _identify(request: Any) -> dict[str, Any]:
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
    return identify_notes(notes, bass, key)


__all__ = ["IDENTIFY_FIELDS", "identify", "identify_notes"]
