"""The ``identify`` operation (API.md 17): notes -> the chord symbols that name them, ranked.

``{"notes": ["E3", "G3", "B3", "D4"]}`` -> ``{"notes": [...], "bass": "E", "readings": [...]}``;
each reading is a symbol of our grammar with its root, quality, bass and inversion, the notes it
explains, the chord tones it leaves out and the notes it does not explain, and with a ``key``
its numeral and function as ``analyze`` gives them.
"""

from __future__ import annotations

from typing import Any

from engine.chords import parse_key
from engine.errors import InvalidRequest
from engine.identify.answer import answer, identify_notes
from engine.identify.heard import plain_heard
from engine.identify.notes import lowest, read_note, read_notes, read_pcs
from engine.identify.roles import text_roles
from engine.requests import MAX_SYMBOL, get_str, require_object

IDENTIFY_FIELDS = ("notes", "pcs", "bass", "key", "keyContext", "midi", "musicxml")


def identify(request: Any) -> dict[str, Any]:
    """``{"notes": ["B", "D", "F", "A"], "key": "C"}`` -> readings, ``G9`` (rootless) first."""
    if type(request) is dict:
        # the common forms (``notes`` or ``pcs``, a ``bass``, a ``key``), each note read by
        # one lookup and the request's checks folded into that pass (they were a third of a
        # call); anything else is read in full, where its error is named
        field = "pcs" if "pcs" in request else "notes"
        key_text = request.get("key")
        if len(request) == 1 + ("bass" in request) + ("key" in request) and (
                key_text is None or (type(key_text) is str and len(key_text) <= MAX_SYMBOL)):
            heard = plain_heard(field, request.get(field), request.get("bass"))
            if heard is not None:   # a key that does not read raises here as there
                return answer(*heard, None if key_text is None else text_roles(key_text))
    return _identify(request)


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
