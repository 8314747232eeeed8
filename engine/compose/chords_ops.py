"""The composition operations on chords and form: create, add_section, set_chords, set_form,
reharmonize, transpose. Each takes the composition (a private copy the caller made) and the
operation's arguments, changes the composition and returns its result."""

from __future__ import annotations

import contextlib
from typing import Any

from engine.analysis import labelled_parts
from engine.chords import (
    AWKWARD_SPELLINGS,
    Chord,
    Key,
    Spelled,
    parse,
    parse_key,
    transpose_spelled,
)
from engine.compose.ir import (
    Composition,
    by_id,
    check,
    chord_spans,
    chords_of_bars,
    meter,
    new_composition,
    progression_bars,
    section_meter,
    section_ticks,
)
from engine.compose.spelling import plain, spell_roots
from engine.errors import HarmonyError, InvalidRequest
from engine.reharm import reharmonize as engine_reharmonize

Args = dict[str, Any]
META_FIELDS = ("title", "composer", "key", "tempo", "timeSignature", "style", "swing")


def create(_: Composition, args: Args) -> tuple[Composition, dict[str, Any]]:
    comp = new_composition()
    for name in META_FIELDS:
        if args.get(name) is not None:
            comp["meta"][name] = args[name]
    key = args.get("key")
    if isinstance(key, str):
        with contextlib.suppress(HarmonyError):  # check() reports the key
            comp["meta"]["mode"] = parse_key(key).mode
    check(comp)
    if args.get("progression") is not None:
        comp["sections"] = _labelled_sections(comp, _text(args, "progression"))
        comp["form"] = [s["id"] for s in comp["sections"]]
    if args.get("form") is not None:
        comp["form"] = _form(args["form"])
    return comp, {"sections": len(comp["sections"]), "bars": _form_bars(comp)}


def add_section(comp: Composition, args: Args) -> tuple[Composition, dict[str, Any]]:
    sid = _text(args, "id")
    if sid in by_id(comp):
        raise InvalidRequest(f"section {sid!r} exists already", field="id")
    beats = meter(args.get("timeSignature") or comp["meta"]["timeSignature"],
                  "timeSignature")[0]
    section: dict[str, Any] = {"id": sid, "name": str(args.get("name") or sid)}
    if args.get("progression") is not None:
        bars = progression_bars(_text(args, "progression"), "progression")
        section["bars"] = len(bars)
        if args.get("bars") is not None:
            section["bars"] = _int(args, "bars", 1, 1024)
        section["chords"] = chords_of_bars(bars, beats, "progression")
    else:
        section["bars"] = _int(args, "bars", 1, 1024)
        section["chords"] = []
    for name in ("timeSignature", "tempo", "key"):
        if args.get(name) is not None:
            section[name] = args[name]
    comp["sections"].append(section)
    times = _int(args, "times", 1, 64) if args.get("times") is not None else 1
    after = args.get("after")
    if after is None:
        position = len(comp["form"])
    else:
        if after not in comp["form"]:
            raise InvalidRequest(f"'after' names no section of the form: {after!r}",
                                 field="after")
        position = len(comp["form"]) - comp["form"][::-1].index(after)
    comp["form"][position:position] = [sid] * times
    return comp, {"section": sid, "bars": section["bars"], "form": list(comp["form"])}


def set_chords(comp: Composition, args: Args) -> tuple[Composition, dict[str, Any]]:
    section = _section(comp, args)
    given = args.get("chords", args.get("progression"))
    beats = meter(section_meter(comp, section), "timeSignature")[0]
    if isinstance(given, str):
        bars = progression_bars(given, "progression")
        if len(bars) > section["bars"]:
            section["bars"] = len(bars)
        section["chords"] = chords_of_bars(bars, beats, "progression")
    elif isinstance(given, list):
        section["chords"] = [dict(c) if isinstance(c, dict) else c for c in given]
    else:
        raise InvalidRequest("give 'progression' (a string) or 'chords' (a list of "
                             "{bar, beat, symbol})", field="progression")
    return comp, {"section": section["id"], "chords": len(section["chords"])}


def set_form(comp: Composition, args: Args) -> tuple[Composition, dict[str, Any]]:
    if args.get("form") is not None:
        comp["form"] = _form(args["form"])
    start = args.get("from")
    target: dict[str, Any] = comp["meta"]
    if start is not None:
        target = _section(comp, {"from": start}, field="from")
    for name in ("tempo", "timeSignature", "key"):
        if args.get(name) is not None:
            target[name] = args[name]
            if name == "key" and start is None and isinstance(args[name], str):
                with contextlib.suppress(HarmonyError):  # check() reports the key
                    comp["meta"]["mode"] = parse_key(args[name]).mode
    # A shorter meter leaves notes past a section's new end: they go (and are counted).
    trimmed = 0
    for section in comp["sections"]:
        length = section_ticks(comp, section)
        for track in comp["tracks"]:
            rows = track["events"].get(section["id"])
            if rows:
                kept = [r for r in rows if r[0] < length]
                trimmed += len(rows) - len(kept)
                track["events"][section["id"]] = kept
    return comp, {"form": list(comp["form"]), "bars": _form_bars(comp), "trimmed": trimmed}


def reharmonize(comp: Composition, args: Args) -> tuple[Composition, dict[str, Any]]:
    section = _section(comp, args)
    technique = _text(args, "technique")
    spans = chord_spans(comp, section)
    first, last = 1, section["bars"]
    if args.get("bars") is not None:
        window = args["bars"]
        if not (isinstance(window, list) and len(window) == 2
                and all(isinstance(b, int) and not isinstance(b, bool) for b in window)
                and 1 <= window[0] <= window[1] <= section["bars"]):
            raise InvalidRequest(f"'bars' must be [first, last] within 1..{section['bars']}",
                                 field="bars")
        first, last = window
    bar_ticks = section_ticks(comp, section) // section["bars"]
    chosen = [i for i, (t, _, _) in enumerate(spans) if first <= t // bar_ticks + 1 <= last]
    if not chosen:
        raise InvalidRequest("no chords in that part of the section", field="bars")
    key = section.get("key") or comp["meta"]["key"]
    answer = engine_reharmonize({"progression": [spans[i][2] for i in chosen], "key": key,
                                 "techniques": [technique]})
    if not answer["alternatives"]:
        return comp, {"technique": technique, "applied": False, "changes": [],
                      "explanation": f"{technique} finds nothing to change here"}
    alternative = answer["alternatives"][0]
    replaced: dict[int, list[str]] = {chosen[c["index"]]: c["to"] for c in alternative["changes"]}
    new_spans: list[tuple[int, int, str]] = []
    for i, (tick, length, symbol) in enumerate(spans):
        parts = replaced.get(i, [symbol])
        step = length / len(parts)
        new_spans.extend((round(tick + k * step), 0, s) for k, s in enumerate(parts))
    section["chords"] = [_placed(comp, section, tick, symbol) for tick, _, symbol in new_spans]
    return comp, {"technique": technique, "applied": True, "changes": alternative["changes"],
                  "explanation": alternative["explanation"]}


def transpose(comp: Composition, args: Args) -> tuple[Composition, dict[str, Any]]:
    old = parse_key(comp["meta"]["key"])
    if args.get("key") is not None:
        new = parse_key(_text(args, "key"))
        if new.mode != old.mode:
            raise InvalidRequest(f"cannot transpose a {old.mode} piece to a {new.mode} key",
                                 field="key")
        semitones = (new.tonic.pc - old.tonic.pc) % 12
    elif args.get("semitones") is not None:
        shift = _int(args, "semitones", -48, 48)
        semitones = shift % 12
        tonic = _nice_tonic((old.tonic.pc + semitones) % 12, old.mode)
        # by octaves the key keeps its name (Ebm stays Ebm, not D#m)
        new = old if semitones == 0 else parse_key(
            tonic.name + ("m" if old.mode == "minor" else ""))
    else:
        raise InvalidRequest("give 'key' or 'semitones'", field="key")
    octave_shift = _int(args, "semitones", -48, 48) if args.get("semitones") is not None \
        else (semitones if semitones <= 6 else semitones - 12)
    # A chart moved to the key it is written in keeps its spelling (an octave moves only the
    # notes): the chart's letters are its writer's reading, and respelling by function is for a
    # new key (Daahoud's Dbm7 Gb7 | Bmaj7 in Eb stays so).
    if semitones != 0 or new.name != old.name:
        respell(comp, semitones, new)
    comp["meta"]["key"] = new.name
    for track in comp["tracks"]:
        if track["role"] == "drums":
            continue
        for rows in track["events"].values():
            for row in rows:
                row[2] = min(127, max(0, row[2] + octave_shift))
    return comp, {"key": new.name, "semitones": octave_shift}


# ------------------------------------------------------------------ helpers


def respell(comp: Composition, semitones: int, key: Key) -> None:
    """Every chord moved ``semitones`` and spelled by its function in its section's key (the
    moved section key, else ``key``): ``engine.compose.spelling``. A section's last chord is
    spelled from the first chord of the section the form plays next."""
    following: dict[str, str] = {}
    for here, there in zip(comp["form"], comp["form"][1:], strict=False):
        following.setdefault(here, there)
    if comp["form"]:
        following.setdefault(comp["form"][-1], comp["form"][0])
    firsts = {s["id"]: min(s["chords"], key=lambda c: (c["bar"], c["beat"]))["symbol"]
              for s in comp["sections"] if s["chords"]}
    for section in comp["sections"]:
        if section.get("key"):
            moved = parse_key(section["key"])
            tonic = plain((moved.tonic.pc + semitones) % 12, key)
            section["key"] = tonic.name + ("m" if moved.mode == "minor" else "")
        local = parse_key(section["key"]) if section.get("key") else key
        ordered = sorted(section["chords"], key=lambda c: (c["bar"], c["beat"]))
        chords = [parse(c["symbol"]) for c in ordered]
        nxt = firsts.get(following.get(section["id"], ""))
        after = None if nxt is None else (parse(nxt).root.pc + semitones) % 12
        roots = spell_roots(chords, [(c.root.pc + semitones) % 12 for c in chords], local,
                            after)
        for entry, chord, root in zip(ordered, chords, roots, strict=True):
            entry["symbol"] = root.name + _written_quality(chord) + _bass(chord, root, local)


def _written_quality(chord: Chord) -> str:
    """The quality as the chart writes it (``7#5`` stays ``7#5``, not ``aug7``)."""
    text = chord.symbol.strip()[len(chord.root.name):]
    if chord.bass is not None:
        text = text.rpartition("/")[0]
    try:
        written = parse("C" + text)
    except HarmonyError:
        return chord.quality
    return text if written.quality == chord.quality else chord.quality


def _bass(chord: Chord, root: Spelled, key: Key) -> str:
    """A slash bass that is a tone of the chord at the interval it had above the root (C/E ->
    Eb/G, D7/F# -> F7/A), plainly where that needs a double accidental; any other bass (a
    pedal, a line under the chords) by its numeral in the key, as a root is: Blood Count's
    tonic pedal under ``Eb/D`` in D is ``B/Bb`` in Bb, not ``B/A#``."""
    if chord.bass is None:
        return ""
    up = (chord.bass.pc - chord.root.pc) % 12
    moved = (root.pc + up) % 12
    if up not in {s % 12 for s in chord.semitones}:
        return "/" + plain(moved, key).name
    number = (chord.bass.letter - chord.root.letter) % 7 + 1
    bass = transpose_spelled(root, number, up)
    if abs(bass.alter) > 1 or bass.name in AWKWARD_SPELLINGS:
        bass = plain(moved, key)
    return "/" + bass.name


def _nice_tonic(pc: int, mode: str) -> Spelled:
    """The usual name of a key's tonic: flats but for G, D, A, E, B, F# majors (and their
    relative minors: E, B, F#, C#, G#, D# minor)."""
    sharps_major = {7: "G", 2: "D", 9: "A", 4: "E", 11: "B", 6: "F#"}
    sharps_minor = {4: "E", 11: "B", 6: "F#", 1: "C#", 8: "G#", 3: "D#", 9: "A", 2: "D", 7: "G"}
    flats = {0: "C", 1: "Db", 2: "D", 3: "Eb", 4: "E", 5: "F", 6: "Gb", 7: "G", 8: "Ab",
             9: "A", 10: "Bb", 11: "B"}
    name = (sharps_minor if mode == "minor" else sharps_major).get(pc, flats[pc])
    return parse_key(name).tonic


def _placed(comp: Composition, section: dict[str, Any], tick: int, symbol: str) -> dict[str, Any]:
    top, bottom = meter(section_meter(comp, section), "timeSignature")
    beat_ticks = 480 * 4 // bottom
    bar_len = top * beat_ticks
    bar, within = divmod(tick, bar_len)
    return {"bar": bar + 1, "beat": round(1 + within / beat_ticks, 3), "symbol": symbol}


def _labelled_sections(comp: Composition, text: str) -> list[dict[str, Any]]:
    """'A: Dm7 G7 | Cmaj7 || B: ...' -> sections A, B (unlabelled parts: A, B, C...)."""
    beats = meter(comp["meta"]["timeSignature"], "timeSignature")[0]
    sections: list[dict[str, Any]] = []
    for n, (written, body) in enumerate(labelled_parts(text)):
        label = written if written is not None else chr(ord("A") + n) if n < 26 else f"S{n + 1}"
        if label in {s["id"] for s in sections}:
            raise InvalidRequest(f"section {label!r} appears twice in the progression",
                                 field="progression")
        bars = progression_bars(body, "progression")
        sections.append({"id": label, "name": label, "bars": len(bars),
                         "chords": chords_of_bars(bars, beats, "progression")})
    if not sections:
        raise InvalidRequest("field 'progression' has no chords", field="progression")
    return sections


def _form(form: Any) -> list[str]:
    if isinstance(form, str):
        form = form.replace(",", " ").split()
    if not isinstance(form, list) or not form or not all(isinstance(f, str) for f in form):
        raise InvalidRequest("'form' must be a list of section ids", field="form")
    return list(form)


def _form_bars(comp: Composition) -> int:
    sections = by_id(comp)
    return sum(int(sections[f]["bars"]) for f in comp["form"] if f in sections)


def _section(comp: Composition, args: Args, field: str = "section") -> dict[str, Any]:
    sid = args.get(field)
    section = by_id(comp).get(sid) if isinstance(sid, str) else None
    if section is None:
        raise InvalidRequest(f"'{field}' names no section: {sid!r}", field=field)
    return section


def _text(args: Args, field: str) -> str:
    value = args.get(field)
    if not isinstance(value, str) or not value.strip():
        raise InvalidRequest(f"'{field}' must be a non-empty string", field=field)
    return value


def _int(args: Args, field: str, low: int, high: int) -> int:
    value = args.get(field)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidRequest(f"'{field}' must be a whole number from {low} to {high}",
                             field=field)
    return value

