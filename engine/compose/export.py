"""The ``export`` operation's formats, the form unrolled: ``midi`` (format 1 SMF, base64, a
conductor track with tempo, meter and key changes), ``ireal`` (an ``irealbook://`` URL),
``chordpro`` (metadata directives and a chord grid per section), ``leadsheet`` (four bars a
line, as conduct's) and ``analysis`` (the progression analysis of the form, as analyze);
``musicxml`` is in ``engine.compose.musicxml``."""

from __future__ import annotations

import base64
import io
import urllib.parse
from typing import Any

import mido

from engine.analysis import Chart, ChartSection, Placed, analyze_chart
from engine.chords import parse, parse_key
from engine.compose.ir import PPQ, Composition, by_id, meter, section_ticks

# The engine's canonical quality -> iReal Pro's spelling (the rest of a quality is kept).
IREAL_QUALITY = {"maj7": "^7", "maj9": "^9", "maj13": "^13", "m7": "-7", "m9": "-9",
                 "m11": "-11", "m13": "-13", "m6": "-6", "m": "-", "m7b5": "h7", "m9b5": "h9",
                 "dim7": "o7", "dim": "o", "m(maj7)": "-^7", "m(maj9)": "-^9", "6/9": "69",
                 "m6/9": "-69", "7sus4": "7sus", "sus4": "sus", "aug": "+", "aug7": "7#5",
                 "maj7#5": "^7#5", "": ""}
# Style -> iReal Pro's style name.
IREAL_STYLE = {"swing": "Medium Swing", "bossa_nova": "Bossa Nova", "ballad": "Ballad",
               "jazz_waltz": "Jazz Waltz", "funk": "Funk", "samba": "Samba",
               "shuffle_blues": "Shuffle", "rock_pop": "Rock Pop", "gospel": "Gospel",
               "modal_vamp": "Medium Up Swing"}


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


def bars_of(comp: Composition, section: dict[str, Any]) -> list[list[str]]:
    """A section's chords by bar (canonical spelling)."""
    per_bar: list[list[str]] = [[] for _ in range(section["bars"])]
    for chord in sorted(section["chords"], key=lambda c: (c["bar"], c["beat"])):
        per_bar[chord["bar"] - 1].append(parse(chord["symbol"]).canonical)
    return per_bar


def leadsheet(comp: Composition) -> str:
    cells = [" ".join(bar) or "%" for section, _ in unrolled(comp)
             for bar in bars_of(comp, section)]
    return "\n".join("| " + " | ".join(cells[i:i + 4]) + " |" for i in range(0, len(cells), 4))


def chordpro(comp: Composition) -> str:
    meta = comp["meta"]
    lines = [f"{{title: {meta['title']}}}"]
    if meta["composer"]:
        lines.append(f"{{composer: {meta['composer']}}}")
    lines += [f"{{key: {meta['key']}}}", f"{{tempo: {round(meta['tempo'])}}}",
              f"{{time: {meta['timeSignature']}}}"]
    for section, _ in unrolled(comp):
        lines.append(f"{{start_of_grid: {section['name']}}}")
        bars = bars_of(comp, section)
        for i in range(0, len(bars), 4):
            lines.append("| " + " | ".join(" ".join(b) or "%" for b in bars[i:i + 4]) + " |")
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


def ireal_symbol(symbol: str) -> str:
    chord = parse(symbol)
    quality = chord.quality
    for ours, theirs in sorted(IREAL_QUALITY.items(), key=lambda kv: -len(kv[0])):
        if ours and quality.startswith(ours):
            quality = theirs + quality[len(ours):]
            break
    quality = quality.replace("(", "").replace(")", "").replace(",", "")
    bass = "" if chord.bass is None else "/" + chord.bass.name
    return chord.root.name + quality + bass


def ireal(comp: Composition) -> str:
    """An ``irealbook://`` URL: title=composer=style=key=n=chords, percent-encoded; a section
    played twice in a row is written once inside repeat braces."""
    meta = comp["meta"]
    top, bottom = meter(meta["timeSignature"], "timeSignature")
    music = [f"T{top}{bottom}"]
    sections = by_id(comp)
    form = comp["form"]
    i = 0
    while i < len(form):
        section = sections[form[i]]
        repeat = i + 1 < len(form) and form[i + 1] == form[i]
        cells = [" ".join(ireal_symbol(s) for s in _bar_symbols(section, b)) or "x"
                 for b in range(section["bars"])]
        label = section["id"][0].upper() if section["id"][0].isalpha() else "A"
        opening, closing = ("{", "}") if repeat else ("[", "]")
        music.append(f"{opening}*{label}" + "|".join(cells) + closing)
        i += 2 if repeat else 1
    music.append("Z")
    composer = " ".join(reversed(meta["composer"].split(" ", 1))) if meta["composer"] else ""
    fields = [meta["title"], composer, IREAL_STYLE.get(meta["style"], "Medium Swing"),
              meta["key"], "n", "".join(music)]
    return "irealbook://" + urllib.parse.quote("=".join(fields), safe="")


def _bar_symbols(section: dict[str, Any], bar: int) -> list[str]:
    return [c["symbol"] for c in sorted(section["chords"], key=lambda c: c["beat"])
            if c["bar"] == bar + 1]


FORMATS = ("midi", "musicxml", "ireal", "chordpro", "leadsheet", "analysis")
