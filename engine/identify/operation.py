"""The ``identify`` operation (API.md 17): notes -> the chord symbols that name them, ranked.

``{"notes": ["E3", "G3", "B3", "D4"]}`` -> ``{"notes": [...], "bass": "E", "readings": [...]}``;
each reading is a symbol of our grammar with its root, quality, bass and inversion, the notes it
explains, the chord tones it leaves out and the notes it does not explain, and with a ``key``
its numeral and function as ``analyze`` gives them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from engine.analysis.operations import role_of
from engine.chords import Chord, Key, Spelled, parse_key
from engine.chords.notes import mask_of
from engine.errors import HarmonyError, InvalidRequest
from engine.identify.naming import DEFAULT_ROOTS, chord_of, chord_spelling, root_of
from engine.identify.notes import Sounding, lowest, read_note, read_notes, read_pcs
from engine.identify.ranking import Ranked, rank
from engine.requests import MAX_SYMBOL, get_str, require_object

IDENTIFY_FIELDS = ("notes", "pcs", "bass", "key", "keyContext", "midi", "musicxml")
MAX_READINGS = 5


def identify(request: Any) -> dict[str, Any]:
    """``{"notes": ["B", "D", "F", "A"], "key": "C"}`` -> readings, ``G9`` (rootless) first."""
    # A request of plain names and numbers is answered from the answers kept by its values:
    # reading the notes again costs more than the rest of a repeated call.
    if type(request) is dict and len(request) <= 2 and type(request.get("notes")) is list:
        key_text = request.get("key")
        if len(request) == 1 or type(key_text) is str:
            notes = request["notes"]
            if all(type(n) is str or type(n) is int for n in notes):
                try:
                    return _copy(_by_values(tuple(notes), key_text))
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
    kept = _answer(tuple(notes), bass, key)
    return _copy(kept) if copy else kept


def identify_notes(notes: list[Sounding], bass: Sounding | None,
                   key: Key | None) -> dict[str, Any]:
    """The answer for notes already read (the file readers call this per segment): a fresh
    copy of the one answer kept per (notes, bass, key), so a caller may change it."""
    return _copy(_answer(tuple(notes), bass, key))


def _copy(kept: dict[str, Any]) -> dict[str, Any]:
    return {"notes": [*kept["notes"]], "bass": kept["bass"], "readings": [
        {**r, "explains": [*r["explains"]], "omitted": [*r["omitted"]], "added": [*r["added"]]}
        for r in kept["readings"]]}


@lru_cache(maxsize=4096)
def _answer(notes: tuple[Sounding, ...], bass: Sounding | None,
            key: Key | None) -> dict[str, Any]:
    sounding = [*notes, bass] if bass is not None else notes
    mask = mask_of(n.pc for n in sounding)
    spelling: dict[int, Spelled] = {}
    for n in sounding:
        if n.spelled is not None:
            spelling.setdefault(n.pc, n.spelled)
    ranked = rank(mask, None if bass is None else bass.pc, key, spelling or None)
    readings = [_reading(r, notes, bass, spelling, key) for r in ranked[:MAX_READINGS]]
    return {"notes": [n.text for n in notes],
            "bass": None if bass is None else _bass_name(bass, ranked, spelling, key),
            "readings": readings}


def _bass_name(bass: Sounding, ranked: list[Ranked], spelling: dict[int, Spelled],
               key: Key | None) -> str:
    if bass.spelled is not None:
        return bass.spelled.name
    if ranked:
        return chord_spelling(ranked[0], spelling, key).get(bass.pc, DEFAULT_ROOTS[bass.pc]).name
    return DEFAULT_ROOTS[bass.pc].name


def _reading(r: Ranked, notes: tuple[Sounding, ...], bass: Sounding | None,
             spelling: dict[int, Spelled], key: Key | None) -> dict[str, Any]:
    tones = chord_spelling(r, spelling or None, key)
    bass_sp = None
    if r.slash and bass is not None:
        bass_sp = bass.spelled or tones.get(bass.pc) or _unnamed(bass.pc, key)
    chord = chord_of(r, spelling or None, key, bass_sp)
    explains, added, seen = [], [], set()
    for n in [*notes, *([bass] if bass is not None and bass not in notes else [])]:
        if n.pc in seen:
            continue
        seen.add(n.pc)
        name = n.spelled.name if n.spelled is not None else (
            tones.get(n.pc) or _unnamed(n.pc, key)).name
        if n.pc in tones or (r.slash and bass is not None and n.pc == bass.pc):
            explains.append(name)
        else:
            added.append(name)
    omitted = [tones[pc].name for pc in chord.pcs if r.reading.omitted >> pc & 1]
    out: dict[str, Any] = {
        "symbol": chord.canonical, "root": chord.root.name, "quality": chord.quality,
        "bass": chord.bass_name, "inversion": chord.inversion, "rootless": r.rootless,
        "explains": explains, "omitted": omitted, "added": added,
    }
    if key is not None:
        role = role_of(chord, key)
        out["numeral"] = role.numeral
        out["function"] = role.function
    return out


def _unnamed(pc: int, key: Key | None) -> Spelled:
    if key is not None:
        for sp in key.scale:
            if sp.pc == pc:
                return sp
    return DEFAULT_ROOTS[pc]


def chord_name(chord: Chord) -> str:
    return chord.canonical


__all__ = ["IDENTIFY_FIELDS", "identify", "identify_notes", "root_of"]
