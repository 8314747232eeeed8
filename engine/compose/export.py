"""The ``export`` operation's formats, the form unrolled: ``midi`` (format 1 SMF, base64, a
conductor track with tempo, meter and key changes),
``chordpro`` (metadata directives and a chord grid per section), ``leadsheet`` (four bars a
line, as conduct's) and ``analysis`` (the progression analysis of the form, as analyze);
``musicxml`` is in ``engine.compose.musicxml``, ``ireal`` in ``engine.compose.ireal``."""

from __future__ import annotations

import base64
import io
import math
from typing import Any

import mido

from engine.analysis import Chart, ChartSection, Placed, analyze_chart
from engine.chords import parse, parse_key
from engine.compose.cells import place
from engine.compose.ir import PPQ, Composition, by_id, meter, section_meter, section_ticks


def unrolled(comp: Composition) -> list[tuple[dict[str, Any], int]]:
    """(section, start tick) for each place of the form."""
    sections = by_id(comp)
    out, tick = [], 0
    for sid in comp["form"]:
        out.append((sections[sid], tick))
        tick += section_ticks(comp, sections[sid])
    return out


def midi(comp: Composition) -> str:
    meta = comp["meta"]
    smf = mido.MidiFile(type=1, ticks_per_beat=PPQ)
    conductor = mido.MidiTrack([mido.MetaMessage("track_name", name=meta["title"], time=0)])
    events: list[tuple[int, int, Any]] = []
    tempo = signature = key = None
    for section, start in unrolled(comp):
        t = float(section.get("tempo") or meta["tempo"])
        s = section.get("timeSignature") or meta["timeSignature"]
        k = section.get("key") or meta["key"]
        if t != tempo:
            events.append((start, 0, mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(t))))
        if s != signature:
            top, bottom = meter(s, "timeSignature")
            events.append((start, 1, mido.MetaMessage("time_signature", numerator=top,
                                                       denominator=bottom)))
        if k != key:
            name = _mido_key(k)
            if name:
                events.append((start, 2, mido.MetaMessage("key_signature", key=name)))
        tempo, signature, key = t, s, k
    end = sum(section_ticks(comp, s) for s, _ in unrolled(comp))
    conductor.extend(_timed(events, end))
    smf.tracks.append(conductor)
    for track in comp["tracks"]:
        channel = track["channel"]
        # (tick, order, (status, note, velocity)): built as messages once, with their delta
        # times (mido checks every field of every message it builds: twice was 70 % of this).
        notes: list[tuple[int, int, Any]] = []
        for section, start in unrolled(comp):
            for tick, duration, pitch, velocity in track["events"].get(section["id"], []):
                notes.append((start + tick, 1, ("note_on", pitch, velocity)))
                notes.append((start + tick + duration, 0, ("note_off", pitch, 0)))
        head = [mido.MetaMessage("track_name", name=track["id"], time=0)]
        if track["role"] != "drums":
            head.append(mido.Message("program_change", channel=channel,
                                     program=track["program"], time=0))
        smf.tracks.append(mido.MidiTrack([*head, *_timed(notes, end, channel)]))
    out = io.BytesIO()
    smf.save(file=out)
    return base64.b64encode(out.getvalue()).decode("ascii")


def _timed(events: list[tuple[int, int, Any]], end: int, channel: int = 0) -> list[Any]:
    """Absolute (tick, order, message or (type, note, velocity)) -> delta-timed messages, then
    the end of the track."""
    out, now = [], 0
    # Stable by (tick, order): offs (0) before ons (1) on one tick, else as written.
    for tick, _, message in sorted(events, key=lambda e: (e[0], e[1])):
        if isinstance(message, tuple):
            kind, note, velocity = message
            out.append(mido.Message(kind, channel=channel, note=note, velocity=velocity,
                                    time=tick - now))
        else:
            out.append(message.copy(time=tick - now))
        now = tick
    out.append(mido.MetaMessage("end_of_track", time=max(0, end - now)))
    return out


def _mido_key(key: str) -> str | None:
    name = parse_key(key).name
    try:
        mido.MetaMessage("key_signature", key=name)
    except (KeyError, ValueError):
        return None
    return name


def bars_of(comp: Composition, section: dict[str, Any], grid: bool) -> list[str]:
    """A section's bars as text (canonical spelling), beat positions kept: a chord in the cell
    of its beat (``engine.compose.cells``: the nearest, a push into the next bar written on its
    first beat) and ``.`` for a beat with no new chord (``C7 . . G7``: G7 on beat 4); a bar of
    compound meter (6/8, 9/8, 12/8) whose chords all fall on its dotted-quarter beats has a
    cell a dotted quarter. Without ``grid`` (the lead sheet), a bar whose chords share it as
    a reader assumes (one; two in halves; three on 1, 3, 4 of 4/4) lists them plainly; a bar
    with no chord is ``%`` (the bar before repeated), or its last chord written when the bar
    before had several; more chords than cells are listed plainly."""
    top, bottom = meter(section_meter(comp, section), "timeSignature")
    per_bar: list[list[tuple[float, str]]] = [[] for _ in range(section["bars"])]
    for chord in sorted(section["chords"], key=lambda c: (c["bar"], c["beat"])):
        per_bar[chord["bar"] - 1].append((float(chord["beat"]),
                                          parse(chord["symbol"]).canonical))
    grids = [_grid(chords, top, bottom) for chords in per_bar]
    texts: list[str] = []
    held: str | None = None     # the chord a bar of several ended on: ``%`` would repeat all
    for row, chords, cells_unit in zip(place(per_bar, grids), per_bar, grids, strict=True):
        if not chords and held is not None:     # a bar that holds it writes it (Autumn Leaves)
            row, chords, cells_unit = [(0, held)], [(1.0, held)], (top, 1)
        texts.append(_bar_text(row, chords, top, grid, cells_unit))
        held = chords[-1][1] if len(chords) > 1 else None
    return texts


def _grid(chords: list[tuple[float, str]], top: int, bottom: int) -> tuple[int, int]:
    """(cells, beats a cell): a dotted quarter a cell in 6/8, 9/8, 12/8 when every chord falls
    on one, else a beat of the meter."""
    unit = 3 if bottom == 8 and top % 3 == 0 and top > 3 and all(
        (b - 1) % 3 == 0 for b, _ in chords) else 1
    return top // unit, unit


def _bar_text(row: list[tuple[int, str]] | None, chords: list[tuple[float, str]], top: int,
              grid: bool, cells_unit: tuple[int, int]) -> str:
    if row is None:                     # more chords than cells
        return " ".join(name for _, name in chords)
    if not row:
        return "%"
    cells, unit = cells_unit
    n = len(row)
    if not grid and [1 + cell * unit for cell, _ in row] == [1 + math.ceil(i * top / n)
                                                            for i in range(n)]:
        return " ".join(name for _, name in row)
    text = ["."] * cells
    for cell, name in row:
        text[cell] = name
    return " ".join(text)


def leadsheet(comp: Composition) -> str:
    cells = [bar for section, _ in unrolled(comp) for bar in bars_of(comp, section, False)]
    return "\n".join("| " + " | ".join(cells[i:i + 4]) + " |" for i in range(0, len(cells), 4))


def chordpro(comp: Composition) -> str:
    """A ChordPro grid a section, four bars a line, a cell a beat (``| Gm7 . C7 . |``)."""
    meta = comp["meta"]
    lines = [f"{{title: {meta['title']}}}"]
    if meta["composer"]:
        lines.append(f"{{composer: {meta['composer']}}}")
    lines += [f"{{key: {meta['key']}}}", f"{{tempo: {round(meta['tempo'])}}}",
              f"{{time: {meta['timeSignature']}}}"]
    signature = meta["timeSignature"]
    for section, _ in unrolled(comp):
        here = section_meter(comp, section)
        if here != signature:
            lines.append(f"{{time: {here}}}")
            signature = here
        lines.append(f"{{start_of_grid: {section['name']}}}")
        bars = bars_of(comp, section, True)
        for i in range(0, len(bars), 4):
            lines.append("| " + " | ".join(bars[i:i + 4]) + " |")
        lines.append("{end_of_grid}")
    return "\n".join(lines) + "\n"


def analysis(comp: Composition) -> dict[str, Any]:
    """The progression analysis of API.md 3.1 (``analyze`` with ``progression``) of the form
    as it is played: the sections in the form's order, bars counted across them, in the
    composition's key; so a ii-V at the end of one section meets the chord that follows it."""
    sections, placed, bar = [], [], 0
    for section, _ in unrolled(comp):
        sections.append(ChartSection(section["id"], bar + 1, section["bars"]))
        for chord in sorted(section["chords"], key=lambda c: (c["bar"], c["beat"])):
            placed.append(Placed(bar + chord["bar"], chord["beat"], chord["symbol"],
                                 parse(chord["symbol"])))
        bar += section["bars"]
    key = parse_key(comp["meta"]["key"])
    if not placed:
        return {"key": key.name, "keyFound": False, "keyCandidates": [], "regions": [],
                "brackets": [], "cadences": [], "form": None, "chords": []}
    return analyze_chart(Chart(tuple(sections), tuple(placed), bar, True), key)


FORMATS = ("midi", "musicxml", "ireal", "chordpro", "leadsheet", "analysis")
