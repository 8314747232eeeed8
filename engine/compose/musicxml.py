"""A MusicXML 4.0 lead sheet (score-partwise) with the standard library's ElementTree: one
part, the form unrolled into measures, key, time and tempo at the start and where a section
changes them, each chord a ``<harmony>`` (root, kind, degrees, bass) at its beat, and the
melody track's notes when there is one (rests elsewhere).

``KINDS`` maps every canonical quality of ``engine.chords.tables`` to a MusicXML ``kind`` and
the ``text`` a notation program prints; a symbol with modifiers (``7(b9,#11)``) takes the kind
of its longest canonical quality and the whole quality as its text. The degrees that make the
chord differ from the kind (``7alt``'s b9 #9 #11 b13, ``11``'s missing 3rd, the b9 and #11
above) are all written, for programs that read them, with ``print-object="no"``: the text
already says them, and a program would otherwise print them twice.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import lru_cache
from typing import Any

from engine.chords import Chord, parse, parse_key
from engine.compose.export import unrolled
from engine.compose.ir import PPQ, Composition, chord_spans, meter

# canonical quality -> (kind, text)
KINDS: dict[str, tuple[str, str]] = {
    "": ("major", ""), "m": ("minor", "m"), "dim": ("diminished", "dim"),
    "aug": ("augmented", "+"), "m#5": ("minor", "m#5"), "sus2": ("suspended-second", "sus2"),
    "sus4": ("suspended-fourth", "sus4"), "sus24": ("suspended-second", "sus24"),
    "5": ("power", "5"), "6": ("major-sixth", "6"), "m6": ("minor-sixth", "m6"),
    "6/9": ("major-sixth", "6/9"), "m6/9": ("minor-sixth", "m6/9"), "7": ("dominant", "7"),
    "maj7": ("major-seventh", "maj7"), "m7": ("minor-seventh", "m7"),
    "m7b5": ("half-diminished", "m7b5"), "dim7": ("diminished-seventh", "dim7"),
    "m(maj7)": ("major-minor", "m(maj7)"), "7sus4": ("suspended-fourth", "7sus4"),
    "maj7sus4": ("suspended-fourth", "maj7sus4"), "aug7": ("augmented-seventh", "+7"),
    "maj7#5": ("major-seventh", "maj7#5"), "dim(maj7)": ("diminished", "dim(maj7)"),
    "dim7(maj7)": ("diminished-seventh", "dim7(maj7)"), "7alt": ("dominant", "7alt"),
    "9": ("dominant-ninth", "9"), "maj9": ("major-ninth", "maj9"), "m9": ("minor-ninth", "m9"),
    "m9b5": ("minor-ninth", "m9b5"), "m(maj9)": ("major-minor", "m(maj9)"),
    "9sus4": ("suspended-fourth", "9sus4"), "maj9sus4": ("suspended-fourth", "maj9sus4"),
    "11": ("dominant-11th", "11"), "maj11": ("major-11th", "maj11"),
    "m11": ("minor-11th", "m11"), "m(maj11)": ("major-minor", "m(maj11)"),
    "13": ("dominant-13th", "13"), "maj13": ("major-13th", "maj13"),
    "m13": ("minor-13th", "m13"), "m(maj13)": ("major-minor", "m(maj13)"),
    "13sus4": ("suspended-fourth", "13sus4"), "9#5": ("dominant-ninth", "9#5"),
    "13#5": ("dominant-13th", "13#5"), "maj9#5": ("major-ninth", "maj9#5"),
    "maj13#5": ("major-13th", "maj13#5"),
}
# The chord tones each kind means, by degree number -> alteration.
KIND_TONES: dict[str, dict[int, int]] = {
    "major": {1: 0, 3: 0, 5: 0}, "minor": {1: 0, 3: -1, 5: 0},
    "augmented": {1: 0, 3: 0, 5: 1}, "diminished": {1: 0, 3: -1, 5: -1},
    "dominant": {1: 0, 3: 0, 5: 0, 7: -1}, "major-seventh": {1: 0, 3: 0, 5: 0, 7: 0},
    "minor-seventh": {1: 0, 3: -1, 5: 0, 7: -1},
    "diminished-seventh": {1: 0, 3: -1, 5: -1, 7: -2},
    "augmented-seventh": {1: 0, 3: 0, 5: 1, 7: -1},
    "half-diminished": {1: 0, 3: -1, 5: -1, 7: -1}, "major-minor": {1: 0, 3: -1, 5: 0, 7: 0},
    "major-sixth": {1: 0, 3: 0, 5: 0, 6: 0}, "minor-sixth": {1: 0, 3: -1, 5: 0, 6: 0},
    "dominant-ninth": {1: 0, 3: 0, 5: 0, 7: -1, 9: 0},
    "major-ninth": {1: 0, 3: 0, 5: 0, 7: 0, 9: 0},
    "minor-ninth": {1: 0, 3: -1, 5: 0, 7: -1, 9: 0},
    "dominant-11th": {1: 0, 3: 0, 5: 0, 7: -1, 9: 0, 11: 0},
    "major-11th": {1: 0, 3: 0, 5: 0, 7: 0, 9: 0, 11: 0},
    "minor-11th": {1: 0, 3: -1, 5: 0, 7: -1, 9: 0, 11: 0},
    "dominant-13th": {1: 0, 3: 0, 5: 0, 7: -1, 9: 0, 11: 0, 13: 0},
    "major-13th": {1: 0, 3: 0, 5: 0, 7: 0, 9: 0, 11: 0, 13: 0},
    "minor-13th": {1: 0, 3: -1, 5: 0, 7: -1, 9: 0, 11: 0, 13: 0},
    "suspended-second": {1: 0, 2: 0, 5: 0}, "suspended-fourth": {1: 0, 4: 0, 5: 0},
    "power": {1: 0, 5: 0},
}
FIFTHS = {"C": 0, "G": 1, "D": 2, "A": 3, "E": 4, "B": 5, "F#": 6, "C#": 7, "F": -1, "Bb": -2,
          "Eb": -3, "Ab": -4, "Db": -5, "Gb": -6, "Cb": -7}


def tones(intervals: tuple[str, ...]) -> dict[int, list[int]]:
    """Interval labels ('b3', '#11', 'bb7') -> degree number -> its alterations (a 7alt has
    both b9 and #9)."""
    out: dict[int, list[int]] = {}
    for label in intervals:
        out.setdefault(int(label.lstrip("b#")), []).append(label.count("#") - label.count("b"))
    return out


def base_quality(quality: str) -> str:
    """The longest canonical quality ``quality`` starts with ('7(b9,#11)' -> '7')."""
    return max((q for q in KINDS if quality.startswith(q)), key=len)


def kind_of(chord: Chord) -> tuple[str, str]:
    """(MusicXML kind, the text printed) of a chord."""
    return KINDS[base_quality(chord.quality)][0], chord.quality


def degrees(chord: Chord) -> list[tuple[int, int, str]]:
    """(value, alter, add|alter|subtract) that turn the chord's kind into its tones."""
    implied = KIND_TONES[kind_of(chord)[0]]
    have = tones(chord.intervals)
    out: list[tuple[int, int, str]] = []
    for value in sorted(set(implied) | set(have)):
        if value == 1:
            continue
        alters = sorted(have.get(value, []))
        if value not in implied:
            out.extend((value, a, "add") for a in alters)
        elif not alters:
            out.append((value, 0, "subtract"))
        elif implied[value] in alters:
            out.extend((value, a, "add") for a in alters if a != implied[value])
        else:
            out.append((value, alters[0] - implied[value], "alter"))
            out.extend((value, a, "add") for a in alters[1:])
    return out


# A degree's semitones above the root before its alteration (MusicXML's degree-value).
DEGREE_SEMITONES = {1: 0, 2: 2, 3: 4, 4: 5, 5: 7, 6: 9, 7: 11, 9: 2, 11: 5, 13: 9}


def spelled_pcs(kind: str, changes: list[tuple[int, int, str]]) -> frozenset[int]:
    """The pitch classes above the root that a reader builds from ``kind`` and its
    ``<degree>`` elements (how MusicXML defines them): the test that they are the chord's."""
    tones = dict(KIND_TONES[kind])
    extra: set[int] = set()
    for value, alter, change in changes:
        if change == "subtract":
            tones.pop(value, None)
        elif change == "alter":
            tones[value] = tones.get(value, 0) + alter
        else:
            extra.add((DEGREE_SEMITONES[value] + alter) % 12)
    return frozenset((DEGREE_SEMITONES[v] + a) % 12 for v, a in tones.items()) | extra


def musicxml(comp: Composition) -> str:
    meta = comp["meta"]
    root = ET.Element("score-partwise", version="4.0")
    work = ET.SubElement(root, "work")
    ET.SubElement(work, "work-title").text = meta["title"]
    ident = ET.SubElement(root, "identification")
    if meta["composer"]:
        ET.SubElement(ident, "creator", type="composer").text = meta["composer"]
    encoding = ET.SubElement(ident, "encoding")
    ET.SubElement(encoding, "software").text = "harmony engine"
    part_list = ET.SubElement(root, "part-list")
    score_part = ET.SubElement(part_list, "score-part", id="P1")
    ET.SubElement(score_part, "part-name").text = "Lead sheet"
    # An instrument, so that notation programs give the part a staff and a sound (MuseScore
    # finds none without one): a piano, General MIDI program 1.
    instrument = ET.SubElement(score_part, "score-instrument", id="P1-I1")
    ET.SubElement(instrument, "instrument-name").text = "Piano"
    midi_instrument = ET.SubElement(score_part, "midi-instrument", id="P1-I1")
    ET.SubElement(midi_instrument, "midi-channel").text = "1"
    ET.SubElement(midi_instrument, "midi-program").text = "1"
    part = ET.SubElement(root, "part", id="P1")
    melody = next((t for t in comp["tracks"] if t["role"] == "melody"), None)
    number = 0
    state: dict[str, Any] = {}
    places = unrolled(comp)
    for place, (section, _) in enumerate(places):
        signature = section.get("timeSignature") or meta["timeSignature"]
        top, bottom = meter(signature, "timeSignature")
        bar_len = top * PPQ * 4 // bottom
        spans = chord_spans(comp, section)
        notes = sorted(melody["events"].get(section["id"], [])) if melody else []
        for bar in range(section["bars"]):
            number += 1
            measure = ET.SubElement(part, "measure", number=str(number))
            if bar == 0:
                _attributes(measure, comp, section, state, number == 1)
                if section["name"]:
                    _rehearsal(measure, section["name"])
            start = bar * bar_len
            in_bar = [(t - start, s) for t, _, s in spans if start <= t < start + bar_len]
            bar_notes = [n for n in notes if start <= n[0] < start + bar_len]
            _fill(measure, in_bar, bar_notes, start, bar_len)
            if bar + 1 == section["bars"]:   # a double bar ends a section, a final one the piece
                _barline(measure, "light-heavy" if place + 1 == len(places) else "light-light")
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE score-partwise PUBLIC '
            '"-//Recordare//DTD MusicXML 4.0 Partwise//EN" '
            '"http://www.musicxml.org/dtds/partwise.dtd">\n' + body + "\n")


def _attributes(measure: ET.Element, comp: Composition, section: dict[str, Any],
                state: dict[str, Any], first: bool) -> None:
    meta = comp["meta"]
    key = section.get("key") or meta["key"]
    signature = section.get("timeSignature") or meta["timeSignature"]
    tempo = float(section.get("tempo") or meta["tempo"])
    changed = {"key": key, "time": signature}
    if first or any(state.get(k) != v for k, v in changed.items()):
        attributes = ET.SubElement(measure, "attributes")
        if first:
            ET.SubElement(attributes, "divisions").text = str(PPQ)
        if first or state.get("key") != key:
            k = parse_key(key)
            element = ET.SubElement(attributes, "key")
            relative = k.tonic if k.mode == "major" else k.scale[2]
            ET.SubElement(element, "fifths").text = str(FIFTHS.get(relative.name, 0))
            ET.SubElement(element, "mode").text = k.mode
        if first or state.get("time") != signature:
            top, bottom = meter(signature, "timeSignature")
            element = ET.SubElement(attributes, "time")
            ET.SubElement(element, "beats").text = str(top)
            ET.SubElement(element, "beat-type").text = str(bottom)
        if first:
            clef = ET.SubElement(attributes, "clef")
            ET.SubElement(clef, "sign").text = "G"
            ET.SubElement(clef, "line").text = "2"
    if first or state.get("tempo") != tempo:
        direction = ET.SubElement(measure, "direction", placement="above")
        kind = ET.SubElement(direction, "direction-type")
        metronome = ET.SubElement(kind, "metronome")
        ET.SubElement(metronome, "beat-unit").text = "quarter"
        ET.SubElement(metronome, "per-minute").text = f"{tempo:g}"
        ET.SubElement(direction, "sound", tempo=f"{tempo:g}")
    state.update(changed, tempo=tempo)


def _rehearsal(measure: ET.Element, name: str) -> None:
    direction = ET.SubElement(measure, "direction", placement="above")
    kind = ET.SubElement(direction, "direction-type")
    ET.SubElement(kind, "rehearsal").text = name


def _harmony(parent: ET.Element, symbol: str, offset: int) -> None:
    chord = parse(symbol)
    harmony = ET.SubElement(parent, "harmony")
    root = ET.SubElement(harmony, "root")
    _pitch(root, "root", chord.root.name)
    kind, text = kind_of(chord)
    ET.SubElement(harmony, "kind", text=text).text = kind
    if chord.bass is not None:
        bass = ET.SubElement(harmony, "bass")
        _pitch(bass, "bass", chord.bass.name)
    for value, alter, change in degrees(chord):
        degree = ET.SubElement(harmony, "degree", {"print-object": "no"})
        ET.SubElement(degree, "degree-value").text = str(value)
        ET.SubElement(degree, "degree-alter").text = str(alter)
        ET.SubElement(degree, "degree-type").text = change
    if offset:
        ET.SubElement(harmony, "offset").text = str(offset)


def _pitch(parent: ET.Element, prefix: str, name: str) -> None:
    ET.SubElement(parent, f"{prefix}-step").text = name[0]
    alter = name.count("#") - name.count("b")
    if alter:
        ET.SubElement(parent, f"{prefix}-alter").text = str(alter)


def _fill(measure: ET.Element, chords: list[tuple[int, str]], notes: list[list[int]],
          start: int, bar_len: int) -> None:
    """Harmonies at their offsets, then the melody's notes (monophonic: an overlap is cut),
    each on the grid of a 32nd note or of a triplet eighth, whichever is nearer, and rests
    filling the bar; a bar with no note is one whole-measure rest."""
    for offset, symbol in chords:
        _harmony(measure, symbol, offset)
    position = 0
    for tick, duration, pitch, _ in notes:
        at = _snap(tick - start)
        end = min(_snap(tick - start + duration), bar_len)
        if at < position or end <= at:
            continue
        if at > position:
            _rest(measure, at - position)
        _note(measure, pitch, end - at)
        position = end
    if position == 0:
        note = ET.SubElement(measure, "note")
        ET.SubElement(note, "rest", measure="yes")
        ET.SubElement(note, "duration").text = str(bar_len)
    elif position < bar_len:
        _rest(measure, bar_len - position)


# Written values: (ticks at 480 a quarter, type, dots, triplet), longest first.
VALUES: tuple[tuple[int, str, int, bool], ...] = tuple(sorted(
    [(base * 7 // 4, name, 2, False) for base, name in
     ((1920, "whole"), (960, "half"), (480, "quarter"), (240, "eighth"))]
    + [(base * 3 // 2, name, 1, False) for base, name in
       ((1920, "whole"), (960, "half"), (480, "quarter"), (240, "eighth"), (120, "16th"))]
    + [(base, name, 0, False) for base, name in
       ((1920, "whole"), (960, "half"), (480, "quarter"), (240, "eighth"), (120, "16th"),
        (60, "32nd"))]
    + [(320, "quarter", 0, True), (160, "eighth", 0, True)],
    key=lambda v: -v[0]))
GRIDS = (60, 160)


def _snap(tick: int) -> int:
    """``tick`` on the nearer of the 32nd-note and triplet-eighth grids."""
    return min((round(tick / g) * g for g in GRIDS), key=lambda t: (abs(t - tick), t))


def pieces(duration: int) -> list[tuple[int, str, int, bool]]:
    """``duration`` as written values tied together, longest first (one that leaves a rest
    that can be written); below a 32nd the last value is lengthened to keep the bar exact."""
    out: list[tuple[int, str, int, bool]] = []
    left = duration
    while left > 0:
        value = next((v for v in VALUES if v[0] <= left and _writable(left - v[0])), None)
        if value is None:
            if out:
                ticks, name, dots, triplet = out.pop()
                out.append((ticks + left, name, dots, triplet))
            else:
                out.append((left, "64th", 0, False))
            break
        out.append(value)
        left -= value[0]
    return out


@lru_cache(maxsize=4096)
def _writable(ticks: int) -> bool:
    return ticks == 0 or any(v[0] <= ticks and _writable(ticks - v[0]) for v in VALUES)


def _written(note: ET.Element, value: tuple[int, str, int, bool]) -> None:
    ET.SubElement(note, "type").text = value[1]
    for _ in range(value[2]):
        ET.SubElement(note, "dot")
    if value[3]:
        modification = ET.SubElement(note, "time-modification")
        ET.SubElement(modification, "actual-notes").text = "3"
        ET.SubElement(modification, "normal-notes").text = "2"


def _rest(measure: ET.Element, duration: int) -> None:
    for value in pieces(duration):
        note = ET.SubElement(measure, "note")
        ET.SubElement(note, "rest")
        ET.SubElement(note, "duration").text = str(value[0])
        _written(note, value)


def _note(measure: ET.Element, pitch: int, duration: int) -> None:
    names = ("C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")
    name = names[pitch % 12]
    parts = pieces(duration)
    for i, value in enumerate(parts):
        note = ET.SubElement(measure, "note")
        element = ET.SubElement(note, "pitch")
        ET.SubElement(element, "step").text = name[0]
        alter = name.count("#") - name.count("b")
        if alter:
            ET.SubElement(element, "alter").text = str(alter)
        ET.SubElement(element, "octave").text = str(pitch // 12 - 1)
        ET.SubElement(note, "duration").text = str(value[0])
        ties = (["stop"] if i else []) + (["start"] if i + 1 < len(parts) else [])
        for tie in ties:
            ET.SubElement(note, "tie", type=tie)
        _written(note, value)
        if ties:
            notations = ET.SubElement(note, "notations")
            for tie in ties:
                ET.SubElement(notations, "tied", type=tie)


def _barline(measure: ET.Element, style: str) -> None:
    barline = ET.SubElement(measure, "barline", location="right")
    ET.SubElement(barline, "bar-style").text = style
