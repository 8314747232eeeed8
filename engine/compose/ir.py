"""The composition IR (API.md 13): plain JSON the client keeps, checked on the way in.

    {"version": 1,
     "meta": {"title", "composer", "key", "mode", "tempo", "timeSignature", "ppq": 480,
              "style", "swing"},
     "sections": [{"id", "name", "bars", "timeSignature"?, "tempo"?, "key"?,
                   "chords": [{"bar", "beat", "symbol"}]}],
     "form": ["A", "A", "B", "A"],
     "tracks": [{"id", "role", "program", "channel",
                 "events": {"<section id>": [[tick, duration, pitch, velocity], ...]}}]}

Ticks count from the start of their section at 480 per quarter note; bars and beats are
1-based. ``check`` raises ``InvalidRequest`` naming the field (``sections[1].chords[3].beat``)
relative to the composition; the caller puts it under ``operations[i]`` or ``composition``.
"""

from __future__ import annotations

import math
import re
from typing import Any

from engine.chords import Chord, parse, parse_key
from engine.errors import HarmonyError, InvalidChord, InvalidRequest

PPQ = 480
MAX_BARS = 1024
MAX_EVENTS = 200_000
MAX_SECTIONS = 64
ROLES = ("harmony", "pattern", "bass", "drums", "melody")
SECTION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.'-]{0,15}$")
DEFAULT_META = {"title": "Untitled", "composer": "", "key": "C", "mode": "major",
                "tempo": 120.0, "timeSignature": "4/4", "ppq": PPQ, "style": "swing",
                "swing": 0.5}
Composition = dict[str, Any]


def new_composition() -> Composition:
    return {"version": 1, "meta": dict(DEFAULT_META), "sections": [], "form": [], "tracks": []}


def meter(text: Any, field: str) -> tuple[int, int]:
    """'4/4' -> (4, 4): 1-16 beats of a 1, 2, 4, 8 or 16 note."""
    if isinstance(text, str):
        top, _, bottom = text.partition("/")
        if top.isdigit() and bottom.isdigit() and 1 <= int(top) <= 16 \
                and int(bottom) in (1, 2, 4, 8, 16):
            return int(top), int(bottom)
    raise InvalidRequest(f"field '{field}' must be a time signature such as '4/4' or '6/8'",
                         field=field)


def bar_ticks(signature: str) -> int:
    top, bottom = meter(signature, "timeSignature")
    return top * PPQ * 4 // bottom


def section_meter(comp: Composition, section: dict[str, Any]) -> str:
    return str(section.get("timeSignature") or comp["meta"]["timeSignature"])


def section_ticks(comp: Composition, section: dict[str, Any]) -> int:
    return int(section["bars"]) * bar_ticks(section_meter(comp, section))


def beat_tick(comp: Composition, section: dict[str, Any], bar: int, beat: float) -> int:
    top, bottom = meter(section_meter(comp, section), "timeSignature")
    return round((bar - 1) * top * PPQ * 4 / bottom + (beat - 1) * PPQ * 4 / bottom)


def by_id(comp: Composition) -> dict[str, dict[str, Any]]:
    return {s["id"]: s for s in comp["sections"]}


def chord_spans(comp: Composition, section: dict[str, Any]) -> list[tuple[int, int, str]]:
    """(start tick, length in ticks, symbol) of a section's chords, in time order; a chord
    lasts until the next one or the section's end."""
    chords = sorted(section["chords"], key=lambda c: (c["bar"], c["beat"]))
    starts = [beat_tick(comp, section, c["bar"], c["beat"]) for c in chords]
    end = section_ticks(comp, section)
    return [(t, (starts[i + 1] if i + 1 < len(starts) else end) - t, c["symbol"])
            for i, (t, c) in enumerate(zip(starts, chords, strict=True))]


def progression_bars(text: str, field: str) -> list[list[str]]:
    """'Dm7 G7 | Cmaj7' -> [['Dm7', 'G7'], ['Cmaj7']]; every symbol checked by the parser."""
    bars = [b.split() for b in text.split("|")]
    bars = [b for b in bars if b]
    if not bars:
        raise InvalidRequest(f"field '{field}' has no chords", field=field)
    index = 0
    for bar in bars:
        for symbol in bar:
            if symbol not in ("NC", "N.C."):
                try:
                    parse(symbol)
                except InvalidChord as e:
                    error = e.at_index(index)
                    error.details["field"] = field
                    raise error from None
            index += 1
    return bars


def chords_of_bars(bars: list[list[str]], beats: int, field: str) -> list[dict[str, Any]]:
    """Bars of symbols as chord entries: the chords of a bar share its beats, the first ones
    longer (three in 4/4: beats 1, 3, 4), as conduct places them."""
    out = []
    for b, bar in enumerate(bars):
        if len(bar) > beats:
            raise InvalidRequest(f"bar {b + 1} of '{field}' has {len(bar)} chords but only "
                                 f"{beats} beats", field=field)
        for i, symbol in enumerate(bar):
            if symbol not in ("NC", "N.C."):
                out.append({"bar": b + 1, "beat": 1 + math.ceil(i * beats / len(bar)),
                            "symbol": symbol})
    return out


def check(comp: Any) -> Composition:
    """``comp`` if it is a valid composition; ``InvalidRequest`` naming the field otherwise."""
    if not isinstance(comp, dict):
        raise InvalidRequest("a composition is an object", field="")
    if comp.get("version") != 1:
        raise InvalidRequest("field 'version' must be 1", field="version")
    meta = comp.get("meta")
    if not isinstance(meta, dict):
        raise InvalidRequest("field 'meta' must be an object", field="meta")
    _check_meta(meta, "meta")
    sections = comp.get("sections")
    if not isinstance(sections, list) or len(sections) > MAX_SECTIONS:
        raise InvalidRequest(f"field 'sections' must be a list of at most {MAX_SECTIONS}",
                             field="sections")
    ids: set[str] = set()
    for i, section in enumerate(sections):
        _check_section(comp, section, f"sections[{i}]", ids)
    form = comp.get("form")
    if not isinstance(form, list) or not all(isinstance(f, str) for f in form):
        raise InvalidRequest("field 'form' must be a list of section ids", field="form")
    for i, name in enumerate(form):
        if name not in ids:
            raise InvalidRequest(f"form[{i}] names no section: {name!r}", field=f"form[{i}]")
    total = sum(int(by_id(comp)[f]["bars"]) for f in form)
    if total > MAX_BARS:
        raise InvalidRequest(f"the form plays {total} bars; at most {MAX_BARS}", field="form")
    tracks = comp.get("tracks")
    if not isinstance(tracks, list):
        raise InvalidRequest("field 'tracks' must be a list", field="tracks")
    events = 0
    track_ids: set[str] = set()
    for t, track in enumerate(tracks):
        events += _check_track(comp, track, f"tracks[{t}]", ids, track_ids)
    if events > MAX_EVENTS:
        raise InvalidRequest(f"the tracks hold {events} events; at most {MAX_EVENTS}",
                             field="tracks")
    return comp


def _check_meta(meta: dict[str, Any], where: str) -> None:
    for name in ("title", "composer", "style"):
        if not isinstance(meta.get(name), str) or len(meta[name]) > 200:
            raise InvalidRequest(f"field '{where}.{name}' must be a string", field=f"{where}.{name}")
    _check_key(meta.get("key"), f"{where}.key")
    if meta.get("mode") not in ("major", "minor"):
        raise InvalidRequest(f"field '{where}.mode' must be major or minor", field=f"{where}.mode")
    _check_tempo(meta.get("tempo"), f"{where}.tempo")
    meter(meta.get("timeSignature"), f"{where}.timeSignature")
    if meta.get("ppq") != PPQ:
        raise InvalidRequest(f"field '{where}.ppq' must be {PPQ}", field=f"{where}.ppq")
    swing = meta.get("swing")
    if isinstance(swing, bool) or not isinstance(swing, int | float) or not 0.5 <= swing <= 0.75:
        raise InvalidRequest(f"field '{where}.swing' must be a number from 0.5 to 0.75",
                             field=f"{where}.swing")


def _check_key(key: Any, field: str) -> None:
    if not isinstance(key, str):
        raise InvalidRequest(f"field '{field}' must be a key such as 'F' or 'Dm'", field=field)
    try:
        parse_key(key)
    except HarmonyError as e:
        raise InvalidRequest(f"field '{field}': {e.message}", field=field) from None


def _check_tempo(tempo: Any, field: str) -> None:
    if isinstance(tempo, bool) or not isinstance(tempo, int | float) or not 20 <= tempo <= 400:
        raise InvalidRequest(f"field '{field}' must be beats per minute from 20 to 400",
                             field=field)


def _check_section(comp: Composition, section: Any, where: str, ids: set[str]) -> None:
    if not isinstance(section, dict):
        raise InvalidRequest(f"field '{where}' must be an object", field=where)
    sid = section.get("id")
    if not isinstance(sid, str) or not SECTION_ID.match(sid):
        raise InvalidRequest(f"field '{where}.id' must be 1-16 letters, digits or . _ ' -",
                             field=f"{where}.id")
    if sid in ids:
        raise InvalidRequest(f"section id {sid!r} is used twice", field=f"{where}.id")
    ids.add(sid)
    if not isinstance(section.get("name"), str):
        raise InvalidRequest(f"field '{where}.name' must be a string", field=f"{where}.name")
    bars = section.get("bars")
    if isinstance(bars, bool) or not isinstance(bars, int) or not 1 <= bars <= MAX_BARS:
        raise InvalidRequest(f"field '{where}.bars' must be 1 to {MAX_BARS}",
                             field=f"{where}.bars")
    if section.get("timeSignature") is not None:
        meter(section["timeSignature"], f"{where}.timeSignature")
    if section.get("tempo") is not None:
        _check_tempo(section["tempo"], f"{where}.tempo")
    if section.get("key") is not None:
        _check_key(section["key"], f"{where}.key")
    chords = section.get("chords")
    if not isinstance(chords, list):
        raise InvalidRequest(f"field '{where}.chords' must be a list", field=f"{where}.chords")
    top, _ = meter(section_meter(comp, section), f"{where}.timeSignature")
    for c, chord in enumerate(chords):
        here = f"{where}.chords[{c}]"
        if not isinstance(chord, dict):
            raise InvalidRequest(f"field '{here}' must be an object", field=here)
        bar, beat, symbol = chord.get("bar"), chord.get("beat"), chord.get("symbol")
        if isinstance(bar, bool) or not isinstance(bar, int) or not 1 <= bar <= bars:
            raise InvalidRequest(f"field '{here}.bar' must be 1 to {bars}", field=f"{here}.bar")
        if isinstance(beat, bool) or not isinstance(beat, int | float) or not 1 <= beat < top + 1:
            raise InvalidRequest(f"field '{here}.beat' must be from 1 to below {top + 1}",
                                 field=f"{here}.beat")
        if not isinstance(symbol, str):
            raise InvalidRequest(f"field '{here}.symbol' must be a chord symbol",
                                 field=f"{here}.symbol")
        try:
            parse(symbol)
        except InvalidChord as e:
            e.details["field"] = f"{here}.symbol"
            raise


def _check_track(comp: Composition, track: Any, where: str, ids: set[str],
                 track_ids: set[str]) -> int:
    if not isinstance(track, dict):
        raise InvalidRequest(f"field '{where}' must be an object", field=where)
    tid = track.get("id")
    if not isinstance(tid, str) or not tid or len(tid) > 32 or tid in track_ids:
        raise InvalidRequest(f"field '{where}.id' must be a new name of 1-32 characters",
                             field=f"{where}.id")
    track_ids.add(tid)
    if track.get("role") not in ROLES:
        raise InvalidRequest(f"field '{where}.role' must be one of {', '.join(ROLES)}",
                             field=f"{where}.role")
    for name, high in (("program", 127), ("channel", 15)):
        value = track.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
            raise InvalidRequest(f"field '{where}.{name}' must be 0 to {high}",
                                 field=f"{where}.{name}")
    events = track.get("events")
    if not isinstance(events, dict):
        raise InvalidRequest(f"field '{where}.events' must be an object by section id",
                             field=f"{where}.events")
    count = 0
    sections = by_id(comp)
    for sid, rows in events.items():
        here = f"{where}.events.{sid}"
        if sid not in ids:
            raise InvalidRequest(f"field '{here}' names no section", field=here)
        if not isinstance(rows, list):
            raise InvalidRequest(f"field '{here}' must be a list", field=here)
        length = section_ticks(comp, sections[sid])
        for e, row in enumerate(rows):
            if not (isinstance(row, list) and len(row) == 4
                    and all(isinstance(v, int) and not isinstance(v, bool) for v in row)):
                raise InvalidRequest(f"field '{here}[{e}]' must be [tick, duration, pitch, "
                                     "velocity] integers", field=f"{here}[{e}]")
            tick, duration, pitch, velocity = row
            if not (0 <= tick < length and 1 <= duration <= 16 * length and 0 <= pitch <= 127
                    and 1 <= velocity <= 127):
                raise InvalidRequest(f"field '{here}[{e}]' is out of range (tick within the "
                                     "section, duration >= 1, pitch 0-127, velocity 1-127)",
                                     field=f"{here}[{e}]")
        count += len(rows)
    return count


def chord_of(symbol: str) -> Chord:
    return parse(symbol)
