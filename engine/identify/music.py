"""Music read from a file, as ``identify`` segments it: the notes as arrays of (start, end,
MIDI) in ticks, and the bars (start tick, beats, ticks a beat) from the file's meter. A MIDI
file is read with mido (drums on channel 10 left out; a note held over a bar line sounds in
both); a MusicXML file by its notes, and by its ``<harmony>`` symbols in the bars that have
them (a lead sheet's notes are its melody: its symbols are its chords).
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import mido
import numpy as np
import numpy.typing as npt

from engine.errors import InvalidRequest

DRUMS = 9   # channel 10, counted from 0
# MusicXML <kind> values -> our quality suffix (MusicXML 4.0, harmony kinds)
KINDS = {
    "major": "", "minor": "m", "augmented": "aug", "diminished": "dim", "dominant": "7",
    "major-seventh": "maj7", "minor-seventh": "m7", "diminished-seventh": "dim7",
    "augmented-seventh": "aug7", "half-diminished": "m7b5", "major-minor": "m(maj7)",
    "major-sixth": "6", "minor-sixth": "m6", "dominant-ninth": "9", "major-ninth": "maj9",
    "minor-ninth": "m9", "dominant-11th": "11", "major-11th": "maj11", "minor-11th": "m11",
    "dominant-13th": "13", "major-13th": "maj13", "minor-13th": "m13",
    "suspended-second": "sus2", "suspended-fourth": "sus4", "power": "5",
}
_STEP_PC = {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}
_ALTER = {-2: "bb", -1: "b", 0: "", 1: "#", 2: "##"}


@dataclass
class Music:
    starts: npt.NDArray[np.int64]
    ends: npt.NDArray[np.int64]
    pitches: npt.NDArray[np.int64]
    bars: list[tuple[int, int, int]]      # (start tick, beats, ticks a beat)
    # a MusicXML file's harmony symbols: (bar index, beat 1-based, symbol)
    symbols: list[tuple[int, int, str]] = field(default_factory=list)


def read_midi(data: bytes) -> Music:
    """A Standard MIDI File's pitched notes and bars. ``InvalidRequest`` (field ``midi``)
    for bytes that are not one."""
    try:
        midi = mido.MidiFile(file=io.BytesIO(data))
    except Exception as exc:  # mido raises OSError, EOFError, ValueError, KeyError...
        raise InvalidRequest(f"field 'midi' is not a readable MIDI file: {exc}",
                             field="midi") from None
    tpb = midi.ticks_per_beat or 480
    signatures: list[tuple[int, int, int]] = []
    starts: list[int] = []
    ends: list[int] = []
    pitches: list[int] = []
    last = 0
    for track in midi.tracks:
        tick = 0
        open_notes: dict[tuple[int, int], list[int]] = {}
        for msg in track:
            tick += msg.time
            kind = msg.type
            if kind == "note_on" and msg.velocity > 0:
                if msg.channel != DRUMS:
                    open_notes.setdefault((msg.channel, msg.note), []).append(tick)
            elif kind == "note_off" or kind == "note_on":
                held = open_notes.get((msg.channel, msg.note))
                if held:
                    starts.append(held.pop(0))
                    ends.append(tick)
                    pitches.append(msg.note)
            elif kind == "time_signature":
                signatures.append((tick, msg.numerator, msg.denominator))
        for (_, note), ticks in open_notes.items():
            for t in ticks:
                starts.append(t)
                ends.append(tick)
                pitches.append(note)
        last = max(last, tick)
    return Music(np.array(starts, np.int64), np.array(ends, np.int64),
                 np.array(pitches, np.int64), _bars(signatures, tpb, max([last, *ends])))


def _bars(signatures: list[tuple[int, int, int]], tpb: int, end: int) -> list[tuple[int, int, int]]:
    """Bars from the time signatures (4/4 until the first), up to ``end``."""
    signatures = sorted(signatures) or [(0, 4, 4)]
    if signatures[0][0] > 0:
        signatures.insert(0, (0, 4, 4))
    bars: list[tuple[int, int, int]] = []
    tick, index = 0, 0
    while tick < end and len(bars) < 100_000:
        while index + 1 < len(signatures) and signatures[index + 1][0] <= tick:
            index += 1
        _, num, den = signatures[index]
        beat = max(1, tpb * 4 // max(den, 1))
        bars.append((tick, max(num, 1), beat))
        tick += max(num, 1) * beat
    return bars


def read_musicxml(text: str) -> Music:
    """A MusicXML score (partwise): its pitched notes, or its ``<harmony>`` symbols where it has
    no notes; the bars are its measures."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise InvalidRequest(f"field 'musicxml' is not readable XML: {exc}",
                             field="musicxml") from None
    if root.tag != "score-partwise":
        raise InvalidRequest("field 'musicxml' must be a partwise MusicXML score "
                             "(<score-partwise>)", field="musicxml")
    tpb = 480
    starts: list[int] = []
    ends: list[int] = []
    pitches: list[int] = []
    bars: list[tuple[int, int, int]] = []
    symbols: list[tuple[int, int, str]] = []
    for part_index, part in enumerate(root.findall("part")):
        divisions, beats, beat_type, tick = 1, 4, 4, 0
        for bar_index, measure in enumerate(part.findall("measure")):
            bar_start, cursor, last_start = tick, tick, tick
            for el in measure:
                if el.tag == "attributes":
                    divisions = int(el.findtext("divisions") or divisions)
                    beats = int(el.findtext("time/beats") or beats)
                    beat_type = int(el.findtext("time/beat-type") or beat_type)
                elif el.tag == "harmony" and part_index == 0:
                    symbol = _harmony_symbol(el)
                    beat = 1 + (cursor - bar_start) // max(1, tpb * 4 // beat_type)
                    if symbol:
                        symbols.append((bar_index, beat, symbol))
                elif el.tag in ("backup", "forward"):
                    shift = int(el.findtext("duration") or 0) * tpb // divisions
                    cursor += -shift if el.tag == "backup" else shift
                elif el.tag == "note":
                    length = int(el.findtext("duration") or 0) * tpb // divisions
                    start = last_start if el.find("chord") is not None else cursor
                    if el.find("pitch") is not None and el.find("grace") is None:
                        starts.append(start)
                        ends.append(start + length)
                        pitches.append(_midi(el.find("pitch")))
                    last_start = start
                    if el.find("chord") is None:
                        cursor = start + length
            beat_ticks = tpb * 4 // beat_type
            length = max(cursor - bar_start, beats * beat_ticks)
            if part_index == 0:
                bars.append((bar_start, beats, beat_ticks))
            tick = bar_start + length
    return Music(np.array(starts, np.int64), np.array(ends, np.int64),
                 np.array(pitches, np.int64), bars, symbols)


def _midi(pitch: ET.Element | None) -> int:
    assert pitch is not None
    step = pitch.findtext("step") or "C"
    alter = round(float(pitch.findtext("alter") or 0))
    octave = int(pitch.findtext("octave") or 4)
    return (octave + 1) * 12 + _STEP_PC.get(step, 0) + alter


def _harmony_symbol(el: ET.Element) -> str | None:
    step = el.findtext("root/root-step")
    kind = (el.findtext("kind") or "").strip()
    if step is None or kind not in KINDS:
        return None
    alter = round(float(el.findtext("root/root-alter") or 0))
    symbol = step + _ALTER.get(alter, "") + KINDS[kind]
    bass = el.findtext("bass/bass-step")
    if bass:
        symbol += "/" + bass + _ALTER.get(round(float(el.findtext("bass/bass-alter") or 0)), "")
    return symbol
